// SPDX-License-Identifier: Apache-2.0
// Sort keys from a text file (sort.input): one 32-bit signed decimal integer
// per line (digits after at most one sign, + or -), blanks (space, tab, CR)
// around it, blank lines skipped. Every problem is a UserError "file:line:
// what" with the line's text as messages show it (sim/error.h shown(): at
// most 64 bytes, then the length; control bytes and bytes that are not UTF-8
// escaped), exit 2. No SystemC here: the libFuzzer harness
// (tests/fuzz/keys_fuzz.cpp) builds this file on its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fg::keys {

// The keys of `text`, a file's content; `name` (the file) starts every
// message. At least one key, at most `max_keys`.
std::vector<std::int32_t> parse(std::string_view text, const std::string& name, std::uint64_t max_keys);

// The keys of the file at `path`, read line by line.
std::vector<std::int32_t> read_file(const std::string& path, std::uint64_t max_keys);

}  // namespace fg::keys

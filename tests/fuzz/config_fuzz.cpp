// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness of the config layer (systemc/sim/config.cpp): YAML config
// files and --set assignments, against a registry with one parameter of every
// kind (the real registry's parameters are the same classes). Properties: no
// crash, hang or leak (libFuzzer, ASan, UBSan), and every rejection is a
// UserError whose message is one line of printable text with a bounded
// length (the error contract's "one clear line").
//
// Input: first byte even -> the rest is a YAML file; odd -> the rest is a list
// of --set assignments, one per line.
//
// Build and run: tools/fuzz.sh (make fuzz); CI runs a short campaign.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config.h"
#include "sim/error.h"

namespace {

using namespace fg;

const Param<std::uint64_t> kU{"gpu.cus", 8, "", "uint with a range", {{1}, {63}}};
const Param<std::uint64_t> kB{"gpu.mem.size", 1ull << 30, "B", "bytes with suffixes", {{1 << 20}, {1ull << 40}}};
const Param<std::uint64_t> kSeed{"sim.seed", 1, "", "full 64-bit range"};
const Param<std::int64_t> kI{"test.offset", 0, "", "signed", {{-1000}, {1000}}};
const Param<double> kD{"sim.quantum", 20.0, "ns", "real with a range", {{0.001}, {1e6}}};
const Param<bool> kBool{"trace.on", false, "", "bool"};
const Param<std::string> kS{"bfs.input", "", "", "string"};
const Param<std::string> kE{"memstream.pattern", "read", {"read", "reuse", "random", "copy", "cas"}, "enum"};
const Param<std::uint64_t> kDeep{"gpu.l2.bank.mshr.entries", 8, "", "a deep name", {{1}, {64}}};

void check_message(const std::string& m) {
  if (m.size() > 4096) {
    std::fprintf(stderr, "message longer than 4096 bytes (%zu)\n", m.size());
    std::abort();
  }
  for (std::size_t i = 0; i < m.size();) {
    const std::size_t n = printable_utf8(m, i);
    if (n == 0) {
      std::fprintf(stderr, "control byte or byte that is not UTF-8 (0x%02x) in message: %s\n",
                   static_cast<unsigned char>(m[i]), shown(m, 300).c_str());
      std::abort();
    }
    i += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool yaml = (data[0] & 1) == 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  Config cfg;
  try {
    if (yaml) {
      cfg.apply_yaml(text, "fuzz.yaml");
    } else {
      std::size_t start = 0;
      while (start <= text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        cfg.apply_assignment(text.substr(start, nl - start));
        start = nl + 1;
      }
    }
    (void)cfg.to_json();
  } catch (const UserError& e) {
    check_message(e.what());
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Output files that are never silently lost or half-written.
//
// An OutputFile writes to a temporary file beside its target and renames it
// over the target only on commit(), after checking every write: the target is
// neither created nor truncated before the run has produced its content, a
// run that fails before commit() leaves an earlier file in place, and a write
// error (a full disk) is a UserError naming the option and the file. A target
// that exists and is not a regular file (a device such as /dev/null or
// /dev/full, a pipe) is written directly; its errors are still checked.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace fg {

class OutputFile {
 public:
  // `option` names the file's origin in messages, e.g. "--stats".
  OutputFile(std::string path, std::string option);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, checks, closes and renames over the target; throws UserError
  // ("--stats out.json: write failed (No space left on device)").
  void commit();
  // Drops what was written (the target is left as it was).
  void discard();
  const std::string& path() const { return path_; }

 private:
  // A buffer over a POSIX file descriptor that keeps the first write error.
  class FdBuf : public std::streambuf {
   public:
    explicit FdBuf(int fd);
    ~FdBuf() override;
    int error() const { return err_; }
    int close();  // flushes and closes; returns the first error (0 if none)

   protected:
    int overflow(int c) override;
    int sync() override;

   private:
    bool drain();
    int fd_;
    int err_ = 0;
    char buf_[1 << 16];
  };

  std::string path_, option_, tmp_;  // tmp_ empty: writing the target directly
  std::unique_ptr<FdBuf> buf_;
  std::ostream out_{nullptr};
  bool open_ = false;
};

// Removes the temporary files of every OutputFile still open (neither
// committed nor discarded), for a process about to end without unwinding
// (the stall watchdog, top/simulation.cpp): the targets stay as they were.
// Safe from any thread; skips the removal if another thread is opening or
// closing an OutputFile at that moment.
void remove_open_temp_files() noexcept;

// Whether two output paths name the same file (the same path, or an existing
// file reached through different paths).
bool same_file(const std::string& a, const std::string& b);

}  // namespace fg

// SPDX-License-Identifier: Apache-2.0
#include "sim/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg {

namespace fs = std::filesystem;

namespace {
// The temporary files of the OutputFiles open now (remove_open_temp_files).
std::mutex g_temps_mutex;
std::set<std::string>& open_temps() {
  static std::set<std::string> temps;
  return temps;
}
void forget_temp(const std::string& tmp) {
  if (tmp.empty()) return;
  const std::lock_guard<std::mutex> lock(g_temps_mutex);
  open_temps().erase(tmp);
}
}  // namespace

void remove_open_temp_files() noexcept {
  std::unique_lock<std::mutex> lock(g_temps_mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  for (const std::string& t : open_temps()) ::unlink(t.c_str());
  open_temps().clear();
}

OutputFile::FdBuf::FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }

OutputFile::FdBuf::~FdBuf() {
  if (fd_ >= 0) ::close(fd_);
}

bool OutputFile::FdBuf::drain() {
  const char* p = pbase();
  while (p < pptr()) {
    const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!err_) err_ = n < 0 ? errno : EIO;
      setp(buf_, buf_ + sizeof buf_);
      return false;
    }
    p += n;
  }
  setp(buf_, buf_ + sizeof buf_);
  return true;
}

int OutputFile::FdBuf::overflow(int c) {
  if (!drain()) return traits_type::eof();
  if (c != traits_type::eof()) {
    *pptr() = static_cast<char>(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int OutputFile::FdBuf::sync() { return drain() ? 0 : -1; }

int OutputFile::FdBuf::close() {
  drain();
  if (fd_ >= 0) {
    if (::close(fd_) != 0 && !err_) err_ = errno;
    fd_ = -1;
  }
  return err_;
}

OutputFile::OutputFile(std::string path, std::string option) : path_(std::move(path)), option_(std::move(option)) {
  std::error_code ec;
  const auto st = fs::status(path_, ec);
  if (!ec && fs::exists(st) && fs::is_directory(st))
    throw UserError(fmt::format("{} {}: is a directory", option_, shown(path_)));
  const bool direct = !ec && fs::exists(st) && !fs::is_regular_file(st);
  if (!direct) tmp_ = fmt::format("{}.fgsim-tmp-{}", path_, static_cast<long>(::getpid()));
  const int fd = ::open(direct ? path_.c_str() : tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int e = errno;
    // A new file fails as the target would, but for a name only the
    // temporary file's suffix makes too long.
    if (direct || ((ec || !fs::exists(st)) && e != ENAMETOOLONG))
      throw UserError(fmt::format("{} {}: cannot write ({})", option_, shown(path_), std::strerror(e)));
    // The target exists: the file that failed is the temporary one beside it
    // (its directory may refuse new files, as /proc does, where the target
    // is a regular file).
    throw UserError(fmt::format("{} {}: cannot write the temporary file {} beside it ({})", option_, shown(path_),
                                shown(tmp_), std::strerror(e)));
  }
  buf_ = std::make_unique<FdBuf>(fd);
  out_.rdbuf(buf_.get());
  open_ = true;
  if (!tmp_.empty()) {
    const std::lock_guard<std::mutex> lock(g_temps_mutex);
    open_temps().insert(tmp_);
  }
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::commit() {
  if (!open_) return;
  out_.flush();
  const int e = buf_->close();
  open_ = false;
  forget_temp(tmp_);
  if (e) {
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw UserError(fmt::format("{} {}: write failed ({})", option_, shown(path_), std::strerror(e)));
  }
  if (!tmp_.empty()) {
    std::error_code ec;
    fs::rename(tmp_, path_, ec);
    if (ec) {
      std::remove(tmp_.c_str());
      throw UserError(fmt::format("{} {}: cannot replace the file ({})", option_, shown(path_), ec.message()));
    }
  }
}

void OutputFile::discard() {
  if (!open_) return;
  buf_->close();
  open_ = false;
  forget_temp(tmp_);
  if (!tmp_.empty()) std::remove(tmp_.c_str());
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  if (fs::exists(a, ec1) && fs::exists(b, ec2)) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;
  }
  std::error_code ec;
  const auto ca = fs::weakly_canonical(fs::absolute(a), ec);
  const auto cb = fs::weakly_canonical(fs::absolute(b), ec);
  return ca == cb;
}

}  // namespace fg

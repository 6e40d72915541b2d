#include "base/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <streambuf>

#include "base/strings.h"

namespace ampscope {

namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// An unbuffered-by-the-OS byte sink over a file descriptor with a 64 KiB buffer, that keeps the
// first write error (errno) instead of losing it inside an ostream's failbit.
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd), buf_(new char[kBufferBytes]) { setp(buf_.get(), buf_.get() + kBufferBytes); }
  int error() const { return error_; }
  bool Flush() {
    const bool ok = WriteAll(pbase(), static_cast<size_t>(pptr() - pbase()));
    setp(buf_.get(), buf_.get() + kBufferBytes);
    return ok;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!Flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n >= static_cast<std::streamsize>(kBufferBytes)) {  // large pieces skip the buffer
      if (!Flush() || !WriteAll(s, static_cast<size_t>(n))) return 0;
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }
  int sync() override { return Flush() ? 0 : -1; }

 private:
  static constexpr size_t kBufferBytes = size_t{64} << 10;
  bool WriteAll(const char* p, size_t n) {
    if (error_ != 0) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      if (w == 0) {  // not expected from write(2); treat as a full device rather than loop
        error_ = ENOSPC;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  int fd_;
  std::unique_ptr<char[]> buf_;
  int error_ = 0;
};

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a descriptor this process
// already has: write to that descriptor (keeping its offset and O_APPEND), whatever it is.
int FdAlias(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (!StartsWith(path, prefix)) continue;
    std::string_view digits = std::string_view(path).substr(prefix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return -1;
    int fd = 0;
    for (char c : digits) fd = fd * 10 + (c - '0');  // at most 9 digits: fits an int
    return fd;
  }
  return -1;
}

enum class Target : uint8_t { kRegular, kSpecial, kFdAlias };

// What is at `path`, or an error for what must not be written.
StatusOr<Target> Inspect(const std::string& path) {
  if (path.empty()) return Status::Error("an output path is empty");
  if (FdAlias(path) >= 0) return Target::kFdAlias;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return Target::kRegular;  // missing (or unreachable: open says why)
  if (S_ISLNK(st.st_mode)) {
    struct stat target;
    if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode))
      return Target::kSpecial;  // a link to a device or FIFO: written in place through the link
    return Status::Error(path + ": is a symbolic link; refusing to replace it or write through it (name its target instead)");
  }
  if (S_ISDIR(st.st_mode)) return Status::Error(path + ": is a directory");
  if (S_ISREG(st.st_mode)) return Target::kRegular;
  return Target::kSpecial;  // character/block device, FIFO, socket
}

std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + base + ".ampscope-tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// Runs the writer into fd, then checks the bytes reached the file.
Status WriteToFd(int fd, const std::string& path, const OutputWriterFn& write) {
  FdStreambuf buf(fd);
  std::ostream out(&buf);
  Status st = write(out);
  // A writer that noticed its stream failing reports that; the cause (with the path) is better.
  if (!st.ok() && buf.error() == 0) return st;
  out.flush();
  if (buf.error() != 0) return Status::Error(path + ": write failed: " + ErrnoText(buf.error()));
  if (!out) return Status::Error(path + ": write failed");
  return Status::Ok();
}

struct Pending {
  const OutputSpec* spec;
  Target target;
  std::string temp;  // kRegular only
};

void RemoveTemps(const std::vector<Pending>& pending) {
  for (const Pending& p : pending)
    if (!p.temp.empty()) ::unlink(p.temp.c_str());
}

Status WriteRegularTemp(Pending& p) {
  p.temp = TempPathFor(p.spec->path);
  const int fd = ::open(p.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    p.temp.clear();
    return Status::Error(p.spec->path + ": cannot write: " + ErrnoText(err));
  }
  Status st = WriteToFd(fd, p.spec->path, p.spec->write);
  if (::close(fd) != 0 && st.ok()) st = Status::Error(p.spec->path + ": write failed: " + ErrnoText(errno));
  return st;
}

Status WriteSpecial(const Pending& p) {
  const std::string& path = p.spec->path;
  int fd = -1;
  if (p.target == Target::kFdAlias) {
    fd = ::fcntl(FdAlias(path), F_DUPFD_CLOEXEC, 0);
  } else {
    do {
      fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
  }
  if (fd < 0) return Status::Error(path + ": cannot write: " + ErrnoText(errno));
  Status st = WriteToFd(fd, path, p.spec->write);
  if (::close(fd) != 0 && st.ok() && errno != EINTR) st = Status::Error(path + ": write failed: " + ErrnoText(errno));
  return st;
}

struct FileId {
  bool exists = false;
  bool char_device = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string normal;  // absolute, normalised, symlinks of existing parents resolved
};

FileId Identify(const std::string& path) {
  FileId id;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.char_device = S_ISCHR(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) p = std::filesystem::path(path).lexically_normal();
  id.normal = p.lexically_normal().string();
  return id;
}

bool SameFile(const FileId& a, const FileId& b) {
  if (a.exists && b.exists) return a.dev == b.dev && a.ino == b.ino;
  return a.normal == b.normal;
}

}  // namespace

OutputSpec TextOutput(std::string path, std::string contents) {
  auto text = std::make_shared<std::string>(std::move(contents));
  return OutputSpec{std::move(path), [text](std::ostream& out) {
                      out.write(text->data(), static_cast<std::streamsize>(text->size()));
                      return Status::Ok();
                    }};
}

Status WriteOutputs(const std::vector<OutputSpec>& outputs) {
  // 1. Look at every target first: a refused one means nothing is written at all.
  std::vector<Pending> pending;
  pending.reserve(outputs.size());
  for (const OutputSpec& spec : outputs) {
    StatusOr<Target> target = Inspect(spec.path);
    if (!target.ok()) return target.status();
    pending.push_back({&spec, *target, {}});
  }
  // 2. Regular files into temporaries, 3. then special files in place: a failure in either
  // leaves no regular output of the set behind.
  for (Pending& p : pending) {
    if (p.target != Target::kRegular) continue;
    Status st = WriteRegularTemp(p);
    if (!st.ok()) {
      RemoveTemps(pending);
      return st;
    }
  }
  for (const Pending& p : pending) {
    if (p.target == Target::kRegular) continue;
    Status st = WriteSpecial(p);
    if (!st.ok()) {
      RemoveTemps(pending);
      return st;
    }
  }
  // 4. Rename into place. A rename fails only in odd cases (the directory became read-only):
  // outputs already renamed are removed again, so the set is still all or nothing.
  for (size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    if (p.target != Target::kRegular) continue;
    if (::rename(p.temp.c_str(), p.spec->path.c_str()) != 0) {
      const int err = errno;
      for (size_t k = 0; k < i; ++k)
        if (pending[k].target == Target::kRegular) ::unlink(pending[k].spec->path.c_str());
      for (size_t k = i; k < pending.size(); ++k)
        if (!pending[k].temp.empty()) ::unlink(pending[k].temp.c_str());
      return Status::Error(p.spec->path + ": cannot rename into place: " + ErrnoText(err));
    }
    p.temp.clear();
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  std::vector<OutputSpec> one;
  one.push_back({path, [contents](std::ostream& out) {
                   out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
                   return Status::Ok();
                 }});
  return WriteOutputs(one);
}

Status CheckOutputPaths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  std::vector<FileId> in_ids, out_ids;
  for (const std::string& p : inputs) in_ids.push_back(p.empty() ? FileId{} : Identify(p));
  for (const std::string& p : outputs) out_ids.push_back(p.empty() ? FileId{} : Identify(p));
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].empty() || out_ids[o].char_device) continue;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i].empty() && SameFile(out_ids[o], in_ids[i]))
        return Status::Error(outputs[o] + ": is also an input (" + inputs[i] + "); refusing to overwrite it");
    for (size_t k = 0; k < o; ++k)
      if (!outputs[k].empty() && SameFile(out_ids[o], out_ids[k]))
        return Status::Error(outputs[o] + ": is given for two outputs" +
                             (outputs[k] != outputs[o] ? " (also as " + outputs[k] + ")" : std::string()));
  }
  return Status::Ok();
}

}  // namespace ampscope

namespace ampscope {

Status CheckDistinctInputs(const std::vector<std::string>& inputs) {
  std::vector<FileId> ids;
  for (const std::string& p : inputs) ids.push_back(Identify(p));
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (SameFile(ids[i], ids[k]))
        return Status::Error(inputs[i] + ": is given twice" +
                             (inputs[i] != inputs[k] ? " (also as " + inputs[k] + ")" : std::string()) +
                             "; each input is one rank of the job");
  return Status::Ok();
}

}  // namespace ampscope

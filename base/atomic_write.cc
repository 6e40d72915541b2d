#include "base/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <thread>

#include "base/strings.h"
#include "base/temp_files.h"

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

// What is at an output's path before the set is written.
struct Found {
  Target target = Target::kRegular;
  bool exists = false;  // kRegular: a file is there now (its mode is kept)
  bool fifo = false;    // kSpecial: a FIFO (its reader is waited for)
  mode_t mode = 0;
};

// What is at `path`, or an error for what must not be written.
StatusOr<Found> Inspect(const std::string& path) {
  Found found;
  if (path.empty()) return Status::Error("an output path is empty");
  if (FdAlias(path) >= 0) {
    found.target = Target::kFdAlias;
    return found;
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return found;  // missing (or unreachable: open says why)
  if (S_ISLNK(st.st_mode)) {
    struct stat target;
    if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode)) {
      found.target = Target::kSpecial;  // a link to a device or FIFO: written in place through the link
      found.fifo = S_ISFIFO(target.st_mode);
      return found;
    }
    return Status::Error(path + ": is a symbolic link; refusing to replace it or write through it (name its target instead)");
  }
  if (S_ISDIR(st.st_mode)) return Status::Error(path + ": is a directory");
  if (S_ISREG(st.st_mode)) {
    found.exists = true;
    found.mode = st.st_mode & 07777;
    return found;
  }
  found.target = Target::kSpecial;  // character/block device, FIFO, socket
  found.fifo = S_ISFIFO(st.st_mode);
  return found;
}

// A hidden name beside `path`: ".<name>.ampscope-<kind>.<pid>.<n>".
std::string HiddenPathFor(const std::string& path, const char* kind) {
  static std::atomic<uint64_t> counter{0};
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + base + ".ampscope-" + kind + "." + std::to_string(::getpid()) + "." + std::to_string(counter++);
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

enum class Kept : uint8_t { kNone, kLinked, kMovedAside };

struct Pending {
  const OutputSpec* spec;
  Found found;
  std::string temp;    // kRegular: where it is written
  size_t temp_slot = 0;  // its index in the TempFileSet
  std::string backup;  // kRegular that existed: the old file, kept until the set is committed
  Kept kept = Kept::kNone;
};

void RemoveTemps(std::vector<Pending>& pending, TempFileSet& temps) {
  for (Pending& p : pending) {
    if (p.temp.empty()) continue;
    ::unlink(p.temp.c_str());
    temps.Forget(p.temp_slot);
  }
}

Status WriteRegularTemp(Pending& p, TempFileSet& temps) {
  const int fd = ::open(p.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    temps.Forget(p.temp_slot);  // not ours (EEXIST) or not there: never removed
    p.temp.clear();
    return Status::Error(p.spec->path + ": cannot write: " + ErrnoText(err));
  }
  // The file it replaces keeps its permissions (a private report stays private).
  if (p.found.exists && ::fchmod(fd, p.found.mode) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::Error(p.spec->path + ": cannot keep its mode: " + ErrnoText(err));
  }
  Status st = WriteToFd(fd, p.spec->path, p.spec->write);
  if (::close(fd) != 0 && st.ok()) st = Status::Error(p.spec->path + ": write failed: " + ErrnoText(errno));
  return st;
}

// A FIFO is opened without blocking: with no reader that fails (ENXIO), and is tried again
// until one comes or `wait_ms` has passed.
StatusOr<int> OpenFifo(const std::string& path, int wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, wait_ms));
  while (true) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // a reader is there: write normally
      return fd;
    }
    if (errno == EINTR) continue;
    if (errno != ENXIO) return Status::Error(path + ": cannot write: " + ErrnoText(errno));
    if (std::chrono::steady_clock::now() >= deadline) {
      char waited[32];
      std::snprintf(waited, sizeof(waited), "%.1f", wait_ms / 1000.0);
      return Status::Error(path + ": no process is reading this FIFO (waited " + waited +
                           " s); start its reader first, or name a file");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status WriteSpecial(const Pending& p, const WriteOptions& options) {
  const std::string& path = p.spec->path;
  int fd = -1;
  if (p.found.target == Target::kFdAlias) {
    fd = ::fcntl(FdAlias(path), F_DUPFD_CLOEXEC, 0);
  } else if (p.found.fifo) {
    StatusOr<int> opened = OpenFifo(path, options.fifo_wait_ms);
    if (!opened.ok()) return opened.status();
    fd = *opened;
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

// Puts back the old file kept for `p` (the new one, if renamed into place, is replaced by it)
// or, for a path that had none, removes what the commit put there when `renamed`.
void Restore(const Pending& p, bool renamed) {
  switch (p.kept) {
    case Kept::kLinked:
      if (renamed) ::rename(p.backup.c_str(), p.spec->path.c_str());
      else ::unlink(p.backup.c_str());
      break;
    case Kept::kMovedAside: ::rename(p.backup.c_str(), p.spec->path.c_str()); break;
    case Kept::kNone:
      if (renamed) ::unlink(p.spec->path.c_str());
      break;
  }
}

// Keeps each file about to be replaced under a hidden name beside it: a hard link, or the file
// itself moved aside where links are refused. Fails (having undone its own work) when a file
// can be neither linked nor moved: it could not be replaced either.
Status KeepOldFiles(std::vector<Pending>& pending) {
  for (size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    if (p.found.target != Target::kRegular || !p.found.exists) continue;
    int linked = -1;
    for (int attempt = 0; attempt < 4 && linked != 0; ++attempt) {  // a name already taken: the next one
      p.backup = HiddenPathFor(p.spec->path, "old");
      linked = ::link(p.spec->path.c_str(), p.backup.c_str());
      if (linked != 0 && errno != EEXIST) break;
    }
    if (linked == 0) {
      p.kept = Kept::kLinked;
      continue;
    }
    if (errno == EEXIST) {  // never moved aside over a file that is there
      p.backup.clear();
      for (size_t k = 0; k < i; ++k) Restore(pending[k], /*renamed=*/false);
      return Status::Error(p.spec->path + ": cannot keep the old file aside: " + ErrnoText(EEXIST));
    }
    if (errno == ENOENT) {  // gone since it was looked at: nothing to keep
      p.backup.clear();
      continue;
    }
    if (::rename(p.spec->path.c_str(), p.backup.c_str()) == 0) {
      p.kept = Kept::kMovedAside;
      continue;
    }
    const int err = errno;
    p.backup.clear();
    for (size_t k = 0; k < i; ++k) Restore(pending[k], /*renamed=*/false);
    return Status::Error(p.spec->path + ": cannot replace: " + ErrnoText(err));
  }
  return Status::Ok();
}

// Renames every temporary into place, or puts every file back as it was.
Status Commit(std::vector<Pending>& pending, TempFileSet& temps) {
  if (Status kept = KeepOldFiles(pending); !kept.ok()) {
    RemoveTemps(pending, temps);
    return kept;
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    if (p.found.target != Target::kRegular) continue;
    if (::rename(p.temp.c_str(), p.spec->path.c_str()) != 0) {
      const int err = errno;
      for (size_t k = 0; k < pending.size(); ++k)
        if (pending[k].found.target == Target::kRegular) Restore(pending[k], /*renamed=*/k < i);
      RemoveTemps(pending, temps);
      return Status::Error(p.spec->path + ": cannot rename into place: " + ErrnoText(err));
    }
    temps.Forget(p.temp_slot);
    p.temp.clear();
  }
  for (const Pending& p : pending)
    if (p.kept != Kept::kNone) ::unlink(p.backup.c_str());  // the old file (a link to it, or itself), replaced
  return Status::Ok();
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

// An output's directory must exist and take new files: said before any work is done, not
// after the analysis when the temporaries are created.
Status CheckOutputDirectory(const std::string& path) {
  if (FdAlias(path) >= 0) return Status::Ok();
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode))
    return Status::Ok();  // a device, FIFO or socket: written in place
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0)
    return Status::Error(path + ": cannot write into " + dir + ": " + ErrnoText(errno));
  if (!S_ISDIR(st.st_mode)) return Status::Error(path + ": cannot write into " + dir + ": Not a directory");
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    return Status::Error(path + ": cannot write into " + dir + ": " + ErrnoText(errno));
  return Status::Ok();
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

Status WriteOutputs(const std::vector<OutputSpec>& outputs, const WriteOptions& options) {
  // 1. Look at every target first: a refused one means nothing is written at all.
  std::vector<Pending> pending;
  pending.reserve(outputs.size());
  std::vector<std::string> temp_paths;
  for (const OutputSpec& spec : outputs) {
    StatusOr<Found> found = Inspect(spec.path);
    if (!found.ok()) return found.status();
    Pending p{&spec, *found, {}, 0, {}, Kept::kNone};
    if (p.found.target == Target::kRegular) {
      p.temp = HiddenPathFor(spec.path, "tmp");
      p.temp_slot = temp_paths.size();
      temp_paths.push_back(p.temp);
    }
    pending.push_back(std::move(p));
  }
  // Every temporary is named before the first is created: a signal removes them.
  TempFileSet temps(temp_paths);
  // 2. Regular files into temporaries, 3. then special files in place: a failure in either
  // leaves no regular output of the set behind.
  for (Pending& p : pending) {
    if (p.found.target != Target::kRegular) continue;
    Status st = WriteRegularTemp(p, temps);
    if (!st.ok()) {
      RemoveTemps(pending, temps);
      return st;
    }
  }
  for (const Pending& p : pending) {
    if (p.found.target == Target::kRegular) continue;
    Status st = WriteSpecial(p, options);
    if (!st.ok()) {
      RemoveTemps(pending, temps);
      return st;
    }
  }
  // 4. Into place, all or nothing, with the three signals held until it is done.
  temps.BeginCommit();
  Status committed = Commit(pending, temps);
  temps.EndCommit();
  return committed;
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
  for (const std::string& o : outputs)
    if (!o.empty()) AMPSCOPE_RETURN_IF_ERROR(CheckOutputDirectory(o));
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

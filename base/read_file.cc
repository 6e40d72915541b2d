#include "base/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ampscope {

StatusOr<std::string> ReadFileCapped(const std::string& path, std::string_view what, uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot read: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::Error(path + ": cannot read: Is a directory");
  }
  std::string text;
  if (S_ISREG(st.st_mode) && st.st_size > 0 && static_cast<uint64_t>(st.st_size) <= max_bytes)
    text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return Status::Error(path + ": byte " + std::to_string(text.size()) + ": read error: " + std::strerror(err));
    }
    if (text.size() + static_cast<uint64_t>(n) > max_bytes) {
      ::close(fd);
      const std::string limit = max_bytes % (uint64_t{1} << 20) == 0 ? std::to_string(max_bytes >> 20) + " MiB"
                                                                       : std::to_string(max_bytes) + " bytes";
      return Status::Error(path + ": byte " + std::to_string(max_bytes) + ": over " + limit + ": not " +
                           std::string(what));
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace ampscope

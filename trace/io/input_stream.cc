#include "trace/io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace ampscope {
namespace {

// An open file descriptor, shared by a file's sources and closed with the last of them.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { ::close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads a file front to back: with read() (pipes and FIFOs work too), or, for a source made by
// Reopen or OpenAt, with pread() from an offset of its own (the sources share the descriptor,
// and pread leaves its file offset alone).
class FileSource final : public ByteSource {
 public:
  FileSource(std::shared_ptr<const Descriptor> fd, uint64_t size, bool positional = false, uint64_t offset = 0)
      : fd_(std::move(fd)), size_(size), positional_(positional), done_(offset) {}

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    while (true) {
      ssize_t n = positional_ ? ::pread(fd_->get(), dst, capacity, static_cast<off_t>(done_))
                              : ::read(fd_->get(), dst, capacity);
      if (n >= 0) {
        done_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno == EINTR) continue;
      return Status::Error("byte " + std::to_string(done_) + ": read error: " + std::strerror(errno));
    }
  }
  uint64_t raw_bytes_done() const override { return done_; }
  uint64_t raw_bytes_total() const override { return size_; }
  std::unique_ptr<ByteSource> Reopen() const override { return OpenAt(0); }
  std::unique_ptr<ByteSource> OpenAt(uint64_t offset) const override {
    if (::lseek(fd_->get(), 0, SEEK_CUR) < 0) return nullptr;  // a pipe: its bytes are gone
    return std::make_unique<FileSource>(fd_, size_, /*positional=*/true, offset);
  }

 private:
  std::shared_ptr<const Descriptor> fd_;
  uint64_t size_;
  bool positional_;
  uint64_t done_;
};

// A stream's first bytes (already read to tell the format), then the stream itself.
class StreamSource final : public ByteSource {
 public:
  StreamSource(int fd, std::string prefix) : fd_(fd), prefix_(std::move(prefix)) {}
  ~StreamSource() override { ::close(fd_); }
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (prefix_pos_ < prefix_.size()) {
      const size_t n = std::min(capacity, prefix_.size() - prefix_pos_);
      std::memcpy(dst, prefix_.data() + prefix_pos_, n);
      prefix_pos_ += n;
      done_ += n;
      if (prefix_pos_ == prefix_.size()) {  // handed out: free it
        std::string().swap(prefix_);
        prefix_pos_ = 0;
        // The rest of this buffer from the stream, as a file's first read would give it: a
        // decoder never sees its header cut at the sniffed prefix (a gzip header with a file
        // name is longer than it).
        if (n < capacity) {
          StatusOr<size_t> more = Read(dst + n, capacity - n);
          if (!more.ok()) return more.status();
          return n + *more;
        }
      }
      return n;
    }
    while (true) {
      const ssize_t n = ::read(fd_, dst, capacity);
      if (n >= 0) {
        done_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno == EINTR) continue;
      return Status::Error("byte " + std::to_string(done_) + ": read error: " + std::strerror(errno));
    }
  }
  uint64_t raw_bytes_done() const override { return done_; }
  uint64_t raw_bytes_total() const override { return 0; }  // a stream's size is not known
  const std::string& prefix() const { return prefix_; }

 private:
  int fd_;
  std::string prefix_;
  size_t prefix_pos_ = 0;
  uint64_t done_ = 0;
};

class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string_view data) : data_(data) {}
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    size_t n = std::min(capacity, data_.size() - pos_);
    if (n > 0) std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_done() const override { return pos_; }
  uint64_t raw_bytes_total() const override { return data_.size(); }
  std::unique_ptr<ByteSource> Reopen() const override { return OpenAt(0); }
  std::unique_ptr<ByteSource> OpenAt(uint64_t offset) const override {
    auto again = std::make_unique<StringSource>(data_);
    again->pos_ = static_cast<size_t>(std::min<uint64_t>(offset, data_.size()));
    return again;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

class ChunkLimitedSource final : public ByteSource {
 public:
  ChunkLimitedSource(std::unique_ptr<ByteSource> inner, size_t max_chunk)
      : inner_(std::move(inner)), max_chunk_(std::max<size_t>(1, max_chunk)) {}
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    return inner_->Read(dst, std::min(capacity, max_chunk_));
  }
  uint64_t raw_bytes_done() const override { return inner_->raw_bytes_done(); }
  uint64_t raw_bytes_total() const override { return inner_->raw_bytes_total(); }
  bool compressed() const override { return inner_->compressed(); }
  std::unique_ptr<ByteSource> Reopen() const override {
    std::unique_ptr<ByteSource> again = inner_->Reopen();
    return again ? std::make_unique<ChunkLimitedSource>(std::move(again), max_chunk_) : nullptr;
  }
  std::unique_ptr<ByteSource> OpenAt(uint64_t offset) const override {
    std::unique_ptr<ByteSource> again = inner_->OpenAt(offset);
    return again ? std::make_unique<ChunkLimitedSource>(std::move(again), max_chunk_) : nullptr;
  }

 private:
  std::unique_ptr<ByteSource> inner_;
  size_t max_chunk_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) { return OpenByteSource(path, GzipDecoder::kDefault); }

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path, GzipDecoder decoder) {
  int fd = path == "-" ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(std::string("byte 0: cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::Error(std::string("byte 0: cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::Error("byte 0: is a directory, not a trace file");
  }
  if (!S_ISREG(st.st_mode)) {
    // A pipe, FIFO or terminal: its first bytes can be read once only, so the gzip magic is
    // read from the stream itself and handed on (reopening the path would lose them).
    StatusOr<std::string> head = ReadStreamPrefix(fd, 2);
    if (!head.ok()) {
      ::close(fd);
      return head.status();
    }
    auto stream = std::make_unique<StreamSource>(fd, std::move(*head));
    if (StartsWithGzipMagic(stream->prefix().data(), stream->prefix().size()))
      return MakeGzipByteSource(std::move(stream), decoder);
    return std::unique_ptr<ByteSource>(std::move(stream));
  }
  unsigned char magic[2] = {0, 0};
  ssize_t got = ::pread(fd, magic, sizeof(magic), 0);
  auto file = std::make_unique<FileSource>(std::make_shared<const Descriptor>(fd), static_cast<uint64_t>(st.st_size));
  if (got == 2 && StartsWithGzipMagic(magic, 2)) return MakeGzipByteSource(std::move(file), decoder);
  return std::unique_ptr<ByteSource>(std::move(file));
}

std::unique_ptr<ByteSource> MakeStreamByteSource(int fd, std::string prefix) {
  const bool gzip = StartsWithGzipMagic(prefix.data(), prefix.size());
  auto source = std::make_unique<StreamSource>(fd, std::move(prefix));
  if (gzip) return MakeGzipByteSource(std::move(source), GzipDecoder::kDefault);
  return source;
}

StatusOr<std::string> ReadStreamPrefix(int fd, size_t n) {
  std::string prefix(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, prefix.data() + got, n - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::Error("byte " + std::to_string(got) + ": read error: " + std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
  prefix.resize(got);
  return prefix;
}

std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data) {
  return MakeStringByteSource(data, GzipDecoder::kDefault);
}

std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data, GzipDecoder decoder) {
  auto source = std::make_unique<StringSource>(data);
  if (StartsWithGzipMagic(data.data(), data.size())) return MakeGzipByteSource(std::move(source), decoder);
  return source;
}

std::unique_ptr<ByteSource> MakeChunkLimitedByteSource(std::unique_ptr<ByteSource> inner, size_t max_chunk) {
  return std::make_unique<ChunkLimitedSource>(std::move(inner), max_chunk);
}

}  // namespace ampscope

#include "trace/io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ampscope {
namespace {

constexpr unsigned char kGzipMagic0 = 0x1f;
constexpr unsigned char kGzipMagic1 = 0x8b;
// Compressed bytes read from the inner source per refill of the inflater.
constexpr size_t kGzipInputChunk = 256 * 1024;

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    while (true) {
      ssize_t n = ::read(fd_, dst, capacity);
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

 private:
  int fd_;
  uint64_t size_;
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

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Inflates a gzip stream (possibly several concatenated members) read from `inner`.
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)), in_(kGzipInputChunk) {
    std::memset(&zs_, 0, sizeof(zs_));
    // 16 + MAX_WBITS: gzip framing only (we got here because of the gzip magic).
    init_ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipSource() override {
    if (init_ok_) inflateEnd(&zs_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (!init_ok_) return Status::Error("byte 0: cannot initialise zlib");
    if (finished_ || capacity == 0) return size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0 && !inner_eof_) AMPSCOPE_RETURN_IF_ERROR(RefillInput());
      if (zs_.avail_in == 0 && inner_eof_) {
        if (member_done_) {
          finished_ = true;
          break;
        }
        // The compressed data stopped before the gzip end-of-stream marker.
        return Error("truncated gzip: the compressed stream ends before its end marker");
      }
      if (member_done_) {
        // Another gzip member may follow (`cat a.gz b.gz` is a valid gzip file).
        if (zs_.avail_in < 2 && !inner_eof_) {
          AMPSCOPE_RETURN_IF_ERROR(RefillInput());
          continue;
        }
        if (!StartsWithGzipMagic()) return Error("unexpected data after the end of the gzip stream");
        inflateReset(&zs_);
        member_done_ = false;
      }
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done_ = true;
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input; the loop refills or detects truncation
      if (rc != Z_OK) {
        std::string why = zs_.msg ? zs_.msg : ("zlib error " + std::to_string(rc));
        return Error("corrupt gzip data (" + why + ")");
      }
    }
    size_t produced = static_cast<size_t>(reinterpret_cast<char*>(zs_.next_out) - dst);
    return produced;
  }
  uint64_t raw_bytes_done() const override { return inner_->raw_bytes_done(); }
  uint64_t raw_bytes_total() const override { return inner_->raw_bytes_total(); }
  bool compressed() const override { return true; }

 private:
  Status RefillInput() {
    // Unread bytes (at most one, when probing for the next member's magic) move to the front.
    size_t keep = zs_.avail_in;
    if (in_base_ != nullptr) consumed_before_ += static_cast<uint64_t>(zs_.next_in - in_base_);
    if (keep > 0) std::memmove(in_.data(), zs_.next_in, keep);
    in_base_ = reinterpret_cast<Bytef*>(in_.data());
    zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
    zs_.avail_in = static_cast<uInt>(keep);
    StatusOr<size_t> n = inner_->Read(in_.data() + keep, in_.size() - keep);
    if (!n.ok()) return n.status();
    if (*n == 0) inner_eof_ = true;
    zs_.avail_in = static_cast<uInt>(keep + *n);
    return Status::Ok();
  }
  bool StartsWithGzipMagic() const {
    return zs_.avail_in >= 2 && zs_.next_in[0] == kGzipMagic0 && zs_.next_in[1] == kGzipMagic1;
  }
  // Offsets in gzip errors count compressed bytes: that is where the damage is.
  Status Error(const std::string& what) const {
    uint64_t offset = consumed_before_ + static_cast<uint64_t>(zs_.next_in ? zs_.next_in - in_base_ : 0);
    return Status::Error("byte " + std::to_string(offset) + " (compressed): " + what);
  }

  std::unique_ptr<ByteSource> inner_;
  std::vector<char> in_;
  z_stream zs_;
  const Bytef* in_base_ = nullptr;  // start of in_ as seen by zlib
  uint64_t consumed_before_ = 0;    // compressed offset of in_base_
  bool init_ok_ = false;
  bool inner_eof_ = false;
  bool member_done_ = false;
  bool finished_ = false;
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

 private:
  std::unique_ptr<ByteSource> inner_;
  size_t max_chunk_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
  unsigned char magic[2] = {0, 0};
  ssize_t got = ::pread(fd, magic, sizeof(magic), 0);
  auto file = std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size));
  if (got == 2 && magic[0] == kGzipMagic0 && magic[1] == kGzipMagic1)
    return std::unique_ptr<ByteSource>(std::make_unique<GzipSource>(std::move(file)));
  return std::unique_ptr<ByteSource>(std::move(file));
}

std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data) {
  auto source = std::make_unique<StringSource>(data);
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == kGzipMagic0 &&
      static_cast<unsigned char>(data[1]) == kGzipMagic1)
    return std::make_unique<GzipSource>(std::move(source));
  return source;
}

std::unique_ptr<ByteSource> MakeChunkLimitedByteSource(std::unique_ptr<ByteSource> inner, size_t max_chunk) {
  return std::make_unique<ChunkLimitedSource>(std::move(inner), max_chunk);
}

}  // namespace ampscope

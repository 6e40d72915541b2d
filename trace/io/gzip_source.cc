// Gzip inflation for the byte sources (input_stream.h): ISA-L's igzip where the build found it
// (a streaming inflate several times faster than zlib's on the same data), zlib otherwise.
//
// Both decoders read the same gzip framing the same way: one or more members (`cat a.gz b.gz`
// is a valid gzip file), a member that stops before its end marker is "truncated", bytes after
// the last member that are not another member are "unexpected data". Damaged data is named by
// zlib in both cases: when igzip reports a corrupt stream, the input is decoded again from its
// start with zlib, which names the kind of damage and the compressed byte where it found it
// ("invalid distance too far back" where igzip only says "invalid lookback"), so a corrupt file
// gives the same one-line error whichever decoder the build uses. Errors are rare; the
// second decode costs one zlib pass up to the damage.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "trace/io/input_stream.h"

#if defined(AMPSCOPE_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

namespace ampscope {
namespace {

constexpr unsigned char kGzipMagic0 = 0x1f;
constexpr unsigned char kGzipMagic1 = 0x8b;
// Compressed bytes read from the inner source per refill of the inflater.
constexpr size_t kGzipInputChunk = 256 * 1024;

// What both decoders share: the compressed input buffer, its offset bookkeeping and the
// member framing. A decoder implements Inflate (one call into its library) and Reset.
class GzipSourceBase : public ByteSource {
 public:
  explicit GzipSourceBase(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)), in_(kGzipInputChunk) {}

  uint64_t raw_bytes_done() const override { return inner_->raw_bytes_done(); }
  uint64_t raw_bytes_total() const override { return inner_->raw_bytes_total(); }
  bool compressed() const override { return true; }

 protected:
  enum class Step : uint8_t { kOk, kMemberEnd, kCorrupt };

  // Runs the framing loop around Inflate: refills input, starts the next member, detects
  // truncation and trailing garbage. `dst`/`capacity` as in Read.
  // Bytes decoded before an error are handed out first and the error comes with the next
  // call, so what a reader sees before an error does not depend on its read sizes.
  StatusOr<size_t> ReadFraming(char* dst, size_t capacity) {
    if (!pending_error_.ok()) return pending_error_;
    StatusOr<size_t> n = ReadFramingOnce(dst, capacity);
    if (n.ok() || produced_before_error_ == 0) return n;
    pending_error_ = n.status();
    return produced_before_error_;
  }

 private:
  StatusOr<size_t> ReadFramingOnce(char* dst, size_t capacity) {
    produced_before_error_ = 0;
    if (finished_ || capacity == 0) return size_t{0};
    char* out = dst;
    size_t left = std::min<size_t>(capacity, 1u << 30);
    // Any error below is returned with the count of bytes already produced noted.
    struct Produced {
      char*& out;
      char* dst;
      size_t& note;
      ~Produced() { note = static_cast<size_t>(out - dst); }
    } note_produced{out, dst, produced_before_error_};
    while (left > 0) {
      if (member_done_) {
        // Another gzip member may follow (`cat a.gz b.gz` is a valid gzip file).
        if (avail_in_ < 2 && !inner_eof_) {
          AMPSCOPE_RETURN_IF_ERROR(RefillInput());
          continue;
        }
        if (avail_in_ == 0) {
          finished_ = true;
          break;
        }
        if (!(avail_in_ >= 2 && next_in_[0] == kGzipMagic0 && next_in_[1] == kGzipMagic1))
          return Error(ConsumedOffset(), "unexpected data after the end of the gzip stream");
        ResetMember();
        member_done_ = false;
      }
      if (avail_in_ == 0 && !inner_eof_) {
        AMPSCOPE_RETURN_IF_ERROR(RefillInput());
        continue;
      }
      // With no input left the decoder may still hold decoded bytes or bits (a match cut by the
      // end of the last output buffer, igzip's 64-bit read-ahead): it is called until it
      // produces nothing more; only then is the stream truncated.
      size_t produced = 0;
      std::string why;
      const size_t avail_before = avail_in_;
      const Step step = Inflate(out, left, &produced, &why);
      out += produced;
      left -= produced;
      if (step == Step::kMemberEnd) {
        member_done_ = true;
        continue;
      }
      if (step == Step::kCorrupt) return Corrupt(why);
      if (produced == 0 && avail_in_ == avail_before) {
        if (inner_eof_) {
          // The compressed data stopped before the gzip end-of-stream marker.
          return Error(ConsumedOffset(), "truncated gzip: the compressed stream ends before its end marker");
        }
        AMPSCOPE_RETURN_IF_ERROR(RefillInput());  // the decoder wants more than it was given
      }
    }
    return static_cast<size_t>(out - dst);
  }

 protected:
  // One call into the library: decode from next_in_/avail_in_ into dst, advancing both.
  virtual Step Inflate(char* dst, size_t capacity, size_t* produced, std::string* why) = 0;
  virtual void ResetMember() = 0;
  // A corrupt stream: how the decoder reports it (zlib: right here; igzip: ask zlib).
  virtual Status Corrupt(const std::string& why) { return Error(ConsumedOffset(), "corrupt gzip data (" + why + ")"); }

  // Offsets in gzip errors count compressed bytes: that is where the damage is.
  uint64_t ConsumedOffset() const { return consumed_before_ + static_cast<uint64_t>(next_in_ - in_base_); }
  static Status Error(uint64_t offset, const std::string& what) {
    return Status::Error("byte " + std::to_string(offset) + " (compressed): " + what);
  }

  ByteSource& inner() { return *inner_; }
  const unsigned char* next_in_ = nullptr;
  size_t avail_in_ = 0;

 private:
  Status RefillInput() {
    // Unread bytes (a few, when probing for the next member's magic) move to the front.
    const size_t keep = avail_in_;
    if (in_base_ != nullptr) consumed_before_ += static_cast<uint64_t>(next_in_ - in_base_);
    if (keep > 0) std::memmove(in_.data(), next_in_, keep);
    in_base_ = in_.data();
    next_in_ = in_.data();
    avail_in_ = keep;
    StatusOr<size_t> n = inner_->Read(reinterpret_cast<char*>(in_.data()) + keep, in_.size() - keep);
    if (!n.ok()) return n.status();
    if (*n == 0) inner_eof_ = true;
    avail_in_ = keep + *n;
    return Status::Ok();
  }

  std::unique_ptr<ByteSource> inner_;
  std::vector<unsigned char> in_;
  const unsigned char* in_base_ = nullptr;  // start of in_ as the decoder saw it
  uint64_t consumed_before_ = 0;            // compressed offset of in_base_
  bool inner_eof_ = false;
  bool member_done_ = false;
  bool finished_ = false;
  size_t produced_before_error_ = 0;
  Status pending_error_;
};

class ZlibGzipSource final : public GzipSourceBase {
 public:
  explicit ZlibGzipSource(std::unique_ptr<ByteSource> inner) : GzipSourceBase(std::move(inner)) {
    std::memset(&zs_, 0, sizeof(zs_));
    // 16 + MAX_WBITS: gzip framing only (we got here because of the gzip magic).
    init_ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;
  }
  ~ZlibGzipSource() override {
    if (init_ok_) inflateEnd(&zs_);
  }
  ZlibGzipSource(const ZlibGzipSource&) = delete;
  ZlibGzipSource& operator=(const ZlibGzipSource&) = delete;

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (!init_ok_) return Status::Error("byte 0: cannot initialise zlib");
    return ReadFraming(dst, capacity);
  }

 private:
  Step Inflate(char* dst, size_t capacity, size_t* produced, std::string* why) override {
    zs_.next_in = const_cast<Bytef*>(next_in_);
    zs_.avail_in = static_cast<uInt>(avail_in_);
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(capacity);
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    *produced = capacity - zs_.avail_out;
    next_in_ = zs_.next_in;
    avail_in_ = zs_.avail_in;
    if (rc == Z_STREAM_END) return Step::kMemberEnd;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Step::kOk;  // Z_BUF_ERROR: needs more input
    *why = zs_.msg ? zs_.msg : ("zlib error " + std::to_string(rc));
    return Step::kCorrupt;
  }
  void ResetMember() override { inflateReset(&zs_); }

  z_stream zs_;
  bool init_ok_ = false;
};

#if defined(AMPSCOPE_HAVE_ISAL)

class IsalGzipSource final : public GzipSourceBase {
 public:
  explicit IsalGzipSource(std::unique_ptr<ByteSource> inner) : GzipSourceBase(std::move(inner)) {
    state_ = std::make_unique<inflate_state>();  // ~40 KB: on the heap
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;  // parse the gzip header, check CRC-32 and length
  }

  StatusOr<size_t> Read(char* dst, size_t capacity) override { return ReadFraming(dst, capacity); }

 private:
  Step Inflate(char* dst, size_t capacity, size_t* produced, std::string* why) override {
    // igzip ignores the reserved FLG bits of the gzip header (RFC 1952 says a decoder must
    // reject them, and zlib does): check byte 3 of each member here.
    if (member_bytes_ <= kFlagByte && member_bytes_ + avail_in_ > kFlagByte &&
        (next_in_[kFlagByte - member_bytes_] & kReservedFlags) != 0) {
      *produced = 0;
      *why = "unknown header flags set";
      return Step::kCorrupt;
    }
    const size_t avail_before = avail_in_;
    inflate_state& s = *state_;
    s.next_in = const_cast<uint8_t*>(next_in_);
    s.avail_in = static_cast<uint32_t>(avail_in_);
    s.next_out = reinterpret_cast<uint8_t*>(dst);
    s.avail_out = static_cast<uint32_t>(capacity);
    const int rc = isal_inflate(&s);
    *produced = capacity - s.avail_out;
    next_in_ = s.next_in;
    avail_in_ = s.avail_in;
    member_bytes_ += avail_before - avail_in_;
    if (rc < 0) {
      switch (rc) {
        case ISAL_INVALID_BLOCK: *why = "invalid block"; break;
        case ISAL_INVALID_SYMBOL: *why = "invalid symbol"; break;
        case ISAL_INVALID_LOOKBACK: *why = "invalid lookback distance"; break;
        case ISAL_INVALID_WRAPPER: *why = "invalid gzip header"; break;
        case ISAL_UNSUPPORTED_METHOD: *why = "unknown compression method"; break;
        case ISAL_INCORRECT_CHECKSUM: *why = "incorrect data check"; break;
        default: *why = "igzip error " + std::to_string(rc);
      }
      return Step::kCorrupt;
    }
    if (rc == ISAL_NEED_DICT) {
      *why = "a preset dictionary, which gzip does not use";
      return Step::kCorrupt;
    }
    // At the end of a member igzip has checked the trailer and handed back the input it had
    // read ahead, so next_in_ is the first byte after the member.
    if (s.block_state == ISAL_BLOCK_FINISH) return Step::kMemberEnd;
    return Step::kOk;
  }
  void ResetMember() override {
    isal_inflate_reset(state_.get());
    state_->crc_flag = ISAL_GZIP;
    member_bytes_ = 0;
  }
  // zlib names the damage (see the file comment): decode again from the start with zlib and
  // return the error it finds; if it finds none, igzip's own description.
  Status Corrupt(const std::string& why) override {
    const Status own = Error(ConsumedOffset(), "corrupt gzip data (" + why + ")");
    std::unique_ptr<ByteSource> again = inner().Reopen();
    if (again == nullptr) return own;
    ZlibGzipSource zlib(std::move(again));
    std::vector<char> sink(1 << 20);
    while (true) {
      StatusOr<size_t> n = zlib.Read(sink.data(), sink.size());
      if (!n.ok()) return n.status();
      if (*n == 0) return own;
    }
  }

  static constexpr size_t kFlagByte = 3;                 // ID1 ID2 CM FLG
  static constexpr unsigned char kReservedFlags = 0xE0;  // FLG bits 5-7
  std::unique_ptr<inflate_state> state_;
  uint64_t member_bytes_ = 0;  // compressed bytes of the current member consumed so far
};

#endif  // AMPSCOPE_HAVE_ISAL

}  // namespace

bool GzipDecoderAvailable(GzipDecoder decoder) {
  switch (decoder) {
    case GzipDecoder::kDefault:
    case GzipDecoder::kZlib: return true;
    case GzipDecoder::kIsal:
#if defined(AMPSCOPE_HAVE_ISAL)
      return true;
#else
      return false;
#endif
  }
  return false;
}

bool GzipDecoderForcedToZlib() {
#if defined(AMPSCOPE_FORCE_ZLIB)
  return true;
#else
  return false;
#endif
}

const char* GzipDecoderName(GzipDecoder decoder) {
  switch (decoder) {
    case GzipDecoder::kZlib: return "zlib";
    case GzipDecoder::kIsal: return "isal";
    case GzipDecoder::kDefault: return GzipDecoderAvailable(GzipDecoder::kIsal) ? "isal" : "zlib";
  }
  return "zlib";
}

std::unique_ptr<ByteSource> MakeGzipByteSource(std::unique_ptr<ByteSource> inner, GzipDecoder decoder) {
#if defined(AMPSCOPE_HAVE_ISAL)
  if (decoder != GzipDecoder::kZlib) return std::make_unique<IsalGzipSource>(std::move(inner));
#else
  (void)decoder;
#endif
  return std::make_unique<ZlibGzipSource>(std::move(inner));
}

bool StartsWithGzipMagic(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  return n >= 2 && p[0] == kGzipMagic0 && p[1] == kGzipMagic1;
}

}  // namespace ampscope

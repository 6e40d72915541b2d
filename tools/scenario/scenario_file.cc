// Writing a scenario to a file: plain JSON, or gzip for a ".gz" path, through base/atomic_write.h
// (temporary + rename, nothing left behind on failure) like every other output.
#include <zlib.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <streambuf>

#include "base/atomic_write.h"
#include "base/strings.h"
#include "tools/scenario/scenario.h"

namespace ampscope::scenario {

namespace {

// Gzip-compresses into another stream: the same deflate settings as gzopen(path, "wb6"), so the
// bytes are the same as zlib's gz* API writes.
class GzipStreambuf : public std::streambuf {
 public:
  explicit GzipStreambuf(std::ostream& sink) : sink_(sink), out_(new unsigned char[kChunk]) {
    std::memset(&zs_, 0, sizeof(zs_));
    ok_ = deflateInit2(&zs_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~GzipStreambuf() override { deflateEnd(&zs_); }
  // Flushes the compressor; false if compressing or writing failed at any point.
  bool Finish() {
    if (ok_) ok_ = Deflate(nullptr, 0, Z_FINISH);
    return ok_;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (ch == traits_type::eof()) return traits_type::not_eof(ch);
    const char c = static_cast<char>(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (!ok_) return 0;
    ok_ = Deflate(s, static_cast<size_t>(n), Z_NO_FLUSH);
    return ok_ ? n : 0;
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 16;
  bool Deflate(const char* data, size_t size, int flush) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    zs_.avail_in = static_cast<uInt>(size);
    do {
      zs_.next_out = out_.get();
      zs_.avail_out = kChunk;
      const int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) return false;
      sink_.write(reinterpret_cast<const char*>(out_.get()), static_cast<std::streamsize>(kChunk - zs_.avail_out));
      if (!sink_) return false;
    } while (zs_.avail_out == 0 || (flush == Z_FINISH && zs_.avail_in > 0));
    return true;
  }

  std::ostream& sink_;
  std::unique_ptr<unsigned char[]> out_;
  z_stream zs_;
  bool ok_ = false;
};

}  // namespace

bool WriteKinetoFile(const ScenarioOptions& options, const std::string& path, std::string* error, ScenarioSummary* summary) {
  const bool gz = EndsWith(path, ".gz");
  Status written = WriteOutputs({{path, [&](std::ostream& out) {
                                    if (!gz) {
                                      WriteKinetoJson(options, out, summary);
                                      return Status::Ok();
                                    }
                                    GzipStreambuf buf(out);
                                    std::ostream os(&buf);
                                    WriteKinetoJson(options, os, summary);
                                    os.flush();
                                    if (!os || !buf.Finish()) return Status::Error(path + ": compression failed");
                                    return Status::Ok();
                                  }}});
  if (!written.ok()) {
    if (error) *error = written.message();
    return false;
  }
  return true;
}

}  // namespace ampscope::scenario

// The two gzip decoders (trace/io/gzip_source.cc): ISA-L's igzip, which the reader uses where
// the build found libisal-dev, and zlib, the fallback (and the whole path in a build with
// -DAMPSCOPE_FORCE_ZLIB=ON). On every shared .gz trace they must give identical bytes, and on
// damaged input (cut anywhere, bytes flipped, garbage after the end, several members) the same
// one-line error with the same compressed offset. zlib is the reference: it is the library
// every other tool (gzip, python's gzip) agrees with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <dirent.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "trace/io/input_stream.h"

namespace ampscope {
namespace gzip_decoders_test {
namespace {

using ::testing::HasSubstr;
using testing::HaveShared;
using testing::ReadFile;
using testing::SharedPath;

// Skips where the build has no ISA-L on purpose; without ISA-L by accident it is a missing
// input (a failure under CI=true).
#define REQUIRE_ISAL()                                                                                \
  do {                                                                                               \
    if (GzipDecoderForcedToZlib()) GTEST_SKIP() << "built with AMPSCOPE_FORCE_ZLIB=ON: zlib only";   \
    AMPSCOPE_REQUIRE_INPUT(GzipDecoderAvailable(GzipDecoder::kIsal),                                 \
                           "ISA-L not found at configure time (install libisal-dev: scripts/setup.sh)"); \
  } while (0)

struct Decoded {
  std::string bytes;
  std::string error;  // "" when the stream decoded cleanly
};

Decoded Decode(std::unique_ptr<ByteSource> source, size_t chunk) {
  Decoded d;
  std::vector<char> buf(chunk);
  while (true) {
    StatusOr<size_t> n = source->Read(buf.data(), buf.size());
    if (!n.ok()) {
      d.error = n.status().message();
      return d;
    }
    if (*n == 0) return d;
    d.bytes.append(buf.data(), *n);
  }
}

Decoded DecodeString(const std::string& gz, GzipDecoder decoder, size_t chunk = 1 << 20) {
  return Decode(MakeStringByteSource(gz, decoder), chunk);
}

std::string Gzip(const std::string& data, int level) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::vector<std::string> SharedGzTraces() {
  std::vector<std::string> out;
  std::vector<std::string> dirs = {SharedPath("traces/kineto")};
  while (!dirs.empty()) {
    std::string dir = dirs.back();
    dirs.pop_back();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string path = dir + "/" + name;
      if (e->d_type == DT_DIR) dirs.push_back(path);
      else if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) out.push_back(path);
    }
    closedir(d);
  }
  return out;
}

TEST(GzipDecoders, DefaultIsIsalWhereBuilt) {
  if (GzipDecoderForcedToZlib() || !GzipDecoderAvailable(GzipDecoder::kIsal)) {
    EXPECT_STREQ(GzipDecoderName(GzipDecoder::kDefault), "zlib");
  } else {
    EXPECT_STREQ(GzipDecoderName(GzipDecoder::kDefault), "isal");
  }
}

TEST(GzipDecoders, IdenticalBytesOnEverySharedTrace) {
  REQUIRE_ISAL();
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available");
  std::vector<std::string> files = SharedGzTraces();
  ASSERT_GE(files.size(), 20u);
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    auto zlib = OpenByteSource(path, GzipDecoder::kZlib);
    auto isal = OpenByteSource(path, GzipDecoder::kIsal);
    ASSERT_TRUE(zlib.ok() && isal.ok());
    // Different read sizes too: a decoder must not depend on them.
    Decoded a = Decode(std::move(*zlib), 1 << 20), b = Decode(std::move(*isal), 65521);
    EXPECT_EQ(a.error, "");
    EXPECT_EQ(b.error, "");
    EXPECT_GT(a.bytes.size(), 1000u);
    EXPECT_TRUE(a.bytes == b.bytes) << a.bytes.size() << " vs " << b.bytes.size();
  }
}

// A body that compresses into several deflate blocks of all kinds: text, random bytes
// (stored blocks at level 0), long repeats.
std::string Body() {
  std::mt19937 rng(7);
  std::string s;
  for (int i = 0; i < 3000; ++i) s += "{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": " + std::to_string(rng()) + "},\n";
  for (int i = 0; i < 50000; ++i) s += static_cast<char>(rng() & 0xFF);
  s += std::string(70000, 'z');
  return s;
}

TEST(GzipDecoders, SameBytesAndErrorsOnDamagedInput) {
  REQUIRE_ISAL();
  const std::string body = Body();
  for (int level : {0, 1, 6, 9}) {
    SCOPED_TRACE("level " + std::to_string(level));
    const std::string gz = Gzip(body, level);
    Decoded clean = DecodeString(gz, GzipDecoder::kIsal, 4096);
    EXPECT_EQ(clean.error, "");
    EXPECT_TRUE(clean.bytes == body);
    // Cut anywhere: header, deflate data, trailer.
    for (size_t keep = 2; keep < gz.size(); keep += 1 + keep / 7) {  // 2: the magic, else not gzip
      Decoded a = DecodeString(gz.substr(0, keep), GzipDecoder::kZlib, 3000);
      Decoded b = DecodeString(gz.substr(0, keep), GzipDecoder::kIsal, 8191);
      ASSERT_EQ(a.error, b.error) << "cut at " << keep;
      ASSERT_THAT(a.error, HasSubstr("byte " + std::to_string(keep) + " (compressed): truncated gzip")) << keep;
      // What came out before the error is the start of the body: all of it for zlib; igzip
      // may hold back the last bytes of a cut stream, for which it had too few bits.
      ASSERT_TRUE(body.compare(0, a.bytes.size(), a.bytes) == 0) << keep;
      ASSERT_TRUE(body.compare(0, b.bytes.size(), b.bytes) == 0) << keep;
      const size_t longer = std::max(a.bytes.size(), b.bytes.size()), shorter = std::min(a.bytes.size(), b.bytes.size());
      ASSERT_EQ(longer, a.bytes.size()) << keep;
      ASSERT_LE(longer - shorter, 300u) << keep;
    }
    // Bytes flipped anywhere (a flip in a literal may decode; the CRC then fails).
    std::mt19937 rng(level + 1);
    for (int trial = 0; trial < 300; ++trial) {
      std::string bad = gz;
      const size_t at = rng() % bad.size();
      bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
      Decoded a = DecodeString(bad, GzipDecoder::kZlib), b = DecodeString(bad, GzipDecoder::kIsal);
      ASSERT_EQ(a.error, b.error) << "flip at " << at;
      ASSERT_THAT(a.error, ::testing::StartsWith("byte ")) << at;
      ASSERT_EQ(a.error.find('\n'), std::string::npos);
    }
  }
}

TEST(GzipDecoders, MembersAndTrailingData) {
  REQUIRE_ISAL();
  const std::string body = Body();
  const std::string one = Gzip(body.substr(0, 100000), 1), two = Gzip(body.substr(100000), 6);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
    SCOPED_TRACE(chunk);
    // `cat a.gz b.gz` is one stream; an empty member in between is fine too.
    const std::string cat = one + Gzip("", 6) + two;
    Decoded a = Decode(MakeChunkLimitedByteSource(MakeStringByteSource(cat, GzipDecoder::kZlib), chunk), 1 << 16);
    Decoded b = Decode(MakeChunkLimitedByteSource(MakeStringByteSource(cat, GzipDecoder::kIsal), chunk), 1000);
    EXPECT_EQ(a.error, "");
    EXPECT_EQ(b.error, "");
    EXPECT_TRUE(a.bytes == body);
    EXPECT_TRUE(b.bytes == body);
    // Garbage after the last member, and a single stray byte.
    for (const std::string& tail : {std::string("garbage"), std::string("\n"), std::string("\x1f")}) {
      Decoded x = Decode(MakeChunkLimitedByteSource(MakeStringByteSource(cat + tail, GzipDecoder::kZlib), chunk), 4096);
      Decoded y = Decode(MakeChunkLimitedByteSource(MakeStringByteSource(cat + tail, GzipDecoder::kIsal), chunk), 4096);
      EXPECT_EQ(x.error, y.error);
      EXPECT_THAT(x.error, HasSubstr("byte " + std::to_string(cat.size()) + " (compressed)"));
    }
  }
}

TEST(GzipDecoders, DamageIsNamedByZlibInBothPaths) {
  REQUIRE_ISAL();
  const std::string gz = Gzip(Body(), 6);
  std::string bad = gz;
  bad[bad.size() - 6] ^= 0x55;  // the CRC-32 in the trailer
  Decoded a = DecodeString(bad, GzipDecoder::kZlib), b = DecodeString(bad, GzipDecoder::kIsal);
  EXPECT_THAT(a.error, HasSubstr("corrupt gzip data (incorrect data check)"));
  EXPECT_EQ(a.error, b.error);
  bad = gz;
  bad[3] = static_cast<char>(0xE0);  // reserved FLG bits in the header
  a = DecodeString(bad, GzipDecoder::kZlib), b = DecodeString(bad, GzipDecoder::kIsal);
  EXPECT_THAT(a.error, HasSubstr("corrupt gzip data"));
  EXPECT_EQ(a.error, b.error);
}

}  // namespace
}  // namespace gzip_decoders_test
}  // namespace ampscope

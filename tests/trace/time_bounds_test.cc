// Times near the int64 limits (issue 16): every reader bounds what it accepts so that no span
// or sum over one trace can overflow (trace/time_bounds.h). One test per overflow site the
// issue names on the reader side: Kineto ts + dur at 2^62, the span of a trace, the total of
// its durations, the .amptrace clock offset, and end < start in .amptrace records. The
// analyzer-side sites (window span, idle-gap and overlap sums) are in
// tests/cli/time_limits_cli_test.cc, which runs `ampscope analyze` on such traces.
//
// Expected values are hand-computed from the bounds: 2^62 ns = 4611686018427387.904 µs,
// 2^61 ns = 2305843009213693.952 µs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "base/saturating.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"
#include "trace/formats/amptrace/amptrace_writer.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/time_bounds.h"

namespace ampscope {
namespace time_bounds_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int64_t k2To61 = int64_t{1} << 61;
constexpr int64_t k2To62 = int64_t{1} << 62;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const std::string k2To62Us = "4611686018427387.904";
const std::string k2To61Us = "2305843009213693.952";

std::string Trace(const std::string& events) { return "{\"traceEvents\": [" + events + "]}"; }
std::string Op(const std::string& ts, const std::string& dur) {
  return R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + ts + ", \"dur\": " +
         dur + "}";
}
StatusOr<ampscope::Trace> Read(const std::string& json) { return ReadKinetoTraceFromString(json, "t.json"); }

TEST(SaturatingArithmetic, ClampsInsteadOfWrapping) {
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingAdd(k2To62, k2To62), kMax);  // 2^63 does not fit
  EXPECT_EQ(SaturatingAdd(-k2To62, -k2To62), kMin);  // -2^63 does, exactly
  EXPECT_EQ(SaturatingAdd(3, -5), -2);
  EXPECT_EQ(SaturatingSub(k2To62, -k2To62), kMax);
  EXPECT_EQ(SaturatingSub(-k2To62, k2To62), kMin);
  EXPECT_EQ(SpanOrZero(10, 4), 0);
  EXPECT_EQ(SpanOrZero(kMin, kMax), kMax);
  EXPECT_EQ(SaturatingAddU(~uint64_t{0}, 1), ~uint64_t{0});
}

TEST(TimeBoundsModel, DurationIsNeverNegativeNorOverflows) {
  KernelEvent k;
  k.start_ns = 100, k.end_ns = 40;
  EXPECT_EQ(k.duration_ns(), 0);
  k.start_ns = kMin, k.end_ns = kMax;
  EXPECT_EQ(k.duration_ns(), kMax);
  MemcpyEvent m;
  m.start_ns = -k2To62, m.end_ns = k2To62;
  EXPECT_EQ(m.duration_ns(), kMax);
}

// kineto_event_parser.cc: start + dur with both exactly 2^62 reached 2^63 (UBSan).
TEST(KinetoTimeLimits, StartPlusDurationAtTwoToThe62IsAnErrorNotAnOverflow) {
  StatusOr<ampscope::Trace> r = Read(Trace(Op(k2To62Us, k2To62Us)));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith("t.json: byte "));
  EXPECT_THAT(r.status().message(), HasSubstr("ends beyond 2^62 ns"));
  // -2^62 + 2^62 = 0 is a fine sum, but the event then spans 2^62 > 2^61.
  r = Read(Trace(Op("-" + k2To62Us, k2To62Us)));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("more than 2^61 ns"));
  // At the limit itself, alone, it is a time like any other.
  r = Read(Trace(Op(k2To62Us, "0")));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->cpu_ops[0].start_ns, k2To62);
  r = Read(Trace(Op("-" + k2To62Us, "1")));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->cpu_ops[0].end_ns, -k2To62 + 1000);
}

TEST(KinetoTimeLimits, SpanOfATraceIsAtMostTwoToThe61) {
  // Exactly 2^61 apart: accepted.
  const std::string ok = Trace(Op("0", "1") + ", " + Op(k2To61Us, "0"));
  StatusOr<ampscope::Trace> r = Read(ok);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 1 ns more: rejected, naming the latest event (its offset) and the earliest.
  const std::string late = Op("2305843009213693.953", "0");
  const std::string json = Trace(Op("0", "1") + ", " + late);
  r = Read(json);
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_THAT(msg, StartsWith("t.json: byte " + std::to_string(json.find(late)) + ": time 2305843009213693953 ns"));
  EXPECT_THAT(msg, HasSubstr("earliest time, 0 ns at byte " + std::to_string(json.find("{\"ph\""))));
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  // Instants (counters, memory, flows) count as much as intervals.
  r = Read(Trace(Op("0", "1") + R"(, {"ph": "i", "name": "[memory]", "ts": -2305843009213693.952, "args": {}})"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("more than 2^61 ns"));
}

TEST(KinetoTimeLimits, TotalOfAllDurationsIsAtMostTwoToThe62) {
  // Two events of 2^61 ns over the same window: 2^62 in all, accepted.
  const std::string two = Op("0", k2To61Us) + ", " + Op("0", k2To61Us);
  ASSERT_TRUE(Read(Trace(two)).ok());
  // A third would make the per-category sums an analyzer takes exceed 2^62.
  StatusOr<ampscope::Trace> r = Read(Trace(two + ", " + Op("0", k2To61Us)));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("durations add up to more than 2^62 ns"));
}

// ---- .amptrace ---------------------------------------------------------------------------

template <typename T>
T Zero() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

struct AmptraceFile {
  std::string path;
  std::unique_ptr<AmptraceWriter> writer;
};

AmptraceFile Create(const std::string& dir, const AmpClockRecord& start_clock) {
  AmptraceHeaderInfo h;
  h.pid = 7;
  h.start_clock = start_clock;
  AmptraceFile f;
  f.path = dir + "/t.amptrace";
  auto w = AmptraceWriter::Create(f.path, h);
  EXPECT_TRUE(w.ok()) << w.status().message();
  f.writer = std::move(w.value());
  return f;
}

void Finish(AmptraceFile& f) {
  EXPECT_TRUE(f.writer->Finish(Zero<AmpFooterRecord>()).ok());
  f.writer.reset();
}

AmpKernelRecord Kernel(int64_t start, int64_t end) {
  auto k = Zero<AmpKernelRecord>();
  k.start_ns = start, k.end_ns = end, k.correlation = 1, k.stream = 7;
  return k;
}

AmpNvtxEvent Nvtx(AmpNvtxType type, int64_t t) {
  auto e = Zero<AmpNvtxEvent>();
  e.time_ns = t, e.tid = 1, e.type = static_cast<uint8_t>(type);
  return e;
}

// amptrace_reader.cc: end < start became a negative duration_ns() in the model.
TEST(AmptraceTimeLimits, EndBeforeStartIsCountedAndReadAsZeroLength) {
  AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {1, 1, 1});
  f.writer->Append(Kernel(5000, 1000));
  f.writer->Append(Kernel(6000, 7000));
  Finish(f);
  StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->kernels[0].start_ns, 5000);
  EXPECT_EQ(r->kernels[0].end_ns, 5000);
  EXPECT_EQ(r->kernels[0].duration_ns(), 0);
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kNegativeDuration), 1u);
  EXPECT_GT(r->diagnostics.entries().at("negative_duration").first_offset, 0);  // the chunk
}

TEST(AmptraceTimeLimits, TimesBeyondTwoToThe62AreSkippedAndCounted) {
  AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {1, 1, 1});
  f.writer->Append(Kernel(kMin, 10));
  f.writer->Append(Kernel(10, kMax));
  f.writer->Append(Kernel(100, 200));
  auto mem = Zero<AmpMemoryRecord>();
  mem.time_ns = kMax;
  f.writer->Append(mem);
  Finish(f);
  StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].start_ns, 100);
  EXPECT_TRUE(r->memory_events.empty());
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kTimeOutOfRange), 3u);
}

// amptrace_reader.cc: offset = trace_ns - realtime_ns and NVTX time + offset overflowed.
TEST(AmptraceTimeLimits, ClockOffsetCannotOverflow) {
  // A calibration pair 2^63 apart: the offset itself is out of range, NVTX stays unshifted.
  {
    AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {k2To62, 5, -k2To62});
    f.writer->Append(Kernel(1000, 2000));
    f.writer->Append(Nvtx(AmpNvtxType::kPush, 1100));
    f.writer->Append(Nvtx(AmpNvtxType::kPop, 1900));
    Finish(f);
    StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->ranges.size(), 1u);
    EXPECT_EQ(r->ranges[0].start_ns, 1100);
    EXPECT_EQ(r->ranges[0].end_ns, 1900);
    EXPECT_EQ(r->diagnostics.Count(DiagCode::kTimeOutOfRange), 1u);
  }
  // A pair that is fine but moves the NVTX times beyond 2^62: those events are skipped.
  {
    AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {k2To62, 5, 0 + 1});
    f.writer->Append(Nvtx(AmpNvtxType::kMark, 10));       // 2^62 - 1 + 10: beyond
    f.writer->Append(Nvtx(AmpNvtxType::kMark, -5000));    // 2^62 - 5001: accepted
    Finish(f);
    StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->ranges.size(), 1u);
    EXPECT_EQ(r->ranges[0].start_ns, k2To62 - 5001);
    EXPECT_EQ(r->diagnostics.Count(DiagCode::kTimeOutOfRange), 1u);
  }
  // A calibration reading beyond 2^62 is dropped, not used.
  {
    AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {kMax, 5, kMin});
    f.writer->Append(Nvtx(AmpNvtxType::kMark, 10));
    Finish(f);
    StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->metadata.clock_calibration.empty());
    ASSERT_EQ(r->ranges.size(), 1u);
    EXPECT_EQ(r->ranges[0].start_ns, 10);
  }
}

TEST(AmptraceTimeLimits, SpanBeyondTwoToThe61IsAnError) {
  AmptraceFile f = Create(testing::MakeTempDir("amptrace_limits"), {1, 1, 1});
  f.writer->Append(Kernel(-k2To61, -k2To61 + 10));
  f.writer->Append(Kernel(1, 2));
  Finish(f);
  StatusOr<ampscope::Trace> r = ReadAmptrace(f.path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), StartsWith(f.path + ": byte "));
  EXPECT_THAT(r.status().message(), HasSubstr("more than 2^61 ns"));
}

}  // namespace
}  // namespace time_bounds_test
}  // namespace ampscope

// Issue 38: whitespace between JSON units was buffered whole (1 GiB of spaces inside a 1 MB .gz
// needed 2.1 GB), and one huge unit had no limit (a 1 GiB kernel name: 6.2 GB, exit 0). The
// tokenizer now skips whitespace between units without buffering it, and refuses a unit over
// Tokenizer::kMaxUnitBytes (64 MiB) with one line naming the file and the unit's offset.
//
// The inputs are generated as they are read (GeneratedSource), so a test of hundreds of MiB
// holds none of it in memory; the window the tokenizer may grow to is capped small here, so a
// tokenizer that buffered the whitespace fails instead of passing slowly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/kineto/kineto_tokenizer.h"
#include "trace/io/input_stream.h"

namespace ampscope {
namespace kineto_unit_bounds_test {
namespace {

// Pieces of text, each repeated a number of times, produced on demand.
class GeneratedSource final : public ByteSource {
 public:
  struct Part {
    std::string text;
    uint64_t repeat = 1;
  };
  explicit GeneratedSource(std::vector<Part> parts) : parts_(std::move(parts)) {
    for (const Part& p : parts_) total_ += p.text.size() * p.repeat;
  }
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    size_t n = 0;
    while (n < capacity && part_ < parts_.size()) {
      const Part& p = parts_[part_];
      const size_t take = std::min(capacity - n, p.text.size() - pos_);
      std::memcpy(dst + n, p.text.data() + pos_, take);
      n += take;
      pos_ += take;
      if (pos_ == p.text.size()) {
        pos_ = 0;
        if (++copy_ == p.repeat) copy_ = 0, ++part_;
      }
    }
    done_ += n;
    return n;
  }
  uint64_t raw_bytes_done() const override { return done_; }
  uint64_t raw_bytes_total() const override { return total_; }

 private:
  std::vector<Part> parts_;
  size_t part_ = 0, pos_ = 0;
  uint64_t copy_ = 0, done_ = 0, total_ = 0;
};

class CountingSink final : public kineto::EventSink {
 public:
  Status OnEvent(const kineto::RawEvent&) override {
    ++events;
    return Status::Ok();
  }
  void OnTopLevelMember(std::string_view, const json::Value&) override { ++members; }
  int events = 0, members = 0;
};

const std::string kEvent = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1})";
const std::string kSpaces(size_t{1} << 20, ' ');  // 1 MiB a piece
const std::string kNewlines(size_t{1} << 20, '\n');

Status Tokenize(std::vector<GeneratedSource::Part> parts, size_t max_window, CountingSink* sink) {
  GeneratedSource source(std::move(parts));
  const std::string name = "t.json";
  const std::function<void(uint64_t, uint64_t)> progress;
  kineto::Tokenizer tokenizer(source, name, progress);
  tokenizer.set_max_window_bytes(max_window);
  return tokenizer.Run(*sink);
}

TEST(KinetoUnitBounds, WhitespaceBetweenUnitsIsNotBuffered) {
  // 48 MiB of whitespace in each gap between units: before the top-level object, around the ','
  // between two events, around the ',' between two top-level members, and at the end. With the
  // window capped at 1 MiB, a tokenizer that kept the whitespace with the next unit fails.
  CountingSink sink;
  Status st = Tokenize({{kSpaces, 8},
                        {"{\"traceEvents\": [", 1},
                        {kNewlines, 8},
                        {kEvent, 1},
                        {kSpaces, 8},
                        {",", 1},
                        {kSpaces, 8},
                        {kEvent, 1},
                        {"]", 1},
                        {kSpaces, 4},
                        {",", 1},
                        {kSpaces, 4},
                        {"\"deviceProperties\": []", 1},
                        {"}", 1},
                        {kSpaces, 8}},
                       size_t{1} << 20, &sink);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(sink.events, 2);
  EXPECT_EQ(sink.members, 1);
}

// The parallel reader (a gzip'd or piped input, read by one producer for several threads):
// the calling thread used to hold every byte it passed until the next event boundary, so the
// whole run of whitespace stayed in memory. It now lets go of it every 16 MiB, and a helper
// whose piece runs far into the whitespace gives up (the calling thread reads it).
TEST(KinetoUnitBounds, TheParallelReaderDoesNotHoldTheWhitespaceEither) {
  std::string events;
  for (int i = 0; i < 2000; ++i) events += (i ? ", " : "") + kEvent;
  GeneratedSource source({{"{\"traceEvents\": [", 1},
                          {events, 1},
                          {", ", 1},
                          {kSpaces, 200},
                          {events, 1},
                          {"]}", 1}});
  KinetoReadOptions options;
  options.threads = 2;
  options.parallel_piece_bytes = size_t{1} << 20;
  KinetoReadStats stats;
  options.stats = &stats;
  StatusOr<Trace> t = ReadKinetoTraceFromSource(source, "ws.json", options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kernels.size(), 4000u);
  EXPECT_EQ(stats.parse_threads, 2);
  EXPECT_FALSE(stats.direct_reads);
  // Held at most: a helper's 64 MiB past its piece, the 16 MiB between releases, a few pieces
  // ahead. Before: the 200 MiB of spaces.
  EXPECT_LT(stats.peak_buffered_bytes, uint64_t{120} << 20);
}

TEST(KinetoUnitBounds, TheStructureIsStillCheckedAcrossTheGaps) {
  CountingSink sink;
  // A trailing comma before ']' and two commas in a row stay errors, with their offsets.
  Status trailing = Tokenize({{"{\"traceEvents\": [", 1}, {kEvent, 1}, {",", 1}, {"  ]}", 1}}, size_t{1} << 20, &sink);
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.message(), "t.json: byte " + std::to_string(17 + kEvent.size() + 3) +
                                    ": expected an event object ('{') in traceEvents, found ']'");
  Status doubled = Tokenize({{"{\"traceEvents\": [", 1}, {kEvent, 1}, {", ,", 1}, {kEvent, 1}, {"]}", 1}},
                            size_t{1} << 20, &sink);
  ASSERT_FALSE(doubled.ok());
  EXPECT_EQ(doubled.message(), "t.json: byte " + std::to_string(17 + kEvent.size() + 2) +
                                   ": expected an event object ('{') in traceEvents, found ','");
  Status member = Tokenize({{"{\"traceEvents\": [], ", 1}, {"}", 1}}, size_t{1} << 20, &sink);
  ASSERT_FALSE(member.ok());
  EXPECT_EQ(member.message(), "t.json: byte 20: expected a member name (a string) in an object, found '}'");
}

TEST(KinetoUnitBounds, OneUnitOverTheCapIsOneLineWithItsOffset) {
  // A kernel name of 65 MiB against the default cap of 64 MiB (issue 38: 1 GiB read, exit 0).
  const std::string head = "{\"traceEvents\": [" + kEvent + ", ";
  const std::string name_start = R"({"ph": "X", "cat": "kernel", "name": ")";
  GeneratedSource source({{head, 1}, {name_start, 1}, {std::string(size_t{1} << 20, 'k'), 65}, {"\"}]}", 1}});
  KinetoReadOptions one_thread;
  one_thread.threads = 1;
  StatusOr<Trace> t = ReadKinetoTraceFromSource(source, "big.json", one_thread);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "big.json: byte " + std::to_string(head.size()) +
                                      ": a single JSON value (one event, or one top-level member) is larger than "
                                      "64 MiB, the most ampscope reads as one unit");
  EXPECT_EQ(kineto::Tokenizer::kMaxUnitBytes, size_t{64} << 20);
  // A unit just under the cap is read.
  GeneratedSource fits({{"{\"traceEvents\": [", 1},
                        {name_start, 1},
                        {std::string(size_t{1} << 20, 'k'), 63},
                        {R"(", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]})", 1}});
  StatusOr<Trace> ok = ReadKinetoTraceFromSource(fits, "fits.json", one_thread);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->kernels.size(), 1u);
}

}  // namespace
}  // namespace kineto_unit_bounds_test
}  // namespace ampscope

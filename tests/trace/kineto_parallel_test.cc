// The parallel Kineto reader (trace/formats/kineto/kineto_parallel.h) against the sequential
// one (threads = 1), which is the reference: the same tables in the same order, the same
// string ids, the same diagnostics with the same first offsets and messages, the same first
// error. Piece sizes from 1 byte up put piece starts at every byte of the inputs: inside
// strings, escapes, numbers, nested args, the top-level object, and on real boundaries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <dirent.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"
#include "support/trace_dump.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kineto_parallel_test {
namespace {

using testing::HaveShared;
using testing::SharedPath;

// Everything a read produced, string ids included, or its error.
std::string Outcome(const StatusOr<Trace>& r) {
  if (!r.ok()) return "error: " + r.status().message();
  std::string out = testing::DumpTrace(r.value());
  // Fields DumpTrace leaves out (it is shared with tests of other readers).
  const TraceMetadata& m = r->metadata;
  out += "more " + m.path + " " + m.command_line + " " + m.framework_version + " " +
         std::to_string(r->strings.capped_count()) + " " + std::to_string(r->strings.text_bytes()) + "\n";
  for (const ClockCalibration& c : m.clock_calibration)
    out += "clock " + std::to_string(c.trace_ns) + " " + std::to_string(c.monotonic_ns) + " " +
           std::to_string(c.realtime_ns) + "\n";
  for (const KernelEvent& k : r->kernels) out += "graph " + std::to_string(k.graph_id) + "\n";
  for (StringId id = 0; id < r->strings.size(); ++id) out += "str " + std::to_string(id) + " " + std::string(r->str(id)) + "\n";
  return out;
}

StatusOr<Trace> ReadWith(const std::string& data, int threads, size_t piece_bytes, uint64_t name_budget = 0,
                         KinetoReadStats* stats = nullptr) {
  KinetoReadOptions options;
  options.stats = stats;
  options.threads = threads;
  options.parallel_piece_bytes = piece_bytes;
  options.name_text_budget_bytes = name_budget;
  return ReadKinetoTraceFromString(data, "t.json", options);
}

std::string Sequential(const std::string& data, uint64_t name_budget = 0) {
  return Outcome(ReadWith(data, 1, 0, name_budget));
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
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

// Events chosen to make guesses go wrong and merges matter: "}, {" inside strings and nested
// args (guesses inside an event), repeated and conflicting metadata (first kept, duplicates
// counted, across pieces), escapes, bad field types in metadata and in events (diagnostics whose
// first occurrence may sit in a later piece), ROCm launch info on runtime calls (later wins),
// NCCL kernels (comm_index), ProfilerSteps, counters, flows, instants, other events.
std::string Torture(int repeat) {
  std::string e;
  auto add = [&](const std::string& ev) { e += (e.empty() ? "" : ",\n ") + ev; };
  for (int i = 0; i < repeat; ++i) {
    const std::string n = std::to_string(i), ts = std::to_string(1000 + i * 100);
    add(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + n + R"(", "pid": 1, "tid": 1, "ts": )" + ts +
        R"(, "dur": 90})");
    add(R"({"ph": "X", "cat": "cpu_op", "name": "weird }, {\"ph\": \"X\"} name )" + n + R"(", "pid": 1, "tid": 1, "ts": )" +
        ts + R"(, "dur": 5, "args": {"Input Dims": [[1, 2], [3]], "nested": [{"a": 1}, {"b": [{}, {}]}], "Input type": ["float"]}})");
    add(R"({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": )" + ts +
        R"(, "dur": 2, "args": {"correlation": )" + std::to_string(i % 3) + R"(, "grid": [)" + n + R"(, 1, 1], "block": [64, 1, 1]}})");
    add(R"({"ph": "X", "cat": "kernel", "name": "nccl\u0041llReduce_)" + std::to_string(i % 4) +
        R"(", "pid": 0, "tid": 7, "ts": )" + ts + R"(, "dur": 3, "args": {"correlation": )" + std::to_string(i % 3) +
        R"(, "device": 0, "stream": 7, "Collective name": "allreduce", "Group size": 2, "dtype": "Float"}})");
    add(R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": )" + std::to_string(i % 5) +
        R"(, "args": {"name": "thread )" + n + R"("}})");
    add(R"({"ph": "M", "name": "process_name", "pid": )" + std::to_string(i % 2) + R"(, "args": {"name": "p)" + n + R"("}})");
    if (i % 7 == 3) add(R"({"ph": "M", "name": "process_name", "pid": [1], "args": {"name": 5}})");  // bad types
    if (i % 5 == 2) add(R"({"ph": "X", "cat": "cpu_op", "name": 12, "pid": 1, "tid": 1, "ts": 5, "dur": -1})");
    if (i % 6 == 1) add(R"({"ph": "X", "cat": "mystery", "name": "m", "pid": 1, "tid": 1, "ts": 7})");
    add(R"({"ph": "s", "id": )" + n + R"(, "pid": 1, "tid": 1, "ts": )" + ts + R"(, "cat": "ac2g", "name": "ac2g"})");
    add(R"({"ph": "C", "name": "c", "pid": 0, "tid": 0, "ts": )" + ts + R"(, "args": {"a": 1, "b": "x"}})");
    add(R"({"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": )" + ts + R"(, "args": {"Bytes": 8, "Addr": 1}})");
    add(R"({"ph": "Q", "name": "unknown phase"})");
  }
  return "{\"deviceProperties\": [{\"id\": 0, \"name\": \"AMD Instinct MI250X\"}, {\"id\": 0}],\n \"traceEvents\": [\n " +
         e + "\n ],\n \"distributedInfo\": {\"rank\": 2}, \"tail\": {\"x\": [{}, {}]}}\n";
}

// The string's bytes, from any offset (as a plain file: each reader reads them itself); on the
// thread that created the first source, 32 bytes a read and each read after `delay`. On a tiny
// input the calling thread would otherwise parse most pieces before a helper starts one;
// slowed, it finds the helpers' pieces done and checks their guesses, so both the merge and
// the re-parse paths run however busy the machine is.
class CallerPacedSource final : public ByteSource {
 public:
  CallerPacedSource(std::string_view data, std::thread::id caller, std::chrono::microseconds delay, size_t pos = 0)
      : data_(data), caller_(caller), delay_(delay), pos_(pos) {}
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (std::this_thread::get_id() == caller_) {
      std::this_thread::sleep_for(delay_);
      capacity = std::min<size_t>(capacity, 32);
    }
    const size_t n = std::min(capacity, data_.size() - pos_);
    std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_done() const override { return pos_; }
  uint64_t raw_bytes_total() const override { return data_.size(); }
  std::unique_ptr<ByteSource> OpenAt(uint64_t offset) const override {
    return std::make_unique<CallerPacedSource>(data_, caller_, delay_, std::min<size_t>(offset, data_.size()));
  }

 private:
  std::string_view data_;
  std::thread::id caller_;
  std::chrono::microseconds delay_;
  size_t pos_;
};

TEST(KinetoParallel, TortureInputAtEveryPieceSize) {
  const std::string json = Torture(12);
  const std::string expected = Sequential(json);
  ASSERT_EQ(expected.rfind("error", 0), std::string::npos) << expected;
  for (size_t piece = 1; piece <= 400; piece += (piece < 64 ? 1 : 37)) {
    for (int threads : {2, 3}) {
      KinetoReadStats stats;
      ASSERT_EQ(Outcome(ReadWith(json, threads, piece, 0, &stats)), expected) << "piece " << piece << " threads " << threads;
      EXPECT_TRUE(stats.direct_reads);  // a string is read from any offset, as a plain file
    }
  }
  // Both paths ran: pieces merged from helpers, and wrong guesses ("}, {" in a name) redone.
  uint64_t merged = 0, reparsed = 0;
  for (size_t piece = 1; piece <= 400; piece += (piece < 64 ? 1 : 37)) {
    CallerPacedSource source(json, std::this_thread::get_id(), std::chrono::microseconds(20));
    KinetoReadStats stats;
    KinetoReadOptions options;
    options.threads = 3;
    options.parallel_piece_bytes = piece;
    options.stats = &stats;
    ASSERT_EQ(Outcome(ReadKinetoTraceFromSource(source, "t.json", options)), expected) << "piece " << piece;
    merged += stats.pieces_merged;
    reparsed += stats.pieces_reparsed;
  }
  EXPECT_GT(merged, 100u) << reparsed;
  EXPECT_GT(reparsed, 10u) << merged;
  // Gzip'd, inflated on the producer thread.
  KinetoReadStats gzip_stats;
  EXPECT_EQ(Outcome(ReadWith(Gzip(json), 2, 97, 0, &gzip_stats)), expected);
  EXPECT_FALSE(gzip_stats.direct_reads);
}

TEST(KinetoParallel, ChromeArrayFormatAndEmptyArrays) {
  for (const std::string& json :
       {std::string("[") + R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},)" +
            R"( {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1}, {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "x"}}])",
        std::string(R"({"traceEvents": []})"), std::string(R"({"a": 1, "traceEvents": [], "b": [{}, {}]})")}) {
    const std::string expected = Sequential(json);
    for (size_t piece = 1; piece < json.size() + 2; ++piece)
      ASSERT_EQ(Outcome(ReadWith(json, 2, piece)), expected) << json << " piece " << piece;
  }
}

// The first error is the sequential one wherever it is: a truncation, bad JSON or a nonsense
// time in a late piece, with earlier good pieces merged or not.
TEST(KinetoParallel, SameFirstErrorEverywhere) {
  const std::string good = Torture(6);
  std::vector<std::string> bad;
  for (size_t cut : {good.size() / 3, good.size() / 2, good.size() - 40, good.size() - 3}) bad.push_back(good.substr(0, cut));
  const size_t mid = good.find("ProfilerStep#4");
  std::string bad_type = good;
  bad_type.replace(bad_type.find("\"dur\": 90", mid), 10, "\"dur\": \"x\"");  // a string for a time: fatal
  bad.push_back(bad_type);
  bad.push_back(good.substr(0, mid) + "Prof\"ilerStep#4" + good.substr(mid + 14));
  bad.push_back(good.substr(0, mid) + good.substr(mid + 30));
  std::string nonsense = good;
  nonsense.replace(nonsense.rfind("\"ts\": "), 6, "\"ts\": 1e300, \"x\": ");
  bad.push_back(nonsense);
  for (const std::string& json : bad) {
    const std::string expected = Sequential(json);
    ASSERT_EQ(expected.rfind("error: t.json: byte ", 0), 0u) << (&json - bad.data()) << " " << expected.substr(0, 300);
    for (size_t piece = 1; piece <= 300; piece += 7)
      ASSERT_EQ(Outcome(ReadWith(json, 2, piece)), expected) << "piece " << piece;
  }
}

TEST(KinetoParallel, RandomMutationsGiveTheSequentialOutcome) {
  const std::string good = Torture(4);
  std::mt19937 rng(11);
  const std::string significant = "{}[],:\"\\ 0-.eE";
  for (int trial = 0; trial < 300; ++trial) {
    std::string json = good;
    for (int m = 0, n = 1 + static_cast<int>(rng() % 4); m < n; ++m) {
      const size_t at = rng() % json.size();
      if (rng() % 2) json[at] = significant[rng() % significant.size()];
      else json.erase(at, 1 + rng() % 6);
    }
    const std::string expected = Sequential(json);
    const size_t piece = 1 + rng() % 200;
    ASSERT_EQ(Outcome(ReadWith(json, 2, piece)), expected) << "trial " << trial << " piece " << piece;
  }
}

// The text budget caps the same names whichever thread interned them first.
TEST(KinetoParallel, CappedNamesAndTheirDiagnosticAreTheSame) {
  std::string e;
  for (int i = 0; i < 40; ++i)
    e += std::string(i ? ", " : "") + R"({"ph": "X", "cat": "cpu_op", "name": ")" + std::string(150 + i, 'a' + i % 26) +
         R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(i) + R"(, "dur": 1})";
  const std::string json = "{\"traceEvents\": [" + e + "]}";
  const std::string expected = Sequential(json, 1000);
  // Names of 150, 151, ... bytes: after the 7th, 1071 bytes are kept (>= 1000): the other 33 are capped.
  ASSERT_NE(expected.find("diag text_capped data_loss 33 "), std::string::npos) << expected;
  for (size_t piece = 1; piece < 2000; piece += 13) ASSERT_EQ(Outcome(ReadWith(json, 2, piece, 1000)), expected) << piece;
}

// A table grows to what the whole input will need, extrapolated from how far its rows reach:
// after merged pieces that is the end of the last piece, not where the calling thread's own
// parse stopped (then 4 MiB into a 40 MB input, it reserved 2.2x the rows).
TEST(KinetoParallel, TablesGrowToTheWholeInputNotPastIt) {
  std::string e;
  const int n = 450000;
  for (int i = 0; i < n; ++i)
    e += std::string(i ? ",\n" : "") + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(1000 + 10 * i) + R"(, "dur": 5})";
  const std::string json = "{\"traceEvents\": [\n" + e + "\n]}\n";
  ASSERT_GT(json.size(), size_t{36} << 20);
  KinetoReadOptions options;
  options.threads = 2;
  KinetoReadStats stats;
  options.stats = &stats;
  StatusOr<Trace> t = ReadKinetoTraceFromString(json, "t.json", options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->cpu_ops.size(), static_cast<size_t>(n));
  EXPECT_GT(stats.pieces_merged, 0u);
  EXPECT_LE(t->cpu_ops.capacity(), t->cpu_ops.size() * 3 / 2);
}

std::vector<std::string> SharedKinetoTraces() {
  std::vector<std::string> out, dirs = {SharedPath("traces/kineto")};
  while (!dirs.empty()) {
    std::string dir = dirs.back();
    dirs.pop_back();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) continue;
    while (dirent* ent = readdir(d)) {
      std::string name = ent->d_name;
      if (name == "." || name == "..") continue;
      if (ent->d_type == DT_DIR) dirs.push_back(dir + "/" + name);
      else if (name.find(".json") != std::string::npos) out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  return out;
}

TEST(KinetoParallel, EverySharedAndSampleTraceReadsTheSame) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available");
  std::vector<std::string> files = SharedKinetoTraces();
  ASSERT_GE(files.size(), 22u);
  // The repository's sample traces (gzip'd, so the producer thread inflates them).
  for (const char* sample : {"sample_traces/scenario_healthy_amp.json.gz", "sample_traces/scenario_sync_bound.json.gz"})
    files.push_back(testing::SourcePath(sample));
  uint64_t merged = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    KinetoReadOptions one;
    one.threads = 1;
    const StatusOr<Trace> sequential = ReadKinetoTrace(path, one);
    const std::string expected = Outcome(sequential);
    ASSERT_EQ(expected.rfind("error", 0), std::string::npos) << expected;
    for (size_t piece : {size_t{4093}, size_t{65536}, size_t{1} << 20}) {
      // Pieces of 4 kB only in traces of up to 50,000 events (10 MB): each piece has a builder
      // of its own, and in the sanitized tree 4 kB pieces of all 140 MB of traces took 100 s;
      // the 17 traces below that still make ~8,000 pieces.
      if (piece == 4093 && sequential->metadata.event_count > 50000) continue;
      KinetoReadOptions many;
      KinetoReadStats stats;
      many.threads = piece == 4093 ? 3 : 2;
      many.parallel_piece_bytes = piece;
      many.stats = &stats;
      EXPECT_EQ(Outcome(ReadKinetoTrace(path, many)), expected) << "piece " << piece;
      merged += stats.pieces_merged;
    }
  }
  EXPECT_GT(merged, 1000u);  // the helpers' work was used, not redone
}

}  // namespace
}  // namespace kineto_parallel_test
}  // namespace ampscope

// Kineto ingestion throughput (Google Benchmark). bytes_per_second counts uncompressed JSON.
//
// Input: $AMPSCOPE_BENCH_TRACE if set (e.g. a trace from make_large_trace), else the
// tensorboard plugin's ResNet50 trace from shared/ (35 MB uncompressed), decompressed once
// into a temporary file so the plain-JSON path is measured too.
//
//   BM_ReadKinetoTrace/file      ReadKinetoTrace on the file as it is (.json or .json.gz)
//   BM_ReadKinetoTrace/plain     the same trace as plain JSON on disk
//   BM_ReadKinetoTrace/memory    ReadKinetoTraceFromString (no I/O)
//   BM_TokenizeOnly/memory       the JSON scan alone (events found, nothing built)
//   BM_ParseMicrosToNs           the µs -> ns conversion on real timestamp texts
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "trace/io/input_stream.h"
#include "trace/io/json_scanner.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace {

using namespace ampscope;

#ifndef AMPSCOPE_SHARED_DIR
#define AMPSCOPE_SHARED_DIR "../shared"
#endif

constexpr uint64_t kMaxInMemoryBytes = uint64_t{768} << 20;  // memory variants only below this

std::string ReadAll(const std::string& path) {
  auto source = OpenByteSource(path);
  if (!source.ok()) return {};
  std::string text;
  std::vector<char> chunk(4 << 20);
  while (true) {
    auto n = (*source)->Read(chunk.data(), chunk.size());
    if (!n.ok() || *n == 0) break;
    text.append(chunk.data(), *n);
  }
  return text;
}

void ReadFile(benchmark::State& state, const std::string& path) {
  uint64_t bytes = 0, events = 0;
  for (auto _ : state) {
    StatusOr<Trace> t = ReadKinetoTrace(path);
    if (!t.ok()) {
      state.SkipWithError(t.status().message().c_str());
      return;
    }
    bytes += t->metadata.input_bytes;
    events += t->metadata.event_count;
    benchmark::DoNotOptimize(t->kernels.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void ReadMemory(benchmark::State& state, const std::string* json) {
  for (auto _ : state) {
    StatusOr<Trace> t = ReadKinetoTraceFromString(*json, "memory");
    if (!t.ok()) {
      state.SkipWithError(t.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(t->kernels.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json->size()));
}

// The scan the reader does, without building anything: how fast the tokenizer alone is.
void TokenizeOnly(benchmark::State& state, const std::string* json) {
  for (auto _ : state) {
    json::Scanner sc(json->data(), json->data() + json->size());
    char c;
    uint64_t events = 0;
    if (sc.Peek(&c) != json::Result::kOk || c != '{') {
      state.SkipWithError("not an object");
      return;
    }
    sc.Advance();
    bool first = true;
    while (true) {
      json::Value key;
      bool done = false;
      if (sc.NextMember(first, &key, &done) != json::Result::kOk || done) break;
      first = false;
      if (key.text != "traceEvents") {
        json::Value v;
        sc.ParseValue(&v);
        continue;
      }
      sc.Advance();  // '['
      bool first_event = true;
      while (true) {
        bool end = false;
        if (sc.NextElement(first_event, &end) != json::Result::kOk || end) break;
        first_event = false;
        // Walk the event's members and args the way the reader does.
        if (sc.Peek(&c) != json::Result::kOk) break;
        sc.Advance();
        bool first_member = true;
        while (true) {
          json::Value k, v;
          bool member_done = false;
          if (sc.NextMember(first_member, &k, &member_done) != json::Result::kOk || member_done) break;
          first_member = false;
          if (k.text == "args" && sc.Peek(&c) == json::Result::kOk && c == '{') {
            sc.Advance();
            bool first_arg = true;
            while (true) {
              json::Value ak, av;
              bool args_done = false;
              if (sc.NextMember(first_arg, &ak, &args_done) != json::Result::kOk || args_done) break;
              first_arg = false;
              sc.ParseValue(&av);
            }
          } else {
            sc.ParseValue(&v);
          }
        }
        ++events;
      }
    }
    benchmark::DoNotOptimize(events);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json->size()));
}

void MicrosToNs(benchmark::State& state) {
  const std::vector<std::string> texts = {"1712195495506161.288", "1623142623460111", "1.280", "4458676522690.655",
                                          "5993.392", "1682725898236567", "68.0", "0.5"};
  int64_t sum = 0;
  for (auto _ : state) {
    for (const std::string& t : texts) {
      int64_t ns;
      ParseMicrosToNs(t, &ns);
      sum += ns;
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * texts.size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* env = std::getenv("AMPSCOPE_BENCH_TRACE");
  const std::string path =
      env && *env ? env : std::string(AMPSCOPE_SHARED_DIR) + "/traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz";
  if (access(path.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "ingest_bench: cannot read %s (set AMPSCOPE_BENCH_TRACE)\n", path.c_str());
    return 2;
  }
  bool compressed = false;
  uint64_t raw_size = 0;
  {
    auto probe = OpenByteSource(path);
    if (probe.ok()) {
      compressed = (*probe)->compressed();
      raw_size = (*probe)->raw_bytes_total();
    }
  }

  static std::string json;
  std::string plain_path;
  // Compressed files run ~10x larger inflated; only load what fits comfortably.
  if (raw_size * (compressed ? 12 : 1) <= kMaxInMemoryBytes) json = ReadAll(path);

  benchmark::RegisterBenchmark("BM_ReadKinetoTrace/file", ReadFile, path)->Unit(benchmark::kMillisecond);
  if (compressed && !json.empty()) {
    char tmpl[] = "/tmp/ampscope_ingest_bench_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0) {
      plain_path = tmpl;
      if (write(fd, json.data(), json.size()) != static_cast<ssize_t>(json.size())) plain_path.clear();
      close(fd);
    }
    if (!plain_path.empty())
      benchmark::RegisterBenchmark("BM_ReadKinetoTrace/plain", ReadFile, plain_path)->Unit(benchmark::kMillisecond);
  }
  if (!json.empty()) {
    benchmark::RegisterBenchmark("BM_ReadKinetoTrace/memory", ReadMemory, &json)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_TokenizeOnly/memory", TokenizeOnly, &json)->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("BM_ParseMicrosToNs", MicrosToNs);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!plain_path.empty()) std::remove(plain_path.c_str());
  return 0;
}

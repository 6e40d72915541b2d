// read_kineto: reads one Kineto trace with ReadKinetoTrace, prints what it found and how
// fast. scripts/bench.sh runs it under /usr/bin/time -v for the peak RSS.
//
// Usage: read_kineto TRACE [--quiet] [--threads N] [--zlib]
//   --threads N  KinetoReadOptions::threads (default 0: one per core)
//   --zlib       inflate with zlib even where ISA-L is built in
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <string>

#include "trace/formats/kineto/kineto_reader.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: read_kineto TRACE [--quiet] [--threads N] [--zlib]\n");
    return 2;
  }
  const std::string path = argv[1];
  bool quiet = false, zlib = false;
  ampscope::KinetoReadOptions options;
  ampscope::KinetoReadStats stats;
  options.stats = &stats;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quiet") quiet = true;
    else if (a == "--zlib") zlib = true;
    else if (a == "--threads" && i + 1 < argc) options.threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "read_kineto: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  ampscope::StatusOr<ampscope::Trace> trace = ampscope::Status::Error("not read");
  if (zlib) {
    auto source = ampscope::OpenByteSource(path, ampscope::GzipDecoder::kZlib);
    trace = source.ok() ? ampscope::ReadKinetoTraceFromSource(**source, path, options)
                        : ampscope::StatusOr<ampscope::Trace>(ampscope::Status::Error(path + ": " + source.status().message()));
  } else {
    trace = ampscope::ReadKinetoTrace(path, options);
  }
  const double cpu = CpuSeconds() - cpu0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!trace.ok()) {
    std::fprintf(stderr, "%s\n", trace.status().message().c_str());
    return 2;
  }
  const ampscope::Trace& t = *trace;
  const double mb = static_cast<double>(t.metadata.input_bytes) / 1e6;
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf("read_kineto: %s\n", path.c_str());
  std::printf("  input %.1f MB uncompressed, %llu events\n", mb, static_cast<unsigned long long>(t.metadata.event_count));
  std::printf("  wall %.3f s (%.0f MB/s), cpu %.3f s (%.0f MB/s), peak RSS %.1f MB (%.2fx input)\n", wall, mb / wall,
              cpu, mb / cpu, static_cast<double>(usage.ru_maxrss) / 1024.0,
              static_cast<double>(usage.ru_maxrss) * 1024.0 / static_cast<double>(t.metadata.input_bytes));
  std::printf("  gzip decoder %s; parse threads %d: pieces merged %llu, re-parsed %llu, by the calling thread %llu (ahead %llu)\n",
              ampscope::GzipDecoderName(zlib ? ampscope::GzipDecoder::kZlib : ampscope::GzipDecoder::kDefault),
              stats.parse_threads, static_cast<unsigned long long>(stats.pieces_merged),
              static_cast<unsigned long long>(stats.pieces_reparsed),
              static_cast<unsigned long long>(stats.pieces_by_caller),
              static_cast<unsigned long long>(stats.pieces_ahead_by_caller));
  if (!quiet) {
    std::printf("  kernels %zu, memcpy %zu, memset %zu, api calls %zu, syncs %zu, ranges %zu, cpu ops %zu, memory %zu, "
                "flows %zu, other %zu\n",
                t.kernels.size(), t.memcpys.size(), t.memsets.size(), t.api_calls.size(), t.syncs.size(),
                t.ranges.size(), t.cpu_ops.size(), t.memory_events.size(), t.flows.size(), t.other_events.size());
    for (const auto& [code, e] : t.diagnostics.entries())
      std::printf("  diagnostic %s (%s): %llu\n", code.c_str(), ampscope::SeverityName(e.severity),
                  static_cast<unsigned long long>(e.count));
  }
  return 0;
}

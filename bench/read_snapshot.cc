// read_snapshot SNAPSHOT.pickle: reads and analyses one PyTorch memory snapshot (what `ampscope
// analyze snap.pickle` does before its report) and prints the time it took, the process's peak
// RSS and both against the file's size. docs/bench.md quotes it on make_large_snapshot's output.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "analyzers/memory/memory_snapshot.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_snapshot SNAPSHOT.pickle\n");
    return 2;
  }
  struct stat st{};
  if (stat(argv[1], &st) != 0) {
    std::perror(argv[1]);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  ampscope::StatusOr<ampscope::MemorySnapshot> snap = ampscope::ReadMemorySnapshot(argv[1]);
  if (!snap.ok()) {
    std::fprintf(stderr, "%s\n", snap.status().message().c_str());
    return 2;
  }
  const auto t1 = std::chrono::steady_clock::now();
  const ampscope::MemorySnapshotResult r = ampscope::AnalyzeMemorySnapshot(*snap);
  const auto t2 = std::chrono::steady_clock::now();
  struct rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double file_mb = static_cast<double>(st.st_size) / 1e6;
  const double rss_mb = static_cast<double>(ru.ru_maxrss) * 1024 / 1e6;  // ru_maxrss is KiB on Linux
  const double read_s = std::chrono::duration<double>(t1 - t0).count();
  const double analyse_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("%s: %.1f MB, %zu events, %zu segments, peak live %llu bytes\n", argv[1], file_mb, snap->events.size(),
              snap->segments.size(), static_cast<unsigned long long>(r.peak_live_bytes.value_or(0)));
  std::printf("read %.3f s + analyse %.3f s = %.3f s (%.0f MB/s); peak RSS %.1f MB = %.2fx the file\n", read_s, analyse_s,
              read_s + analyse_s, file_mb / (read_s + analyse_s), rss_mb, rss_mb / file_mb);
  return 0;
}

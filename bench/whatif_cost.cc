// whatif_cost TRACE: what the run's dependency graph and its what-if replays cost next to the
// rest of `ampscope analyze` (issue 30: at most +30% time and 0.1x the input in peak RSS).
// Prints the read, the whole analysis (which builds the graph and replays every finding's fix
// and their union), and then, on the same context, the graph with one replay alone
// (graph::RunWhatIf with no transform: the critical path) and with eight fixes of the kinds the
// findings attach (kernels scaled, launches collapsed, host time removed, and their union).
// docs/bench.md quotes it on make_large_trace's 1 GB trace.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "analyzers/analyze.h"
#include "analyzers/context/context.h"
#include "analyzers/graph/whatif.h"
#include "analyzers/graph/transforms.h"
#include "trace/reader.h"

namespace {

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double PeakRssMb() {
  struct rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) * 1024 / 1e6;  // ru_maxrss is KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ampscope;
  if (argc != 2) {
    std::fprintf(stderr, "usage: whatif_cost TRACE\n");
    return 2;
  }
  struct stat st{};
  if (stat(argv[1], &st) != 0) {
    std::perror(argv[1]);
    return 2;
  }
  const double file_mb = static_cast<double>(st.st_size) / 1e6;
  auto t = std::chrono::steady_clock::now();
  StatusOr<Trace> trace = ReadTrace(argv[1], {});
  if (!trace.ok()) {
    std::fprintf(stderr, "%s\n", trace.status().message().c_str());
    return 2;
  }
  const double read_s = Since(t);
  const double rss_read = PeakRssMb();
  AnalysisOptions options;
  t = std::chrono::steady_clock::now();
  StatusOr<RankAnalysis> ra = AnalyzeTrace(*trace, options);
  const double analyze_s = Since(t);
  if (!ra.ok()) {
    std::fprintf(stderr, "%s\n", ra.status().message().c_str());
    return 2;
  }
  const double rss_analyzed = PeakRssMb();
  RankContext ctx(*trace, options);
  t = std::chrono::steady_clock::now();
  graph::WhatIfResult alone = graph::RunWhatIf(ctx, {});
  const double path_s = Since(t);
  std::vector<uint32_t> all, half;
  for (uint32_t k = 0; k < trace->kernels.size(); ++k) {
    all.push_back(k);
    if (k % 2 == 0) half.push_back(k);
  }
  std::vector<graph::Transform> fixes;
  fixes.push_back(graph::ScaleKernels(*trace, all, 0.5, "every kernel at half its time"));
  fixes.push_back(graph::ScaleKernels(*trace, half, 0.0, "every other kernel removed"));
  fixes.push_back(graph::CudaGraphLaunch(ctx, all, "every launch collapsed"));
  fixes.push_back(graph::CudaGraphLaunch(ctx, half, "every other launch collapsed"));
  fixes.push_back(graph::NoUnrecordedHost("no unrecorded host time"));
  fixes.push_back(graph::NoDataLoaderWait("no DataLoader wait"));
  fixes.push_back(graph::ScaleKernels(*trace, half, 0.8, "every other kernel at 0.8"));
  std::vector<const graph::Transform*> parts;
  for (const graph::Transform& f : fixes) parts.push_back(&f);
  const graph::Transform joint = graph::Combine(parts);
  parts.push_back(&joint);
  t = std::chrono::steady_clock::now();
  graph::WhatIfResult eight = graph::RunWhatIf(ctx, parts);
  const double fixes_s = Since(t);
  std::printf("%s: %.1f MB, %zu kernels, %zu steps, %llu graph nodes\n", argv[1], file_mb, trace->kernels.size(),
              ra->steps.steps.size(), static_cast<unsigned long long>(alone.path->nodes));
  std::printf("read %.2f s; analyze %.2f s (graph, critical path and the findings' %zu replays included)\n", read_s,
              analyze_s, ra->findings.size());
  std::printf("graph + critical path alone %.2f s; with 8 fixes %.2f s (%.0f%% of the analysis)\n", path_s, fixes_s,
              100.0 * fixes_s / analyze_s);
  std::printf("peak RSS: after the read %.0f MB, after the analysis %.0f MB, after the replays %.0f MB (file %.0f MB)\n",
              rss_read, rss_analyzed, PeakRssMb(), file_mb);
  return eight.path->available ? 0 : 1;
}

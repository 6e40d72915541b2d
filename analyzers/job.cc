// Multi-rank analysis: several traces are ranks of one job.
#include <algorithm>
#include <map>
#include <set>

#include "analyzers/analyze.h"
#include "analyzers/collectives.h"

namespace ampscope {

namespace {

int DimensionSeverity(DimensionStatus s) {
  switch (s) {
    case DimensionStatus::kGood: return 1;
    case DimensionStatus::kWarn: return 2;
    case DimensionStatus::kBad: return 3;
    default: return 0;
  }
}

int CheckSeverity(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return 1;
    case CheckStatus::kWarn: return 2;
    case CheckStatus::kFail: return 3;
    case CheckStatus::kNotApplicable: return 0;
    default: return 0;
  }
}

// The job summary of several ranks. A synchronous data-parallel job runs at the pace of its
// slowest rank, so a job step lasts as long as the slowest rank's step with the same index;
// utilisation-like numbers are means over ranks; statuses are the worst over ranks; each
// finding is kept once with the ranks it was seen on and its largest saving.
RankAnalysis SummarizeJob(const std::vector<RankAnalysis>& ranks) {
  RankAnalysis job;
  if (ranks.empty()) return job;
  const RankAnalysis& first = ranks.front();
  job.rank = -1;
  job.format = first.format;
  job.steps.source = first.steps.source;
  size_t nsteps = first.steps.steps.size();
  for (const RankAnalysis& r : ranks) nsteps = std::min(nsteps, r.steps.steps.size());
  for (size_t i = 0; i < nsteps; ++i) {
    StepWindow w = first.steps.steps[i];
    for (const RankAnalysis& r : ranks) {
      const StepWindow& o = r.steps.steps[i];
      if (o.duration_ns() > w.duration_ns()) {
        TimeNs d = o.duration_ns();
        w.end_ns = w.start_ns + d;
      }
    }
    job.steps.steps.push_back(w);
  }
  if (!job.steps.steps.empty()) {
    job.steps.window_start_ns = job.steps.steps.front().start_ns;
    job.steps.window_end_ns = job.steps.steps.back().end_ns;
  }
  job.step_stats = ComputeStepStats(job.steps);

  double n = static_cast<double>(ranks.size());
  auto mean_ns = [&](auto getter) {
    double sum = 0;
    for (const RankAnalysis& r : ranks) sum += static_cast<double>(getter(r));
    // Saturated rank sums can average to 2^63, which no int64 holds.
    return static_cast<TimeNs>(std::min(sum / n, 9.2e18));
  };
  job.gpu.window_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.window_ns; });
  job.gpu.busy_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.busy_ns; });
  job.gpu.kernel_busy_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.kernel_busy_ns; });
  job.gpu.memcpy_busy_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.memcpy_busy_ns; });
  job.gpu.memset_busy_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.memset_busy_ns; });
  job.gpu.idle.host_wait_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.idle.host_wait_ns; });
  job.gpu.idle.kernel_wait_ns = mean_ns([](const RankAnalysis& r) { return r.gpu.idle.kernel_wait_ns; });
  job.gpu.idle.other_ns =
      std::max<TimeNs>(0, SaturatingSub(SaturatingSub(SaturatingSub(job.gpu.window_ns, job.gpu.busy_ns), job.gpu.idle.host_wait_ns),
                                 job.gpu.idle.kernel_wait_ns));
  for (const RankAnalysis& r : ranks) {
    for (size_t c = 0; c < r.gpu.kernel_time_by_category_ns.size(); ++c)
      job.gpu.kernel_time_by_category_ns[c] = SaturatingAdd(job.gpu.kernel_time_by_category_ns[c], r.gpu.kernel_time_by_category_ns[c]);
    for (size_t p = 0; p < r.gpu.kernel_time_by_precision_ns.size(); ++p)
      job.gpu.kernel_time_by_precision_ns[p] = SaturatingAdd(job.gpu.kernel_time_by_precision_ns[p], r.gpu.kernel_time_by_precision_ns[p]);
    job.gpu.kernel_time_total_ns = SaturatingAdd(job.gpu.kernel_time_total_ns, r.gpu.kernel_time_total_ns);
    job.gpu.kernel_count += r.gpu.kernel_count;
    job.gpu.kernels_under_10us += r.gpu.kernels_under_10us;
    for (const auto& [kind, s] : r.memory.memcpy_by_kind) {
      MemcpyKindStats& j = job.memory.memcpy_by_kind[kind];
      j.count += s.count;
      j.bytes += s.bytes;
      j.time_ns = SaturatingAdd(j.time_ns, s.time_ns);
      j.pageable_count += s.pageable_count;
      j.pageable_bytes += s.pageable_bytes;
    }
    job.memory.memset_count += r.memory.memset_count;
    job.memory.memset_bytes += r.memory.memset_bytes;
    job.memory.memset_time_ns = SaturatingAdd(job.memory.memset_time_ns, r.memory.memset_time_ns);
    job.syncs.api_sync_count += r.syncs.api_sync_count;
    job.syncs.cuda_sync_event_count += r.syncs.cuda_sync_event_count;
    job.syncs.api_sync_time_ns = SaturatingAdd(job.syncs.api_sync_time_ns, r.syncs.api_sync_time_ns);
    for (const auto& [api, c] : r.syncs.by_api) job.syncs.by_api[api] += c;
    job.syncs.syncs_per_step += r.syncs.syncs_per_step / n;
    job.launches.kernels += r.launches.kernels;
    job.launches.kernels_per_step += r.launches.kernels_per_step / n;
    job.launches.launch_api_calls += r.launches.launch_api_calls;
    job.launches.launch_api_time_ns = SaturatingAdd(job.launches.launch_api_time_ns, r.launches.launch_api_time_ns);
    job.launches.pct_kernels_under_10us += r.launches.pct_kernels_under_10us / n;
    job.launches.median_kernel_ns += static_cast<TimeNs>(r.launches.median_kernel_ns / n);
    job.launches.graph_launched_kernels += r.launches.graph_launched_kernels;
  }

  // Tensor cores: mean of the per-rank shares (each rank's share is already a ratio).
  {
    double tc = 0;
    int have = 0;
    for (const RankAnalysis& r : ranks) {
      if (r.tensor_cores.kernel_time_pct) {
        tc += *r.tensor_cores.kernel_time_pct;
        ++have;
      }
    }
    job.tensor_cores = first.tensor_cores;
    if (have > 0) job.tensor_cores.kernel_time_pct = tc / have;
  }
  job.precision = first.precision;
  job.top_kernels = first.top_kernels;

  // Matrix and checklist: worst status over ranks.
  job.matrix = first.matrix;
  for (const RankAnalysis& r : ranks)
    for (const DimensionResult& d : r.matrix)
      for (DimensionResult& j : job.matrix)
        if (j.id == d.id && DimensionSeverity(d.status) > DimensionSeverity(j.status)) j = d;
  job.checklist = first.checklist;
  for (const RankAnalysis& r : ranks)
    for (const ChecklistItem& c : r.checklist)
      for (ChecklistItem& j : job.checklist)
        if (j.id == c.id && CheckSeverity(c.status) > CheckSeverity(j.status)) j = c;

  std::map<std::string, Finding> findings;
  std::map<std::string, std::set<int32_t>> finding_ranks;
  for (const RankAnalysis& r : ranks) {
    for (const Finding& f : r.findings) {
      auto it = findings.find(f.id);
      if (it == findings.end() || f.est_saving_pct > it->second.est_saving_pct) findings[f.id] = f;
      finding_ranks[f.id].insert(r.rank);
    }
  }
  for (auto& [id, f] : findings) {
    std::vector<int64_t> rl(finding_ranks[id].begin(), finding_ranks[id].end());
    SetField(f.evidence, {"ranks", rl});
    job.findings.push_back(f);
  }
  std::stable_sort(job.findings.begin(), job.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.est_saving_pct > b.est_saving_pct; });

  // Per-step arrays: from the slowest rank of each step.
  for (size_t i = 0; i < nsteps; ++i) {
    const RankAnalysis* slowest = &first;
    for (const RankAnalysis& r : ranks)
      if (r.steps.steps[i].duration_ns() > slowest->steps.steps[i].duration_ns()) slowest = &r;
    if (i < slowest->per_step.size()) {
      StepMetrics s = slowest->per_step[i];
      s.slowest_rank = slowest->rank;
      job.per_step.push_back(std::move(s));
    }
  }
  bool any_gpu = false;
  for (const RankAnalysis& r : ranks) any_gpu |= r.gpu_activity_recorded;
  job.gpu_activity_recorded = any_gpu;
  return job;
}

}  // namespace

JobAnalysis AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options) {
  JobAnalysis job;
  std::set<std::string> seen_devices;
  for (size_t i = 0; i < traces.size(); ++i) {
    const Trace& t = traces[i];
    StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
    if (!ra.ok()) {
      job.diagnostics.Add(DiagCode::kAnalysisFailed, -1, t.metadata.path + ": " + ra.status().message());
      continue;
    }
    RankAnalysis r = std::move(ra).value();
    if (r.rank < 0) r.rank = static_cast<int32_t>(i);
    job.ranks.push_back(std::move(r));
    // Kineto lists every visible device; report the ones this process used (all of them
    // when it recorded no GPU work).
    std::set<int32_t> used;
    for (const KernelEvent& k : t.kernels) used.insert(k.device);
    for (const MemcpyEvent& m : t.memcpys) used.insert(m.device);
    for (const MemsetEvent& m : t.memsets) used.insert(m.device);
    for (const Device& d : t.devices) {
      if (!used.empty() && used.count(d.id) == 0) continue;
      std::string key = d.name + "#" + std::to_string(d.id);
      if (seen_devices.insert(key).second) job.devices.push_back(d);
    }
    job.diagnostics.Merge(t.diagnostics);
  }
  if (job.ranks.size() == 1) {
    job.job = job.ranks.front();
  } else {
    job.job = SummarizeJob(job.ranks);
  }
  std::vector<const RankAnalysis*> ranks;
  for (const RankAnalysis& r : job.ranks) ranks.push_back(&r);
  job.collectives = AnalyzeCollectives(ranks);
  AddStragglerFinding(job.collectives, job.job);
  return job;
}

}  // namespace ampscope

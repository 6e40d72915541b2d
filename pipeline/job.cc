// Multi-rank analysis: several traces are ranks of one job.
#include "pipeline/job.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "analyzers/analyze.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/collectives/collectives.h"
#include "analyzers/graph/critical_path_result.h"
#include "analyzers/integrity/integrity.h"

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

// Kernels by name summed over ranks, so that each one's share of the job's kernel time (also a
// sum) is right (before, rank 0's list over the sum of all ranks halved every share on 2 ranks).
std::vector<KernelSummary> SumKernels(const std::vector<RankAnalysis>& ranks) {
  std::map<std::string, KernelSummary> by_name;
  for (const RankAnalysis& r : ranks) {
    for (const KernelSummary& k : r.top_kernels) {
      auto [it, fresh] = by_name.try_emplace(k.name_str, k);
      if (fresh) {
        it->second.name = kNoString;  // ids are per trace
        continue;
      }
      KernelSummary& j = it->second;
      j.count += k.count;
      j.total_ns = SaturatingAdd(j.total_ns, k.total_ns);
      j.min_ns = std::min(j.min_ns, k.min_ns);
      j.max_ns = std::max(j.max_ns, k.max_ns);
    }
  }
  std::vector<KernelSummary> out;
  out.reserve(by_name.size());
  for (auto& [name, k] : by_name) out.push_back(std::move(k));
  std::stable_sort(out.begin(), out.end(), [](const KernelSummary& a, const KernelSummary& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::optional<double> Imbalance(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0, max = values.front();
  for (double v : values) {
    sum += v;
    max = std::max(max, v);
  }
  const double mean = sum / static_cast<double>(values.size());
  if (mean <= 0) return std::nullopt;
  return max / mean;
}

JobBalance Balance(const std::vector<RankAnalysis>& ranks) {
  JobBalance b;
  std::vector<double> steps, compute, comm;
  const size_t comm_index = static_cast<size_t>(KernelCategory::kCommunication);
  size_t with_steps = 0;
  for (const RankAnalysis& r : ranks) {
    RankBalance rb;
    rb.rank = r.rank;
    rb.path = r.input.path;
    if (!r.input.devices.empty()) rb.device = r.input.devices.front().device.name;
    rb.steps = r.steps.steps.size();
    if (r.step_stats.known()) rb.step_time_us = r.step_stats.mean_us;
    const TimeNs n = static_cast<TimeNs>(std::max<size_t>(1, rb.steps));
    const TimeNs communication = r.gpu.kernel_time_by_category_ns[comm_index];
    rb.communication_per_step_ns = communication / n;
    rb.compute_per_step_ns = SaturatingSub(r.gpu.kernel_time_total_ns, communication) / n;
    if (rb.step_time_us) steps.push_back(*rb.step_time_us);
    if (rb.steps > 0) ++with_steps;
    compute.push_back(static_cast<double>(rb.compute_per_step_ns));
    comm.push_back(static_cast<double>(rb.communication_per_step_ns));
    b.ranks.push_back(std::move(rb));
  }
  if (ranks.size() < 2) return b;
  if (steps.size() == ranks.size()) b.step_time_imbalance = Imbalance(steps);
  if (with_steps == 0 || with_steps == ranks.size()) {
    b.compute_imbalance = Imbalance(compute);
    b.communication_imbalance = Imbalance(comm);
  }
  return b;
}

// Signs that the inputs are not the ranks of one job: one line each, for the report.
std::vector<std::string> JobWarnings(const std::vector<RankAnalysis>& ranks) {
  std::vector<std::string> warnings;
  std::set<int32_t> world_sizes;
  std::set<std::string> gpus;
  std::map<int32_t, std::string> seen;
  std::set<int32_t> twice;
  std::string first_twice;
  for (const RankAnalysis& r : ranks) {
    if (r.input.world_size >= 0) world_sizes.insert(r.input.world_size);
    for (const DeviceInfo& d : r.input.devices) gpus.insert(d.device.name);
    if (r.input.trace_rank < 0) continue;
    auto [it, fresh] = seen.try_emplace(r.input.trace_rank, r.input.path);
    if (!fresh && twice.insert(r.input.trace_rank).second && first_twice.empty())
      first_twice = " (rank " + std::to_string(r.input.trace_rank) + ": " + it->second + " and " + r.input.path + ")";
  }
  auto list = [](const auto& set) {
    std::string s;
    for (const auto& v : set) {
      if (!s.empty()) s += ", ";
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) s += v;
      else s += std::to_string(v);
    }
    return s;
  };
  if (!twice.empty())
    warnings.push_back(std::to_string(twice.size()) + " rank number" + (twice.size() == 1 ? " appears" : "s appear") +
                       " in more than one input" + first_twice + ": these may be several runs, not one job");
  if (world_sizes.size() > 1)
    warnings.push_back("the inputs name different world sizes (" + list(world_sizes) + "): they are not one job");
  if (gpus.size() > 1)
    warnings.push_back("the inputs ran on different GPUs (" + list(gpus) + "): the job view mixes them");
  if (!world_sizes.empty() && world_sizes.size() == 1 && static_cast<size_t>(*world_sizes.begin()) < ranks.size())
    warnings.push_back(std::to_string(ranks.size()) + " inputs for a world size of " + std::to_string(*world_sizes.begin()) +
                       ": some are not ranks of this job");
  return warnings;
}

// The job summary of several ranks. A synchronous data-parallel job runs at the pace of its
// slowest rank, so a job step lasts as long as the slowest rank's step with the same index;
// utilisation-like numbers are means over ranks; statuses are the worst over ranks; each
// finding is kept once with the ranks it was seen on and its largest saving.
// The job's findings: each finding once, from the rank where it saves most, with the ranks that
// have it; the joint saving and the critical path of the rank the job waits for.
void MergeFindings(const std::vector<RankAnalysis>& ranks, RankAnalysis& job) {
  std::map<std::string, Finding> findings;
  std::map<std::string, std::set<int32_t>> finding_ranks;
  for (const RankAnalysis& r : ranks) {
    for (const Finding& f : r.findings) {
      auto it = findings.find(f.id);
      if (it == findings.end() || f.est_saving_pct > it->second.est_saving_pct) {
        // Its numbers, texts and times are that rank's (times on that rank's steps).
        Finding& kept = findings[f.id] = f;
        SetField(kept.evidence, {"numbers_of_rank", r.rank});
      }
      finding_ranks[f.id].insert(r.rank);
    }
  }
  for (auto& [id, f] : findings) {
    std::vector<int64_t> rl(finding_ranks[id].begin(), finding_ranks[id].end());
    SetField(f.evidence, {"ranks", rl});
    job.findings.push_back(f);
  }
  diagnosis::RankFindings(job.findings);
  // The job finishes when its slowest rank does (the longest analysed window): its joint saving
  // and its critical path are the job's. A faster rank's fixes shorten a rank the job does not
  // wait for, so its (larger) joint saving is not the job's. The replay error is the worst over
  // the ranks.
  const RankAnalysis* slowest = nullptr;
  for (const RankAnalysis& r : ranks)
    if (slowest == nullptr || r.gpu.window_ns > slowest->gpu.window_ns) slowest = &r;
  if (slowest == nullptr) return;
  job.joint_saving_pct = slowest->joint_saving_pct;
  double worst = 0;
  for (const RankAnalysis& r : ranks)
    if (r.critical_path != nullptr && r.critical_path->available) worst = std::max(worst, r.critical_path->replay_error_pct);
  if (slowest->critical_path != nullptr && slowest->critical_path->available) {
    auto path = std::make_shared<graph::CriticalPathResult>(*slowest->critical_path);
    path->replay_error_pct = worst;
    path->segments.clear();
    job.critical_path = std::move(path);
  }
}

RankAnalysis SummarizeJob(const std::vector<RankAnalysis>& ranks) {
  RankAnalysis job;
  if (ranks.empty()) return job;
  const RankAnalysis& first = ranks.front();
  job.rank = -1;
  job.format = first.format;
  job.steps.source = first.steps.source;
  job.steps.anchor = first.steps.anchor;
  // Ranks read for some of their steps (StepSampling): the job's step time is every step's of
  // the rank whose steps take longest on the mean, its note that rank's.
  for (const RankAnalysis& r : ranks)
    if (r.steps.sampling.steps_in_trace > 0 && r.steps.sampling.mean_us > job.steps.sampling.mean_us) job.steps.sampling = r.steps.sampling;
  size_t nsteps = first.steps.steps.size();
  for (const RankAnalysis& r : ranks) nsteps = std::min(nsteps, r.steps.steps.size());
  job.steps.detected = nsteps;  // warm-up and cut steps are each rank's (ranks[].steps.flagged)
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
    job.syncs.input_copy_count += r.syncs.input_copy_count;
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
  job.top_kernels = SumKernels(ranks);

  // Matrix and checklist: worst status over ranks. A dimension's or item's numbers are that
  // rank's (the first of the worst), and it says which: metrics.numbers_of_rank, numbers_of_rank.
  job.matrix = first.matrix;
  for (DimensionResult& j : job.matrix) SetField(j.metrics, {"numbers_of_rank", first.rank});
  for (const RankAnalysis& r : ranks)
    for (const DimensionResult& d : r.matrix)
      for (DimensionResult& j : job.matrix)
        if (j.id == d.id && DimensionSeverity(d.status) > DimensionSeverity(j.status)) {
          j = d;
          SetField(j.metrics, {"numbers_of_rank", r.rank});
        }
  job.checklist = first.checklist;
  for (ChecklistItem& j : job.checklist) j.numbers_of_rank = first.rank;
  for (const RankAnalysis& r : ranks)
    for (const ChecklistItem& c : r.checklist)
      for (ChecklistItem& j : job.checklist)
        if (j.id == c.id && CheckSeverity(c.status) > CheckSeverity(j.status)) {
          j = c;
          j.numbers_of_rank = r.rank;
        }

  MergeFindings(ranks, job);

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

JobAnalysis BuildJob(std::vector<RankAnalysis> ranks, Diagnostics diagnostics, std::vector<MissingInput> missing) {
  JobAnalysis job;
  job.diagnostics = std::move(diagnostics);
  job.missing = std::move(missing);
  for (const MissingInput& m : job.missing) job.diagnostics.Add(DiagCode::kAnalysisFailed, -1, m.path + ": " + m.error);
  std::set<std::string> seen_devices;
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankAnalysis& r = ranks[i];
    if (r.rank < 0) r.rank = static_cast<int32_t>(i);
    for (const DeviceInfo& d : r.input.devices) {
      std::string key = d.device.name + "#" + std::to_string(d.device.id);
      if (seen_devices.insert(key).second) job.devices.push_back(d);
    }
  }
  job.ranks = std::move(ranks);
  if (job.ranks.size() == 1) {
    // The job is its one rank, less the idle gaps and their causes: only the exporters read
    // them, from ranks[] (at ~2 gaps a step, the copy was the largest per-step one after the read).
    RankAnalysis& only = job.ranks.front();
    std::vector<IdleGap> gaps = std::move(only.gpu.idle_gaps);
    IdleGapCauseTable causes = std::move(only.gpu.idle_gap_causes);
    job.job = only;
    only.gpu.idle_gaps = std::move(gaps);
    only.gpu.idle_gap_causes = std::move(causes);
  } else {
    job.job = SummarizeJob(job.ranks);
    job.balance = Balance(job.ranks);
    job.warnings = JobWarnings(job.ranks);
  }
  std::vector<const RankAnalysis*> rank_results;
  for (const RankAnalysis& r : job.ranks) rank_results.push_back(&r);
  job.collectives = AnalyzeCollectives(rank_results);
  AddStragglerFinding(job.collectives, job.job);
  CheckJobIntegrity(job);
  return job;
}

JobAnalysis AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options) {
  std::vector<RankAnalysis> ranks;
  Diagnostics diagnostics;
  for (const Trace& t : traces) {
    StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
    if (!ra.ok()) {
      diagnostics.Add(DiagCode::kAnalysisFailed, -1, t.metadata.path + ": " + ra.status().message());
      continue;
    }
    ranks.push_back(std::move(ra).value());
  }
  return BuildJob(std::move(ranks), std::move(diagnostics));
}

}  // namespace ampscope

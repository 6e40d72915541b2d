// Distributed rules: communication the GPU waits for, and communication that is large though
// overlapped.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

std::vector<uint32_t> CommKernels(const Facts& in) {
  std::vector<uint32_t> k;
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i) && in.cls(i).category == KernelCategory::kCommunication) k.push_back(static_cast<uint32_t>(i));
  return k;
}

}  // namespace

double RuleDistributed(const Facts& in, FindingSink& out) {
  ChecklistItem& item = out.Item("distributed_sync");
  item.threshold = fmt::format("exposed communication < {:.0f}% of step with comm/compute overlap >= {:.0f}% [heur]; "
                               "communication <= {:.0f}% of step [kineto]",
                               kExposedCommFailPct, kCommOverlapPct, kCommSharePct);
  item.source = "[kineto] communication/step > 10%; [HTA] comm/compute overlap; [nsys] nccl_gpu_overlap_trace";
  TimeNs comm_in = 0, overlapped = 0;
  uint64_t collectives = 0;
  std::vector<std::pair<TimeNs, TimeNs>> exposed_ranges;
  for (const Interval& w : in.ctx.windows()) comm_in = SaturatingAdd(comm_in, OverlapNs(in.ctx.busy().comm, w.start_ns, w.end_ns));
  for (const Interval& c : in.ctx.busy().comm) {
    for (const Interval& w : in.ctx.windows()) {
      const TimeNs s = std::max(c.start_ns, w.start_ns), e = std::min(c.end_ns, w.end_ns);
      if (e <= s) continue;
      const TimeNs ov = OverlapNs(in.ctx.busy().compute, s, e);
      overlapped = SaturatingAdd(overlapped, ov);
      if (e - s - ov > 0) exposed_ranges.emplace_back(s, e);
    }
  }
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i) && in.cls(i).category == KernelCategory::kCommunication) ++collectives;
  const int ws = in.t.metadata.world_size;
  if (collectives == 0 && ws <= 1) {
    item.status = CheckStatus::kNotApplicable;
    item.evidence = ws == 1 ? "world size 1, no communication kernels" : "single process, no communication kernels";
    return -1;
  }
  const double share = in.PctOfWindow(static_cast<double>(comm_in));
  const double overlap = comm_in > 0 ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(comm_in) : 100.0;
  const TimeNs exposed = comm_in - overlapped;
  const double exposed_pct = in.PctOfWindow(static_cast<double>(exposed));
  item.value = Round(exposed_pct);
  item.evidence = fmt::format("{:.1f} collectives per step; communication {:.1f}% of step; overlap with compute {:.1f}% (HTA); "
                              "exposed {:.1f}% of step",
                              static_cast<double>(collectives) / in.nsteps, share, overlap, exposed_pct);
  if (collectives == 0) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "world size > 1 but no NCCL kernels recorded: profile with CUDA activities on every rank";
    return -1;
  }
  item.status = CheckStatus::kPass;
  std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.cls(i).category == KernelCategory::kCommunication; }, 3);
  if (exposed_pct >= kMinSavingPct && (overlap < kCommOverlapPct || exposed_pct >= kExposedCommFailPct)) {
    Finding& x = out.Add("exposed_communication", 0.0,
                     fmt::format("{:.1f}% of the step is communication the GPU waits for (overlap {:.0f}%)", exposed_pct, overlap),
                     fmt::format("{} run with no compute alongside. Let DDP overlap them with backward (do not all-reduce "
                                 "gradients by hand after backward; tune bucket_cap_mb; gradient_as_bucket_view=True), use "
                                 "no_sync() for gradient accumulation, or compress gradients (bf16/fp16 comm hook).",
                                 in.KernelList(top)));
    x.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct},
                  {"exposed_us_per_step", NsToUsRounded3(exposed / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                  {"collectives_per_step", Round(static_cast<double>(collectives) / in.nsteps), Unit::kPerStep}, {"top_kernels", top},
                  {"exposed_pct_of_step", Round(exposed_pct), Unit::kPctOfStep},
                  {"estimate", "replayed: communication fully overlapped (its kernels no longer delay what waits for them)"}};
    out.Fix(x, graph::ScaleKernels(in.t, CommKernels(in), 0.0, "communication kernels (full overlap)"));
    std::sort(exposed_ranges.begin(), exposed_ranges.end(), [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
    if (exposed_ranges.size() > 8) exposed_ranges.resize(8);
    std::sort(exposed_ranges.begin(), exposed_ranges.end());
    x.time_ranges = exposed_ranges;
    item.status = (overlap < kCommOverlapPct && exposed_pct >= kExposedCommFailPct) ? CheckStatus::kFail : CheckStatus::kWarn;
  } else if (share > kCommSharePct) {
    Finding& x = out.Add("communication_heavy", 0.0,
                     fmt::format("Communication takes {:.1f}% of the step (overlapped {:.0f}%)", share, overlap),
                     "Communication is well overlapped but large: gradient accumulation (fewer all-reduces per sample), a "
                     "larger per-GPU batch, or gradient compression would shrink it.");
    x.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct}, {"top_kernels", top},
                  {"estimate", "replayed: communication kernels at half their time (bf16/fp16 gradient compression halves the bytes)"}};
    out.Fix(x, graph::ScaleKernels(in.t, CommKernels(in), 0.5, "communication kernels at half the bytes"));
    item.status = CheckStatus::kWarn;
  }
  return overlap;
}

}  // namespace ampscope::diagnosis

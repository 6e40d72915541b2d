// Savings as consequences: every finding's fix is replayed on the run's dependency graph
// (analyzers/graph/), and so is the joint fix (all of them at once). docs/whatif.md.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/graph/critical_path_result.h"
#include "analyzers/graph/whatif.h"
#include "base/units.h"

namespace ampscope::diagnosis {

void ReplaySavings(const Facts& in, FindingSink& out, RankAnalysis& ra) {
  std::vector<const graph::Transform*> transforms, others;
  bool residual = false;
  for (const FindingFix& f : out.fixes()) {
    transforms.push_back(&f.transform);
    if (f.gate == SavingGate::kResidual) residual = true;
    else others.push_back(&f.transform);
  }
  const graph::Transform joint = graph::Combine(transforms);
  transforms.push_back(&joint);
  // A residual finding's saving is what its fix adds to every other fix: one more replay, of
  // every fix but the residual ones (built only then: it holds a copy of what the fixes change,
  // alive through every replay).
  const graph::Transform joint_others = residual ? graph::Combine(others) : graph::Transform{};
  if (residual) transforms.push_back(&joint_others);
  const graph::WhatIfResult w = graph::RunWhatIf(in.ctx, transforms);
  const size_t joint_index = out.fixes().size();
  ra.critical_path = w.path;
  std::vector<uint8_t> drop(out.findings().size(), 0);
  const std::vector<FindingFix>& fixes = out.fixes();
  auto record = [&](size_t i, double pct, TimeNs saved) {
    const FindingFix& fix = fixes[i];
    out.SetSaving(fix.finding, pct);
    Finding& f = ra.findings[fix.finding];
    f.evidence.push_back({"whatif_transform", fix.transform.name});
    if (!fix.transform.selection.empty()) f.evidence.push_back({"whatif_selection", fix.transform.selection});
    f.evidence.push_back({"whatif_saving_us", NsToUsRounded3(std::max<TimeNs>(0, saved)), Unit::kUs});
    f.evidence.push_back({"whatif_changed_time_us", NsToUsRounded3(w.outcomes[i].changed_ns), Unit::kUs});
    f.recommendation += fmt::format(" [Saving replayed: the run's dependency graph re-timed with this fix ({}) saves {:.2f}% of the "
                                    "window.]",
                                    fix.transform.name, f.est_saving_pct);
    if (fix.gate == SavingGate::kResidual)
      f.evidence.push_back({"whatif_basis", "what this fix adds to every other finding's fix, replayed together"});
    if (fix.gate != SavingGate::kKeep && f.est_saving_pct < kMinSavingPct) drop[fix.finding] = 1;
  };
  // Each fix alone; a finding it leaves below kMinSavingPct is dropped (its gate says so).
  bool dropped_changes = false;
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (fixes[i].gate == SavingGate::kResidual) continue;
    record(i, w.path->available ? w.SavingPct(i) : 0.0, w.path->replayed_window_ns - w.outcomes[i].replayed_window_ns);
    dropped_changes = dropped_changes || (drop[fixes[i].finding] && w.outcomes[i].changed_ns > 0);
  }
  // The joint fixes are those of the findings that stay: a dropped finding's fix, which alone
  // saves next to nothing, can still take time a kept one would free (sampled_rank-1: a dropped
  // fix took 80% of the residual low_gpu_utilization's saving). Where one that changed the run was
  // dropped, the joint replays are made again without it.
  graph::WhatIfResult again;
  const graph::WhatIfResult* jw = &w;
  size_t all_at = joint_index, others_at = joint_index + 1;
  if (dropped_changes && w.path->available) {
    std::vector<const graph::Transform*> kept, kept_others;
    for (const FindingFix& f : fixes) {
      if (drop[f.finding]) continue;
      kept.push_back(&f.transform);
      if (f.gate != SavingGate::kResidual) kept_others.push_back(&f.transform);
    }
    const graph::Transform kept_joint = graph::Combine(kept);
    const graph::Transform kept_joint_others = residual ? graph::Combine(kept_others) : graph::Transform{};
    std::vector<const graph::Transform*> joints = {&kept_joint};
    if (residual) joints.push_back(&kept_joint_others);
    again = graph::RunWhatIf(in.ctx, joints);
    jw = &again;
    all_at = 0, others_at = 1;
  }
  // A residual finding's saving: what its fix adds to every other kept fix.
  bool residual_dropped = false;
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (fixes[i].gate != SavingGate::kResidual) continue;
    double pct = 0.0;
    TimeNs saved = 0;
    if (w.path->available) {
      saved = jw->outcomes[others_at].replayed_window_ns - jw->outcomes[all_at].replayed_window_ns;
      pct = std::max(0.0, 100.0 * static_cast<double>(saved) / static_cast<double>(std::max<TimeNs>(1, w.path->measured_window_ns)));
    }
    record(i, pct, saved);
    residual_dropped = residual_dropped || drop[fixes[i].finding];
  }
  // The joint saving: one replay with every kept fix; never more than the findings' savings together.
  double sum = 0;
  for (size_t i = 0; i < fixes.size(); ++i)
    if (!drop[fixes[i].finding]) sum += ra.findings[fixes[i].finding].est_saving_pct;
  const double joint_pct = w.path->available ? jw->SavingPct(residual_dropped ? others_at : all_at) : 0.0;
  ra.joint_saving_pct = Round(std::clamp(std::min(joint_pct, sum), 0.0, 100.0), 2);
  out.Drop(drop);
  // Each collective's time on its step's critical path (the straggler's replay, job.cc).
  if (w.path->available && !ra.collectives.empty()) {
    std::map<std::pair<int32_t, TimeNs>, TimeNs> on_path;
    for (const auto& [k, ns] : w.comm_on_path) on_path[{in.t.kernels[k].stream, in.t.kernels[k].start_ns}] += ns;
    for (CollectiveCall& c : ra.collectives) {
      auto it = on_path.find({c.stream, c.start_ns});
      c.critical_path_ns = it != on_path.end() ? it->second : 0;
    }
  }
}

}  // namespace ampscope::diagnosis

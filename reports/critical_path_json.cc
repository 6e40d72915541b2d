#include "reports/critical_path_json.h"

#include <algorithm>
#include <cmath>

#include "analyzers/graph/critical_path_result.h"
#include "base/units.h"
#include "reports/contract/critical_path_view.h"
#include "reports/step_list.h"

namespace ampscope {
namespace {

using nlohmann::json;
namespace key = reports::critical_path_key;

double Pct(TimeNs part, TimeNs whole) {
  return whole > 0 ? std::round(10000.0 * static_cast<double>(part) / static_cast<double>(whole)) / 100.0 : 0.0;
}

json BreakdownPct(const graph::PathBreakdown& b) {
  json o = json::object();
  for (size_t c = 0; c < graph::kBreakdownCategories; ++c) o[graph::BreakdownName(c)] = Pct(b.ns[c], b.length_ns);
  return o;
}

json BreakdownUs(const graph::PathBreakdown& b) {
  json o = json::object();
  for (size_t c = 0; c < graph::kBreakdownCategories; ++c) o[graph::BreakdownName(c)] = NsToUsRounded3(b.ns[c]);
  return o;
}

double Round2(double v) { return std::round(v * 100.0) / 100.0; }

json HtaBoundBy(const graph::PathBreakdown& b) {
  const graph::HtaBoundBy h = graph::HtaBoundByOf(b);
  return {{"cpu_bound", Round2(h.cpu_bound)},
          {"gpu_compute_bound", Round2(h.gpu_compute_bound)},
          {"gpu_communication_bound", Round2(h.gpu_communication_bound)},
          {"gpu_kernel_kernel_overhead", Round2(h.gpu_kernel_kernel_overhead)},
          {"gpu_kernel_launch_overhead", Round2(h.gpu_kernel_launch_overhead)}};
}

}  // namespace

json CriticalPathSection(const RankAnalysis& ra) {
  if (ra.critical_path == nullptr) return {{key::kAvailable, false}, {key::kReason, "not computed"}};
  const graph::CriticalPathResult& p = *ra.critical_path;
  if (!p.available) return {{key::kAvailable, false}, {key::kReason, p.reason}};
  // Each step one by one only for the steps that matter (reports/step_list.h: the first, the
  // last and the longest); the mean path length is over every step.
  std::vector<double> measured;
  measured.reserve(p.steps.size());
  double length_sum_ns = 0;
  for (const graph::CriticalPathStep& s : p.steps) {
    measured.push_back(static_cast<double>(s.measured_ns));
    length_sum_ns += static_cast<double>(s.path.length_ns);
  }
  const std::vector<size_t> listed = ListedStepPositions(measured);
  json steps = json::array();
  json lengths = json::array();
  for (size_t i : listed) {
    const graph::CriticalPathStep& s = p.steps[i];
    const double err = s.measured_ns > 0 ? 100.0 * std::fabs(static_cast<double>(s.replayed_ns - s.measured_ns)) / static_cast<double>(s.measured_ns) : 0.0;
    lengths.push_back(NsToUsRounded3(s.path.length_ns));
    steps.push_back({{"number", s.number},
                     {"measured_us", NsToUsRounded3(s.measured_ns)},
                     {"replayed_us", NsToUsRounded3(s.replayed_ns)},
                     {"error_pct", std::round(err * 1000.0) / 1000.0},
                     {"breakdown_pct", BreakdownPct(s.path)}});
  }
  return {{key::kAvailable, true},
          {"definition", "per step: from the node that ends the step back along the dependency that decided each node, to "
                         "the step's start (docs/whatif.md); breakdown_pct: shares of the steps' paths together"},
          {key::kBreakdownPct, BreakdownPct(p.window)},
          {key::kBreakdownUs, BreakdownUs(p.window)},
          {key::kGpuGapPct, Pct(p.window.gpu_gap_ns, p.window.length_ns)},
          {"hta_bound_by_pct", HtaBoundBy(p.window)},
          {key::kLengthUs, lengths},
          {key::kMeanLengthUs, p.steps.empty() ? json(nullptr)
                                                  : json(std::round(length_sum_ns / static_cast<double>(p.steps.size())) / 1e3)},
          {"steps", steps},
          {key::kListed, ListedStepsJson(p.steps.size(), listed.size())},
          {key::kReplayErrorPct, std::round(p.replay_error_pct * 1000.0) / 1000.0},
          {key::kWorstStep, p.worst_step},
          {"measured_window_us", NsToUsRounded3(p.measured_window_ns)},
          {"replayed_window_us", NsToUsRounded3(p.replayed_window_ns)},
          {key::kGraph, {{"nodes", p.nodes}, {"edges", p.edges}, {"launch_latency_us", NsToUsRounded3(p.launch_latency_ns)},
                         {key::kHiddenWaits, p.hidden_waits}}}};
}

}  // namespace ampscope

#include "render/critical_path_view.h"

#include <algorithm>

#include <fmt/format.h>

#include "render/format.h"

namespace ampscope::render {
namespace {

using nlohmann::json;

// The breakdown's names as people say them (the report's keys are the contract).
std::string CategoryLabel(const std::string& key) {
  if (key == "gpu_compute") return "GPU compute";
  if (key == "gpu_memory") return "GPU memory ops";
  if (key == "communication") return "Communication";
  if (key == "kernel_launch_delay") return "Kernel-launch delay";
  if (key == "host_bound") return "Host-bound (recorded ops)";
  if (key == "unrecorded_host") return "Unrecorded host time";
  if (key == "sync_wait") return "Sync wait";
  return key;
}

}  // namespace

CriticalPathView ViewCriticalPath(const json& report) {
  CriticalPathView v;
  const json& cp = Section(report, "/critical_path");
  if (!cp.is_object()) {
    v.reason = "this report has no critical_path section";
    return v;
  }
  v.available = cp.value("available", false);
  if (!v.available) {
    v.reason = String(cp, "/reason", "unknown");
    return v;
  }
  const json& pct = Section(cp, "/breakdown_pct");
  const json& us = Section(cp, "/breakdown_us");
  if (pct.is_object()) {
    for (auto it = pct.begin(); it != pct.end(); ++it) {
      if (!it->is_number() || it->get<double>() <= 0) continue;
      CriticalPathView::Row row;
      row.name = CategoryLabel(it.key());
      row.pct = it->get<double>();
      const std::string pointer = "/" + it.key();
      row.us = Number(us, pointer.c_str()).value_or(0);
      v.rows.push_back(row);
    }
  }
  std::stable_sort(v.rows.begin(), v.rows.end(), [](const auto& a, const auto& b) { return a.pct > b.pct; });
  const json& lengths = Section(cp, "/length_us");
  if (const std::optional<double> count = Number(cp, "/listed/count")) {
    // A bounded list (reports/step_list.h): the count and the mean are over every step.
    v.steps = static_cast<size_t>(std::max(0.0, *count));
    v.mean_length_us = Number(cp, "/mean_length_us");
  } else if (lengths.is_array() && !lengths.empty()) {  // a report from before the list was bounded
    double sum = 0;
    for (const json& l : lengths)
      if (l.is_number()) sum += l.get<double>();
    v.steps = lengths.size();
    v.mean_length_us = sum / static_cast<double>(lengths.size());
  }
  v.replay_error_pct = Number(cp, "/replay_error_pct");
  v.worst_step = Number(cp, "/worst_step");
  v.gpu_gap_pct = Number(cp, "/gpu_gap_pct");
  std::string parts;
  for (size_t i = 0; i < v.rows.size() && i < 4; ++i)
    parts += fmt::format("{}{} {}", i ? ", " : "", v.rows[i].name, Pct(v.rows[i].pct));
  const std::string what = v.worst_step && *v.worst_step < 0 ? std::string("the analysed window")
                                                               : fmt::format("the {} step{}", v.steps, v.steps == 1 ? "" : "s");
  v.summary = fmt::format("Critical path of {}{}: {}.", what,
                          v.mean_length_us && v.steps > 1 ? " (mean " + DurationUs(v.mean_length_us) + " per step)" : "", parts);
  if (v.replay_error_pct && *v.replay_error_pct == 0)
    v.replay = "Replaying the run's dependency graph reproduces every step exactly; every saving in this report is a "
               "replay of its fix on this graph.";
  else if (v.replay_error_pct)
    v.replay = fmt::format("Replaying the run's dependency graph reproduces every step within {}{}; every saving in this report is a "
                           "replay of its fix on this graph.",
                           Pct(*v.replay_error_pct, 2),
                           v.worst_step && *v.worst_step >= 0 ? fmt::format(" (worst: step {:.0f})", *v.worst_step) : std::string());
  return v;
}

}  // namespace ampscope::render

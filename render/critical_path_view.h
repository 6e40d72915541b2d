// The report's `critical_path` section as people read it (terminal, Markdown, HTML), from the
// report JSON alone (docs/whatif.md), read through the contract's typed view
// (reports/contract/critical_path_view.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::render {

struct CriticalPathView {
  bool available = false;
  std::string reason;  // when not available
  struct Row {
    std::string name;    // "GPU compute", "Kernel-launch delay", ...
    double pct = 0;      // of the critical path
    double us = 0;       // summed over the steps
  };
  std::vector<Row> rows;           // by share, descending; zero rows left out
  size_t steps = 0;
  std::optional<double> mean_length_us;
  std::optional<double> replay_error_pct;
  std::optional<double> worst_step;
  std::optional<double> gpu_gap_pct;
  // "The critical path of the 5 steps (mean 95.7 ms): GPU compute 97.9%, ...".
  std::string summary;
  // "Replaying the run's dependency graph reproduces every step within 0.00% (step 102)."
  std::string replay;
};

CriticalPathView ViewCriticalPath(const nlohmann::json& report);

}  // namespace ampscope::render

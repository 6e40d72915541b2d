// ampscope_scenario_gen: writes one scenario trace.
//   ampscope_scenario_gen --problem NAME [--steps N] [--seed S] [--severity X] [--rank R]
//                         [--world-size W] [--no-shapes] [--no-memory] [--fused-optimizer]
//                         [--layers L] [--batch B] [--seq S] [--hidden H] [--summary] -o FILE(.json|.json.gz)
//   ampscope_scenario_gen --list
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "tools/scenario/scenario.h"

namespace {

using ampscope::scenario::ScenarioOptions;

void Usage() {
  std::fprintf(stderr,
               "usage: ampscope_scenario_gen --problem NAME [--steps N] [--seed S] [--severity X] [--rank R]\n"
               "         [--world-size W] [--no-shapes] [--no-memory] [--fused-optimizer] [--layers L] [--batch B]\n"
               "         [--seq S] [--hidden H] [--summary] -o FILE(.json|.json.gz)\n"
               "       ampscope_scenario_gen --list\n");
}

bool ParseInt(const char* s, long long* out) {
  char* end = nullptr;
  *out = std::strtoll(s, &end, 10);
  return end != s && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  ScenarioOptions o;
  std::string out_path;
  bool summary = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto need = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ampscope_scenario_gen: %s needs a value\n", what);
        std::exit(2);
      }
      return argv[++i];
    };
    auto int_arg = [&](const char* what, long long lo, long long hi) {
      long long v = 0;
      const char* s = need(what);
      if (!ParseInt(s, &v) || v < lo || v > hi) {
        std::fprintf(stderr, "ampscope_scenario_gen: bad value for %s: '%s'\n", what, s);
        std::exit(2);
      }
      return v;
    };
    if (a == "--list") {
      for (auto p : ampscope::scenario::AllProblems()) std::printf("%s\n", ampscope::scenario::ProblemName(p));
      return 0;
    } else if (a == "--problem") {
      const char* name = need("--problem");
      auto p = ampscope::scenario::ParseProblem(name);
      if (!p) {
        std::fprintf(stderr, "ampscope_scenario_gen: unknown problem '%s' (see --list)\n", name);
        return 2;
      }
      o.problem = *p;
    } else if (a == "--steps") {
      o.steps = static_cast<int>(int_arg("--steps", 1, 10000000));
    } else if (a == "--seed") {
      o.seed = static_cast<uint64_t>(int_arg("--seed", 0, (1ll << 62)));
    } else if (a == "--severity") {
      const char* s = need("--severity");
      char* end = nullptr;
      o.severity = std::strtod(s, &end);
      if (end == s || *end != '\0' || !(o.severity >= 0) || o.severity > 100) {
        std::fprintf(stderr, "ampscope_scenario_gen: bad value for --severity: '%s'\n", s);
        return 2;
      }
    } else if (a == "--rank") {
      o.rank = static_cast<int>(int_arg("--rank", 0, 4095));
    } else if (a == "--world-size") {
      o.world_size = static_cast<int>(int_arg("--world-size", 1, 4096));
    } else if (a == "--layers") {
      o.layers = static_cast<int>(int_arg("--layers", 1, 512));
    } else if (a == "--batch") {
      o.batch = static_cast<int>(int_arg("--batch", 1, 4096));
    } else if (a == "--seq") {
      o.seq = static_cast<int>(int_arg("--seq", 1, 1 << 20));
    } else if (a == "--hidden") {
      o.hidden = static_cast<int>(int_arg("--hidden", 64, 1 << 16));
    } else if (a == "--no-shapes") {
      o.record_shapes = false;
    } else if (a == "--no-memory") {
      o.profile_memory = false;
    } else if (a == "--fused-optimizer") {
      o.fused_optimizer = true;
    } else if (a == "--summary") {
      summary = true;
    } else if (a == "-o" || a == "--output") {
      out_path = need("-o");
    } else if (a == "-h" || a == "--help") {
      Usage();
      return 0;
    } else {
      std::fprintf(stderr, "ampscope_scenario_gen: unknown argument '%s'\n", a.c_str());
      Usage();
      return 2;
    }
  }
  if (out_path.empty()) {
    Usage();
    return 2;
  }
  if (o.rank >= o.world_size) {
    std::fprintf(stderr, "ampscope_scenario_gen: --rank must be below --world-size\n");
    return 2;
  }
  ampscope::scenario::ScenarioSummary s;
  std::string error;
  if (!ampscope::scenario::WriteKinetoFile(o, out_path, &error, summary ? &s : nullptr)) {
    std::fprintf(stderr, "ampscope_scenario_gen: %s\n", error.c_str());
    return 2;
  }
  if (summary) {
    double mean_step = 0;
    for (auto d : s.step_duration_ns) mean_step += double(d);
    mean_step /= std::max<size_t>(1, s.step_duration_ns.size());
    const double w = double(std::max<int64_t>(1, s.window_ns));
    fmt::print(
        "{}: steps={} mean_step_us={:.1f} gpu_busy_pct={:.2f} kernels={} sync_idle_pct={:.2f} host_active_pct={:.2f} "
        "exposed_dataloader_pct={:.2f} exposed_comm_pct={:.2f} syncs_beyond_scaler={} skipped={}\n",
        out_path, s.steps, mean_step / 1000.0, 100.0 * double(s.gpu_busy_ns) / w, s.kernels, 100.0 * double(s.sync_idle_ns) / w,
        100.0 * double(s.host_active_ns) / w, 100.0 * double(s.exposed_dataloader_ns) / w, 100.0 * double(s.exposed_comm_ns) / w,
        s.syncs_beyond_scaler, s.skipped_step_numbers.size());
  }
  return 0;
}

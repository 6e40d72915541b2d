// The scenario generator's public side: problem names, and the run of a scenario through the
// step model (step_builder.h) into Kineto JSON.
#include "tools/scenario/scenario.h"

#include <algorithm>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include "tools/scenario/step_builder.h"

namespace ampscope::scenario {

namespace internal {

Config MakeConfig(const ScenarioOptions& o) {
  Config c;
  const double sev = std::max(0.0, o.severity);
  c.fused_opt = o.fused_optimizer;
  switch (o.problem) {
    case Problem::kNone: break;
    case Problem::kHostSync:
      c.layers = 8; c.batch = 4; c.hidden = 1024; c.ffn = 4096; c.heads = 8;
      c.guards = true;
      c.guard_python_us = 1150 * sev;
      c.log_python_us = 0;  // the guards already include loss.item()
      break;
    case Problem::kFp32Gemm: c.fp32_mlp_layer0 = true; break;
    case Problem::kNoAutocast:
      c.low = Dt::kFloat; c.autocast = false; c.scaler = false;
      break;
    case Problem::kDataLoaderStall:
      c.single_process_loader = true;
      c.loader_us = 36000 * sev;
      break;
    case Problem::kPageableH2D: c.pinned = false; c.feat = static_cast<int>(512 * std::max(1.0, sev)); break;
    case Problem::kAllocChurn: c.empty_cache = true; break;
    case Problem::kScalerSkips:
      c.silent_warmup = false;
      c.first_step = 0;
      c.skip_first = std::max(1, static_cast<int>(std::lround(5 * sev)));
      break;
    case Problem::kScalerSkipsSteady: c.skip_every = 2; break;
    case Problem::kBf16WithScaler: c.low = Dt::kBFloat16; break;
    case Problem::kFp16NoScaler:
      c.autocast = false; c.scaler = false;
      break;
    case Problem::kUnfusedElementwise: c.manual_elementwise = true; break;
    case Problem::kUnfusedOptimizer:
      c.layers = 12; c.hidden = 768; c.ffn = 3072; c.heads = 12; c.batch = 8;
      c.foreach_opt = false;
      c.fused_opt = false;
      break;
    case Problem::kExposedAllReduce:
      c.ddp = true;
      c.ddp_overlap = false;
      c.busbw_bytes_per_us = 12e3 / std::max(0.25, sev);  // ~12 GB/s: a slow inter-node link
      break;
    case Problem::kLaunchBound:
      c.layers = 4; c.batch = 4; c.seq = 256; c.hidden = 256; c.ffn = 1024; c.heads = 4; c.vocab = 1024; c.feat = 64;
      c.optimizer_python_us = 300;
      c.loader_us = 120;  // a tiny batch collates quickly
      c.log_python_us = 150;
      break;
    case Problem::kLayoutTransform:
      c.convnet = true;
      c.log_python_us = 300;  // a 16 ms step: lighter per-step logging
      break;
    case Problem::kLowTflops:
      c.ffn = 8190; c.vocab = 8191;
      c.small_tile_gemms = true;
      c.gemm_efficiency_scale = 0.25 / std::max(0.5, sev);
      break;
    case Problem::kMemoryPeak: break;     // resident bytes set once the peak is known
    case Problem::kFragmentation: break;  // reserved bytes set once the peak is known
  }
  if (o.world_size > 1 && o.problem != Problem::kExposedAllReduce) c.ddp = true;
  if (o.first_step_number >= 0) c.first_step = o.first_step_number;
  if (o.layers > 0) c.layers = o.layers;
  if (o.batch > 0) c.batch = o.batch;
  if (o.seq > 0) c.seq = o.seq;
  if (o.hidden > 0) {
    c.hidden = o.hidden;
    c.ffn = 4 * o.hidden;
    c.heads = std::max(1, o.hidden / 128);
  }
  if (!c.scaler) c.optimizer_python_us = std::min(c.optimizer_python_us, 300.0);
  return c;
}

}  // namespace internal

namespace {

using internal::Config;
using internal::MakeConfig;
using internal::Sim;
using internal::StepBuilder;

struct ProblemInfo {
  Problem problem;
  const char* name;
};
constexpr ProblemInfo kProblems[] = {
    {Problem::kNone, "none"},
    {Problem::kHostSync, "host_sync"},
    {Problem::kFp32Gemm, "fp32_gemm"},
    {Problem::kNoAutocast, "no_autocast"},
    {Problem::kDataLoaderStall, "dataloader_stall"},
    {Problem::kPageableH2D, "pageable_h2d"},
    {Problem::kAllocChurn, "alloc_churn"},
    {Problem::kScalerSkips, "scaler_skips"},
    {Problem::kScalerSkipsSteady, "scaler_skips_steady"},
    {Problem::kBf16WithScaler, "bf16_with_scaler"},
    {Problem::kFp16NoScaler, "fp16_no_scaler"},
    {Problem::kUnfusedElementwise, "unfused_elementwise"},
    {Problem::kUnfusedOptimizer, "unfused_optimizer"},
    {Problem::kExposedAllReduce, "exposed_allreduce"},
    {Problem::kLaunchBound, "launch_bound"},
    {Problem::kLayoutTransform, "layout_transform"},
    {Problem::kLowTflops, "low_tflops"},
    {Problem::kMemoryPeak, "memory_peak"},
    {Problem::kFragmentation, "fragmentation"},
};

void Simulate(const ScenarioOptions& options, std::ostream* out, ScenarioSummary* summary) {
  const Config config = MakeConfig(options);
  Sim sim(options, out, summary);
  StepBuilder builder(sim, config);
  // One silent step first: the caching allocator and the host/GPU pipeline reach their
  // steady state before the profiler's active window (like torch.profiler's warmup).
  const bool warmup = config.silent_warmup;
  if (warmup) {
    sim.SetEmit(false);
    builder.RunStep(-1, config.first_step - 1);
    sim.Drain();
    sim.SetEmit(true);
  }
  if (options.problem == Problem::kMemoryPeak || options.problem == Problem::kFragmentation) {
    // A resident buffer (another model, a cache) pushes the peak towards the device capacity.
    const int64_t device = 84990623744;
    const int64_t peak = builder.natural_peak();
    if (options.problem == Problem::kMemoryPeak) {
      const double target = 0.90 + 0.05 * std::min(1.0, options.severity);
      sim.SetResidentBytes(std::max<int64_t>(0, int64_t(target * device) - peak), 0);
    } else {
      // Fragmented cache: reserved far above allocated, close to capacity.
      const int64_t extra = std::max<int64_t>(0, int64_t(0.93 * device) - sim.reserved());
      sim.SetResidentBytes(0, extra);
    }
  }
  sim.WriteHeader();
  for (int i = 0; i < std::max(1, options.steps); ++i) builder.RunStep(i, config.first_step + i);
  sim.Finish();
  sim.WriteFooter();
}

}  // namespace

const char* ProblemName(Problem p) {
  for (const ProblemInfo& i : kProblems) {
    if (i.problem == p) return i.name;
  }
  return "unknown";
}

std::optional<Problem> ParseProblem(std::string_view name) {
  for (const ProblemInfo& i : kProblems) {
    if (name == i.name) return i.problem;
  }
  return std::nullopt;
}

const std::vector<Problem>& AllProblems() {
  static const std::vector<Problem> all = [] {
    std::vector<Problem> v;
    for (const ProblemInfo& i : kProblems) v.push_back(i.problem);
    return v;
  }();
  return all;
}

std::string GenerateKinetoJson(const ScenarioOptions& options, ScenarioSummary* summary) {
  std::ostringstream out;
  WriteKinetoJson(options, out, summary);
  return std::move(out).str();
}

void WriteKinetoJson(const ScenarioOptions& options, std::ostream& out, ScenarioSummary* summary) {
  if (summary != nullptr) *summary = ScenarioSummary{};
  Simulate(options, &out, summary);
}

}  // namespace ampscope::scenario

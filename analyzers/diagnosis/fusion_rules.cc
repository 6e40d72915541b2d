// Fusion rules: chains of memory-bound kernels, per-parameter optimizer kernels, cast kernels
// and the memory-bound share of kernel time.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/graph/amp_transform.h"
#include "analyzers/graph/op_cost_cache.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

bool IsModelElementwise(const KernelClass& c) {
  return IsFusable(c.category) && c.category != KernelCategory::kCast && c.role != KernelRole::kFill &&
         c.role != KernelRole::kCast && c.role != KernelRole::kCopy;
}

// zero_grad() that fills the gradients with zeros: set_to_none=True removes the fills.
void RuleZeroGrad(const Facts& in, const std::vector<size_t>& kernels, FindingSink& out) {
  if (kernels.empty()) return;
  TimeNs fill_ns = 0;
  uint64_t fills = 0;
  std::vector<uint32_t> fill_kernels, fill_launches;
  std::map<int64_t, std::pair<TimeNs, TimeNs>> span_of_range;  // zero_grad range -> GPU span of its fills
  for (size_t i : kernels) {
    if (in.cls(i).role != KernelRole::kFill) continue;
    const KernelEvent& k = in.t.kernels[i];
    ++fills;
    SatAccumulate(fill_ns, k.duration_ns());
    fill_kernels.push_back(static_cast<uint32_t>(i));
    if (in.ctx.kernels().launch_call[i] >= 0) fill_launches.push_back(static_cast<uint32_t>(in.ctx.kernels().launch_call[i]));
    auto [it, fresh] = span_of_range.try_emplace(in.ZeroGradRangeOfKernel(i), k.start_ns, k.end_ns);
    if (!fresh) it->second = {std::min(it->second.first, k.start_ns), std::max(it->second.second, k.end_ns)};
  }
  if (fills == 0) return;
  std::vector<std::pair<TimeNs, TimeNs>> ranges;
  for (const auto& [r, span] : span_of_range) ranges.push_back(span);
  const std::string opt = in.run.optimizer.empty() ? std::string("optimizer") : in.run.optimizer;
  Finding& x = out.Add("zero_grad_fills", 0.0,
                       fmt::format("zero_grad fills the gradients: {:.0f} fill kernels per step", static_cast<double>(fills) / in.nsteps),
                       fmt::format("{}.zero_grad() writes zeros into every gradient ({:.0f} fill kernels, {:.2f} ms per step). Call "
                                   "zero_grad(set_to_none=True) (the default since PyTorch 2.0): the gradients become None and "
                                   "the next backward writes them instead of adding to zeros.",
                                   opt, static_cast<double>(fills) / in.nsteps, Ms(fill_ns) / static_cast<double>(in.nsteps)));
  x.evidence = {{"fill_kernels", fills, Unit::kCount}, {"fill_kernels_per_step", Round(static_cast<double>(fills) / in.nsteps), Unit::kPerStep},
                {"fill_time_us", NsToUsRounded3(fill_ns), Unit::kUs},
                {"estimate", "replayed: the fill kernels inside Optimizer.zero_grad ranges and their launch calls removed"}};
  x.time_ranges = ranges;
  out.Fix(x, graph::RemoveNodes(in.t, std::move(fill_kernels), std::move(fill_launches), "zero_grad's fill kernels and their launches"),
          SavingGate::kMinSaving);
}

// What one fused chain kernel moves its bytes at: the best bandwidth this trace's memory-bound
// ops reach (the roofline's rows), else the device's peak times kMemoryEfficiency.
struct ChainBandwidth {
  double bytes_per_ns = 0;  // 0: unknown (the fused kernel takes its longest member's time)
  std::string basis;
};
ChainBandwidth ChainBandwidthOf(const Facts& in) {
  ChainBandwidth bw;
  if (in.ra.roofline != nullptr) {
    for (const roofline::OpRow& r : in.ra.roofline->ops) {
      if (r.id.family != roofline::OpFamily::kElementwise && r.id.family != roofline::OpFamily::kReduction) continue;
      if (r.timing.tbps && *r.timing.tbps * 1e3 > bw.bytes_per_ns) bw.bytes_per_ns = *r.timing.tbps * 1e3;
    }
    if (bw.bytes_per_ns > 0) bw.basis = fmt::format("{:.0f} GB/s (the best this trace's elementwise ops reach)", bw.bytes_per_ns);
  }
  if (bw.bytes_per_ns <= 0 && in.gpu.peak != nullptr && in.gpu.peak->hbm_gbs > 0) {
    bw.bytes_per_ns = in.gpu.peak->hbm_gbs * graph::kMemoryEfficiency;
    bw.basis = fmt::format("{:.0f} GB/s ({:.0f}% of the {}'s {:.0f} GB/s)", bw.bytes_per_ns, 100 * graph::kMemoryEfficiency,
                           in.gpu.peak->id, in.gpu.peak->hbm_gbs);
  }
  if (bw.bytes_per_ns <= 0) bw.basis = "the time of the chain's longest kernel (bandwidth unknown)";
  return bw;
}

// The fused kernel's time: the chain's unique bytes (its largest member's tensors, from the
// ops' byte models) at the achievable bandwidth; never less than a short kernel's fixed cost.
// Without bytes: the longest member's time.
TimeNs FusedTime(const Facts& in, const std::vector<uint32_t>& chain, const ChainBandwidth& bw, graph::OpCostCache& costs) {
  TimeNs longest = 0;
  double bytes = 0;
  bool known = bw.bytes_per_ns > 0;
  for (uint32_t k : chain) {
    longest = std::max(longest, in.t.kernels[k].duration_ns());
    if (!known) continue;
    const int64_t op = in.ctx.CpuOpOfKernel(k);
    if (op < 0) {
      known = false;
      continue;
    }
    const roofline::OpCost& cost = costs.Of(in.t.cpu_ops[static_cast<size_t>(op)]);
    if (!cost.bytes_known) {
      known = false;
      continue;
    }
    bytes = std::max(bytes, cost.bytes);
  }
  if (!known || bytes <= 0) return longest;
  const TimeNs t = static_cast<TimeNs>(bytes / bw.bytes_per_ns);
  return std::max(t, std::min(longest, graph::kSmallKernelNs));
}

// The fix for a per-parameter optimizer, for the class that ran and what it offers.
std::string OptimizerAdvice(const Facts& in) {
  const RunFacts& r = in.run;
  if (r.optimizer.empty())
    return "Use the multi-tensor or fused implementation of your optimizer where it has one: foreach=True, or fused=True "
           "(torch.optim Adam, AdamW and SGD), one multi_tensor_apply launch per group of tensors.";
  const OptimizerOptions& o = r.optimizer_options;
  if (o.foreach && o.fused)
    return fmt::format("Use its multi-tensor or fused implementation: torch.optim.{}(params, foreach=True) or fused=True "
                       "(one multi_tensor_apply / fused launch per group of tensors).", r.optimizer);
  if (o.foreach)
    return fmt::format("Use its multi-tensor implementation: torch.optim.{}(params, foreach=True) (one multi_tensor_apply "
                       "launch per group of tensors; {} has no fused implementation).", r.optimizer, r.optimizer);
  return "";
}

// Per-parameter optimizer kernels (unfused_optimizer); returns their number per step.
double RuleUnfusedOptimizer(const Facts& in, FindingSink& out) {
  double opt_kernels = 0, per_param = 0;
  for (const StepFacts& s : in.steps) {
    opt_kernels += s.optimizer_kernels;
    per_param += s.per_param_optimizer_kernels;
  }
  const double per_step = per_param / in.nsteps;
  const double share = opt_kernels > 0 ? 100.0 * per_param / opt_kernels : 0.0;
  // Advice only where the optimizer that ran has a multi-tensor or fused implementation.
  const std::string advice = OptimizerAdvice(in);
  if (per_step >= kUnfusedOptimizerMinKernels && share >= kUnfusedOptimizerSharePct && !advice.empty()) {
    // Idle inside the optimizer's GPU span: launch overhead that a foreach/fused step removes.
    TimeNs idle = 0, busy = 0;
    std::vector<std::pair<TimeNs, TimeNs>> ranges;
    for (const TidRange& r : in.ctx.host().optimizer_steps) {
      TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
      for (auto it = std::lower_bound(in.ctx.kernels().by_launch.begin(), in.ctx.kernels().by_launch.end(), std::make_pair(r.start_ns, uint32_t{0}));
           it != in.ctx.kernels().by_launch.end() && it->first < r.end_ns; ++it) {
        const KernelEvent& k = in.t.kernels[it->second];
        if (!in.InWindow(it->second)) continue;
        first = std::min(first, k.start_ns);
        last = std::max(last, k.end_ns);
      }
      if (last <= first) continue;
      const TimeNs b = OverlapNs(in.ctx.busy().main(), first, last);
      busy = SaturatingAdd(busy, b);
      idle = SaturatingAdd(idle, (last - first) - b);
      ranges.emplace_back(first, last);
    }
    Finding& x = out.Add("unfused_optimizer", 0.0,
                     fmt::format("Per-parameter optimizer: {:.0f} kernels per step in {}", per_step,
                                 in.ctx.host().optimizer_names.empty() ? std::string("Optimizer.step") : *in.ctx.host().optimizer_names.begin()),
                     fmt::format("The {} launches {:.0f} small elementwise kernels per step, one set per parameter; the GPU "
                                 "idles {:.1f} ms per step between them. {}",
                                 in.run.optimizer.empty() ? std::string("optimizer") : in.run.optimizer + " optimizer", per_step,
                                 Ms(idle) / in.nsteps, advice));
    x.evidence = {{"optimizer", in.run.optimizer.empty() ? std::string("unknown") : in.run.optimizer},
                  {"per_parameter_kernels_per_step", Round(per_step), Unit::kPerStep}, {"optimizer_kernels_per_step", Round(opt_kernels / in.nsteps), Unit::kPerStep},
                  {"optimizer_gpu_busy_us", NsToUsRounded3(busy), Unit::kUs}, {"optimizer_gpu_idle_us", NsToUsRounded3(idle), Unit::kUs},
                  {"estimate", "replayed: the optimizer's launches collapsed as one multi-tensor launch would (no launch "
                               "calls, no host time between them, the kernels back to back)"}};
    x.time_ranges = ranges;
    std::vector<uint32_t> opt;
    for (size_t i = 0; i < in.t.kernels.size(); ++i)
      if (in.InWindow(i) && in.OptimizerRangeOfKernel(i) >= 0) opt.push_back(static_cast<uint32_t>(i));
    out.Fix(x, graph::CudaGraphLaunch(in.ctx, opt, "the kernel launches inside Optimizer.step ranges"));
  }
  return per_step;
}

}  // namespace

void RuleFusion(const Facts& in, FindingSink& out) {
  ChecklistItem& item = out.Item("kernel_fusion");
  item.threshold = fmt::format("no runs of >= {} memory-bound model kernels, per-parameter optimizer kernels or zero_grad fills costing >= {:.0f}% of the step",
                               kMinChainKernels, kWarningSavingPct);
  item.source = "[proj] CK-FU; estimate [heur]";
  if (in.kernel_total_ns == 0) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "profile with CUDA activities enabled";
    return;
  }
  // Kernels per stream in start order. Optimizer and zero_grad kernels stay in the sequence and
  // end a chain (they are the optimizer's: see the optimizer and zero_grad rules), and a chain
  // never crosses a step, the boundary between forward and backward, or a host sync.
  struct Member {
    size_t i;
    int64_t step;
    bool backward;
    bool optimizer;  // an optimizer or zero_grad kernel: never part of a chain
  };
  std::map<std::pair<int32_t, int32_t>, std::vector<Member>> by_stream;
  std::vector<size_t> zero_grad_kernels;
  const OpTree& tree = in.ctx.op_tree();
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    const bool optimizer = in.OptimizerRangeOfKernel(i) >= 0;
    const bool zero_grad = !optimizer && in.ZeroGradRangeOfKernel(i) >= 0;
    if (zero_grad) zero_grad_kernels.push_back(i);
    const OpTree::NodeId node = tree.node_of_kernel(static_cast<uint32_t>(i));
    by_stream[{in.t.kernels[i].device, in.t.kernels[i].stream}].push_back(
        {i, in.ctx.StepAt(in.t.kernels[i].start_ns), node != OpTree::kNoNode && tree.is_backward(node), optimizer || zero_grad});
  }
  struct Chain {
    std::vector<uint32_t> k;
    TimeNs time = 0;
    TimeNs fused = 0;
  };
  std::vector<Chain> chains;
  // Kernels on either side of a host sync cannot become one kernel without removing the sync.
  auto sync_between = [&](size_t a, size_t b) {
    const int64_t la = in.ctx.kernels().launch_call[a], lb = in.ctx.kernels().launch_call[b];
    if (la < 0 || lb < 0) return false;
    const TimeNs s = in.t.api_calls[static_cast<size_t>(la)].start_ns;
    const TimeNs e = in.t.api_calls[static_cast<size_t>(lb)].start_ns;
    auto it = std::upper_bound(in.ctx.sync_points().begin(), in.ctx.sync_points().end(), s,
                               [](TimeNs x, const SyncPoint& p) { return x < p.start_ns; });
    return it != in.ctx.sync_points().end() && it->start_ns < e;
  };
  auto joins = [&](const Member& a, const Member& b) {
    return !b.optimizer && IsFusable(in.cls(b.i).category) && a.step == b.step && a.backward == b.backward && !sync_between(a.i, b.i);
  };
  const ChainBandwidth bw = ChainBandwidthOf(in);
  graph::OpCostCache costs(in.t);
  for (auto& [key, v] : by_stream) {
    std::stable_sort(v.begin(), v.end(), [&](const Member& a, const Member& b) { return in.t.kernels[a.i].start_ns < in.t.kernels[b.i].start_ns; });
    size_t i = 0;
    while (i < v.size()) {
      if (v[i].optimizer || !IsFusable(in.cls(v[i].i).category)) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < v.size() && joins(v[j - 1], v[j])) ++j;
      // Fills and casts join a chain but do not make one: a run of them is not a fusion
      // opportunity of the model (zero_grad's fills, autocast's weight casts).
      size_t model_kernels = 0;
      for (size_t x = i; x < j; ++x) model_kernels += IsModelElementwise(in.cls(v[x].i));
      if (model_kernels >= static_cast<size_t>(kMinChainKernels)) {
        Chain c;
        for (size_t x = i; x < j; ++x) {
          c.k.push_back(static_cast<uint32_t>(v[x].i));
          SatAccumulate(c.time, in.t.kernels[v[x].i].duration_ns());
        }
        c.fused = FusedTime(in, c.k, bw, costs);
        chains.push_back(std::move(c));
      }
      i = j;
    }
  }
  TimeNs chain_ns = 0;
  for (const Chain& c : chains) SatAccumulate(chain_ns, c.time);
  const double chain_pct = in.PctOfWindow(static_cast<double>(chain_ns));
  if (!chains.empty()) {
    std::vector<std::vector<uint32_t>> members;
    std::vector<TimeNs> fused;
    for (const Chain& c : chains) {
      members.push_back(c.k);
      fused.push_back(c.fused);
    }
    const graph::Transform fix = graph::FuseChains(in.t, members, fused,
                                                   fmt::format("{} chains of memory-bound kernels, each one kernel moving its "
                                                               "unique bytes at {}",
                                                               chains.size(), bw.basis));
    std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) { return a.time - a.fused > b.time - b.fused; });
    std::vector<FieldList> top;
    std::vector<std::pair<TimeNs, TimeNs>> ranges;
    std::string example;
    for (size_t c = 0; c < chains.size() && c < 5; ++c) {
      std::vector<std::string> ks;
      std::set<std::string> ops;
      for (uint32_t x : chains[c].k) {
        if (ks.size() < kChainKernelsNamed) ks.push_back(ShortName(in.t.str(in.t.kernels[x].name), 80));
        const int64_t op = in.ctx.CpuOpOfKernel(x);
        if (op >= 0) ops.insert(std::string(in.t.str(in.t.cpu_ops[op].name)));
      }
      const KernelEvent& first = in.t.kernels[chains[c].k.front()];
      const KernelEvent& last = in.t.kernels[chains[c].k.back()];
      ranges.emplace_back(first.start_ns, last.end_ns);
      top.push_back({{"kernel_count", chains[c].k.size(), Unit::kCount}, {"kernels", ks}, {"ops", std::vector<std::string>(ops.begin(), ops.end())}, {"stream", first.stream},
                     {"start_us", NsToUsRounded3(first.start_ns), Unit::kUs}, {"end_us", NsToUsRounded3(last.end_ns), Unit::kUs},
                     {"kernel_time_us", NsToUsRounded3(chains[c].time), Unit::kUs}, {"fused_time_us", NsToUsRounded3(chains[c].fused), Unit::kUs}});
      if (c == 0)
        example = fmt::format("{} kernels on stream {} {} ({})", chains[c].k.size(), first.stream, in.WhenText(first.start_ns),
                              fmt::join(std::vector<std::string>(ops.begin(), ops.end()), ", "));
    }
    Finding& x = out.Add("unfused_elementwise_chains", 0.0,
                     fmt::format("{:.1f} chains per step of >= {} memory-bound kernels between GEMMs",
                                 static_cast<double>(chains.size()) / in.nsteps, kMinChainKernels),
                     fmt::format("Each chain reads and writes the same tensors once per kernel; the largest is {}. Fuse them: "
                                 "torch.compile the module (Inductor emits one triton_*_fused_* kernel per chain), or use "
                                 "fused ops (F.gelu, nn.LayerNorm/RMSNorm, F.scaled_dot_product_attention) instead of "
                                 "hand-written formulas.",
                                 example));
    x.evidence = {{"chains", chains.size(), Unit::kCount}, {"chains_per_step", Round(static_cast<double>(chains.size()) / in.nsteps), Unit::kPerStep},
                  {"chain_kernel_time_pct", Round(chain_pct), Unit::kPctOfStep},
                  {"top_chains", top},
                  {"estimate", "replayed: each chain one kernel that moves the chain's unique bytes (its largest member's "
                               "tensors) once at the bandwidth this trace's memory-bound kernels reach"}};
    x.time_ranges = ranges;
    out.Fix(x, fix, SavingGate::kMinSaving);
  }
  RuleZeroGrad(in, zero_grad_kernels, out);
  const double per_step = RuleUnfusedOptimizer(in, out);
  item.evidence = fmt::format("{} memory-bound chains ({:.1f}% of step in their kernels); {:.0f} per-parameter optimizer kernels per step",
                              chains.size(), chain_pct, per_step);
  // The value (the fusion findings' replayed savings) and the status: RefreshChecklist.
  item.status = CheckStatus::kPass;
}

MemoryBoundOutcome RuleMemoryBound(const Facts& in, bool amp_not_in_use, FindingSink& out) {
  MemoryBoundOutcome o;
  TimeNs mem = 0, mat = 0, cast = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    const TimeNs d = in.t.kernels[i].duration_ns();
    if (IsMemoryBound(in.cls(i).category)) mem = SaturatingAdd(mem, d);
    if (IsMatmulClass(in.cls(i).category)) mat = SaturatingAdd(mat, d);
    if (in.cls(i).category == KernelCategory::kCast) cast = SaturatingAdd(cast, d);
  }
  o.mem_bound_pct = in.kernel_total_ns > 0 ? 100.0 * static_cast<double>(mem) / static_cast<double>(in.kernel_total_ns) : 0.0;
  o.mem_vs_gemm = mat > 0 ? static_cast<double>(mem) / static_cast<double>(mat) : (mem > 0 ? 1e9 : 0.0);
  const double cast_pct = in.PctOfWindow(static_cast<double>(cast));
  o.cast_pct = cast_pct;
  if (cast_pct > kCastSharePct && !amp_not_in_use) {
    std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.cls(i).category == KernelCategory::kCast; });
    Finding& x = out.Add("cast_overhead", 0.0,
                     fmt::format("Dtype casts take {:.1f}% of the step", cast_pct),
                     fmt::format("Cast kernels ({}) move every tensor twice. Enter autocast once per step (not per "
                                 "micro-batch: its weight-cast cache is cleared on exit), keep frozen weights in fp16/bf16, "
                                 "and avoid .half()/.float() round trips between layers.",
                                 in.KernelList(top)));
    x.evidence = {{"cast_time_us", NsToUsRounded3(cast), Unit::kUs}, {"cast_pct_of_step", Round(cast_pct), Unit::kPctOfStep}, {"top_kernels", top},
                  {"estimate", "replayed: every cast kernel removed (an upper bound: some casts are needed)"}};
    std::vector<uint32_t> casts;
    for (size_t i = 0; i < in.t.kernels.size(); ++i)
      if (in.InWindow(i) && in.cls(i).category == KernelCategory::kCast) casts.push_back(static_cast<uint32_t>(i));
    out.Fix(x, graph::RemoveNodes(in.t, std::move(casts), {}, "cast kernels"));
  }
  return o;
}

}  // namespace ampscope::diagnosis

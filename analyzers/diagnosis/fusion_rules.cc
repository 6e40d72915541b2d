// Fusion rules: chains of memory-bound kernels, per-parameter optimizer kernels, cast kernels
// and the memory-bound share of kernel time.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

bool IsModelElementwise(const KernelClass& c) {
  return IsFusable(c.category) && c.category != KernelCategory::kCast && c.role != KernelRole::kFill &&
         c.role != KernelRole::kCast && c.role != KernelRole::kCopy;
}

// zero_grad() that fills the gradients with zeros: set_to_none=True removes the fills.
double RuleZeroGrad(const Facts& in, const std::vector<size_t>& kernels, FindingSink& out) {
  if (kernels.empty()) return 0;
  std::vector<Interval> host_idle = MergeIntervals(in.idle.gaps[static_cast<size_t>(IdleCause::kHost)]);
  TimeNs fill_ns = 0, idle_ns = 0;
  uint64_t fills = 0;
  std::map<int64_t, std::pair<TimeNs, TimeNs>> span_of_range;  // zero_grad range -> GPU span of its fills
  for (size_t i : kernels) {
    if (in.cls(i).role != KernelRole::kFill) continue;
    const KernelEvent& k = in.t.kernels[i];
    ++fills;
    SatAccumulate(fill_ns, k.duration_ns());
    auto [it, fresh] = span_of_range.try_emplace(in.ZeroGradRangeOfKernel(i), k.start_ns, k.end_ns);
    if (!fresh) it->second = {std::min(it->second.first, k.start_ns), std::max(it->second.second, k.end_ns)};
  }
  std::vector<std::pair<TimeNs, TimeNs>> ranges;
  for (const auto& [r, span] : span_of_range) {
    SatAccumulate(idle_ns, OverlapNs(host_idle, span.first, span.second));
    ranges.push_back(span);
  }
  const double pct = in.PctOfWindow(static_cast<double>(SaturatingAdd(fill_ns, idle_ns)));
  if (fills == 0 || pct < kMinSavingPct) return 0;
  const std::string opt = in.run.optimizer.empty() ? std::string("optimizer") : in.run.optimizer;
  Finding& x = out.Add("zero_grad_fills", pct,
                       fmt::format("zero_grad fills the gradients: {:.0f} fill kernels per step", static_cast<double>(fills) / in.nsteps),
                       fmt::format("{}.zero_grad() writes zeros into every gradient ({:.0f} fill kernels, {:.2f} ms per step). Call "
                                   "zero_grad(set_to_none=True) (the default since PyTorch 2.0): the gradients become None and "
                                   "the next backward writes them instead of adding to zeros.",
                                   opt, static_cast<double>(fills) / in.nsteps, Ms(fill_ns) / static_cast<double>(in.nsteps)));
  x.evidence = {{"fill_kernels", fills, Unit::kCount}, {"fill_kernels_per_step", Round(static_cast<double>(fills) / in.nsteps), Unit::kPerStep},
                {"fill_time_us", NsToUsRounded3(fill_ns), Unit::kUs}, {"launch_idle_us", NsToUsRounded3(idle_ns), Unit::kUs},
                {"estimate", "fill kernel time inside Optimizer.zero_grad ranges + host-launch idle between them"}};
  x.time_ranges = ranges;
  return pct;
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
  // Kernels per stream in start order, outside optimizer.step and zero_grad ranges (their
  // kernels are the optimizer's, not the model's: see the optimizer and zero_grad rules).
  std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> by_stream;
  std::vector<size_t> zero_grad_kernels;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    if (in.OptimizerRangeOfKernel(i) >= 0) continue;
    if (in.ZeroGradRangeOfKernel(i) >= 0) {
      zero_grad_kernels.push_back(i);
      continue;
    }
    by_stream[{in.t.kernels[i].device, in.t.kernels[i].stream}].push_back(i);
  }
  struct Chain {
    std::vector<size_t> k;
    TimeNs saving = 0;
  };
  std::vector<Chain> chains;
  double saving = 0;
  std::vector<Interval> host_idle = MergeIntervals(in.idle.gaps[static_cast<size_t>(IdleCause::kHost)]);
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
  for (auto& [key, v] : by_stream) {
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return in.t.kernels[a].start_ns < in.t.kernels[b].start_ns; });
    size_t i = 0;
    while (i < v.size()) {
      if (!IsFusable(in.cls(v[i]).category)) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < v.size() && IsFusable(in.cls(v[j]).category) && !sync_between(v[j - 1], v[j])) ++j;
      // Fills and casts join a chain but do not make one: a run of them is not a fusion
      // opportunity of the model (zero_grad's fills, autocast's weight casts).
      size_t model_kernels = 0;
      for (size_t x = i; x < j; ++x) model_kernels += IsModelElementwise(in.cls(v[x]));
      if (model_kernels >= static_cast<size_t>(kMinChainKernels)) {
        Chain c;
        TimeNs sum = 0, mx = 0;
        for (size_t x = i; x < j; ++x) {
          const TimeNs d = in.t.kernels[v[x]].duration_ns();
          sum = SaturatingAdd(sum, d);
          mx = std::max(mx, d);
          c.k.push_back(v[x]);
        }
        // One fused pass costs about its largest member, and the GPU no longer waits for the
        // host to launch the members (idle inside the chain that the attribution gave to
        // host launches; idle for other reasons, e.g. another stream, stays).
        const TimeNs span_start = in.t.kernels[v[i]].start_ns, span_end = in.t.kernels[v[j - 1]].end_ns;
        c.saving = (sum - mx) + OverlapNs(host_idle, span_start, span_end);
        saving += static_cast<double>(c.saving);
        chains.push_back(std::move(c));
      }
      i = j;
    }
  }
  const double chain_pct = in.PctOfWindow(saving);
  // Fusion findings of the rules before this one (eager_attention: SDPA fuses the attention ops).
  double total_pct = 0;
  std::string earlier;
  for (const Finding& f : out.findings()) {
    if (f.checklist != "kernel_fusion") continue;
    total_pct += f.est_saving_pct;
    earlier += fmt::format("; {} (est. {:.1f}% of step)", f.id, f.est_saving_pct);
  }
  if (!chains.empty() && chain_pct >= kMinSavingPct) {
    total_pct += chain_pct;
    std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) { return a.saving > b.saving; });
    std::vector<FieldList> top;
    std::vector<std::pair<TimeNs, TimeNs>> ranges;
    std::string example;
    for (size_t c = 0; c < chains.size() && c < 5; ++c) {
      std::vector<std::string> ks;
      std::set<std::string> ops;
      for (size_t x : chains[c].k) {
        if (ks.size() < kChainKernelsNamed) ks.push_back(ShortName(in.t.str(in.t.kernels[x].name), 80));
        const int64_t op = in.ctx.CpuOpOfKernel(x);
        if (op >= 0) ops.insert(std::string(in.t.str(in.t.cpu_ops[op].name)));
      }
      const KernelEvent& first = in.t.kernels[chains[c].k.front()];
      const KernelEvent& last = in.t.kernels[chains[c].k.back()];
      ranges.emplace_back(first.start_ns, last.end_ns);
      top.push_back({{"kernel_count", chains[c].k.size(), Unit::kCount}, {"kernels", ks}, {"ops", std::vector<std::string>(ops.begin(), ops.end())}, {"stream", first.stream},
                     {"start_us", NsToUsRounded3(first.start_ns), Unit::kUs}, {"end_us", NsToUsRounded3(last.end_ns), Unit::kUs}, {"saving_us", NsToUsRounded3(chains[c].saving), Unit::kUs}});
      if (c == 0)
        example = fmt::format("{} kernels on stream {} {} ({})", chains[c].k.size(), first.stream, in.WhenText(first.start_ns),
                              fmt::join(std::vector<std::string>(ops.begin(), ops.end()), ", "));
    }
    Finding& x = out.Add("unfused_elementwise_chains", chain_pct,
                     fmt::format("{:.1f} chains per step of >= {} memory-bound kernels between GEMMs",
                                 static_cast<double>(chains.size()) / in.nsteps, kMinChainKernels),
                     fmt::format("Each chain reads and writes the same tensors once per kernel; the largest is {}. Fuse them: "
                                 "torch.compile the module (Inductor emits one triton_*_fused_* kernel per chain), or use "
                                 "fused ops (F.gelu, nn.LayerNorm/RMSNorm, F.scaled_dot_product_attention) instead of "
                                 "hand-written formulas.",
                                 example));
    x.evidence = {{"chains", chains.size(), Unit::kCount}, {"chains_per_step", Round(static_cast<double>(chains.size()) / in.nsteps), Unit::kPerStep},
                  {"top_chains", top},
                  {"estimate", "per chain: sum of its kernel times - the longest (one fused pass) + host-launch idle inside it"}};
    x.time_ranges = ranges;
  }
  total_pct += RuleZeroGrad(in, zero_grad_kernels, out);
  // Per-parameter optimizer kernels.
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
      const TimeNs b = OverlapNs(in.ctx.busy().main, first, last);
      busy = SaturatingAdd(busy, b);
      idle = SaturatingAdd(idle, (last - first) - b);
      ranges.emplace_back(first, last);
    }
    const double pct = in.PctOfWindow(static_cast<double>(idle));
    total_pct += pct;
    Finding& x = out.Add("unfused_optimizer", pct,
                     fmt::format("Per-parameter optimizer: {:.0f} kernels per step in {}", per_step,
                                 in.ctx.host().optimizer_names.empty() ? std::string("Optimizer.step") : *in.ctx.host().optimizer_names.begin()),
                     fmt::format("The {} launches {:.0f} small elementwise kernels per step, one set per parameter; the GPU "
                                 "idles {:.1f} ms per step between them. {}",
                                 in.run.optimizer.empty() ? std::string("optimizer") : in.run.optimizer + " optimizer", per_step,
                                 Ms(idle) / in.nsteps, advice));
    x.evidence = {{"optimizer", in.run.optimizer.empty() ? std::string("unknown") : in.run.optimizer},
                  {"per_parameter_kernels_per_step", Round(per_step), Unit::kPerStep}, {"optimizer_kernels_per_step", Round(opt_kernels / in.nsteps), Unit::kPerStep},
                  {"optimizer_gpu_busy_us", NsToUsRounded3(busy), Unit::kUs}, {"optimizer_gpu_idle_us", NsToUsRounded3(idle), Unit::kUs},
                  {"estimate", "GPU idle inside the optimizer's kernel span (launch overhead a fused step removes)"}};
    x.time_ranges = ranges;
  }
  item.value = Round(total_pct);
  item.evidence = fmt::format("{} memory-bound chains (est. {:.1f}% of step); {:.0f} per-parameter optimizer kernels per step{}",
                              chains.size(), chain_pct, per_step, earlier);
  const FindingSeverity worst = out.WorstSeverity("kernel_fusion");
  item.status = worst == FindingSeverity::kInfo ? (out.HasFinding("kernel_fusion") ? CheckStatus::kWarn : CheckStatus::kPass)
                                                : CheckStatus::kFail;
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
    Finding& x = out.Add("cast_overhead", cast_pct,
                     fmt::format("Dtype casts take {:.1f}% of the step", cast_pct),
                     fmt::format("Cast kernels ({}) move every tensor twice. Enter autocast once per step (not per "
                                 "micro-batch: its weight-cast cache is cleared on exit), keep frozen weights in fp16/bf16, "
                                 "and avoid .half()/.float() round trips between layers.",
                                 in.KernelList(top)));
    x.evidence = {{"cast_time_us", NsToUsRounded3(cast), Unit::kUs}, {"cast_pct_of_step", Round(cast_pct), Unit::kPctOfStep}, {"top_kernels", top},
                  {"estimate", "all cast kernel time (upper bound)"}};
  }
  return o;
}

}  // namespace ampscope::diagnosis

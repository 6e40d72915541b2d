// Optimizer rules: a foreach optimizer that offers fused=True (optimizer_not_fused), and an
// optimizer step that takes a large share of the step that no other finding explains
// (optimizer_step_dominates). The per-parameter optimizer and zero_grad are fusion_rules.cc's.
#include <algorithm>
#include <limits>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

// The optimizer's kernels per Optimizer.step range (launched inside it, in the windows), and the
// GPU idle inside each range's kernel span.
struct OptimizerKernels {
  uint64_t kernels = 0;
  TimeNs kernel_ns = 0;
  TimeNs fused_estimate_ns = 0;  // sum over ranges of what one fused launch per group would cost
  TimeNs idle_ns = 0;            // GPU idle inside the ranges' kernel spans (launch gaps)
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  // The fused step's kernels: each range's kernels at its fused estimate's share of their time.
  std::vector<std::pair<uint32_t, TimeNs>> fused_kernels;
  std::vector<uint32_t> all;  // every kernel counted (their launches collapse into few)
};

OptimizerKernels KernelsOfOptimizer(const Facts& in) {
  OptimizerKernels o;
  const auto& by_launch = in.ctx.kernels().by_launch;
  for (const TidRange& r : in.ctx.host().optimizer_steps) {
    TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0, sum = 0, longest = 0;
    for (auto it = std::lower_bound(by_launch.begin(), by_launch.end(), std::make_pair(r.start_ns, uint32_t{0}));
         it != by_launch.end() && it->first < r.end_ns; ++it) {
      if (!in.InWindow(it->second)) continue;
      const KernelClass& c = in.cls(it->second);
      if (c.category == KernelCategory::kAmpScaler) continue;  // GradScaler's unscale, not the optimizer's math
      const KernelEvent& k = in.t.kernels[it->second];
      o.kernels++;
      SatAccumulate(sum, k.duration_ns());
      longest = std::max(longest, k.duration_ns());
      first = std::min(first, k.start_ns);
      last = std::max(last, k.end_ns);
    }
    if (last <= first) continue;
    const double factor = sum > 0 ? static_cast<double>(std::min(sum, 2 * longest)) / static_cast<double>(sum) : 1.0;
    for (auto it = std::lower_bound(by_launch.begin(), by_launch.end(), std::make_pair(r.start_ns, uint32_t{0}));
         it != by_launch.end() && it->first < r.end_ns; ++it) {
      if (!in.InWindow(it->second) || in.cls(it->second).category == KernelCategory::kAmpScaler) continue;
      o.fused_kernels.push_back({it->second, static_cast<TimeNs>(static_cast<double>(in.t.kernels[it->second].duration_ns()) * factor)});
      o.all.push_back(it->second);
    }
    SatAccumulate(o.kernel_ns, sum);
    // A fused step makes one pass that reads and writes every tensor the foreach kernels touch:
    // about twice the largest foreach kernel's traffic (Adam's fused kernel moves param, grad,
    // exp_avg, exp_avg_sq; its largest foreach op, addcdiv_, four of those seven) [heur].
    SatAccumulate(o.fused_estimate_ns, std::min(sum, 2 * longest));
    SatAccumulate(o.idle_ns, (last - first) - std::min(last - first, OverlapNs(in.ctx.busy().main(), first, last)));
    o.spans.emplace_back(first, last);
  }
  return o;
}

// Optimizer.step host time per class, clipped to the windows.
std::map<std::string, TimeNs> StepTimeByClass(const Facts& in) {
  std::map<std::string, TimeNs> by;
  for (const TidRange& r : in.ctx.host().optimizer_steps) {
    std::string cls(OptimizerClassOfRange(in.t.str(r.name)));
    if (cls.empty()) cls = "optimizer";
    SatAccumulate(by[cls], in.ctx.ClippedNs(r.start_ns, r.end_ns));
  }
  return by;
}

// The foreach ops inside Optimizer.step that ran PyTorch's per-tensor fallback: their children
// are the per-tensor twin op (aten::_foreach_mul_ -> aten::mul_ / aten::mul), one call and one
// launch per tensor, where the fast path makes one multi_tensor_apply launch per group of tensors.
struct ForeachFallback {
  uint64_t ops = 0;
  uint64_t per_tensor_children = 0;  // recorded (a sampled trace keeps few)
  TimeNs host_ns = 0;                // the ops' host time (their spans)
  std::map<std::string, TimeNs> by_name;
  std::vector<graph::CallSites> groups;  // one per op: its span, one per-tensor call's cost kept
};

ForeachFallback ForeachFallbacks(const Facts& in) {
  ForeachFallback f;
  const OpTree& tree = in.ctx.op_tree();
  const auto& ranges = in.ctx.host().optimizer_steps;
  if (ranges.empty()) return f;
  constexpr std::string_view kForeach = "aten::_foreach_";
  for (OpTree::NodeId n = 0; n < tree.size(); ++n) {
    if (tree.kind(n) != OpTree::NodeKind::kCpuOp) continue;
    const std::string_view name = in.t.str(tree.name(n));
    if (name.rfind(kForeach, 0) != 0) continue;
    const TimeNs s = tree.start_ns(n), e = tree.end_ns(n);
    if (!in.ctx.InWindows(s)) continue;
    const int64_t tid = tree.tid(n);
    bool inside = false;
    for (const TidRange& r : ranges) inside = inside || (r.tid == tid && s >= r.start_ns && e <= r.end_ns);
    if (!inside) continue;
    // The per-tensor twin: "aten::" + the op's base name (without its in-place underscore).
    std::string base(name.substr(kForeach.size()));
    while (!base.empty() && base.back() == '_') base.pop_back();
    const std::string twin = "aten::" + base;
    std::vector<TimeNs> child_ns;
    for (OpTree::NodeId c : tree.children(n)) {
      const std::string_view cn = in.t.str(tree.name(c));
      if (cn.rfind(twin, 0) == 0 && (cn.size() == twin.size() || cn[twin.size()] == '_')) child_ns.push_back(tree.end_ns(c) - tree.start_ns(c));
    }
    if (child_ns.empty()) continue;
    std::nth_element(child_ns.begin(), child_ns.begin() + static_cast<std::ptrdiff_t>(child_ns.size() / 2), child_ns.end());
    f.ops++;
    f.per_tensor_children += child_ns.size();
    SatAccumulate(f.host_ns, e - s);
    SatAccumulate(f.by_name[std::string(name)], e - s);
    graph::CallSites g;
    g.tid = tid;
    g.sites.push_back({s, e});
    // [heur] The fast path's launch costs the host about what one per-tensor call did.
    g.kept_ns = child_ns[child_ns.size() / 2];
    f.groups.push_back(std::move(g));
  }
  return f;
}

}  // namespace

void RuleOptimizer(const Facts& in, FindingSink& out) {
  if (in.window_ns <= 0) return;
  const RunFacts& run = in.run;
  const OptimizerKernels k = KernelsOfOptimizer(in);
  // foreach -> fused: only a class that offers fused=True, that ran its foreach kernels and not
  // its fused ones.
  bool fused_said = false;
  if (run.foreach_optimizer && !run.fused_optimizer && run.optimizer_options.fused && k.kernels > 0) {
    const TimeNs saving = SaturatingAdd(k.kernel_ns - std::min(k.kernel_ns, k.fused_estimate_ns), k.idle_ns);
    const double pct = in.PctOfWindow(static_cast<double>(saving));
    if (pct >= kMinSavingPct) {
      fused_said = true;
      Finding& x = out.Add(
          "optimizer_not_fused", pct,
          fmt::format("{} runs its foreach (multi-tensor) step: {:.0f} kernels per step", run.optimizer,
                      static_cast<double>(k.kernels) / in.nsteps),
          fmt::format("The {} step launches {:.0f} multi_tensor_apply kernels per step ({:.2f} ms of kernels, {:.2f} ms of GPU "
                      "idle between them), one pass over the parameters and states per elementwise op. "
                      "torch.optim.{}(params, fused=True) does the whole update in one kernel per group of tensors.",
                      run.optimizer, static_cast<double>(k.kernels) / in.nsteps, Ms(k.kernel_ns) / in.nsteps,
                      Ms(k.idle_ns) / in.nsteps, run.optimizer));
      x.evidence = {{"optimizer", run.optimizer},
                    {"optimizer_kernels_per_step", Round(static_cast<double>(k.kernels) / in.nsteps), Unit::kPerStep},
                    {"optimizer_kernel_time_us", NsToUsRounded3(k.kernel_ns), Unit::kUs},
                    {"optimizer_gpu_idle_us", NsToUsRounded3(k.idle_ns), Unit::kUs},
                    {"estimate", "replayed: per Optimizer.step, its kernels scaled to 2 x its longest kernel in all (one fused "
                                 "pass moves about twice the bytes of the largest foreach op), their launches collapsed "
                                 "into one"}};
      x.time_ranges = k.spans;
      graph::Transform fused;
      fused.name = graph::kScaleKernels;
      fused.kernels = k.fused_kernels;
      fused.Normalize();
      const graph::Transform launches = graph::CudaGraphLaunch(in.ctx, k.all, "");
      graph::Transform fix = graph::Combine({&fused, &launches});
      fix.name = graph::kFusedOptimizer;
      fix.selection = "the kernels inside Optimizer.step ranges as one fused pass per step (2 x the longest kernel), one launch";
      out.Fix(x, std::move(fix));
    }
  }
  // A step that dominates and that no optimizer finding explains.
  const std::map<std::string, TimeNs> by_class = StepTimeByClass(in);
  TimeNs total = 0;
  std::string top;
  TimeNs top_ns = -1;
  for (const auto& [cls, ns] : by_class) {
    SatAccumulate(total, ns);
    if (ns > top_ns) top = cls, top_ns = ns;
  }
  const double share = in.PctOfWindow(static_cast<double>(total));
  bool explained = fused_said;
  for (const Finding& f : out.findings()) explained = explained || f.id == "unfused_optimizer" || f.id == "zero_grad_fills";
  if (share < kOptimizerStepPct || explained || total <= 0) return;
  const OptimizerOptions opts = OptimizerOptionsOf(top);
  std::string advice;
  if (opts.preconditioner) {
    advice = fmt::format("{} builds and inverts matrix preconditioners in its step: recompute them less often "
                         "(precondition_frequency, start_preconditioning_step), spread that work across the ranks "
                         "(DistributedShampoo's distributed_config) and cap the preconditioned block size (max_preconditioner_dim).",
                         top);
  } else if (opts.fused && !run.fused_optimizer) {
    advice = fmt::format("torch.optim.{}(params, fused=True) does the update in one kernel per group of tensors.", top);
  } else if (opts.foreach && !run.foreach_optimizer && !run.fused_optimizer) {
    advice = fmt::format("torch.optim.{}(params, foreach=True) does the update in a few multi-tensor launches.", top);
  } else {
    advice = "Profile the step on its own (its kernels and host work are in the Optimizer.step range) and amortise it: "
             "gradient accumulation runs it once per several micro-batches.";
  }
  // Foreach ops that ran per tensor: the host pays one call per tensor (a fix with a replay).
  const ForeachFallback fb = ForeachFallbacks(in);
  const bool fallback = fb.ops > 0 && in.PctOfWindow(static_cast<double>(fb.host_ns)) >= kMinSavingPct;
  if (fallback) {
    std::string ops;
    for (const auto& [name, ns] : fb.by_name) ops += fmt::format("{}{} {:.1f} ms", ops.empty() ? "" : ", ", name, Ms(ns) / in.nsteps);
    advice = fmt::format("Its foreach ops ran PyTorch's per-tensor fallback, one op and one launch per tensor ({} per step; "
                         "{} per-tensor calls recorded under them): the fast path, one multi_tensor_apply launch per group "
                         "of tensors, needs every tensor of the lists on one device with one dtype, dense and "
                         "non-overlapping, and scalars as Python numbers or one CUDA tensor: keep the optimizer's state "
                         "lists homogeneous (or group them by dtype and device). ",
                         ops, fb.per_tensor_children) +
             advice;
  }
  Finding& x = out.Add("optimizer_step_dominates", 0.0,
                       fmt::format("The optimizer step ({}) takes {:.0f}% of the step", top, share),
                       fmt::format("Optimizer.step takes {:.1f} ms of each {:.1f} ms step ({} alone {:.1f} ms), with "
                                   "{:.1f} ms of GPU kernels. {}",
                                   Ms(total) / in.nsteps, Ms(in.window_ns) / in.nsteps, top, Ms(top_ns) / in.nsteps,
                                   Ms(k.kernel_ns) / in.nsteps, advice));
  std::vector<FieldList> classes;
  for (const auto& [cls, ns] : by_class)
    classes.push_back({{"optimizer", cls}, {"time_us_per_step", NsToUsRounded3(ns / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                       {"pct_of_step", Round(in.PctOfWindow(static_cast<double>(ns))), Unit::kPctOfStep}});
  x.evidence = {{"optimizer_pct_of_step", Round(share), Unit::kPctOfStep},
                {"optimizer_time_us_per_step", NsToUsRounded3(total / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                {"optimizer_kernel_time_us", NsToUsRounded3(k.kernel_ns), Unit::kUs},
                {"by_optimizer", classes},
                {"estimate", fallback ? "replayed: each foreach op that ran per tensor issues one call instead (its "
                                        "host time but one per-tensor call's removed: coalesce_calls)"
                                      : "none: how much of the step the optimizer's own settings can save is not known "
                                        "from the trace"}};
  for (const TidRange& r : in.ctx.host().optimizer_steps) x.time_ranges.emplace_back(r.start_ns, r.end_ns);
  if (fallback) {
    x.evidence.push_back({"foreach_fallback_ops_per_step", Round(static_cast<double>(fb.ops) / in.nsteps), Unit::kPerStep});
    x.evidence.push_back({"foreach_fallback_host_us_per_step", NsToUsRounded3(fb.host_ns / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep});
    x.evidence.push_back({"foreach_fallback_per_tensor_calls_recorded", fb.per_tensor_children, Unit::kCount});
    out.Fix(x, graph::CoalesceCalls(in.ctx, fb.groups,
                                    "the foreach ops inside Optimizer.step that ran per tensor, as one multi-tensor call each"));
  }
}

}  // namespace ampscope::diagnosis

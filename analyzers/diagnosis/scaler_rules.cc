// GradScaler rules: fp16 without a scaler, skipped steps (at the start: init_scale too high;
// after warm-up: persistent overflow), a scaler in a bf16 run.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {

namespace {

// bf16 with a scaler: its kernels and its found_inf sync are unnecessary (grad_scaler_with_bf16).
void RuleScalerWithBf16(const Facts& in, double fp16_share, FindingSink& out) {
  TimeNs scaler_ns = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i) && in.cls(i).category == KernelCategory::kAmpScaler) scaler_ns = SaturatingAdd(scaler_ns, in.t.kernels[i].duration_ns());
  std::vector<uint32_t> kernels;
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i) && in.cls(i).category == KernelCategory::kAmpScaler) kernels.push_back(static_cast<uint32_t>(i));
  Finding& x = out.Add("grad_scaler_with_bf16", 0.0, "GradScaler used with bf16",
                   "bf16 has fp32's exponent range, so loss scaling is not needed: drop the GradScaler (call loss.backward() "
                   "and optimizer.step() directly) and save its unscale/update kernels and its per-step found_inf .item() sync.");
  x.evidence = {{"scaler_kernel_time_us", NsToUsRounded3(scaler_ns), Unit::kUs}, {"scaler_sync_idle_us", NsToUsRounded3(in.CauseNs(IdleCause::kScalerSync)), Unit::kUs},
                {"bf16_share_pct", Round(100.0 - fp16_share), Unit::kPct}};
  out.Fix(x, graph::RemoveNodes(in.t, std::move(kernels), SyncPointCalls(in, true), "GradScaler's kernels and its found_inf syncs"));
}

}  // namespace

void RuleGradScaler(const Facts& in, FindingSink& out) {
  ChecklistItem& item = out.Item("grad_scaler");
  item.threshold = fmt::format("GradScaler present for fp16; no run of >= {} skipped steps at the start of training (step < {}); "
                               "skip rate after that run <= {:.0f}%",
                               kStartSkipsMin, kScalerWarmupSteps, kSkipRatePct);
  item.source = "[proj] init_scale 1024..65536; [heur] skip rate; GradScaler kernels (torch/amp/grad_scaler.py)";
  TimeNs fp16 = 0, bf16 = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i) || !IsMatmulClass(in.cls(i).category)) continue;
    if (in.cls(i).precision == Precision::kFp16) fp16 = SaturatingAdd(fp16, in.t.kernels[i].duration_ns());
    if (in.cls(i).precision == Precision::kBf16) bf16 = SaturatingAdd(bf16, in.t.kernels[i].duration_ns());
  }
  int updates = 0, unscales = 0;
  bool fused = false;
  for (const StepFacts& f : in.steps) {
    updates += f.updates;
    unscales += f.unscales;
    fused = fused || f.fused_optimizer;
  }
  if (in.steps.empty()) {
    for (size_t i = 0; i < in.t.kernels.size(); ++i) {
      if (!in.InWindow(i)) continue;
      updates += in.cls(i).role == KernelRole::kAmpUpdateScale;
      unscales += in.cls(i).role == KernelRole::kAmpUnscale;
    }
  }
  const bool scaler = updates > 0 || unscales > 0;
  const double lowp = static_cast<double>(fp16 + bf16);
  const double fp16_share = lowp > 0 ? 100.0 * static_cast<double>(fp16) / lowp : 0.0;
  const bool fp16_run = fp16 > 0 && fp16_share >= kFp16ShareForScalerPct;
  item.evidence = fmt::format("{} amp_update_scale and {} unscale kernels in {} steps; fp16 {:.0f}% / bf16 {:.0f}% of low-precision GEMM time",
                              updates, unscales, in.steps.size(), fp16_share, lowp > 0 ? 100.0 - fp16_share : 0.0);
  if (in.kernel_total_ns == 0) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "profile with CUDA activities enabled";
    return;
  }
  if (in.inference() && !scaler) {
    item.status = CheckStatus::kNotApplicable;
    item.evidence += "; inference (" + in.run.kind_basis + "): no gradients to scale";
    return;
  }
  if (!fp16_run && !scaler) {
    item.status = CheckStatus::kNotApplicable;
    item.evidence += lowp > 0 ? " (bf16 run: no loss scaling needed)" : " (no fp16 compute)";
    return;
  }
  if (fp16_run && !scaler) {
    Finding& x = out.Add("fp16_without_grad_scaler", 0.0, "fp16 training without a GradScaler",
                     fmt::format("{:.0f}% of the low-precision GEMM time is fp16 and no GradScaler kernels "
                                 "(amp_update_scale_cuda_kernel, _amp_foreach_non_finite_check_and_unscale_) run: small "
                                 "gradients underflow in fp16. Use torch.amp.GradScaler('cuda') (scaler.scale(loss).backward(); "
                                 "scaler.step(opt); scaler.update()){}.",
                                 fp16_share, in.Bf16TensorCores() ? fmt::format(", or switch autocast to bfloat16 (this GPU has bf16 {})", in.MatrixUnits()) : ""));
    x.evidence = {{"fp16_gemm_time_us", NsToUsRounded3(fp16), Unit::kUs}, {"bf16_gemm_time_us", NsToUsRounded3(bf16), Unit::kUs}, {"scaler_kernels", 0, Unit::kCount}};
    item.status = CheckStatus::kFail;
    item.value = 0;
    return;
  }
  // Scaler present: skipped steps (update kernel but no optimizer work).
  bool can_tell = !fused && !in.steps.empty();
  bool have_opt_signal = !in.ctx.host().optimizer_steps.empty();
  if (!have_opt_signal) {
    for (const StepFacts& f : in.steps) have_opt_signal = have_opt_signal || f.optimizer_category_kernels > 0;
  }
  can_tell = can_tell && have_opt_signal;
  std::vector<size_t> skipped;
  std::vector<uint8_t> step_skipped(in.steps.size(), 0);
  if (can_tell) {
    for (size_t i = 0; i < in.steps.size(); ++i) {
      const StepFacts& f = in.steps[i];
      const bool has_opt = in.ctx.host().optimizer_steps.empty() ? f.optimizer_category_kernels > 0 : f.optimizer_kernels > 0;
      step_skipped[i] = f.updates > 0 && !has_opt;
      if (step_skipped[i]) skipped.push_back(i);
    }
  }
  // Consecutive skips from the first analysed step, when the window starts near step 0: the
  // scaler halving a too-high initial scale (warm-up). Every step after them is counted.
  size_t start_run = 0;
  const std::vector<StepWindow>& windows = in.ra.steps.steps;  // each step's times and number (in.steps' indices)
  const bool near_start = !windows.empty() && windows.front().number >= 0 && windows.front().number < kScalerWarmupSteps;
  if (near_start)
    while (start_run < in.steps.size() && step_skipped[start_run]) ++start_run;
  int steady = 0, steady_skipped = 0;
  TimeNs start_skip_ns = 0, steady_skip_ns = 0;
  for (size_t i = 0; i < in.steps.size(); ++i) {
    const TimeNs d = windows[i].end_ns - windows[i].start_ns;
    if (i < start_run) {
      start_skip_ns = SaturatingAdd(start_skip_ns, d);
      continue;
    }
    ++steady;
    if (step_skipped[i]) {
      ++steady_skipped;
      steady_skip_ns = SaturatingAdd(steady_skip_ns, d);
    }
  }
  const double skip_rate = steady > 0 ? 100.0 * steady_skipped / steady : 0.0;
  item.value = Round(skip_rate);
  item.evidence += fmt::format("; {} skipped steps (update kernel, no optimizer kernels): {} at the start, {:.1f}% of {} steps after warm-up",
                               skipped.size(), start_run, skip_rate, steady);
  item.status = CheckStatus::kPass;
  if (!can_tell) {
    item.status = fp16_run ? CheckStatus::kUnknown : CheckStatus::kPass;
    item.evidence += fused ? "; fused optimizer: the scaler passes found_inf to the fused kernel, which skips the update on the "
                             "device, so skipped steps cannot be seen in the trace (the optimizer kernels run either way)"
                           : "; skipped steps unknown (no Optimizer.step ranges or optimizer kernels)";
    if (fp16_run) {
      item.how_to_know = fused ? "log scaler.get_scale() per step (a halving = a skipped step)"
                               : "profile with torch.profiler (record_function ranges Optimizer.step#...) so optimizer work per step is visible";
    }
  }
  if (start_run >= static_cast<size_t>(kStartSkipsMin)) {
    const int64_t factor = int64_t{1} << std::min<size_t>(start_run, 62);
    Finding& x = out.Add("grad_scaler_init_scale_too_high", 0.0,
                     fmt::format("GradScaler skipped the first {} steps: initial scale too high", start_run),
                     fmt::format("Steps {}..{} ran amp_update_scale_cuda_kernel but no optimizer kernels: each found inf/NaN "
                                 "gradients and halved the scale, so init_scale was {}x (2^{}) above the first scale that "
                                 "worked. Start there: GradScaler(init_scale=<your init_scale> / {}){}.",
                                 windows.front().number, windows[start_run - 1].number, factor, start_run, factor,
                                 65536 / factor >= 1 ? fmt::format(" (from the default 65536 that is {})", 65536 / factor) : std::string()));
    std::vector<int64_t> nums;
    for (size_t i = 0; i < start_run; ++i) nums.push_back(windows[i].number);
    x.evidence = {{"skipped_steps", nums}, {"inferred_scale_factor_too_high", std::pow(2.0, static_cast<double>(start_run)), Unit::kFactor},
                  {"wasted_time_us", NsToUsRounded3(start_skip_ns), Unit::kUs}};
    std::vector<int64_t> removed;
    for (size_t i = 0; i < start_run; ++i) removed.push_back(static_cast<int64_t>(i));
    out.Fix(x, graph::RemoveSteps(std::move(removed), "the skipped steps at the start"));
    item.status = CheckStatus::kFail;
  }
  if (steady > 0 && skip_rate > kSkipRatePct) {
    std::vector<int64_t> nums;
    for (size_t i : skipped)
      if (i >= start_run) nums.push_back(windows[i].number);
    Finding& x = out.Add("grad_scaler_skipped_steps", 0.0,
                     fmt::format("GradScaler skips {:.0f}% of steps after warm-up", skip_rate),
                     fmt::format("Steps {} found inf/NaN gradients: their forward and backward were wasted and the scale "
                                 "keeps collapsing. Find the overflow source (fp16 activations, loss computed in fp16, a "
                                 "too-high learning rate), compute the loss in fp32{}.",
                                 fmt::format("[{}]", fmt::join(nums, ",")), in.Bf16TensorCores() ? ", or train in bf16" : ""));
    x.evidence = {{"skipped_steps", nums}, {"skip_rate_pct", Round(skip_rate), Unit::kPct}, {"steps_after_warmup", steady, Unit::kCount},
                  {"wasted_time_us", NsToUsRounded3(steady_skip_ns), Unit::kUs}};
    std::vector<int64_t> removed;
    for (size_t i : skipped)
      if (i >= start_run) removed.push_back(static_cast<int64_t>(i));
    out.Fix(x, graph::RemoveSteps(std::move(removed), "the skipped steps after warm-up"));
    item.status = CheckStatus::kFail;
  }
  if (!fp16_run && scaler && lowp > 0) RuleScalerWithBf16(in, fp16_share, out);
}

}  // namespace ampscope::diagnosis

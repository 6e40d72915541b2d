#include "gate/gate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gate/mann_whitney.h"
#include "reports/contract/checklist_view.h"
#include "reports/contract/findings_view.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/report_reader.h"
#include "render/format.h"
#include "reports/contract/report_fields.h"

namespace ampscope::gate {

// The report is read through the contract's reader (reports/contract/).
using reports::FindPath;
using reports::NumberAt;
using reports::StepDurationsUs;

// Values are printed by the one formatting module of the outputs people read.
using render::FormatDelta;
using render::FormatDurationUs;
using render::FormatOptionalValue;
using render::FormatRelativeChange;
using render::FormatValue;
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- environment

std::optional<std::string> EnvironmentValue(const json& report, const std::string& field) {
  const json* env = FindPath(report, report_field::kEnvironment);
  if (env == nullptr || !env->is_object()) return std::nullopt;
  auto it = env->find(field);
  if (it == env->end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

GateCheck CheckEnvironment(const json& baseline, const json& current, const EnvironmentRule& rule,
                           const GateOptions& options, GateResult* result) {
  GateCheck check;
  check.name = "environment";
  check.threshold = fmt::format("equal {}", fmt::join(rule.fields, ", "));
  std::vector<std::string> same, unknown;
  std::vector<std::string> base_diff, cur_diff;
  for (const std::string& field : rule.fields) {
    auto b = EnvironmentValue(baseline, field);
    auto c = EnvironmentValue(current, field);
    check.details[field] = {{"baseline", b ? json(*b) : json(nullptr)}, {"current", c ? json(*c) : json(nullptr)}};
    if (!b || !c) {
      unknown.push_back(field);  // null on either side: not comparable, not a mismatch
      continue;
    }
    if (*b == *c) {
      same.push_back(fmt::format("{} {}", field, *b));
      continue;
    }
    result->environment_differences.push_back({field, *b, *c});
    base_diff.push_back(fmt::format("{} {}", field, *b));
    cur_diff.push_back(fmt::format("{} {}", field, *c));
  }
  if (result->environment_differences.empty()) {
    check.verdict = Verdict::kPass;
    // The values go to the message; the table cells stay narrow.
    check.baseline = check.current = fmt::format("{}/{} known", same.size(), rule.fields.size());
    check.change = "same";
    check.message = same.empty() ? "no environment field is known on both sides; nothing to compare"
                                 : fmt::format("{} of {} fields match: {}", same.size(), rule.fields.size(),
                                               fmt::join(same, "; "));
    if (!unknown.empty()) check.message += fmt::format(" (unknown on one side: {})", fmt::join(unknown, ", "));
    return check;
  }
  check.baseline = fmt::format("{}", fmt::join(base_diff, "; "));
  check.current = fmt::format("{}", fmt::join(cur_diff, "; "));
  check.change = "differs";
  std::vector<std::string> parts;
  for (const auto& d : result->environment_differences)
    parts.push_back(fmt::format("{} '{}' vs '{}'", d.field, d.baseline, d.current));
  if (options.allow_env_mismatch) {
    check.verdict = Verdict::kWarn;
    check.message = fmt::format("environment differs ({}); compared anyway (--allow-env-mismatch)", fmt::join(parts, ", "));
  } else {
    check.verdict = Verdict::kFail;
    result->environment_blocked = true;
    check.message = fmt::format("environment differs ({}); the runs are not comparable", fmt::join(parts, ", "));
  }
  return check;
}

// ---------------------------------------------------------------- step time

std::string TierText(const char* name, const std::optional<double>& value, const char* prefix, const char* suffix) {
  if (!value) return "";
  return fmt::format("{} {}{}{}", name, prefix, value.value(), suffix);
}

std::string JoinTiers(const std::string& warn, const std::string& fail) {
  if (warn.empty()) return fail.empty() ? std::string("none") : fail;
  if (fail.empty()) return warn;
  return warn + ", " + fail;
}

// The smallest one-sided p the exact Mann-Whitney test can give for sample sizes n and m: every
// current step slower than every baseline step, U = n m, p = 1 / C(n + m, n). When it is not
// below alpha, no change can be significant, however large.
double SmallestPossibleP(size_t n, size_t m) {
  const double log_c = std::lgamma(static_cast<double>(n + m + 1)) - std::lgamma(static_cast<double>(n + 1)) -
                       std::lgamma(static_cast<double>(m + 1));
  return std::exp(-log_c);
}

// Steps per run (both runs alike) from which a significant result is possible at all.
size_t StepsForPossibleSignificance(double alpha) {
  size_t k = 1;
  while (k < 1000 && !(SmallestPossibleP(k, k) < alpha)) ++k;
  return k;
}

// z with 1 - Phi(z) = p (upper tail), by bisection on erfc (|z| <= 40 covers every double p).
double UpperTailZ(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

// Steps per run at which an effect as large as the observed one would reach alpha: the rank
// statistic's z grows with the square root of the sample size, so n' = n (z_alpha / z_obs)^2
// (n = the smaller side). An estimate for advice, not a power analysis; 0 when the observed z
// shows no slowdown (z_obs <= 0).
size_t StepsForSignificance(double p_value, double alpha, size_t n) {
  const double z_obs = UpperTailZ(p_value);
  if (!(z_obs > 0)) return 0;
  const double z_alpha = UpperTailZ(alpha);
  return static_cast<size_t>(std::ceil(static_cast<double>(n) * (z_alpha / z_obs) * (z_alpha / z_obs)));
}

GateCheck CheckStepTime(const json& baseline, const json& current, const StepTimeRule& rule) {
  GateCheck check;
  check.name = "step_time";
  check.threshold = JoinTiers(TierText("warn", rule.warn_pct, ">+", "%"), TierText("fail", rule.fail_pct, ">+", "%")) +
                    fmt::format(" and p<{}", rule.alpha);
  const std::vector<double> base = StepDurationsUs(baseline);
  const std::vector<double> cur = StepDurationsUs(current);
  check.details["n_baseline"] = base.size();
  check.details["n_current"] = cur.size();
  check.details["alpha"] = rule.alpha;
  if (static_cast<int>(base.size()) < rule.min_steps || static_cast<int>(cur.size()) < rule.min_steps) {
    check.verdict = Verdict::kSkipped;
    check.baseline = fmt::format("{} steps", base.size());
    check.current = fmt::format("{} steps", cur.size());
    check.change = "n/a";
    check.message = fmt::format(
        "skipped: needs at least {} per-step times on each side (baseline {}, current {}); record more steps",
        rule.min_steps, base.size(), cur.size());
    return check;
  }
  const double base_median = Median(base);
  const double cur_median = Median(cur);
  check.baseline = fmt::format("{} (n={})", FormatDurationUs(base_median), base.size());
  check.current = fmt::format("{} (n={})", FormatDurationUs(cur_median), cur.size());
  check.details["baseline_median_us"] = base_median;
  check.details["current_median_us"] = cur_median;
  if (!(base_median > 0)) {
    check.verdict = Verdict::kSkipped;
    check.change = "n/a";
    check.message = "skipped: the baseline median step time is 0";
    return check;
  }
  const double change_pct = (cur_median - base_median) / base_median * 100.0;
  MannWhitneyOptions mw_options;
  mw_options.max_exact_n = rule.max_exact_n;
  const MannWhitneyResult mw = MannWhitneyGreater(cur, base, mw_options);
  const bool significant = mw.p_value < rule.alpha;
  check.details["change_pct"] = change_pct;
  check.details["u"] = mw.u;
  check.details["p_value"] = mw.p_value;
  check.details["method"] = MannWhitneyMethodName(mw.method);
  check.details["ties"] = mw.ties;
  check.change = fmt::format("{:+.1f}% (p={:.2g})", change_pct, mw.p_value);

  const std::string stats = fmt::format("Mann-Whitney U={:g}, one-sided p={:.3g} ({}, n={}/{})", mw.u, mw.p_value,
                                        MannWhitneyMethodName(mw.method), base.size(), cur.size());
  const std::optional<double> lowest = rule.warn_pct ? rule.warn_pct : rule.fail_pct;
  const double smallest_p = SmallestPossibleP(base.size(), cur.size());
  check.details["smallest_possible_p"] = smallest_p;
  if (!(smallest_p < rule.alpha)) {
    // Too few steps for the test to ever say "significant": a +40% change would pass unseen.
    const size_t needed = StepsForPossibleSignificance(rule.alpha);
    check.details["steps_needed"] = needed;
    const std::string why = fmt::format(
        "with n={}/{} steps the smallest possible one-sided p is {:.3g} (not below alpha {}), so no change can be "
        "significant; record at least {} steps in each run",
        base.size(), cur.size(), smallest_p, rule.alpha, needed);
    if (lowest && change_pct > *lowest) {
      check.verdict = Verdict::kWarn;
      check.message = fmt::format("median step time {:+.1f}% (> {}%) but untested: {}", change_pct, *lowest, why);
    } else {
      check.verdict = Verdict::kPass;
      check.message = fmt::format("median step time {:+.1f}%; {}", change_pct, why);
    }
    return check;
  }
  if (rule.fail_pct && change_pct > *rule.fail_pct && significant) {
    check.verdict = Verdict::kFail;
    check.message = fmt::format("median step time {:+.1f}% (> {}%) and significant: {} < alpha {}", change_pct,
                                *rule.fail_pct, stats, rule.alpha);
  } else if (rule.warn_pct && change_pct > *rule.warn_pct && significant) {
    check.verdict = Verdict::kWarn;
    check.message = fmt::format("median step time {:+.1f}% (> {}%) and significant: {} < alpha {}", change_pct,
                                *rule.warn_pct, stats, rule.alpha);
  } else {
    check.verdict = Verdict::kPass;
    if (lowest && change_pct > *lowest) {
      const size_t needed = StepsForSignificance(mw.p_value, rule.alpha, std::min(base.size(), cur.size()));
      std::string advice = "record more steps to tell it from the noise";
      if (needed > 0) {
        check.details["steps_needed"] = needed;
        advice = fmt::format("about {} steps in each run would tell a change this size from this noise", needed);
      }
      check.message = fmt::format("median step time {:+.1f}% but not significant ({} >= alpha {}): {}", change_pct,
                                  stats, rule.alpha, advice);
    } else {
      check.message = fmt::format("median step time {:+.1f}% ({})", change_pct, stats);
    }
  }
  return check;
}

// ---------------------------------------------------------------- counters

GateCheck CheckCounter(const json& baseline, const json& current, const CounterRule& rule) {
  GateCheck check;
  check.name = "gate_metrics." + rule.metric;
  const bool higher = rule.direction == Direction::kHigherIsWorse;
  const char* sign = higher ? ">+" : "<-";
  const char* suffix = rule.mode == ToleranceMode::kRelativePct ? "%" : (rule.unit == MetricUnit::kPct ? " pts" : "");
  check.threshold = JoinTiers(TierText("warn", rule.warn, sign, suffix), TierText("fail", rule.fail, sign, suffix));

  const std::string pointer = "/gate_metrics/" + rule.metric;
  const json* base_node = FindPath(baseline, pointer);
  const json* cur_node = FindPath(current, pointer);
  std::optional<double> base = NumberAt(baseline, pointer);
  std::optional<double> cur = NumberAt(current, pointer);
  check.baseline = FormatOptionalValue(base, rule.unit);
  check.current = FormatOptionalValue(cur, rule.unit);
  check.details["baseline"] = base ? json(*base) : json(nullptr);
  check.details["current"] = cur ? json(*cur) : json(nullptr);
  if (!base || !cur) {
    check.verdict = Verdict::kSkipped;
    check.change = "n/a";
    auto why = [](const json* node, const char* side) {
      return node == nullptr ? fmt::format("missing from the {} report", side)
                             : fmt::format("not computable in the {} report (null)", side);
    };
    std::vector<std::string> reasons;
    if (!base) reasons.push_back(why(base_node, "baseline"));
    if (!cur) reasons.push_back(why(cur_node, "current"));
    check.message = fmt::format("skipped: {}", fmt::join(reasons, "; "));
    return check;
  }

  const double delta = *cur - *base;
  const double worsening = higher ? delta : -delta;
  check.change = FormatDelta(delta, rule.unit);
  if (rule.mode == ToleranceMode::kRelativePct || rule.unit != MetricUnit::kPct)
    check.change += *base != 0 ? fmt::format(" ({})", FormatRelativeChange(*base, *cur))
                               : (delta != 0 ? std::string(" (from 0)") : std::string());
  double amount = worsening;  // in the tolerance's unit
  if (rule.mode == ToleranceMode::kRelativePct)
    amount = *base != 0 ? worsening / std::fabs(*base) * 100.0
                        : (worsening > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  check.details["worsening"] = worsening;
  check.details["worsening_in_tolerance_unit"] = std::isfinite(amount) ? json(amount) : json("inf");

  if (worsening <= rule.min_change) {
    check.verdict = Verdict::kPass;
    if (worsening > 0)
      check.message = fmt::format("worse by {} but within the ignored minimum change ({})", FormatDelta(delta, rule.unit),
                                  FormatValue(rule.min_change, rule.unit));
    else if (worsening < 0)
      check.message = "improved";
    else
      check.message = "unchanged";
    return check;
  }
  // Signed like the change column: a lower-is-worse metric gets worse by a negative change.
  const double signed_amount = higher ? amount : -amount;
  const std::string how = rule.mode == ToleranceMode::kRelativePct
                              ? (std::isfinite(amount) ? fmt::format("{:+.1f}% of the baseline", signed_amount)
                                                       : std::string("from a baseline of 0"))
                              : FormatDelta(delta, rule.unit);
  if (rule.fail && amount > *rule.fail) {
    check.verdict = Verdict::kFail;
    check.message = fmt::format("{} got worse by {} (fail tier {}{}{})", rule.metric, how, sign, *rule.fail, suffix);
  } else if (rule.warn && amount > *rule.warn) {
    check.verdict = Verdict::kWarn;
    check.message = fmt::format("{} got worse by {} (warn tier {}{}{})", rule.metric, how, sign, *rule.warn, suffix);
  } else {
    check.verdict = Verdict::kPass;
    check.message = fmt::format("worse by {}, within tolerance", how);
  }
  return check;
}

// ---------------------------------------------------------------- new FP32 GEMM kernels

struct Fp32Kernel {
  std::string name;
  double pct = 0;
};

// The GEMM/conv kernels of kernels.top: the FP32 SIMT ones, and the share of kernel time of those
// that ran in a lower precision (fp16, bf16, tf32, fp8, int8) or on Tensor Cores.
struct GemmKernels {
  std::vector<Fp32Kernel> fp32;
  double lower_precision_pct = 0;
};

bool IsLowerPrecision(const std::string& precision) {
  return precision == "fp16" || precision == "bf16" || precision == "tf32" || precision == "fp8" ||
         precision == "int8";
}

// nullopt when kernels.top is absent.
std::optional<GemmKernels> GemmKernelsOf(const json& report) {
  const reports::KernelsView kernels = reports::ReadKernelsView(report);
  if (!kernels.top_listed) return std::nullopt;
  GemmKernels out;
  for (const reports::TopKernel& k : kernels.top) {
    if (k.name.empty()) continue;
    if (k.category != "gemm" && k.category != "conv") continue;
    const double pct = k.pct.value_or(0.0);
    if (k.precision == "fp32" && !k.tensor_core)
      out.fp32.push_back({k.name, pct});
    else if (k.tensor_core || IsLowerPrecision(k.precision))
      out.lower_precision_pct += pct;
  }
  return out;
}

GateCheck CheckNewFp32Gemm(const json& baseline, const json& current, const NewFp32GemmRule& rule) {
  GateCheck check;
  check.name = "kernels.new_fp32_gemm";
  check.threshold = JoinTiers(TierText("warn", rule.warn_pct, ">", "%"), TierText("fail", rule.fail_pct, ">", "%")) +
                    " of kernel time";
  auto base = GemmKernelsOf(baseline);
  auto cur = GemmKernelsOf(current);
  if (!base || !cur) {
    check.verdict = Verdict::kSkipped;
    check.baseline = base ? "present" : "n/a";
    check.current = cur ? "present" : "n/a";
    check.change = "n/a";
    check.message = fmt::format("skipped: kernels.top missing from the {} report", !base ? "baseline" : "current");
    return check;
  }
  auto describe = [](const std::vector<Fp32Kernel>& kernels) {
    double pct = 0;
    for (const auto& k : kernels) pct += k.pct;
    return fmt::format("{} kernel{} ({:.1f}%)", kernels.size(), kernels.size() == 1 ? "" : "s", pct);
  };
  check.baseline = describe(base->fp32);
  check.current = describe(cur->fp32);
  // "New" = not an FP32 SIMT GEMM/conv of the baseline's top kernels (absent there, or below the
  // top list, or the baseline ran that GEMM in another precision under another name).
  std::set<std::string> baseline_fp32;
  for (const auto& k : base->fp32) baseline_fp32.insert(k.name);
  std::vector<Fp32Kernel> fresh;
  double fresh_pct = 0;
  for (const auto& k : cur->fp32) {
    if (baseline_fp32.count(k.name) != 0) continue;
    fresh.push_back(k);
    fresh_pct += k.pct;
  }
  // A regression is GEMM work that moved from a lower precision to FP32: the new FP32 share counts
  // only as far as the lower-precision GEMM/conv share fell. Two FP32 runs in which cuDNN picked
  // other FP32 algorithms have new FP32 kernel names but nothing moved.
  const double moved_pct = std::max(0.0, base->lower_precision_pct - cur->lower_precision_pct);
  const double counted_pct = std::min(fresh_pct, moved_pct);
  check.details["new_kernels"] = json::array();
  for (const auto& k : fresh) check.details["new_kernels"].push_back({{"name", k.name}, {"pct", k.pct}});
  check.details["new_pct"] = fresh_pct;
  check.details["baseline_lower_precision_pct"] = base->lower_precision_pct;
  check.details["current_lower_precision_pct"] = cur->lower_precision_pct;
  check.details["moved_to_fp32_pct"] = counted_pct;
  if (fresh.empty()) {
    check.verdict = Verdict::kPass;
    check.change = "none new";
    check.message = "no new FP32 SIMT GEMM/conv kernel among the top kernels";
    return check;
  }
  check.change = fmt::format("+{} new ({:.1f}%)", fresh.size(), fresh_pct);
  std::vector<std::string> names;
  for (const auto& k : fresh) names.push_back(fmt::format("{} ({:.1f}%)", k.name, k.pct));
  const std::string list = fmt::format("{}", fmt::join(names, ", "));
  if (!(counted_pct > 0)) {
    check.verdict = Verdict::kPass;
    check.message = fmt::format(
        "new FP32 SIMT GEMM/conv kernels, but no GEMM/conv time left a lower precision (lower-precision share "
        "{:.1f}% -> {:.1f}%): other FP32 algorithms, not a precision change: {}",
        base->lower_precision_pct, cur->lower_precision_pct, list);
    return check;
  }
  const std::string moved = fmt::format("{:.1f}% of kernel time moved from lower precision to FP32 (lower-precision "
                                        "GEMM/conv {:.1f}% -> {:.1f}%)",
                                        counted_pct, base->lower_precision_pct, cur->lower_precision_pct);
  if (rule.fail_pct && counted_pct > *rule.fail_pct) {
    check.verdict = Verdict::kFail;
    check.message = fmt::format("GEMM/conv now runs in FP32 without Tensor Cores: {}; new kernels: {}", moved, list);
  } else if (rule.warn_pct && counted_pct > *rule.warn_pct) {
    check.verdict = Verdict::kWarn;
    check.message = fmt::format("new FP32 SIMT GEMM/conv kernels: {}; {}", list, moved);
  } else {
    check.verdict = Verdict::kPass;
    check.message = fmt::format("new FP32 SIMT GEMM/conv kernels below the thresholds: {}; {}", list, moved);
  }
  return check;
}

// ---------------------------------------------------------------- checklist

// pass < warn < fail; unknown and not_applicable are not ordered (nullopt).
std::optional<int> StatusLevel(const std::string& status) {
  if (status == "pass") return 0;
  if (status == "warn") return 1;
  if (status == "fail") return 2;
  return std::nullopt;
}

std::vector<GateCheck> CheckChecklist(const json& baseline, const json& current, const ChecklistRule& rule) {
  // id -> status, in first-seen order (current first: it is what the user is looking at).
  std::vector<std::string> order;
  std::map<std::string, std::string> base_status, cur_status;
  const std::vector<reports::ChecklistItemView> current_items = reports::ReadChecklistView(current);
  auto collect = [&order](const std::vector<reports::ChecklistItemView>& items, std::map<std::string, std::string>* out) {
    for (const reports::ChecklistItemView& item : items) {
      if (item.id.empty() || !item.status) continue;
      if (out->emplace(item.id, *item.status).second && std::find(order.begin(), order.end(), item.id) == order.end())
        order.push_back(item.id);
    }
  };
  collect(current_items, &cur_status);
  collect(reports::ReadChecklistView(baseline), &base_status);

  std::vector<GateCheck> checks;
  const int fail_at = static_cast<int>(rule.fail_at);
  for (const std::string& id : order) {
    if (std::find(rule.ignore.begin(), rule.ignore.end(), id) != rule.ignore.end()) continue;
    GateCheck check;
    check.name = "checklist." + id;
    check.threshold = rule.fail_at == CheckStatusLevel::kFail ? "worse: warn; becomes fail: fail"
                                                              : "worse: fail";
    auto b = base_status.find(id);
    auto c = cur_status.find(id);
    check.baseline = b != base_status.end() ? b->second : std::string("absent");
    check.current = c != cur_status.end() ? c->second : std::string("absent");
    check.details["baseline"] = check.baseline;
    check.details["current"] = check.current;
    std::optional<int> bl = b != base_status.end() ? StatusLevel(b->second) : std::nullopt;
    std::optional<int> cl = c != cur_status.end() ? StatusLevel(c->second) : std::nullopt;
    if (!bl || !cl) {
      check.verdict = Verdict::kPass;
      check.change = check.baseline == check.current ? "same" : "n/a";
      check.message = "not compared: unknown, not applicable or absent on one side (never a regression)";
    } else if (*cl > *bl) {
      check.change = "worse";
      check.verdict = *cl >= fail_at ? Verdict::kFail : Verdict::kWarn;
      check.message = fmt::format("checklist item {} went from {} to {}", id, check.baseline, check.current);
      if (c != cur_status.end()) {
        // Surface the analyzer's evidence for the new status when the report has one.
        for (const reports::ChecklistItemView& item : current_items)
          if (item.id == id) {
            if (!item.evidence.empty()) check.message += ": " + item.evidence;
            break;
          }
      }
    } else {
      check.verdict = Verdict::kPass;
      check.change = *cl < *bl ? "better" : "same";
      check.message = *cl < *bl ? "improved" : "unchanged";
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

// ---------------------------------------------------------------- findings

int SeverityRank(const std::string& severity) {
  if (severity == "critical") return 2;
  if (severity == "warning") return 1;
  return 0;
}

GateCheck CheckFindings(const json& baseline, const json& current, const FindingsRule& rule) {
  GateCheck check;
  check.name = "findings.new";
  auto contains = [](const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
  };
  check.threshold = JoinTiers(
      rule.warn_severities.empty() ? "" : fmt::format("warn: new {}", fmt::join(rule.warn_severities, "/")),
      rule.fail_severities.empty() ? "" : fmt::format("fail: new {}", fmt::join(rule.fail_severities, "/")));
  auto gated = [&](const std::string& severity) {
    return contains(rule.warn_severities, severity) || contains(rule.fail_severities, severity);
  };
  struct Seen {
    std::string severity;
    std::string title;
  };
  // id -> highest severity seen in the report.
  auto collect = [&](const json& report) {
    std::map<std::string, Seen> out;
    for (const reports::FindingView& f : reports::ReadFindingsView(report)) {
      if (f.id.empty() || !f.severity || contains(rule.ignore, f.id)) continue;
      auto it = out.find(f.id);
      if (it == out.end() || SeverityRank(*f.severity) > SeverityRank(it->second.severity)) out[f.id] = {*f.severity, f.title};
    }
    return out;
  };
  const auto base = collect(baseline);
  const auto cur = collect(current);
  auto count_gated = [&](const std::map<std::string, Seen>& findings) {
    int n = 0;
    for (const auto& [id, seen] : findings) n += gated(seen.severity) ? 1 : 0;
    return n;
  };
  check.baseline = fmt::format("{} gated", count_gated(base));
  check.current = fmt::format("{} gated", count_gated(cur));

  std::vector<std::string> fails, warns;
  check.details["new"] = json::array();
  for (const auto& [id, seen] : cur) {
    if (!gated(seen.severity)) continue;
    auto b = base.find(id);
    if (b != base.end() && SeverityRank(b->second.severity) >= SeverityRank(seen.severity)) continue;
    std::string text = fmt::format("{} ({}{})", id, seen.severity,
                                   b != base.end() ? fmt::format(", was {}", b->second.severity) : std::string());
    if (!seen.title.empty()) text += ": " + seen.title;
    check.details["new"].push_back({{"id", id}, {"severity", seen.severity}});
    (contains(rule.fail_severities, seen.severity) ? fails : warns).push_back(text);
  }
  const size_t fresh = fails.size() + warns.size();
  check.change = fresh == 0 ? std::string("none new") : fmt::format("+{} new", fresh);
  std::vector<std::string> all = fails;
  all.insert(all.end(), warns.begin(), warns.end());
  if (!fails.empty()) {
    check.verdict = Verdict::kFail;
    check.message = fmt::format("new findings: {}", fmt::join(all, "; "));
  } else if (!warns.empty()) {
    check.verdict = Verdict::kWarn;
    check.message = fmt::format("new findings: {}", fmt::join(all, "; "));
  } else {
    check.verdict = Verdict::kPass;
    check.message = "no new gated findings";
  }
  return check;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kWarn:
      return "warn";
    case Verdict::kFail:
      return "fail";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "?";
}

int GateResult::failures() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return c.verdict == Verdict::kFail; }));
}
int GateResult::warnings() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return c.verdict == Verdict::kWarn; }));
}
int GateResult::skipped() const {
  return static_cast<int>(
      std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return c.verdict == Verdict::kSkipped; }));
}

int GateResult::ExitCode() const {
  if (environment_blocked) return 2;
  return overall == Verdict::kFail ? 1 : 0;
}

GateResult RunGate(const json& baseline, const json& current, const GateConfig& config, const GateOptions& options) {
  GateResult result;
  result.baseline_name = options.baseline_name;
  result.current_name = options.current_name;
  result.checks.push_back(CheckEnvironment(baseline, current, config.environment, options, &result));
  if (config.step_time.enabled) result.checks.push_back(CheckStepTime(baseline, current, config.step_time));
  for (const CounterRule& rule : config.counters)
    if (rule.enabled) result.checks.push_back(CheckCounter(baseline, current, rule));
  if (config.new_fp32_gemm.enabled) result.checks.push_back(CheckNewFp32Gemm(baseline, current, config.new_fp32_gemm));
  if (config.checklist.enabled)
    for (GateCheck& c : CheckChecklist(baseline, current, config.checklist)) result.checks.push_back(std::move(c));
  if (config.findings.enabled) result.checks.push_back(CheckFindings(baseline, current, config.findings));

  result.overall = Verdict::kPass;
  for (const GateCheck& c : result.checks) {
    if (c.verdict == Verdict::kFail) result.overall = Verdict::kFail;
    if (c.verdict == Verdict::kWarn && result.overall == Verdict::kPass) result.overall = Verdict::kWarn;
  }
  return result;
}

}  // namespace ampscope::gate

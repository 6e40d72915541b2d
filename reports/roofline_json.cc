#include "reports/roofline_json.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/roofline/roofline_result.h"
#include "reports/contract/roofline_view.h"
#include "reports/step_list.h"

namespace ampscope {
namespace {

using nlohmann::json;
namespace key = reports::roofline_key;


json Num(double v, int decimals = 4) {
  if (!std::isfinite(v)) return nullptr;
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}
json Opt(const std::optional<double>& v, int decimals = 4) { return v ? Num(*v, decimals) : json(nullptr); }
// GFLOP spans 1e-5 (a tiny bmm) to 1e4: keep 9 significant digits rather than fixed decimals.
json Sig(double v) {
  if (v == 0 || !std::isfinite(v)) return v == 0 ? json(0.0) : json(nullptr);
  const int digits = 9 - static_cast<int>(std::ceil(std::log10(std::fabs(v))));
  return Num(v, std::max(0, digits));
}

}  // namespace

json RooflineSection(const RankAnalysis& ra) {
  if (ra.roofline == nullptr) {
    return {{key::kAvailable, false}, {key::kReason, "computed per rank: see ranks[].roofline"}};
  }
  const roofline::RooflineResult& r = *ra.roofline;
  json gpu = {{"device", r.gpu.device},
              {"name", r.gpu.device_name.empty() ? json(nullptr) : json(r.gpu.device_name)},
              {key::kPeakId, r.gpu.peak ? json(r.gpu.peak->id) : json(nullptr)},
              {key::kMatch, r.gpu.match}};
  if (r.gpu.peak) {
    // The roofs a chart draws: HBM bandwidth and the dense peak of each precision the ops' math
    // used (matrix units), plus the vector fp32 roof; 0 = the part has none or it is not known.
    const GpuPeak& p = *r.gpu.peak;
    gpu[key::kHbmTbps] = p.hbm_gbs > 0 ? Num(p.hbm_gbs / 1e3) : json(nullptr);
    json roofs = json::array();
    std::vector<std::pair<Precision, roofline::MathUnit>> seen;
    auto add = [&](Precision prec, roofline::MathUnit unit) {
      for (const auto& s : seen)
        if (s.first == prec && s.second == unit) return;
      seen.emplace_back(prec, unit);
      const double t = unit == roofline::MathUnit::kMatrix ? p.DenseTflops(prec)
                       : prec == Precision::kFp64     ? p.fp64_tflops
                                                      : p.fp32_tflops;
      if (t > 0)
        roofs.push_back({{key::kPrecision, PrecisionName(prec)},
                         {key::kUnit, unit == roofline::MathUnit::kMatrix ? "matrix" : "vector"},
                         {key::kTflops, Num(t)}});
    };
    for (const auto& [prec, unit] : r.math_used) add(prec, unit);
    add(Precision::kFp32, roofline::MathUnit::kVector);
    gpu[key::kRoofs] = std::move(roofs);
  }
  if (!r.available) return {{key::kAvailable, false}, {key::kReason, r.reason}, {key::kGpu, std::move(gpu)}};

  const roofline::RooflineSummary& s = r.summary;
  json out = {{key::kAvailable, true},
              {key::kGpu, std::move(gpu)},
              {key::kWindow, s.steps_used ? "steps" : "trace"},
              {key::kStepGflop, Sig(s.step_gflop)},
              {key::kAchievedTflops, Num(s.achieved_tflops)},
              {key::kPeakTflops, Opt(s.peak_tflops)},
              {key::kPeakPrecision, PrecisionName(s.peak_precision)},
              {"peak_source", s.peak_source.empty() ? json(nullptr) : json(s.peak_source)},
              {key::kMfuPct, Opt(s.mfu_pct, 3)},
              {key::kMfuReason, s.mfu_reason.empty() ? json(nullptr) : json(s.mfu_reason)},
              {key::kHfuPct, Opt(s.hfu_pct, 3)},
              {"recompute_gflop", Sig(s.recompute_gflop)},
              {"activation_recompute", s.activation_recompute}};
  // The steps that matter, as steps.windows lists them (reports/step_list.h).
  std::vector<double> step_us;
  step_us.reserve(r.steps.size());
  for (const roofline::StepRoofline& st : r.steps) step_us.push_back(st.time_us);
  json steps = json::array();
  for (size_t i : ListedStepPositions(step_us)) {
    const roofline::StepRoofline& st = r.steps[i];
    steps.push_back({{key::kStep, st.number},
                     {key::kTimeUs, Num(st.time_us, 3)},
                     {key::kModelGflop, Sig(st.model_gflop)},
                     {"hardware_gflop", Sig(st.hardware_gflop)},
                     {key::kAchievedTflops, Num(st.achieved_tflops)},
                     {key::kMfuPct, Opt(st.mfu_pct, 3)},
                     {key::kHfuPct, Opt(st.hfu_pct, 3)}});
  }
  out["steps_listed"] = ListedStepsJson(r.steps.size(), steps.size());
  out[key::kSteps] = std::move(steps);
  json ops = json::array();
  for (size_t i = 0; i < r.ops.size() && i < kRooflineReportOps; ++i) {
    const roofline::OpRow& o = r.ops[i];
    json dims = json::parse(o.id.input_dims, nullptr, false);
    ops.push_back({{key::kOp, o.id.op},
                   {key::kInputDims, dims.is_discarded() ? json(o.id.input_dims) : std::move(dims)},
                   {key::kDtype, PrecisionName(o.id.precision)},
                   {"family", roofline::OpFamilyName(o.id.family)},
                   {key::kPass, o.id.backward ? "backward" : "forward"},
                   {"unit", o.id.unit == roofline::MathUnit::kMatrix ? "matrix" : "vector"},
                   {key::kCount, o.timing.count},
                   {key::kGflop, o.work.known ? Sig(o.work.gflop) : json(nullptr)},
                   {"bytes", Opt(o.work.bytes, 0)},
                   {key::kFlopPerByte, Opt(o.work.flop_per_byte, 3)},
                   {key::kKernelTimeUs, Num(o.timing.kernel_time_us, 3)},
                   {key::kTflops, Opt(o.timing.tflops)},
                   {key::kTbps, Opt(o.timing.tbps)},
                   {key::kBound, o.roof.bound.empty() ? json(nullptr) : json(o.roof.bound)},
                   {"peak_tflops", Opt(o.roof.peak_tflops)},
                   {key::kPctOfPeak, Opt(o.roof.pct_of_peak, 2)},
                   {key::kPctNote, o.roof.note.empty() ? json(nullptr) : json(o.roof.note)},
                   {key::kNote, o.work.note.empty() ? json(nullptr) : json(o.work.note)}});
  }
  out[key::kOps] = std::move(ops);
  out[key::kOpsTotal] = r.ops_total;
  json unknown = json::array();
  for (const auto& u : r.coverage.top_unknown)
    unknown.push_back({{"op", u.op}, {"reason", u.reason}, {"count", u.count}, {"kernel_time_us", Num(u.kernel_time_us, 3)}});
  out[key::kCoverage] = {{key::kKernelTimeUs, Num(r.coverage.kernel_time_us, 3)},
                     {key::kModelledKernelTimeUs, Num(r.coverage.modelled_kernel_time_us, 3)},
                     {"modelled_calls", r.coverage.modelled_calls},
                     {"unknown_calls", r.coverage.unknown_calls},
                     {"top_unknown", unknown}};
  return out;
}

}  // namespace ampscope

#include "reports/precision_json.h"

#include <cmath>

namespace ampscope {

namespace {

using nlohmann::json;

json Opt(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

json OpKernelsJson(const std::vector<OpKernel>& v) {
  json out = json::array();
  for (const OpKernel& k : v)
    out.push_back({{"name", k.name},
                   {"count", k.count},
                   {"time_us", k.time_us},
                   {"precision", PrecisionName(k.precision)},
                   {"tensor_core", TensorCoreUseName(k.tensor_core)}});
  return out;
}

json OpLevelJson(const OpLevelPrecision& o) {
  if (!o.available) return {{"available", false}, {"reason", o.reason}};
  json ops = json::array(), fp32 = json::array();
  for (const OpPrecision& g : o.ops)
    ops.push_back({{"name", g.name},
                   {"dtype", PrecisionName(g.dtype)},
                   {"dtype_source", g.dtype_source},
                   {"kernel_precision", PrecisionName(g.kernel_precision)},
                   {"calls", g.calls},
                   {"kernel_time_us", g.kernel_time_us},
                   {"pct_of_eligible", Opt(g.pct_of_eligible)},
                   {"tensor_core_pct", Opt(g.tensor_core_pct)},
                   {"kernels", OpKernelsJson(g.kernels)}});
  for (const OpPrecision& g : o.fp32_ops_top)
    fp32.push_back({{"name", g.name},
                    {"dtype", PrecisionName(g.dtype)},
                    {"calls", g.calls},
                    {"kernel_time_us", g.kernel_time_us},
                    {"pct_of_eligible", Opt(g.pct_of_eligible)},
                    {"kernels", OpKernelsJson(g.kernels)}});
  json dtype_us = json::object();
  for (const auto& [p, us] : o.eligible_time_by_dtype_us) dtype_us[PrecisionName(p)] = us;
  return {{"available", true},
          {"has_input_types", o.has_input_types},
          {"definition", kOpLevelDefinition},
          {"op_kernel_time_us", o.op_kernel_time_us},
          {"eligible_kernel_time_us", o.eligible_kernel_time_us},
          {"eligible_kernel_time_pct", Opt(o.eligible_kernel_time_pct)},
          {"eligible_pct_of_all_kernel_time", Opt(o.eligible_pct_of_all_kernel_time)},
          {"unattributed_kernel_time_us", o.unattributed_kernel_time_us},
          {"lowp_share_pct", Opt(o.lowp_share_pct)},
          {"fp32_share_pct", Opt(o.fp32_share_pct)},
          {"unknown_dtype_pct", Opt(o.unknown_dtype_pct)},
          {"eligible_time_by_dtype_us", dtype_us},
          {"ops", ops},
          {"fp32_ops_top", fp32}};
}

json EligibleJson(const EligibleWork& e) {
  json by_prec = json::object();
  for (const auto& [p, us] : e.time_by_precision_us) by_prec[PrecisionName(p)] = us;
  return {{"time_us", e.time_us},
          {"pct_of_kernel_time", Opt(e.pct_of_kernel_time)},
          {"tensor_core_time_us", e.tensor_core_time_us},
          {"time_by_precision_us", by_prec},
          {"basis", e.basis}};
}

}  // namespace

json KernelSharesJson(const std::vector<KernelShare>& v) {
  json out = json::array();
  for (const KernelShare& k : v)
    out.push_back({{"name", k.name},
                   {"count", k.count},
                   {"time_us", k.time_us},
                   {"pct_of_kernel_time", Opt(k.pct_of_kernel_time)},
                   {"category", KernelCategoryName(k.category)},
                   {"precision", PrecisionName(k.precision)}});
  return out;
}

json PrecisionJson(const PrecisionResult& p) {
  if (!p.computed) return json::object();
  json cat_pct = json::object(), prec_pct = json::object();
  for (const auto& [c, pct] : p.kernel_time_by_category_pct) cat_pct[KernelCategoryName(c)] = pct;
  for (const auto& [x, pct] : p.kernel_time_by_precision_pct) prec_pct[PrecisionName(x)] = pct;
  const Tf32Result& t = p.tf32;
  json tf32 = {{"used", t.used},
               {"gpu_supports", t.gpu_supports ? json(*t.gpu_supports) : json(nullptr)},
               {"compute_capability_major", t.compute_capability_major ? json(*t.compute_capability_major) : json(nullptr)},
               {"tf32_kernel_time_pct", Opt(t.tf32_kernel_time_pct)},
               {"tf32_pct_of_gemm", Opt(t.tf32_pct_of_gemm)},
               {"fp32_gemm_on_ampere", t.fp32_gemm_on_ampere},
               {"allow_tf32", {{"matmul", t.allow_tf32_matmul}, {"cudnn", t.allow_tf32_cudnn}}},
               {"top", KernelSharesJson(t.top)}};
  const CastResult& c = p.casts;
  json casts = {{"count", c.count},
                {"count_per_step", Opt(c.count_per_step)},
                {"time_us", c.time_us},
                {"time_pct", Opt(c.time_pct)},
                {"top", KernelSharesJson(c.top)},
                {"fused_cast_kernels", {{"count", c.fused_count}, {"time_us", c.fused_time_us}, {"note", kFusedCastNote}}}};
  return {{"kernel_time_us", p.kernel_time_us},
          {"kernel_count", p.kernel_count},
          {"kernel_time_by_category_pct", cat_pct},
          {"kernel_time_by_precision_pct", prec_pct},
          {"gemm_conv_time_us", p.gemm_conv_time_us},
          {"fp32_simt_gemm_time_us", p.fp32_simt_gemm_time_us},
          {"fp32_simt_gemm_pct_of_gemm", Opt(p.fp32_simt_gemm_pct_of_gemm)},
          {"fp32_simt_top", KernelSharesJson(p.fp32_simt_top)},
          {"top_by_precision",
           {{"fp16", KernelSharesJson(p.top_fp16)},
            {"bf16", KernelSharesJson(p.top_bf16)},
            {"tf32", KernelSharesJson(p.top_tf32)},
            {"fp32", KernelSharesJson(p.top_fp32)}}},
          {"tf32", tf32},
          {"casts", casts},
          {"op_level", OpLevelJson(p.op_level)},
          {"eligible", EligibleJson(p.eligible)}};
}

}  // namespace ampscope

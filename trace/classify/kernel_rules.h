// The kernel classifier's pattern table: the row type and its builders. Internal to
// trace/classify/: the rows are in kernel_rules_table.cc, the matcher in kernel_classifier.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/classify/collective_roles.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope::kernel_rules {

using Cat = KernelCategory;
using P = Precision;
using Tc = TensorCoreUse;

enum class Match : uint8_t {
  kPrefix,    // the name (or the name after "void ") starts with the pattern
  kContains,  // the pattern occurs anywhere
  kWord,      // the pattern occurs as a whole word (bounded by non-alphanumerics or the ends)
  kFunction,  // the pattern occurs in the kernel's own function name: the last `::` part before its
              // template arguments, unwrapped from launch wrappers (cutlass::device_kernel<X>,
              // cutlass::Kernel<X>): "GemmKernel" in cutlass::device_kernel<ns::grouped_gemm::GemmKernel>,
              // nothing of ns::grouped_gemm::utils::transpose<...>
  kFunctionEnd,  // the kernel's own function name (as kFunction) is the pattern or ends with "_" +
                 // pattern: "dispatch" in notify_dispatch, not in get_dispatch_layout
};
// For kFunction and kFunctionEnd rows, the `also` string must occur in the kernel's qualified
// function name (its namespaces, before the template arguments and parameters), not anywhere:
// "internode" in deep_ep::internode::combine<...>(...), not in a parameter type.

enum class PrecRule : uint8_t {
  kFixed,          // the row's precision, always (the family implies it)
  kTags,           // the first type tag in the name; else the row's precision
  kTagsFloatOnly,  // as kTags, ignoring integer tags (NCCL names int8_t for raw byte transfers)
  kNvjet,          // decode nvjet_<abc>
  kTensile,        // decode Cijk_..._<types>
};

struct Rule {
  Match match;
  std::string_view pattern;
  std::string_view also;   // if not empty, must also occur (contains)
  Cat category;
  bool gemm_or_conv;       // category = conv if HasConvMarker(name), else `category`
  PrecRule prec_rule;
  Precision precision;     // fixed value or fallback
  Tc tc;
  bool tc_by_precision;    // Tensor Core use from the precision: yes for math in a format only Tensor
                           // Cores compute (fp8/fp6/fp4 and tf32), else `tc`
  bool simt;               // a GEMM/conv doing its math on CUDA cores (flagged when fp32)
  bool rocm;
  bool fused_cast;         // the name shows a fused dtype conversion
  KernelRole role;         // what the kernel is for, when the family says (role markers may override)
  CollectiveType collective;  // a communication family whose kernels all run one collective type
                              // (DeepEP's dispatch/combine: all-to-all); else kUnknown
};

// Row builders keep the table readable: one line per pattern.
constexpr Rule R(Match m, std::string_view pat, Cat c, PrecRule pr, Precision p, Tc tc,
                 std::string_view also = {}) {
  return Rule{m, pat, also, c, false, pr, p, tc, false, false, false, false, KernelRole::kNone, CollectiveType::kUnknown};
}
constexpr Rule TcByPrecision(Rule r) { r.tc_by_precision = true; return r; }
constexpr Rule Simt(Rule r) { r.simt = true; return r; }
constexpr Rule Rocm(Rule r) { r.rocm = true; return r; }
constexpr Rule GemmOrConv(Rule r) { r.gemm_or_conv = true; return r; }
constexpr Rule FusedCast(Rule r) { r.fused_cast = true; return r; }
constexpr Rule Role(KernelRole role, Rule r) { r.role = role; return r; }
constexpr Rule Collective(CollectiveType type, Rule r) { r.collective = type; return r; }

constexpr Match kPre = Match::kPrefix;
constexpr Match kSub = Match::kContains;
constexpr Match kWrd = Match::kWord;
constexpr Match kFun = Match::kFunction;
constexpr Match kFunEnd = Match::kFunctionEnd;
constexpr PrecRule kFix = PrecRule::kFixed;
constexpr PrecRule kTag = PrecRule::kTags;

// A role the name's own words decide, whichever row the kernel matched: the analyzers look
// for these in every kernel (GradScaler kernels inside a Triton-compiled step, fused optimizer
// kernels that match the multi_tensor_apply row first). The first marker found wins.
struct RoleMarker {
  std::string_view text;  // occurs anywhere in the name
  KernelRole role;
};

// The ordered rows (first match wins), the conv markers of GemmOrConv rows, the role markers,
// and the marker of multi-tensor launches. Defined in kernel_rules_table.cc.
extern const Rule kRules[];
extern const size_t kRuleCount;
extern const std::string_view kConvMarkers[];
extern const size_t kConvMarkerCount;
extern const RoleMarker kRoleMarkers[];
extern const size_t kRoleMarkerCount;
extern const std::string_view kMultiTensorApplyMarker;

}  // namespace ampscope::kernel_rules

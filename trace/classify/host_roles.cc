#include "trace/classify/host_roles.h"

#include "base/strings.h"
#include "trace/classify/host_rules.h"

namespace ampscope {

namespace {
// torch/csrc/autograd/engine.cpp names the range of one backward node this way.
constexpr std::string_view kEvaluateFunction = "autograd::engine::evaluate_function: ";
}  // namespace

const char* HostRangeRoleName(HostRangeRole r) {
  switch (r) {
    case HostRangeRole::kProfilerStep: return "profiler_step";
    case HostRangeRole::kDataLoader: return "dataloader";
    case HostRangeRole::kOptimizerStep: return "optimizer_step";
    case HostRangeRole::kOptimizerZeroGrad: return "optimizer_zero_grad";
    case HostRangeRole::kOptimizerOther: return "optimizer_other";
    case HostRangeRole::kDataParallelForward: return "data_parallel_forward";
    case HostRangeRole::kUserSection: return "user_section";
    case HostRangeRole::kAutogradEvaluate: return "autograd_evaluate";
    case HostRangeRole::kOther:
    case HostRangeRole::kCount: break;
  }
  return "other";
}

HostRangeRole ClassifyHostRange(std::string_view name) {
  if (StartsWith(name, "ProfilerStep#")) return HostRangeRole::kProfilerStep;
  if (StartsWith(name, "enumerate(DataLoader)")) return HostRangeRole::kDataLoader;
  if (StartsWith(name, "Optimizer.step")) return HostRangeRole::kOptimizerStep;
  if (StartsWith(name, "Optimizer.zero_grad")) return HostRangeRole::kOptimizerZeroGrad;
  if (StartsWith(name, "Optimizer.")) return HostRangeRole::kOptimizerOther;
  if (name == "DataParallel.forward" || name == "DistributedDataParallel.forward")
    return HostRangeRole::kDataParallelForward;
  if (StartsWith(name, "## ")) return HostRangeRole::kUserSection;
  if (StartsWith(name, kEvaluateFunction)) return HostRangeRole::kAutogradEvaluate;
  return HostRangeRole::kOther;
}

std::string_view OptimizerClassOfRange(std::string_view name) {
  if (!StartsWith(name, "Optimizer.")) return {};
  const size_t hash = name.find('#');
  if (hash == std::string_view::npos) return {};
  std::string_view cls = name.substr(hash + 1);
  const size_t dot = cls.find('.');
  return dot == std::string_view::npos ? cls : cls.substr(0, dot);
}

OptimizerOptions OptimizerOptionsOf(std::string_view cls) {
  for (size_t i = 0; i < host_rules::kOptimizerCount; ++i) {
    const host_rules::OptimizerRow& r = host_rules::kOptimizers[i];
    if (cls == r.name) return {true, r.foreach, r.fused, r.already_fused, r.preconditioner};
  }
  return {};
}

bool IsAnnotationOpName(std::string_view name) {
  switch (ClassifyHostRange(name)) {
    case HostRangeRole::kProfilerStep:
    case HostRangeRole::kDataLoader:
    case HostRangeRole::kOptimizerStep:
    case HostRangeRole::kOptimizerZeroGrad:
    case HostRangeRole::kOptimizerOther:
    case HostRangeRole::kUserSection: return true;
    default: return false;
  }
}

bool IsExcludedFromOpKernelTime(std::string_view name) {
  switch (ClassifyHostRange(name)) {
    // Only the batch fetch itself ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__").
    case HostRangeRole::kDataLoader: return StartsWith(name, "enumerate(DataLoader)#") && EndsWith(name, ".__next__");
    case HostRangeRole::kProfilerStep:
    case HostRangeRole::kOptimizerStep:
    case HostRangeRole::kOptimizerZeroGrad:
    case HostRangeRole::kOptimizerOther:
    case HostRangeRole::kDataParallelForward: return true;
    default: return false;
  }
}

bool IsTensorCoreEligibleOp(std::string_view name) {
  for (size_t i = 0; i < host_rules::kEligibleOpCount; ++i)
    if (name == host_rules::kEligibleOps[i]) return true;
  std::string_view base = name;
  while (!base.empty() && base.back() >= '0' && base.back() <= '9') base.remove_suffix(1);
  for (size_t i = 0; i < host_rules::kEligibleBackwardNodeCount; ++i)
    if (base == host_rules::kEligibleBackwardNodes[i]) return true;
  return false;
}

bool IsAutocastFp32Op(std::string_view name) {
  for (size_t i = 0; i < host_rules::kAutocastFp32OpCount; ++i)
    if (name == host_rules::kAutocastFp32Ops[i]) return true;
  return false;
}

bool IsAutogradNodeName(std::string_view name) {
  if (ClassifyHostRange(name) == HostRangeRole::kAutogradEvaluate) return true;
  // AccumulateGrad nodes are named "torch::autograd::AccumulateGrad" (also "smith::autograd::...").
  if (EndsWith(name, "::autograd::AccumulateGrad")) return true;
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  constexpr std::string_view kBackward = "Backward";
  if (end <= kBackward.size() || name.substr(end - kBackward.size(), kBackward.size()) != kBackward) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string_view AutogradEvaluatedNode(std::string_view name) {
  return StartsWith(name, kEvaluateFunction) ? name.substr(kEvaluateFunction.size()) : std::string_view();
}

ConvBackwardPart ClassifyConvBackwardOp(std::string_view name) {
  if (Contains(name, "_backward_input")) return ConvBackwardPart::kInput;
  if (Contains(name, "_backward_weight")) return ConvBackwardPart::kWeight;
  return ConvBackwardPart::kNone;
}

GemmOpForm ClassifyGemmOp(std::string_view name) {
  if (name == "aten::mm" || name == "aten::matmul" || name == "aten::bmm") return GemmOpForm::kAB;
  if (name == "aten::addmm" || name == "aten::baddbmm" || name == "aten::addbmm") return GemmOpForm::kBiasAB;
  if (name == "aten::linear") return GemmOpForm::kLinear;
  return GemmOpForm::kNone;
}

AttentionImpl ClassifyAttentionOp(std::string_view name) {
  if (!StartsWith(name, "aten::_")) return AttentionImpl::kNone;
  if (StartsWith(name, "aten::_scaled_dot_product_flash_attention") || StartsWith(name, "aten::_flash_attention_"))
    return AttentionImpl::kFlash;
  if (StartsWith(name, "aten::_scaled_dot_product_cudnn_attention")) return AttentionImpl::kCudnn;
  if (StartsWith(name, "aten::_scaled_dot_product_efficient_attention") || StartsWith(name, "aten::_efficient_attention_"))
    return AttentionImpl::kEfficient;
  if (StartsWith(name, "aten::_scaled_dot_product_attention_math")) return AttentionImpl::kMath;
  return AttentionImpl::kNone;
}

const char* AttentionImplName(AttentionImpl a) {
  switch (a) {
    case AttentionImpl::kFlash: return "flash";
    case AttentionImpl::kCudnn: return "cudnn";
    case AttentionImpl::kEfficient: return "efficient";
    case AttentionImpl::kMath: return "math";
    case AttentionImpl::kNone: break;
  }
  return "none";
}

}  // namespace ampscope

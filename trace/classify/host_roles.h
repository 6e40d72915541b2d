// Host-side names -> roles: record_function / NVTX ranges (ProfilerStep#N, the DataLoader,
// optimizer steps, ...) and cpu_op names (which aten ops autocast runs in fp16/bf16 or keeps
// in fp32, which are GEMMs with known operand layouts). The one place where analyzers' host
// names are matched.
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

enum class HostRangeRole : uint8_t {
  kOther,
  kProfilerStep,        // "ProfilerStep#N" (torch.profiler's schedule)
  kDataLoader,          // "enumerate(DataLoader)#..." (the batch fetch of a DataLoader loop)
  kOptimizerStep,       // "Optimizer.step#Adam.step" (torch.optim's step() hook)
  kOptimizerZeroGrad,   // "Optimizer.zero_grad#Adam.zero_grad"
  kOptimizerOther,      // any other "Optimizer.<...>" range
  kDataParallelForward, // "DataParallel.forward", "DistributedDataParallel.forward"
  kUserSection,         // "## name ##" sections of 2021-format traces
  kAutogradEvaluate,    // "autograd::engine::evaluate_function: MmBackward0" (one backward node)
  kCount
};
const char* HostRangeRoleName(HostRangeRole r);
HostRangeRole ClassifyHostRange(std::string_view name);

// The optimizer class of an "Optimizer.step#SGD.step" / "Optimizer.zero_grad#AdamW.zero_grad"
// range ("SGD", "AdamW"); "" when the name has none.
std::string_view OptimizerClassOfRange(std::string_view name);

// The implementations an optimizer class offers (torch.optim, PyTorch 2.x constructor arguments
// foreach= and fused=; apex / DeepSpeed Fused* classes are fused already).
struct OptimizerOptions {
  bool known = false;    // the class is in the table
  bool foreach = false;  // foreach=True (multi_tensor_apply) exists
  bool fused = false;    // fused=True exists (CUDA)
  bool already_fused = false;  // the class itself is a fused implementation (apex FusedAdam ...)
  bool preconditioner = false; // a second-order optimizer with matrix preconditioners (Shampoo, SOAP)
};
OptimizerOptions OptimizerOptionsOf(std::string_view optimizer_class);

// 2021-format traces write record_function ranges as "Operator" (cpu_op) events: these names
// are ranges, not ops.
bool IsAnnotationOpName(std::string_view name);
// Ops the TensorBoard plugin leaves out of "all ops" (node.py is_operator_node): the DataLoader's
// __next__, Optimizer.*, (Distributed)DataParallel.forward, ProfilerStep#N.
bool IsExcludedFromOpKernelTime(std::string_view op_name);

// True for ops whose math can run on Tensor Cores: autocast's lower-precision CUDA list
// (aten/src/ATen/autocast_mode.h), the TensorBoard plugin's TC_OP_Allowlist (tensor_core.py),
// their in-place/backward forms and the autograd backward nodes (MmBackward0, ConvolutionBackward0 ...).
bool IsTensorCoreEligibleOp(std::string_view op_name);
// Norms and losses that autocast keeps in fp32 (torch.amp autocast's fp32 list): lower-precision
// inputs there are a numerical risk.
bool IsAutocastFp32Op(std::string_view op_name);

// True if `name` names an autograd node: an "autograd::engine::evaluate_function: ..." wrapper,
// "torch::autograd::AccumulateGrad", or a bare node name, an identifier ending in "Backward" and
// optional version digits (AddmmBackward0, CudnnConvolutionBackward in 2021 traces). Op names
// ("aten::convolution_backward") contain "::" and are not nodes.
bool IsAutogradNodeName(std::string_view name);
// The node an "autograd::engine::evaluate_function: <node>" range runs ("MmBackward0"), or ""
// when `name` is not such a range.
std::string_view AutogradEvaluatedNode(std::string_view name);

// Which gradient a convolution-backward child op computes, in traces that split it into
// cudnn_convolution_backward_input / _weight ops (2021 format).
enum class ConvBackwardPart : uint8_t { kNone, kInput, kWeight };
ConvBackwardPart ClassifyConvBackwardOp(std::string_view op_name);

// How a GEMM op lays out its operands in "Input Dims" (for FLOP counts).
enum class GemmOpForm : uint8_t {
  kNone,
  kAB,      // aten::mm, aten::matmul, aten::bmm: (A, B)
  kBiasAB,  // aten::addmm, aten::baddbmm, aten::addbmm: (bias, A, B)
  kLinear,  // aten::linear: (x[..., k], w[n, k])
};
GemmOpForm ClassifyGemmOp(std::string_view op_name);

// Which attention implementation an op is (the scaled_dot_product_attention dispatcher picks
// one per call; PyTorch 2.x op names). kNone for every other op, the dispatcher included.
enum class AttentionImpl : uint8_t {
  kNone,
  kFlash,      // _scaled_dot_product_flash_attention[_backward], _flash_attention_forward/backward
  kCudnn,      // _scaled_dot_product_cudnn_attention[_backward] (fused, flash-style)
  kEfficient,  // _scaled_dot_product_efficient_attention[_backward], _efficient_attention_* (xFormers-style)
  kMath,       // _scaled_dot_product_attention_math: the N x N scores materialised in eager ops
};
AttentionImpl ClassifyAttentionOp(std::string_view op_name);
const char* AttentionImplName(AttentionImpl a);  // "flash", "cudnn", "efficient", "math", "none"

}  // namespace ampscope

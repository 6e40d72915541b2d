// Host-side name tables (pure data): aten ops for autocast/Tensor Core eligibility and the fp32
// list. The matching is in host_roles.cc.
#include "trace/classify/host_rules.h"

namespace ampscope::host_rules {

// Exact op names (forward ops, in-place and backward aten ops).
const std::string_view kEligibleOps[] = {
    // autocast lower_precision_fp (CUDA), PyTorch 2.x, diagnosis_rules.md §B
    "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d", "aten::convolution",
    "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::einsum", "aten::mm",
    "aten::mv", "aten::linalg_vecdot", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
    "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell",
    "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
    "aten::_scaled_dot_product_flash_attention", "aten::scaled_dot_product_attention",
    "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
    // TensorBoard plugin TC_OP_Allowlist extras (tensor_core.py)
    "aten::_convolution_nogroup", "aten::addmm_", "aten::cudnn_convolution_backward",
    "aten::cudnn_convolution_backward_input", "aten::cudnn_convolution_backward_weight",
    "aten::cudnn_convolution_transpose_backward", "aten::cudnn_convolution_transpose_backward_input",
    "aten::cudnn_convolution_transpose_backward_weight",
    // ops that do the same math in PyTorch 2.x (backward convs, attention kernels, fused/fp8 GEMMs)
    "aten::convolution_backward", "aten::baddbmm_", "aten::addbmm_", "aten::_addmm_activation", "aten::_scaled_mm",
    "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
    "aten::_scaled_dot_product_flash_attention_backward", "aten::_scaled_dot_product_efficient_attention_backward",
    "aten::_scaled_dot_product_cudnn_attention_backward", "aten::_flash_attention_forward",
    "aten::_flash_attention_backward", "aten::_efficient_attention_forward", "aten::_efficient_attention_backward",
};

// Autograd backward nodes, matched after stripping the trailing version digits
// (MmBackward / MmBackward0, CudnnConvolutionBackward / ...Backward0).
const std::string_view kEligibleBackwardNodes[] = {
    "CudnnConvolutionBackward", "CudnnConvolutionTransposeBackward", "ConvolutionBackward",
    "MmBackward", "BmmBackward", "AddmmBackward", "AddbmmBackward", "BaddbmmBackward", "AddmvBackward",
    "MvBackward", "AddrBackward", "ScaledDotProductFlashAttentionBackward",
    "ScaledDotProductEfficientAttentionBackward", "ScaledDotProductCudnnAttentionBackward",
};
const size_t kEligibleOpCount = sizeof(kEligibleOps) / sizeof(kEligibleOps[0]);
const size_t kEligibleBackwardNodeCount = sizeof(kEligibleBackwardNodes) / sizeof(kEligibleBackwardNodes[0]);

// Ops autocast keeps in fp32 on CUDA that the autocast/loss check looks at (norms and losses;
// torch/amp autocast_mode "CUDA Ops that can autocast to float32", diagnosis_rules.md §B).
const std::string_view kAutocastFp32Ops[] = {
    "aten::layer_norm", "aten::native_layer_norm", "aten::group_norm", "aten::nll_loss", "aten::nll_loss_nd",
    "aten::nll_loss2d", "aten::mse_loss", "aten::l1_loss", "aten::smooth_l1_loss", "aten::huber_loss",
    "aten::kl_div", "aten::binary_cross_entropy_with_logits", "aten::cosine_embedding_loss", "aten::margin_ranking_loss"};
const size_t kAutocastFp32OpCount = sizeof(kAutocastFp32Ops) / sizeof(kAutocastFp32Ops[0]);

// torch.optim classes (PyTorch 2.x docs, "foreach" and "fused" constructor arguments; fused=True
// on CUDA for Adam, AdamW and SGD), and the fused classes of apex and DeepSpeed.
const OptimizerRow kOptimizers[] = {
    {"Adam", true, true, false},     {"AdamW", true, true, false},    {"SGD", true, true, false},
    {"Adagrad", true, false, false}, {"Adadelta", true, false, false}, {"Adamax", true, false, false},
    {"ASGD", true, false, false},    {"NAdam", true, false, false},   {"RAdam", true, false, false},
    {"RMSprop", true, false, false}, {"Rprop", true, false, false},   {"Adafactor", true, false, false},
    {"LBFGS", false, false, false},  {"SparseAdam", false, false, false},
    {"FusedAdam", false, false, true}, {"FusedLAMB", false, false, true}, {"FusedSGD", false, false, true},
    {"FusedNovoGrad", false, false, true}, {"FusedAdagrad", false, false, true}, {"DeepSpeedCPUAdam", false, false, true},
    // Second-order optimizers with matrix preconditioners (facebookresearch/optimizers' Shampoo and
    // DistributedShampoo, SOAP): their step is heavy by design, its cost set by how often the
    // preconditioners are recomputed.
    {"Shampoo", false, false, false, true}, {"DistributedShampoo", false, false, false, true},
    {"SOAP", false, false, false, true},
};
const size_t kOptimizerCount = sizeof(kOptimizers) / sizeof(kOptimizers[0]);

}  // namespace ampscope::host_rules

// The modelled ATen ops and the dtype names the profiler records. Pure data.
//
// Argument positions follow each op's schema in PyTorch's aten/src/ATen/native/native_functions.yaml
// (the profiler records "Input Dims", "Input type" and "Concrete Inputs" in schema order). The
// 2021 traces (PyTorch 1.9) use the same positions for the ops listed here; cudnn_convolution had
// no bias argument by then.
#include <algorithm>
#include <array>
#include <vector>

#include "analyzers/roofline/op_table.h"

namespace ampscope::roofline::detail {
namespace {

using F = Formula;
using Fam = OpFamily;

// Row builders: one line per op, positions named.
struct Pos {
  int8_t x = 0, w = 1, v = -1, g = -1, stride = -1, padding = -1, dilation = -1, transposed = -1, groups = -1,
         flag = -1;
  bool bnhd = false;
};
constexpr OpSpec Row(std::string_view name, F f, Fam fam, Pos p = Pos(), bool backward = false) {
  return OpSpec{name, f, fam, p.x, p.w, p.v, p.g, p.stride, p.padding, p.dilation, p.transposed, p.groups,
                p.flag, p.bnhd, backward};
}
constexpr Pos XW(int8_t x, int8_t w, int8_t v = -1) {
  Pos p;
  p.x = x;
  p.w = w;
  p.v = v;
  return p;
}
// Convolution forward: input 0, weight 1, bias, stride, padding, dilation, transposed, groups.
constexpr Pos ConvPos(int8_t bias, int8_t stride, int8_t padding, int8_t dilation, int8_t transposed, int8_t groups) {
  Pos p;
  p.v = bias;
  p.stride = stride;
  p.padding = padding;
  p.dilation = dilation;
  p.transposed = transposed;
  p.groups = groups;
  return p;
}
// Convolution backward: grad_output, input, weight, transposed, groups, output_mask.
constexpr Pos ConvBwdPos(int8_t g, int8_t x, int8_t w, int8_t transposed, int8_t groups, int8_t mask) {
  Pos p;
  p.g = g;
  p.x = x;
  p.w = w;
  p.transposed = transposed;
  p.groups = groups;
  p.flag = mask;
  return p;
}
// Attention: query, key, value, grad_out (backward), is_causal, layout.
constexpr Pos AttnPos(int8_t q, int8_t causal, int8_t g = -1, bool bnhd = false) {
  Pos p;
  p.x = q;
  p.w = static_cast<int8_t>(q + 1);
  p.v = static_cast<int8_t>(q + 2);
  p.g = g;
  p.flag = causal;
  p.bnhd = bnhd;
  return p;
}
// Norms: input, weight, bias, grad_out, parameter (normalized_shape / num_groups).
constexpr Pos NormPos(int8_t x, int8_t w, int8_t bias, int8_t param, int8_t g = -1) {
  Pos p;
  p.x = x;
  p.w = w;
  p.v = bias;
  p.flag = param;
  p.g = g;
  return p;
}
constexpr Pos Flag(int8_t flag) {
  Pos p;
  p.flag = flag;
  return p;
}

constexpr OpSpec kOps[] = {
    // --- GEMM (TraceLens aten_mm / aten_addmm / aten_bmm / aten_baddbmm; matmul and linear by
    // the same formula)
    Row("aten::mm", F::kMm, Fam::kGemm, XW(0, 1)),
    Row("aten::addmm", F::kAddmm, Fam::kGemm, XW(1, 2, 0)),
    Row("aten::bmm", F::kBmm, Fam::kGemm, XW(0, 1)),
    Row("aten::baddbmm", F::kBaddbmm, Fam::kGemm, XW(1, 2, 0)),
    Row("aten::matmul", F::kMatmul, Fam::kGemm, XW(0, 1)),
    Row("aten::linear", F::kLinear, Fam::kGemm, XW(0, 1, 2)),

    // --- Convolution forward (TraceLens aten_conv; PyTorch flop_counter conv_flop)
    Row("aten::conv1d", F::kConv, Fam::kConvFwd, ConvPos(2, 3, 4, 5, -1, 6)),
    Row("aten::conv2d", F::kConv, Fam::kConvFwd, ConvPos(2, 3, 4, 5, -1, 6)),
    Row("aten::conv3d", F::kConv, Fam::kConvFwd, ConvPos(2, 3, 4, 5, -1, 6)),
    Row("aten::convolution", F::kConv, Fam::kConvFwd, ConvPos(2, 3, 4, 5, 6, 8)),
    Row("aten::_convolution", F::kConv, Fam::kConvFwd, ConvPos(2, 3, 4, 5, 6, 8)),
    Row("aten::cudnn_convolution", F::kConv, Fam::kConvFwd, ConvPos(-1, 3, 2, 4, -1, 5)),
    Row("aten::miopen_convolution", F::kConv, Fam::kConvFwd, ConvPos(2, 4, 3, 5, -1, 6)),

    // --- Convolution backward (TraceLens aten_conv_bwd; flop_counter conv_backward_flop)
    Row("aten::convolution_backward", F::kConvBwd, Fam::kConvBwd, ConvBwdPos(0, 1, 2, 7, 9, 10), true),
    Row("aten::cudnn_convolution_backward", F::kConvBwd, Fam::kConvBwd, ConvBwdPos(1, 0, 2, -1, 6, 10), true),
    Row("aten::miopen_convolution_backward", F::kConvBwd, Fam::kConvBwd, ConvBwdPos(1, 0, 2, -1, 6, 9), true),

    // --- Attention forward, [B, H, N, d] unless bnhd (TraceLens SDPA / flash_attention)
    Row("aten::scaled_dot_product_attention", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 5)),
    Row("aten::_scaled_dot_product_flash_attention", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 4)),
    Row("aten::_scaled_dot_product_flash_attention_for_cpu", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 4)),
    Row("aten::_scaled_dot_product_efficient_attention", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 6)),
    Row("aten::_scaled_dot_product_cudnn_attention", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 6)),
    Row("aten::_scaled_dot_product_attention_math", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 5)),
    Row("flash_attn::_flash_attn_forward", F::kSdpaFwd, Fam::kAttentionFwd, AttnPos(0, 5, -1, true)),

    // --- Attention backward: grad_out 0, query 1, key 2, value 3
    Row("aten::_scaled_dot_product_flash_attention_backward", F::kSdpaBwd, Fam::kAttentionBwd, AttnPos(1, 11, 0),
        true),
    Row("aten::_scaled_dot_product_efficient_attention_backward", F::kSdpaBwd, Fam::kAttentionBwd,
        AttnPos(1, 11, 0), true),
    Row("aten::_scaled_dot_product_cudnn_attention_backward", F::kSdpaBwd, Fam::kAttentionBwd, AttnPos(1, 14, 0),
        true),

    // --- Softmax (TraceLens Softmax: 3 FLOP per element, read + write; backward twice that)
    Row("aten::softmax", F::kSoftmax, Fam::kSoftmax),
    Row("aten::_softmax", F::kSoftmax, Fam::kSoftmax),
    Row("aten::log_softmax", F::kSoftmax, Fam::kSoftmax),
    Row("aten::_log_softmax", F::kSoftmax, Fam::kSoftmax),
    Row("aten::_softmax_backward_data", F::kSoftmax, Fam::kSoftmax, Pos(), true),
    Row("aten::_log_softmax_backward_data", F::kSoftmax, Fam::kSoftmax, Pos(), true),

    // --- Normalization
    Row("aten::layer_norm", F::kLayerNorm, Fam::kNorm, NormPos(0, 2, 3, 1)),
    Row("aten::native_layer_norm", F::kLayerNorm, Fam::kNorm, NormPos(0, 2, 3, 1)),
    Row("aten::rms_norm", F::kRmsNorm, Fam::kNorm, NormPos(0, 2, -1, 1)),
    Row("aten::_fused_rms_norm", F::kRmsNorm, Fam::kNorm, NormPos(0, 2, -1, 1)),
    Row("aten::batch_norm", F::kBatchNorm, Fam::kNorm, NormPos(0, 1, 2, -1)),
    Row("aten::_batch_norm_impl_index", F::kBatchNorm, Fam::kNorm, NormPos(0, 1, 2, -1)),
    Row("aten::native_batch_norm", F::kBatchNorm, Fam::kNorm, NormPos(0, 1, 2, -1)),
    Row("aten::cudnn_batch_norm", F::kBatchNorm, Fam::kNorm, NormPos(0, 1, 2, -1)),
    Row("aten::miopen_batch_norm", F::kBatchNorm, Fam::kNorm, NormPos(0, 1, 2, -1)),
    Row("aten::group_norm", F::kGroupNorm, Fam::kNorm, NormPos(0, 2, 3, 1)),
    Row("aten::native_group_norm", F::kGroupNorm, Fam::kNorm, NormPos(0, 1, 2, 6)),
    Row("aten::native_layer_norm_backward", F::kNormBwd, Fam::kNormBwd, NormPos(1, 5, 6, -1, 0), true),
    Row("aten::native_batch_norm_backward", F::kNormBwd, Fam::kNormBwd, NormPos(1, 2, -1, -1, 0), true),
    Row("aten::cudnn_batch_norm_backward", F::kNormBwd, Fam::kNormBwd, NormPos(0, 2, -1, -1, 1), true),
    Row("aten::miopen_batch_norm_backward", F::kNormBwd, Fam::kNormBwd, NormPos(0, 2, -1, -1, 1), true),
    Row("aten::native_group_norm_backward", F::kNormBwd, Fam::kNormBwd, NormPos(1, 4, -1, -1, 0), true),

    // --- Elementwise (TraceLens UnaryElementwise / BinaryElementwise: 1 FLOP per output element)
    Row("aten::relu", F::kUnary, Fam::kElementwise),
    Row("aten::relu_", F::kUnary, Fam::kElementwise),
    Row("aten::gelu", F::kUnary, Fam::kElementwise),
    Row("aten::silu", F::kUnary, Fam::kElementwise),
    Row("aten::silu_", F::kUnary, Fam::kElementwise),
    Row("aten::sigmoid", F::kUnary, Fam::kElementwise),
    Row("aten::tanh", F::kUnary, Fam::kElementwise),
    Row("aten::exp", F::kUnary, Fam::kElementwise),
    Row("aten::log", F::kUnary, Fam::kElementwise),
    Row("aten::neg", F::kUnary, Fam::kElementwise),
    Row("aten::rsqrt", F::kUnary, Fam::kElementwise),
    Row("aten::sqrt", F::kUnary, Fam::kElementwise),
    Row("aten::reciprocal", F::kUnary, Fam::kElementwise),
    Row("aten::abs", F::kUnary, Fam::kElementwise),
    Row("aten::cos", F::kUnary, Fam::kElementwise),
    Row("aten::sin", F::kUnary, Fam::kElementwise),
    Row("aten::pow", F::kUnary, Fam::kElementwise),
    Row("aten::clamp", F::kUnary, Fam::kElementwise),
    Row("aten::clamp_", F::kUnary, Fam::kElementwise),
    Row("aten::clamp_min", F::kUnary, Fam::kElementwise),
    Row("aten::clamp_min_", F::kUnary, Fam::kElementwise),
    Row("aten::clamp_max", F::kUnary, Fam::kElementwise),
    Row("aten::clamp_max_", F::kUnary, Fam::kElementwise),
    Row("aten::hardtanh", F::kUnary, Fam::kElementwise),
    Row("aten::hardtanh_", F::kUnary, Fam::kElementwise),
    Row("aten::leaky_relu", F::kUnary, Fam::kElementwise),
    Row("aten::add", F::kBinary, Fam::kElementwise),
    Row("aten::add_", F::kBinary, Fam::kElementwise),
    Row("aten::sub", F::kBinary, Fam::kElementwise),
    Row("aten::sub_", F::kBinary, Fam::kElementwise),
    Row("aten::rsub", F::kBinary, Fam::kElementwise),
    Row("aten::mul", F::kBinary, Fam::kElementwise),
    Row("aten::mul_", F::kBinary, Fam::kElementwise),
    Row("aten::div", F::kBinary, Fam::kElementwise),
    Row("aten::div_", F::kBinary, Fam::kElementwise),
    Row("aten::maximum", F::kBinary, Fam::kElementwise),
    Row("aten::minimum", F::kBinary, Fam::kElementwise),
    Row("aten::threshold_backward", F::kBinary, Fam::kElementwise, Pos(), true),
    Row("aten::gelu_backward", F::kBinary, Fam::kElementwise, Pos(), true),
    Row("aten::silu_backward", F::kBinary, Fam::kElementwise, Pos(), true),
    Row("aten::sigmoid_backward", F::kBinary, Fam::kElementwise, Pos(), true),
    Row("aten::tanh_backward", F::kBinary, Fam::kElementwise, Pos(), true),
    Row("aten::copy_", F::kCopy, Fam::kElementwise),
    Row("aten::fill_", F::kFill, Fam::kElementwise),
    Row("aten::zero_", F::kFill, Fam::kElementwise),

    // --- Reductions (TraceLens Reduce: 1 FLOP per input element; dim from "Concrete Inputs")
    Row("aten::sum", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::mean", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::amax", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::amin", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::max", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::min", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::prod", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::argmax", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::norm", F::kReduction, Fam::kReduction, Flag(2)),
    Row("aten::linalg_vector_norm", F::kReduction, Fam::kReduction, Flag(2)),
    Row("aten::var", F::kReduction, Fam::kReduction, Flag(1)),
    Row("aten::std", F::kReduction, Fam::kReduction, Flag(1)),

    // --- Embedding: a gather of rows
    Row("aten::embedding", F::kEmbedding, Fam::kEmbedding, XW(0, 1)),
};

constexpr DtypeRow kDtypes[] = {
    {"float", Precision::kFp32, 4},
    {"c10::Half", Precision::kFp16, 2},
    {"c10::BFloat16", Precision::kBf16, 2},
    {"double", Precision::kFp64, 8},
    {"c10::Float8_e4m3fn", Precision::kFp8, 1},
    {"c10::Float8_e5m2", Precision::kFp8, 1},
    {"c10::Float8_e4m3fnuz", Precision::kFp8, 1},
    {"c10::Float8_e5m2fnuz", Precision::kFp8, 1},
    {"c10::Float8_e8m0fnu", Precision::kUnknown, 1},   // block-scale factors, not math inputs
    {"c10::Float4_e2m1fn_x2", Precision::kFp8, 1},     // two fp4 values per byte (fp4 counts as fp8, see Precision)
    {"signed char", Precision::kInt8, 1},
    {"unsigned char", Precision::kUnknown, 1},
    {"bool", Precision::kUnknown, 1},
    {"short int", Precision::kUnknown, 2},
    {"short", Precision::kUnknown, 2},
    {"int", Precision::kUnknown, 4},
    {"long int", Precision::kUnknown, 8},
    {"long", Precision::kUnknown, 8},
    {"c10::complex<float>", Precision::kFp32, 8},
    {"c10::complex<double>", Precision::kFp64, 16},
    {"c10::complex<c10::Half>", Precision::kFp16, 4},
};

template <typename T, size_t N>
std::vector<const T*> SortedByName(const T (&rows)[N]) {
  std::vector<const T*> v;
  v.reserve(N);
  for (const T& r : rows) v.push_back(&r);
  std::sort(v.begin(), v.end(), [](const T* a, const T* b) { return a->name < b->name; });
  return v;
}

template <typename T>
const T* Find(const std::vector<const T*>& sorted, std::string_view name) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), name, [](const T* r, std::string_view n) { return r->name < n; });
  return it != sorted.end() && (*it)->name == name ? *it : nullptr;
}

}  // namespace

const OpSpec* FindOpSpec(std::string_view name) {
  static const std::vector<const OpSpec*> sorted = SortedByName(kOps);
  return Find(sorted, name);
}

const DtypeRow* FindDtype(std::string_view name) {
  static const std::vector<const DtypeRow*> sorted = SortedByName(kDtypes);
  return Find(sorted, name);
}

}  // namespace ampscope::roofline::detail

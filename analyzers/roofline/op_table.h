// Internal to op_models.cc: the table of modelled ops (op_models_table.cc) and of dtypes.
// One row per ATen op name: which formula, and where its arguments sit in the op's schema
// (native_functions.yaml order, which is the order of "Input Dims" / "Concrete Inputs").
#pragma once

#include <cstdint>
#include <string_view>

#include "analyzers/roofline/op_models.h"

namespace ampscope::roofline::detail {

enum class Formula : uint8_t {
  kMm,          // (a[M,K], b[K,N])
  kAddmm,       // (bias, a[M,K], b[K,N])
  kBmm,         // (a[B,M,K], b[B,K,N])
  kBaddbmm,     // (bias, a[B,M,K], b[B,K,N])
  kMatmul,      // broadcasting matmul of x and w
  kLinear,      // (x[...,K], w[N,K], bias[N]?)
  kConv,        // forward convolution
  kConvBwd,     // convolution backward: grad_output at g, input at x, weight at w
  kSdpaFwd,     // attention forward: q, k, v
  kSdpaBwd,     // attention backward: q, k, v (grad_out at g)
  kSoftmax,     // forward
  kSoftmaxBwd,
  kLayerNorm,   // normalized over the trailing dims given by normalized_shape (param) or weight
  kRmsNorm,
  kBatchNorm,   // statistics per channel (dim 1)
  kGroupNorm,
  kNormBwd,     // read grad_out and input, write grad_in (+ weight/bias grads when affine)
  kUnary,       // out = f(x)
  kBinary,      // out = f(x, w) with broadcasting; w may be a Scalar
  kCopy,        // copy_(self, src): read src, write self (dtypes may differ: a cast)
  kFill,        // fill_/zero_: write only
  kReduction,   // read x, write the reduced output (dims from param when recorded)
  kEmbedding,   // (weight[V,D], indices)
  kCount
};

struct OpSpec {
  std::string_view name;
  Formula formula;
  OpFamily family;
  // Positions in the op's arguments (-1 = absent).
  int8_t x = 0;        // first tensor (a, input, query, self)
  int8_t w = 1;        // second tensor (b, weight, key)
  int8_t v = -1;       // third tensor (value), or the bias of addmm/baddbmm/linear/conv
  int8_t g = -1;       // grad_output for backward ops
  int8_t stride = -1;  // conv
  int8_t padding = -1;
  int8_t dilation = -1;
  int8_t transposed = -1;
  int8_t groups = -1;
  int8_t flag = -1;    // attention: is_causal; conv backward: output_mask; norms: normalized_shape /
                       // num_groups; reductions: dim
  bool bnhd = false;   // attention tensors laid out [B, N, H, d] (flash_attn) instead of [B, H, N, d]
  bool backward = false;
};

// The table, sorted by name on first use; nullptr if `name` has no row.
const OpSpec* FindOpSpec(std::string_view name);

struct DtypeRow {
  std::string_view name;
  Precision precision;
  int bytes;
};
// The dtype names the profiler writes, and their element size.
const DtypeRow* FindDtype(std::string_view name);

}  // namespace ampscope::roofline::detail

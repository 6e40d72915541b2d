// Attention written by hand in eager ops: Q·Kᵀ from a GEMM op (aten::bmm, matmul, baddbmm), a
// softmax over its last dim, then P·V from a second GEMM op, with whatever scaling, masking,
// dropout and casts sit between them (bmm -> softmax -> bmm in CLIP/OWL-ViT style models,
// matmul / div / softmax / dropout / matmul in Hugging Face's "eager" attention). Such code
// materialises the N_q x N_kv score matrix in device memory and runs the softmax as a separate
// memory-bound pass; F.scaled_dot_product_attention does neither.
//
// Found on the op tree: a softmax op (forward, not inside an SDPA op) whose nearest GEMM sibling
// before it and nearest GEMM sibling after it (at most kMaxOpsBetween ops away, no other softmax
// or GEMM between) fit: with recorded shapes, Q·Kᵀ's output is the softmax's input
// [..., N_q, N_kv] and P·V multiplies [..., N_q, N_kv] by [..., N_kv, d]; a softmax over fewer
// than 3 dims is never attention. Without recorded shapes the op sequence alone is taken and
// the shapes are unknown, and Q·Kᵀ and P·V must be batched products (bmm, baddbmm, matmul; never
// a product with a weight) of similar cost. The backward nodes of those ops (linked by the op
// tree) add their time.
#pragma once

#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/op_tree.h"
#include "analyzers/roofline/roofline_result.h"

namespace ampscope::roofline {

inline constexpr int kMaxOpsBetween = 8;  // sibling ops between Q·Kᵀ and the softmax, and the softmax and P·V
// Without recorded shapes, Q·Kᵀ and P·V must cost alike (the same N_q·N_kv·d multiply-adds):
// within this factor of each other [heur]; a gate GEMM and an expert GEMM differ by far more.
inline constexpr TimeNs kSimilarCostFactor = 4;
bool SimilarCost(TimeNs qk_ns, TimeNs pv_ns);

// Every instance in the steps' CPU ranges (all of the trace without steps), grouped by shape,
// by kernel time descending.
std::vector<EagerAttention> FindEagerAttention(const Trace& trace, const OpTree& tree, const StepAnalysis& steps);

// True if `row` (a GEMM row of the op table) is one of the GEMMs of hand-written attention: its
// slowness is the attention's, and the fix is SDPA, not the GEMM's shape.
bool IsEagerAttentionGemm(const RooflineResult& r, const OpRow& row);

}  // namespace ampscope::roofline

// The roofline analyzer's typed results (analyzers/roofline/roofline.h computes them): what
// the JSON report (reports/roofline_json.cc) serialises. With analyzers/results/analysis.h, the only
// analyzer header reports/ may include (tools/layering/check_layering.cmake). Also the op
// vocabulary the results and the FLOP models (op_models.h) share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/peaks/gpu_peaks.h"
#include "trace/classify/host_roles.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope::roofline {

enum class OpFamily : uint8_t {
  kGemm,           // mm, addmm, bmm, baddbmm, matmul, linear
  kConvFwd,
  kConvBwd,        // dgrad and/or wgrad (and the bias gradient) of one convolution
  kAttentionFwd,   // scaled-dot-product / flash / memory-efficient attention
  kAttentionBwd,
  kNorm,           // layer, RMS, batch, group norm (forward)
  kNormBwd,
  kSoftmax,        // softmax / log_softmax forward and backward
  kElementwise,
  kReduction,
  kEmbedding,
  kCount
};
const char* OpFamilyName(OpFamily f);  // "gemm", "conv_fwd", ..., "embedding"

// Where the math runs: matrix units (Tensor Cores / Matrix Cores) or the vector ALUs. MFU counts
// matrix FLOPs only, as the PyTorch FLOP counter does (it registers formulas only for matmuls,
// convolutions and attention).
enum class MathUnit : uint8_t { kMatrix, kVector };

// A GEMM's problem: `batch` independent M x K by K x N products.
struct GemmDims {
  double batch = 1, m = 0, n = 0, k = 0;
};

// The GPU whose peaks are used.
struct RooflineGpu {
  int32_t device = -1;            // the trace's device id (the one with the most kernel time)
  std::string device_name;        // as the trace names it
  std::optional<GpuPeak> peak;    // absent: not known (reason says why)
  std::string match;              // how the row was found ("device name", "--gpu", ...) or why not
};

// One op name + input shapes (+ pass), aggregated over its calls.
struct OpRow {
  struct Identity {
    std::string op;             // e.g. "aten::mm"
    std::string input_dims;     // the trace's "Input Dims", as recorded
    std::string input_types;    // the trace's "Input type", as recorded
    Precision precision = Precision::kUnknown;  // of the math: from its kernels, else its input types
    OpFamily family = OpFamily::kCount;
    MathUnit unit = MathUnit::kVector;
    bool backward = false;      // ran in the backward pass (under an autograd node)
  } id;
  struct Work {
    bool known = false;
    double gflop = 0;           // per call
    std::optional<double> bytes;          // per call
    std::optional<double> flop_per_byte;
    std::string note;           // unknown: why; known: an assumption
    std::optional<GemmDims> gemm;  // GEMMs: batch, M, N, K (for the alignment and size checks)
  } work;
  struct Timing {
    uint64_t count = 0;                  // calls in the analysed window
    uint64_t calls_with_kernels = 0;
    double kernel_time_us = 0;           // sum over calls of the kernels under each call
    std::optional<double> tflops;        // achieved, mean over calls with kernels
    std::optional<double> tbps;          // achieved, mean over calls with kernels
  } timing;
  struct Roof {
    std::string bound;                   // "compute" | "memory" | "" (unknown)
    std::optional<double> peak_tflops;   // of this precision and math unit
    std::optional<double> pct_of_peak;   // achieved / attainable (min(peak, intensity x bandwidth)) x 100
    std::string note;                    // above 100%: why (the models count work the hardware need not do)
  } roof;
};

struct StepRoofline {
  int64_t number = -1;            // ProfilerStep#N, else the index; -1 for the whole window
  double time_us = 0;             // the step's analysed window
  double model_gflop = 0;         // FLOPs of the ops that ran, counted once, without recompute
  double hardware_gflop = 0;      // model + recomputed FLOPs
  double achieved_tflops = 0;     // model FLOPs / step time
  std::optional<double> mfu_pct;
  std::optional<double> hfu_pct;  // only when recompute was seen
};

struct RooflineSummary {
  double step_gflop = 0;                  // mean model GFLOP per step (or over the window)
  double achieved_tflops = 0;             // total model FLOPs / total step time
  Precision peak_precision = Precision::kUnknown;  // dominant math precision (most modelled FLOPs)
  std::optional<double> peak_tflops;      // dense peak of that precision on this GPU
  std::string peak_source;                // the peak row and its source
  std::optional<double> mfu_pct;
  std::string mfu_reason;                 // why mfu_pct is null, or "" when it is known
  std::optional<double> hfu_pct;          // when recompute was detected
  double recompute_gflop = 0;             // per step: forward ops re-run in backward + attention recompute
  bool activation_recompute = false;      // forward ops ran again inside the backward pass
  bool steps_used = false;                // false: over the analysed window
};

struct RooflineCoverage {
  double kernel_time_us = 0;              // all kernels in the window
  double modelled_kernel_time_us = 0;     // under a row op with known FLOPs
  uint64_t modelled_calls = 0;
  uint64_t unknown_calls = 0;             // modelled op names whose FLOPs are unknown for the call
  struct Unmodelled {
    std::string op;
    std::string reason;
    uint64_t count = 0;
    double kernel_time_us = 0;
  };
  // By kernel time, at most 10: modelled ops whose FLOPs are unknown for the call (with why), and
  // ops outside every row that launched kernels ("no FLOP model"; count = calls).
  std::vector<Unmodelled> top_unknown;
};

// Calls of one attention implementation the SDPA dispatcher chose (trace/classify's
// ClassifyAttentionOp), in the analysed window.
struct AttentionUse {
  AttentionImpl impl = AttentionImpl::kNone;
  std::string op;                  // e.g. "aten::_scaled_dot_product_efficient_attention"
  std::string input_dims;          // of the first call, as recorded
  std::string input_types;
  bool backward = false;
  uint64_t calls = 0;
  double kernel_time_us = 0;       // the kernels under these calls
};

// Attention written by hand (analyzers/roofline/eager_attention.h): the scores Q·Kᵀ from a GEMM
// op (bmm / matmul / baddbmm), a softmax over their last dim, then P·V from a second GEMM op,
// with the scaling, mask, dropout and casts between them. One entry per distinct shape.
struct EagerAttention {
  std::string qk_op, softmax_op, pv_op;  // the op names ("aten::bmm", "aten::softmax", ...)
  std::string qk_input_dims;             // Q·Kᵀ's "Input Dims" as recorded ("" when not recorded)
  std::string pv_input_dims;
  // Shapes, when recorded: batch x heads as the GEMMs see them (bmm merges the two), and batch
  // and heads apart when a 4-D tensor of the same layer shows them (`shape_basis` says which).
  std::optional<int64_t> batch_heads, batch, heads, seq_q, seq_kv, head_dim;
  std::string shape_basis;
  Precision precision = Precision::kUnknown;  // of the scores (the softmax input)
  std::optional<double> matrix_bytes;         // B·H·N_q·N_kv·bytes: one materialised score matrix per call
  uint64_t calls = 0;                         // forward instances in the window
  double kernel_time_us = 0;                  // all kernels of the ops from Q·Kᵀ to P·V, forward + backward
  double gemm_time_us = 0;                    // of which the two GEMMs (and their backward)
  double softmax_time_us = 0;                 // of which the softmax (and its backward)
  double backward_time_us = 0;                // of which the backward nodes of those ops
  // The op-table rows of its GEMMs (the innermost GEMM ops under Q·Kᵀ and P·V, forward and
  // backward): the rows whose slowness is the attention's (IsEagerAttentionGemm).
  struct GemmRow {
    std::string op, input_dims;
    bool backward = false;
  };
  std::vector<GemmRow> gemm_rows;
  // The kernels counted in kernel_time_us (indices into the trace's kernels): what the SDPA fix
  // re-times (diagnosis' eager_attention replay). Not in summaries.
  std::vector<uint32_t> kernels;
};

struct RooflineResult {
  bool available = false;
  std::string reason;                     // when not available: why (no shapes, no kernels, ...)
  RooflineGpu gpu;
  std::vector<OpRow> ops;                 // by kernel time, descending (a rank summary keeps the first rows)
  size_t ops_total = 0;                   // rows in all (ops.size() but in a summary)
  // The (precision, math unit) pairs of the ops whose work is known, each once, in op order: the
  // roofs a chart of these ops needs.
  std::vector<std::pair<Precision, MathUnit>> math_used;
  std::vector<StepRoofline> steps;        // per step, or one entry for the window
  RooflineSummary summary;
  RooflineCoverage coverage;
  std::vector<AttentionUse> attention;    // by kernel time, descending
  std::vector<EagerAttention> eager_attention;  // by kernel time, descending
};

}  // namespace ampscope::roofline

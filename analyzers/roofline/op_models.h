// FLOP and byte models of ATen ops: pure functions from an op's name and its recorded arguments
// ("Input Dims", "Input type", and when recorded "Input Strides" / "Concrete Inputs") to the
// work one call does. docs/roofline.md gives every formula and the source it agrees with:
// TraceLens's perf models (AMD-AGI/TraceLens, TraceLens/PerfModel/perf_model.py) where it has
// one -- its GEMM and SDPA numbers are this project's goldens -- and PyTorch's FLOP counter
// (torch/utils/flop_counter.py) otherwise.
//
// Units: FLOP per call (a multiply-add is 2 FLOP), bytes per call (the minimum traffic to and from
// device memory: each input read once, each output written once -- TraceLens's "Data Moved").
// An op without a model, or with a shape or argument the formula needs missing, is unknown with
// the reason; nothing is guessed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/roofline/roofline_result.h"
#include "base/status.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope::roofline {

// One call's recorded arguments, parsed once from the trace's compact JSON texts.
struct OpArgs {
  std::vector<std::vector<int64_t>> dims;     // per input; [] for scalars, lists and None
  std::vector<std::string> types;             // per input: "c10::BFloat16", "float", "Scalar", "" ...
  std::vector<std::vector<int64_t>> strides;  // per input, when recorded
  std::vector<std::string> concrete;          // per input, when recorded: "", "0.", "True", "[1, 1]"
  bool has_strides = false;
  bool has_concrete = false;
};

// Parses the four texts (each a JSON array, or empty when the trace did not record it). A text
// that is not the expected array is an error naming the argument.
StatusOr<OpArgs> ParseOpArgs(std::string_view input_dims, std::string_view input_types,
                             std::string_view input_strides, std::string_view concrete_inputs);

// A torch dtype name as the profiler records it ("c10::Half", "float", "c10::Float8_e4m3fn").
struct DtypeInfo {
  Precision precision = Precision::kUnknown;
  int bytes = 0;  // bytes per element; 0 = not a tensor dtype (or not known)
};
DtypeInfo DtypeOf(std::string_view torch_type);

struct OpCost {
  bool known = false;          // flop is computed (bytes may still be unknown, see bytes_known)
  bool bytes_known = false;
  double flop = 0;             // per call
  double recompute_flop = 0;   // the part of `flop` that recomputes forward work inside this call
                               // (attention backward recomputes Q·K^T): hardware, not model, FLOPs
  double bytes = 0;            // per call
  OpFamily family = OpFamily::kCount;
  MathUnit unit = MathUnit::kVector;
  Precision precision = Precision::kUnknown;  // of the math inputs, from "Input type"
  bool backward = false;       // the op computes gradients (convolution_backward, *_backward)
  std::string note;            // unknown: why; known: an assumption the numbers rest on, or ""
};

// Facts about a call that come from the trace around it, not from its own arguments.
struct OpHints {
  // The convolution's output shape [N, C_out, spatial...], when known elsewhere (the 2021 traces
  // record no stride/padding: the autograd node of the convolution records its grad_output shape).
  std::vector<int64_t> conv_output;
  // Which gradients a convolution backward computed, when its output_mask was not recorded:
  // 1 computed, 0 not, -1 unknown (the 2021 traces show them as cudnn_convolution_backward_input /
  // _weight children).
  int8_t grad_input = -1;
  int8_t grad_weight = -1;
  int8_t grad_bias = -1;
};

// GEMM, convolution and attention: the families whose math runs on matrix units.
bool IsMatrixFamily(OpFamily f);

// True if `op_name` has a model (ModelOp may still be unknown for a call with missing shapes).
bool HasOpModel(std::string_view op_name);
// The family of a modelled op (kCount if none).
OpFamily FamilyOf(std::string_view op_name);

OpCost ModelOp(std::string_view op_name, const OpArgs& args, const OpHints& hints = OpHints());

// Convolution output size along one spatial dimension: floor((in + 2p - d(k-1) - 1) / s) + 1.
int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation);

}  // namespace ampscope::roofline

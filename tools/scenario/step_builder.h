// The training-step model of the scenario generator (scenario.cc): the model and run
// configuration a scenario implies, and StepBuilder, which emits one AMP training step
// (data loading, forward, backward, optimizer) as aten ops and kernels through Sim. Its
// methods live in step_builder.cc (setup, linear layers, casts, DDP, data loading),
// step_builder_transformer.cc and step_builder_conv.cc (the CNN, backward, the optimizer).
//
// GPU times come from a roofline cost model of an A100-SXM4-80GB (shared/reference/gpu_peaks.tsv):
// GEMMs at a fraction of the 312 TFLOP/s fp16/bf16 dense Tensor Core peak (19.5 TFLOP/s fp32
// SIMT), memory-bound kernels at a fraction of the 2039 GB/s HBM bandwidth. Host times are
// typical PyTorch 2.x dispatcher / Python costs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/scenario/kernel_names.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/sim.h"

namespace ampscope::scenario::internal {

using names::Dt;

constexpr double kTcPeakFlops = 312e12;    // A100 fp16/bf16 dense Tensor Core
constexpr double kFp32PeakFlops = 19.5e12; // A100 fp32 SIMT
constexpr double kHbmBytesPerUs = 2039e3;  // A100-80GB HBM2e, bytes per µs
constexpr double kHbmEfficiency = 0.80;    // what streaming elementwise kernels reach
constexpr double kTcGemmEfficiency = 0.72; // large cuBLAS fp16 GEMMs
constexpr double kSimtGemmEfficiency = 0.85;

inline int64_t Bytes(Dt dt) { return dt == Dt::kFloat ? 4 : 2; }
inline const char* TypeName(Dt dt) { return names::CType(dt); }

inline std::string Dims(std::initializer_list<std::vector<int64_t>> dims) {
  std::string s = "[";
  bool first = true;
  for (const auto& d : dims) {
    if (!first) s += ", ";
    first = false;
    s += "[";
    for (size_t i = 0; i < d.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", d[i]);
    s += "]";
  }
  return s + "]";
}

inline std::string Types(std::initializer_list<const char*> types) {
  std::string s = "[";
  bool first = true;
  for (const char* t : types) {
    if (!first) s += ", ";
    first = false;
    s += fmt::format("\"{}\"", t);
  }
  return s + "]";
}

inline uint32_t Clamp32(double v) { return static_cast<uint32_t>(std::min(2147483647.0, std::max(1.0, std::ceil(v)))); }

inline KernelShape ElementwiseShape(double elements) {
  KernelShape s;
  s.grid[0] = Clamp32(elements / 512.0);
  s.block[0] = 128;
  s.registers = 20;
  return s;
}
inline KernelShape ReduceShape(double rows) {
  KernelShape s;
  s.grid[0] = Clamp32(std::min(rows, 4096.0));
  s.block[0] = 512;
  s.registers = 32;
  s.shared_bytes = 16;
  return s;
}
inline KernelShape GemmShape(double m, double n) {
  KernelShape s;
  s.grid[0] = Clamp32(n / 128.0);
  s.grid[1] = Clamp32(m / 64.0);
  s.block[0] = 128;
  s.registers = 232;
  s.shared_bytes = 73728;
  return s;
}
inline KernelShape SingleThread() {
  KernelShape s;
  s.block[0] = 1;
  s.registers = 16;
  return s;
}

inline double MemUs(double bytes) { return bytes / (kHbmBytesPerUs * kHbmEfficiency) + 2.5; }

// Model and run configuration derived from the scenario.
struct Config {
  bool convnet = false;
  int layers = 2, batch = 32, seq = 1024, hidden = 2048, ffn = 8192, heads = 16, vocab = 8192, feat = 512;
  Dt low = Dt::kHalf;      // GEMM/attention dtype
  bool autocast = true;    // false: the model itself is in `low` (model.half()) or fp32
  bool scaler = true;
  bool fused_opt = false;
  bool foreach_opt = true;
  bool pinned = true;
  bool single_process_loader = false;
  double loader_us = 260;  // DataLoader __next__ host time
  bool fp32_mlp_layer0 = false;
  bool manual_elementwise = false;
  double gemm_efficiency_scale = 1.0;
  bool small_tile_gemms = false;
  bool guards = false;      // isnan().any().item() numerics guards (host syncs)
  double guard_python_us = 0;
  bool empty_cache = false;
  int skip_first = 0;       // GradScaler skips at the start
  int skip_every = 0;       // skip every Nth step after the start (0 = never)
  int64_t extra_resident = 0;
  int64_t extra_reserved = 0;
  bool ddp = false;
  bool ddp_overlap = true;
  double busbw_bytes_per_us = 230e3;  // NVLink A100 ring all-reduce bus bandwidth
  bool silent_warmup = true;
  int first_step = 10;
  double optimizer_python_us = 450;   // foreach AdamW: _init_group, grouping tensors
  // Python after the per-step loss.item() (progress bar, logger, lr_scheduler.step());
  // 0 = no loss.item(). One sync per step beyond GradScaler's is what most training loops do.
  double log_python_us = 6000;
};

// One trainable parameter (for the optimizer, GradScaler and DDP buckets).
struct Param {
  std::string name;
  int64_t numel = 0;
};

// The configuration a scenario implies (its problem, severity and overrides).
Config MakeConfig(const ScenarioOptions& o);

class StepBuilder {
 public:
  StepBuilder(Sim& sim, const Config& c);

  void RunStep(int index, int64_t number);

  int64_t natural_peak() const { return peak_; }

 private:
  // ---- parameters -----------------------------------------------------------------
  void RegisterTransformerParams();
  void RegisterConvParams();

  // DDP buckets: parameters in reverse order, 1 MiB first bucket then 25 MiB.
  void MakeBuckets();

  bool IsSkipped(int index) const;

  // ---- timing helpers -------------------------------------------------------------
  double GemmUs(double flops, Dt dt, bool misaligned = false) const;
  std::string GemmName(Dt dt, int kind, bool misaligned) const;

  // Launches one memory-bound kernel under the current op.
  void Mem(const std::string& name, double elements, double bytes);
  void Small(const std::string& name) { sim_.Kernel(name, 2.2, SingleThread()); }

  Sim::Block Out(int64_t bytes);

  // ---- building blocks ------------------------------------------------------------
  // aten::to -> aten::_to_copy -> aten::copy_: a dtype cast of `elements` values.
  Sim::Block Cast(std::vector<int64_t> shape, Dt from, Dt to);

  // aten::linear on [b, s, k] x [n, k]^T. Returns the output block.
  Sim::Block Linear(int64_t k, int64_t n, Dt x_dt, Dt gemm_dt, bool cast_weight, bool misaligned, std::vector<Sim::Block>* saved, int gemm_kind = 0);

  void LinearBackward(int64_t k, int64_t n, Dt gemm_dt, bool cast_weight, bool act_cast, Dt act_dt, bool misaligned, int weight_param);

  void AccumulateGrad(int param);

  // DDP's reducer: the bucket is averaged and all-reduced on the NCCL stream as soon as it is ready.
  void AllReduceBucket(int64_t numel);

  void LaunchAllReduce(int64_t numel);

  void ReleaseGradTemps(size_t keep);

  // A python-level guard: torch.isnan(x).any().item() (one host-device sync).
  void Guard(int64_t elements, Dt dt);

  // ---- input ----------------------------------------------------------------------
  void LoadBatch();

  Sim::Block CopyToDevice(const std::vector<int64_t>& shape, int64_t bytes, const char* type);

  // ---- transformer ----------------------------------------------------------------
  struct LayerSaved {
    std::vector<Sim::Block> blocks;
  };

  Dt Compute() const { return c_.low; }
  // dtype of the residual stream: fp32 under autocast, else the model dtype.
  Dt Residual() const { return c_.autocast ? Dt::kFloat : c_.low; }

  void LayerNormFwd(Dt dt, std::vector<Sim::Block>* saved, int64_t seq);

  void RmsNormManualFwd(Dt dt, std::vector<Sim::Block>* saved);

  void GeluFwd(Dt dt, std::vector<Sim::Block>* saved);

  void ResidualAdd(Dt branch_dt, std::vector<Sim::Block>* saved);

  void Attention(Dt dt, std::vector<Sim::Block>* saved);

  void TransformerForward();

  // The backward of one transformer block, on the autograd thread.
  void TransformerLayerBackward(int l);

  void NormBackward(Dt dt, int weight_param);

  void ManualGeluBackward(Dt dt);

  void AttentionBackward(Dt dt);

  void TransformerBackward();

  // ---- a small fp16 NCHW CNN (for the layout-transform scenario) ------------------
  static constexpr int kConvBlocks = 8;
  static constexpr int64_t kConvBatch = 64;
  static constexpr int64_t kImage = 64;
  static constexpr int64_t kChannels = 256;
  static constexpr int64_t kSpatial = 32;

  void ConvForward();

  void ConvBackward();

  // The main thread blocks in loss.backward() while the autograd thread runs the graph.
  void StartAutograd();

  void Backward();

  // ---- GradScaler + AdamW ---------------------------------------------------------
  int Launches(int64_t elements) const;

  // One torch._foreach_* op over all parameters; `bytes_per_elem` counts fp32 tensor accesses.
  void Foreach(const char* op, const std::string& kernel, double bytes_per_elem);

  Dt ParamDtype() const { return c_.autocast || c_.low == Dt::kFloat ? Dt::kFloat : c_.low; }

  void OptimizerStep(int64_t number);

  Sim& sim_;
  const Config& c_;
  int64_t T_ = 0;
  int64_t head_dim_ = 128;
  int64_t param_elems_ = 0;
  int64_t peak_ = 0;
  int64_t next_seq_ = 1000;
  bool skipped_ = false;
  std::vector<Param> params_;
  struct Bucket {
    int pending = 0;
    int64_t numel = 0;
  };
  std::vector<Bucket> buckets_;
  std::vector<int> bucket_of_;
  std::vector<LayerSaved> layers_;
  std::vector<Sim::Block> head_saved_;
  std::vector<Sim::Block> grad_tmp_;
  std::vector<Sim::Block> param_grads_;
  Sim::Block input_, labels_;
};

}  // namespace ampscope::scenario::internal

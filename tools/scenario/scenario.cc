// The training-step model behind the scenario generator: which aten ops a transformer (or a
// small CNN) AMP training step runs, which kernels they launch, and how long each takes.
//
// GPU times come from a roofline cost model of an A100-SXM4-80GB (shared/reference/gpu_peaks.tsv):
// GEMMs at a fraction of the 312 TFLOP/s fp16/bf16 dense Tensor Core peak (19.5 TFLOP/s fp32
// SIMT), memory-bound kernels at a fraction of the 2039 GB/s HBM bandwidth. Host times are
// typical PyTorch 2.x dispatcher / Python costs.
#include "tools/scenario/scenario.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "tools/scenario/kernel_names.h"
#include "tools/scenario/sim.h"

namespace ampscope::scenario {

namespace {

using internal::AnnotationScope;
using internal::KernelShape;
using internal::kAutogradThread;
using internal::kComputeStream;
using internal::kMainThread;
using internal::kNcclStream;
using internal::Ns;
using internal::OpScope;
using internal::Sim;
using names::Dt;

constexpr double kTcPeakFlops = 312e12;    // A100 fp16/bf16 dense Tensor Core
constexpr double kFp32PeakFlops = 19.5e12; // A100 fp32 SIMT
constexpr double kHbmBytesPerUs = 2039e3;  // A100-80GB HBM2e, bytes per µs
constexpr double kHbmEfficiency = 0.80;    // what streaming elementwise kernels reach
constexpr double kTcGemmEfficiency = 0.72; // large cuBLAS fp16 GEMMs
constexpr double kSimtGemmEfficiency = 0.85;

struct ProblemInfo {
  Problem problem;
  const char* name;
};
constexpr ProblemInfo kProblems[] = {
    {Problem::kNone, "none"},
    {Problem::kHostSync, "host_sync"},
    {Problem::kFp32Gemm, "fp32_gemm"},
    {Problem::kNoAutocast, "no_autocast"},
    {Problem::kDataLoaderStall, "dataloader_stall"},
    {Problem::kPageableH2D, "pageable_h2d"},
    {Problem::kAllocChurn, "alloc_churn"},
    {Problem::kScalerSkips, "scaler_skips"},
    {Problem::kScalerSkipsSteady, "scaler_skips_steady"},
    {Problem::kBf16WithScaler, "bf16_with_scaler"},
    {Problem::kFp16NoScaler, "fp16_no_scaler"},
    {Problem::kUnfusedElementwise, "unfused_elementwise"},
    {Problem::kUnfusedOptimizer, "unfused_optimizer"},
    {Problem::kExposedAllReduce, "exposed_allreduce"},
    {Problem::kLaunchBound, "launch_bound"},
    {Problem::kLayoutTransform, "layout_transform"},
    {Problem::kLowTflops, "low_tflops"},
    {Problem::kMemoryPeak, "memory_peak"},
    {Problem::kFragmentation, "fragmentation"},
};

int64_t Bytes(Dt dt) { return dt == Dt::kFloat ? 4 : 2; }
const char* TypeName(Dt dt) { return names::CType(dt); }

std::string Dims(std::initializer_list<std::vector<int64_t>> dims) {
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

std::string Types(std::initializer_list<const char*> types) {
  std::string s = "[";
  bool first = true;
  for (const char* t : types) {
    if (!first) s += ", ";
    first = false;
    s += fmt::format("\"{}\"", t);
  }
  return s + "]";
}

uint32_t Clamp32(double v) { return static_cast<uint32_t>(std::min(2147483647.0, std::max(1.0, std::ceil(v)))); }

KernelShape ElementwiseShape(double elements) {
  KernelShape s;
  s.grid[0] = Clamp32(elements / 512.0);
  s.block[0] = 128;
  s.registers = 20;
  return s;
}
KernelShape ReduceShape(double rows) {
  KernelShape s;
  s.grid[0] = Clamp32(std::min(rows, 4096.0));
  s.block[0] = 512;
  s.registers = 32;
  s.shared_bytes = 16;
  return s;
}
KernelShape GemmShape(double m, double n) {
  KernelShape s;
  s.grid[0] = Clamp32(n / 128.0);
  s.grid[1] = Clamp32(m / 64.0);
  s.block[0] = 128;
  s.registers = 232;
  s.shared_bytes = 73728;
  return s;
}
KernelShape SingleThread() {
  KernelShape s;
  s.block[0] = 1;
  s.registers = 16;
  return s;
}

double MemUs(double bytes) { return bytes / (kHbmBytesPerUs * kHbmEfficiency) + 2.5; }

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

Config MakeConfig(const ScenarioOptions& o) {
  Config c;
  const double sev = std::max(0.0, o.severity);
  c.fused_opt = o.fused_optimizer;
  switch (o.problem) {
    case Problem::kNone: break;
    case Problem::kHostSync:
      c.layers = 8; c.batch = 4; c.hidden = 1024; c.ffn = 4096; c.heads = 8;
      c.guards = true;
      c.guard_python_us = 1150 * sev;
      c.log_python_us = 0;  // the guards already include loss.item()
      break;
    case Problem::kFp32Gemm: c.fp32_mlp_layer0 = true; break;
    case Problem::kNoAutocast:
      c.low = Dt::kFloat; c.autocast = false; c.scaler = false;
      break;
    case Problem::kDataLoaderStall:
      c.single_process_loader = true;
      c.loader_us = 36000 * sev;
      break;
    case Problem::kPageableH2D: c.pinned = false; c.feat = static_cast<int>(512 * std::max(1.0, sev)); break;
    case Problem::kAllocChurn: c.empty_cache = true; break;
    case Problem::kScalerSkips:
      c.silent_warmup = false;
      c.first_step = 0;
      c.skip_first = std::max(1, static_cast<int>(std::lround(5 * sev)));
      break;
    case Problem::kScalerSkipsSteady: c.skip_every = 2; break;
    case Problem::kBf16WithScaler: c.low = Dt::kBFloat16; break;
    case Problem::kFp16NoScaler:
      c.autocast = false; c.scaler = false;
      break;
    case Problem::kUnfusedElementwise: c.manual_elementwise = true; break;
    case Problem::kUnfusedOptimizer:
      c.layers = 12; c.hidden = 768; c.ffn = 3072; c.heads = 12; c.batch = 8;
      c.foreach_opt = false;
      c.fused_opt = false;
      break;
    case Problem::kExposedAllReduce:
      c.ddp = true;
      c.ddp_overlap = false;
      c.busbw_bytes_per_us = 12e3 / std::max(0.25, sev);  // ~12 GB/s: a slow inter-node link
      break;
    case Problem::kLaunchBound:
      c.layers = 4; c.batch = 4; c.seq = 256; c.hidden = 256; c.ffn = 1024; c.heads = 4; c.vocab = 1024; c.feat = 64;
      c.optimizer_python_us = 300;
      c.loader_us = 120;  // a tiny batch collates quickly
      c.log_python_us = 150;
      break;
    case Problem::kLayoutTransform:
      c.convnet = true;
      c.log_python_us = 300;  // a 16 ms step: lighter per-step logging
      break;
    case Problem::kLowTflops:
      c.ffn = 8190; c.vocab = 8191;
      c.small_tile_gemms = true;
      c.gemm_efficiency_scale = 0.25 / std::max(0.5, sev);
      break;
    case Problem::kMemoryPeak: break;     // resident bytes set once the peak is known
    case Problem::kFragmentation: break;  // reserved bytes set once the peak is known
  }
  if (o.world_size > 1 && o.problem != Problem::kExposedAllReduce) c.ddp = true;
  if (o.first_step_number >= 0) c.first_step = o.first_step_number;
  if (o.layers > 0) c.layers = o.layers;
  if (o.batch > 0) c.batch = o.batch;
  if (o.seq > 0) c.seq = o.seq;
  if (o.hidden > 0) {
    c.hidden = o.hidden;
    c.ffn = 4 * o.hidden;
    c.heads = std::max(1, o.hidden / 128);
  }
  if (!c.scaler) c.optimizer_python_us = std::min(c.optimizer_python_us, 300.0);
  return c;
}

// One trainable parameter (for the optimizer, GradScaler and DDP buckets).
struct Param {
  std::string name;
  int64_t numel = 0;
};

class StepBuilder {
 public:
  StepBuilder(Sim& sim, const Config& c) : sim_(sim), c_(c) {
    T_ = int64_t(c.batch) * c.seq;
    head_dim_ = c.hidden / std::max(1, c.heads);
    if (c.convnet) {
      RegisterConvParams();
    } else {
      RegisterTransformerParams();
    }
    int64_t total = 0;
    for (const Param& p : params_) total += p.numel;
    param_elems_ = total;
    // Parameters + AdamW states (fp32 master weights, exp_avg, exp_avg_sq) live before the trace.
    const int64_t bytes_per = c.autocast || c.low == Dt::kFloat ? 4 : 2;
    sim_.SetResidentBytes(total * bytes_per * 3, 0);
    MakeBuckets();
  }

  void RunStep(int index, int64_t number) {
    skipped_ = IsSkipped(index);
    sim_.BeginStep(number);
    sim_.SetThread(kMainThread);
    sim_.Cpu(25);
    LoadBatch();
    if (c_.convnet) {
      ConvForward();
    } else {
      TransformerForward();
    }
    Backward();
    OptimizerStep(number);
    sim_.SetThread(kMainThread);
    if (c_.empty_cache) {
      sim_.Cpu(15);
      sim_.EmptyCache();
    }
    if (c_.log_python_us > 0) {
      sim_.ItemSync(4, /*scaler=*/false);
      sim_.Cpu(c_.log_python_us);
    }
    sim_.Cpu(30);
    sim_.EndStep();
  }

  int64_t natural_peak() const { return peak_; }

 private:
  // ---- parameters -----------------------------------------------------------------
  void RegisterTransformerParams() {
    const int64_t h = c_.hidden;
    params_.push_back({"in_proj.weight", int64_t(c_.feat) * h});
    for (int l = 0; l < c_.layers; ++l) {
      const std::string p = fmt::format("layers.{}.", l);
      params_.push_back({p + "ln1.weight", h});
      params_.push_back({p + "ln1.bias", h});
      params_.push_back({p + "attn.qkv.weight", 3 * h * h});
      params_.push_back({p + "attn.proj.weight", h * h});
      params_.push_back({p + "ln2.weight", h});
      params_.push_back({p + "ln2.bias", h});
      params_.push_back({p + "mlp.fc1.weight", int64_t(c_.ffn) * h});
      params_.push_back({p + "mlp.fc2.weight", int64_t(c_.ffn) * h});
    }
    params_.push_back({"norm.weight", h});
    params_.push_back({"norm.bias", h});
    params_.push_back({"lm_head.weight", int64_t(c_.vocab) * h});
  }
  void RegisterConvParams() {
    params_.push_back({"stem.weight", 256 * 3 * 3 * 3});
    for (int l = 0; l < kConvBlocks; ++l) {
      params_.push_back({fmt::format("blocks.{}.conv.weight", l), 256 * 256 * 9});
      params_.push_back({fmt::format("blocks.{}.bn.weight", l), 256});
      params_.push_back({fmt::format("blocks.{}.bn.bias", l), 256});
    }
    params_.push_back({"fc.weight", 1000 * 256});
  }

  // DDP buckets: parameters in reverse order, 1 MiB first bucket then 25 MiB.
  void MakeBuckets() {
    if (!c_.ddp || !c_.ddp_overlap) return;
    int64_t cap = 1 << 20, cur = 0;
    bucket_of_.assign(params_.size(), 0);
    buckets_.push_back({});
    for (int i = int(params_.size()) - 1; i >= 0; --i) {
      if (cur >= cap) {
        buckets_.push_back({});
        cur = 0;
        cap = 25 << 20;
      }
      bucket_of_[i] = int(buckets_.size()) - 1;
      buckets_.back().pending++;
      buckets_.back().numel += params_[i].numel;
      cur += params_[i].numel * 4;
    }
  }

  bool IsSkipped(int index) const {
    if (!c_.scaler) return false;
    if (index >= 0 && index < c_.skip_first) return true;
    if (c_.skip_every > 0 && index % c_.skip_every == 1) return true;
    return false;
  }

  // ---- timing helpers -------------------------------------------------------------
  double GemmUs(double flops, Dt dt, bool misaligned = false) const {
    const double peak = dt == Dt::kFloat ? kFp32PeakFlops : kTcPeakFlops;
    double eff = dt == Dt::kFloat ? kSimtGemmEfficiency : kTcGemmEfficiency;
    eff *= std::min(1.0, std::pow(flops / 2e10, 0.2));  // small GEMMs fill fewer waves
    if (misaligned) eff *= c_.gemm_efficiency_scale;
    return flops / (peak * eff) * 1e6 + 3.0;
  }
  std::string GemmName(Dt dt, int kind, bool misaligned) const {
    if (dt == Dt::kFloat) return std::string(kind == 0 ? names::kGemmF32Fwd : kind == 1 ? names::kGemmF32Dgrad : names::kGemmF32Wgrad);
    if (misaligned && c_.small_tile_gemms) return std::string(names::kGemmF16SmallTile);
    if (dt == Dt::kBFloat16) return std::string(kind == 0 ? names::kGemmBf16Fwd : kind == 1 ? names::kGemmBf16Dgrad : names::kGemmBf16Wgrad);
    if (kind == 3) return std::string(names::kGemmF16Big);
    return std::string(kind == 0 ? names::kGemmF16Fwd : kind == 1 ? names::kGemmF16Dgrad : names::kGemmF16Wgrad);
  }

  // Launches one memory-bound kernel under the current op.
  void Mem(const std::string& name, double elements, double bytes) {
    sim_.Kernel(name, MemUs(bytes), ElementwiseShape(elements));
  }
  void Small(const std::string& name) { sim_.Kernel(name, 2.2, SingleThread()); }

  Sim::Block Out(int64_t bytes) {
    Sim::Block b = sim_.Alloc(bytes);
    peak_ = std::max(peak_, sim_.allocated());
    return b;
  }

  // ---- building blocks ------------------------------------------------------------
  // aten::to -> aten::_to_copy -> aten::copy_: a dtype cast of `elements` values.
  Sim::Block Cast(std::vector<int64_t> shape, Dt from, Dt to) {
    double elements = 1;
    for (int64_t d : shape) elements *= double(d);
    OpScope to_op(sim_, "aten::to", Dims({shape, {}, {}, {}, {}}), Types({TypeName(from), "ScalarType", "Scalar", "Scalar", ""}));
    sim_.Cpu(3);
    OpScope copy(sim_, "aten::_to_copy", Dims({shape, {}, {}, {}, {}}), Types({TypeName(from), "ScalarType", "", "", ""}));
    sim_.Cpu(3);
    Sim::Block out;
    {
      OpScope empty(sim_, "aten::empty_strided", Dims({{int64_t(shape.size())}, {int64_t(shape.size())}, {}, {}, {}}), Types({"", "", "ScalarType", "", ""}));
      sim_.Cpu(2);
      out = Out(int64_t(elements) * Bytes(to));
    }
    OpScope copy_(sim_, "aten::copy_", Dims({shape, shape, {}}), Types({TypeName(to), TypeName(from), "Scalar"}));
    sim_.Cpu(3);
    const std::string name = to == Dt::kFloat ? names::CastToFloat(from) : names::CastToLow(to);
    Mem(name, elements, elements * double(Bytes(from) + Bytes(to)));
    return out;
  }

  // aten::linear on [b, s, k] x [n, k]^T. Returns the output block.
  Sim::Block Linear(int64_t k, int64_t n, Dt x_dt, Dt gemm_dt, bool cast_weight, bool misaligned, std::vector<Sim::Block>* saved,
                    int gemm_kind = 0) {
    const int64_t seq = next_seq_++;
    const Dt w_dt = cast_weight ? Dt::kFloat : gemm_dt;
    OpScope linear(sim_, "aten::linear", Dims({{c_.batch, c_.seq, k}, {n, k}, {}}), Types({TypeName(x_dt), TypeName(w_dt), ""}), seq);
    sim_.Cpu(5);
    if (x_dt != gemm_dt) saved->push_back(Cast({c_.batch, c_.seq, k}, x_dt, gemm_dt));
    if (cast_weight) saved->push_back(Cast({n, k}, Dt::kFloat, gemm_dt));
    {
      OpScope t(sim_, "aten::t", Dims({{n, k}}), Types({TypeName(gemm_dt)}));
      sim_.Cpu(2);
    }
    OpScope matmul(sim_, "aten::matmul", Dims({{c_.batch, c_.seq, k}, {k, n}}), Types({TypeName(gemm_dt), TypeName(gemm_dt)}));
    sim_.Cpu(4);
    {
      OpScope view(sim_, "aten::view", Dims({{c_.batch, c_.seq, k}, {2}}), Types({TypeName(gemm_dt), ""}));
      sim_.Cpu(2);
    }
    Sim::Block out;
    {
      OpScope mm(sim_, "aten::mm", Dims({{T_, k}, {k, n}}), Types({TypeName(gemm_dt), TypeName(gemm_dt)}));
      sim_.Cpu(4);
      out = Out(T_ * n * Bytes(gemm_dt));
      const double flops = 2.0 * double(T_) * double(k) * double(n);
      sim_.Kernel(GemmName(gemm_dt, gemm_kind, misaligned), GemmUs(flops, gemm_dt, misaligned), GemmShape(double(T_), double(n)));
    }
    {
      OpScope view(sim_, "aten::_unsafe_view", Dims({{T_, n}, {3}}), Types({TypeName(gemm_dt), ""}));
      sim_.Cpu(2);
    }
    saved->push_back(out);
    return out;
  }

  void LinearBackward(int64_t k, int64_t n, Dt gemm_dt, bool cast_weight, bool act_cast, Dt act_dt, bool misaligned,
                      int weight_param) {
    const int64_t seq = next_seq_++;
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: MmBackward0", "", "", seq);
      OpScope node(sim_, "MmBackward0", "", "", seq);
      sim_.Cpu(4);
      {
        OpScope t(sim_, "aten::t", Dims({{k, n}}), Types({TypeName(gemm_dt)}));
        sim_.Cpu(2);
      }
      {
        OpScope mm(sim_, "aten::mm", Dims({{T_, n}, {n, k}}), Types({TypeName(gemm_dt), TypeName(gemm_dt)}));
        sim_.Cpu(4);
        grad_tmp_.push_back(Out(T_ * k * Bytes(gemm_dt)));
        sim_.Kernel(GemmName(gemm_dt, 1, misaligned), GemmUs(2.0 * T_ * k * n, gemm_dt, misaligned), GemmShape(double(T_), double(k)));
      }
      {
        OpScope t(sim_, "aten::t", Dims({{T_, n}}), Types({TypeName(gemm_dt)}));
        sim_.Cpu(2);
      }
      {
        OpScope mm(sim_, "aten::mm", Dims({{n, T_}, {T_, k}}), Types({TypeName(gemm_dt), TypeName(gemm_dt)}));
        sim_.Cpu(4);
        grad_tmp_.push_back(Out(n * k * Bytes(gemm_dt)));
        sim_.Kernel(GemmName(gemm_dt, 2, misaligned), GemmUs(2.0 * T_ * k * n, gemm_dt, misaligned), GemmShape(double(n), double(k)));
      }
    }
    if (cast_weight) {
      OpScope ev(sim_, "autograd::engine::evaluate_function: ToCopyBackward0", "", "", next_seq_++);
      OpScope node(sim_, "ToCopyBackward0");
      sim_.Cpu(3);
      param_grads_.push_back(Cast({n, k}, gemm_dt, Dt::kFloat));
    }
    AccumulateGrad(weight_param);
    if (act_cast) {
      OpScope ev(sim_, "autograd::engine::evaluate_function: ToCopyBackward0", "", "", next_seq_++);
      OpScope node(sim_, "ToCopyBackward0");
      sim_.Cpu(3);
      grad_tmp_.push_back(Cast({c_.batch, c_.seq, k}, gemm_dt, act_dt));
    }
    ReleaseGradTemps(4);
  }

  void AccumulateGrad(int param) {
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
      OpScope node(sim_, "torch::autograd::AccumulateGrad");
      sim_.Cpu(4);
      OpScope detach(sim_, "aten::detach", Dims({{params_[param].numel}}), Types({"float"}));
      sim_.Cpu(2);
    }
    if (!c_.ddp || !c_.ddp_overlap || param < 0) return;
    Bucket& b = buckets_[bucket_of_[param]];
    if (--b.pending == 0) AllReduceBucket(b.numel);
  }

  // DDP's reducer: the bucket is averaged and all-reduced on the NCCL stream as soon as it is ready.
  void AllReduceBucket(int64_t numel) {
    {
      OpScope div(sim_, "aten::div_", Dims({{numel}, {}}), Types({"float", "Scalar"}));
      sim_.Cpu(4);
      Mem(names::Div(Dt::kFloat), double(numel), double(numel) * 8);
    }
    LaunchAllReduce(numel);
  }

  void LaunchAllReduce(int64_t numel) {
    AnnotationScope ann(sim_, "nccl:all_reduce");
    OpScope op(sim_, "record_param_comms", Dims({{numel}}), Types({"float"}));
    sim_.Cpu(8);
    sim_.StreamWait(kNcclStream, kComputeStream);
    const double bytes = double(numel) * 4;
    const int n = std::max(2, sim_.options().world_size);
    const double us = 2.0 * (n - 1) / n * bytes / c_.busbw_bytes_per_us + 18.0;
    KernelShape s;
    s.grid[0] = 16;
    s.block[0] = 640;
    s.registers = 96;
    s.shared_bytes = 87568;
    sim_.Kernel(std::string(names::kNcclAllReduceF32), us, s, kNcclStream, 0, numel);
  }

  void ReleaseGradTemps(size_t keep) {
    while (grad_tmp_.size() > keep) {
      sim_.Free(grad_tmp_.front());
      grad_tmp_.erase(grad_tmp_.begin());
    }
  }

  // A python-level guard: torch.isnan(x).any().item() (one host-device sync).
  void Guard(int64_t elements, Dt dt) {
    sim_.Cpu(6);
    {
      OpScope isnan(sim_, "aten::isnan", Dims({{elements}}), Types({TypeName(dt)}));
      OpScope ne(sim_, "aten::ne", Dims({{elements}, {elements}}), Types({TypeName(dt), TypeName(dt)}));
      sim_.Cpu(3);
      grad_tmp_.push_back(Out(elements));
      Mem(names::CompareNe(dt), double(elements), double(elements) * (Bytes(dt) + 1));
    }
    {
      OpScope any(sim_, "aten::any", Dims({{elements}}), Types({"bool"}));
      sim_.Cpu(4);
      sim_.Kernel(names::ReduceAnyBool(), MemUs(double(elements)), ReduceShape(1024));
    }
    ReleaseGradTemps(0);
    sim_.ItemSync(1, /*scaler=*/false);
    sim_.CpuExact(c_.guard_python_us);  // host work on the value (logging, bookkeeping)
  }

  // ---- input ----------------------------------------------------------------------
  void LoadBatch() {
    const std::string loader = c_.single_process_loader ? "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
                                                        : "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
    {
      AnnotationScope dl(sim_, loader);
      if (c_.single_process_loader) {
        sim_.CpuExact(c_.loader_us * sim_.rng().Jitter(0.04));  // decoding + collate in the main process
      } else {
        sim_.Cpu(c_.loader_us);  // fetch an already prefetched batch from the worker queue
      }
    }
    sim_.Cpu(12);
    std::vector<int64_t> in_shape = c_.convnet ? std::vector<int64_t>{kConvBatch, 3, kImage, kImage}
                                               : std::vector<int64_t>{c_.batch, c_.seq, c_.feat};
    int64_t in_elems = 1;
    for (int64_t d : in_shape) in_elems *= d;
    input_ = CopyToDevice(in_shape, in_elems * 4, "float");
    labels_ = CopyToDevice(c_.convnet ? std::vector<int64_t>{kConvBatch} : std::vector<int64_t>{c_.batch, c_.seq},
                           (c_.convnet ? kConvBatch : T_) * 8, "long int");
  }

  Sim::Block CopyToDevice(const std::vector<int64_t>& shape, int64_t bytes, const char* type) {
    OpScope to(sim_, "aten::to", Dims({shape, {}, {}, {}, {}, {}}), Types({type, "", "ScalarType", "", "", ""}));
    sim_.Cpu(3);
    OpScope copy(sim_, "aten::_to_copy", Dims({shape, {}, {}, {}, {}, {}}), Types({type, "", "", "Device", "", ""}));
    sim_.Cpu(3);
    Sim::Block out;
    {
      OpScope empty(sim_, "aten::empty_strided", Dims({{int64_t(shape.size())}, {int64_t(shape.size())}, {}, {}, {}}), Types({"", "", "ScalarType", "", ""}));
      sim_.Cpu(2);
      out = Out(bytes);
    }
    OpScope copy_(sim_, "aten::copy_", Dims({shape, shape, {}}), Types({type, type, "Scalar"}));
    sim_.Cpu(3);
    sim_.MemcpyH2D(static_cast<uint64_t>(bytes), c_.pinned);
    return out;
  }

  // ---- transformer ----------------------------------------------------------------
  struct LayerSaved {
    std::vector<Sim::Block> blocks;
  };

  Dt Compute() const { return c_.low; }
  // dtype of the residual stream: fp32 under autocast, else the model dtype.
  Dt Residual() const { return c_.autocast ? Dt::kFloat : c_.low; }

  void LayerNormFwd(Dt dt, std::vector<Sim::Block>* saved, int64_t seq) {
    const int64_t h = c_.hidden;
    OpScope ln(sim_, "aten::layer_norm", Dims({{c_.batch, c_.seq, h}, {1}, {h}, {h}, {}, {}}), Types({TypeName(dt), "", TypeName(dt), TypeName(dt), "Scalar", "Scalar"}), seq);
    sim_.Cpu(4);
    OpScope native(sim_, "aten::native_layer_norm", Dims({{c_.batch, c_.seq, h}, {1}, {h}, {h}, {}}), Types({TypeName(dt), "", TypeName(dt), TypeName(dt), "Scalar"}));
    sim_.Cpu(4);
    saved->push_back(Out(T_ * h * Bytes(dt)));
    Mem(names::LayerNormFwd(dt), double(T_ * h), double(T_ * h) * 2 * Bytes(dt));
  }

  void RmsNormManualFwd(Dt dt, std::vector<Sim::Block>* saved) {
    const int64_t h = c_.hidden;
    const double e = double(T_ * h);
    const double tb = e * Bytes(dt);
    auto op = [&](const char* name, const std::string& kernel, double bytes, bool reduce = false) {
      OpScope o(sim_, name, Dims({{c_.batch, c_.seq, h}}), Types({TypeName(dt)}), next_seq_++);
      sim_.Cpu(5);
      saved->push_back(Out(int64_t(reduce ? T_ * Bytes(dt) : tb)));
      if (reduce) {
        sim_.Kernel(kernel, MemUs(bytes), ReduceShape(double(T_)));
      } else {
        Mem(kernel, e, bytes);
      }
      sim_.Cpu(4);  // Python between the ops
    };
    op("aten::pow", names::Pow(dt), 2 * tb);
    op("aten::mean", names::ReduceMean(dt), tb, true);
    op("aten::add", names::Add(dt), double(T_) * 3 * Bytes(dt));
    op("aten::rsqrt", names::Rsqrt(dt), double(T_) * 2 * Bytes(dt));
    op("aten::mul", names::Mul(dt), 3 * tb);
    op("aten::mul", names::Mul(dt), 3 * tb);
  }

  void GeluFwd(Dt dt, std::vector<Sim::Block>* saved) {
    const int64_t f = c_.ffn;
    const double e = double(T_ * f);
    const double tb = e * Bytes(dt);
    if (!c_.manual_elementwise) {
      OpScope g(sim_, "aten::gelu", Dims({{c_.batch, c_.seq, f}, {}}), Types({TypeName(dt), ""}), next_seq_++);
      sim_.Cpu(5);
      saved->push_back(Out(int64_t(tb)));
      Mem(names::Gelu(dt), e, 2 * tb);
      return;
    }
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): eight passes over [T, ffn].
    const std::pair<const char*, std::string> ops[] = {
        {"aten::pow", names::Pow(dt)},    {"aten::mul", names::MulScalar(dt)}, {"aten::add", names::Add(dt)},
        {"aten::mul", names::MulScalar(dt)}, {"aten::tanh", names::Tanh(dt)},  {"aten::add", names::MulScalar(dt)},
        {"aten::mul", names::Mul(dt)},    {"aten::mul", names::MulScalar(dt)}};
    for (const auto& [op, kernel] : ops) {
      OpScope o(sim_, op, Dims({{c_.batch, c_.seq, f}, {}}), Types({TypeName(dt), "Scalar"}), next_seq_++);
      sim_.Cpu(5);
      saved->push_back(Out(int64_t(tb)));
      const bool binary = kernel.find("std::array<char*, 3ul>") != std::string::npos;
      Mem(kernel, e, (binary ? 3 : 2) * tb);
      sim_.Cpu(3);
    }
  }

  void ResidualAdd(Dt branch_dt, std::vector<Sim::Block>* saved) {
    const int64_t h = c_.hidden;
    const Dt r = Residual();
    OpScope add(sim_, "aten::add", Dims({{c_.batch, c_.seq, h}, {c_.batch, c_.seq, h}, {}}), Types({TypeName(r), TypeName(branch_dt), "Scalar"}), next_seq_++);
    sim_.Cpu(5);
    saved->push_back(Out(T_ * h * Bytes(r)));
    const double e = double(T_ * h);
    if (r != branch_dt) {
      Mem(names::ResidualAddMixed(), e, e * (Bytes(r) * 2 + Bytes(branch_dt)));
    } else {
      Mem(names::Add(r), e, e * 3 * Bytes(r));
    }
  }

  void Attention(Dt dt, std::vector<Sim::Block>* saved) {
    const int64_t h = c_.hidden, d = head_dim_;
    OpScope sdpa(sim_, "aten::scaled_dot_product_attention",
                 Dims({{c_.batch, c_.heads, c_.seq, d}, {c_.batch, c_.heads, c_.seq, d}, {c_.batch, c_.heads, c_.seq, d}, {}, {}, {}, {}}),
                 Types({TypeName(dt), TypeName(dt), TypeName(dt), "", "Scalar", "Scalar", ""}), next_seq_++);
    sim_.Cpu(8);
    // Causal self-attention: 4 * b * heads * s^2 * d FLOPs, half of them masked out.
    const double flops = 4.0 * c_.batch * c_.heads * double(c_.seq) * c_.seq * d / 2.0;
    saved->push_back(Out(T_ * h * Bytes(dt)));
    if (dt == Dt::kFloat) {
      OpScope eff(sim_, "aten::_scaled_dot_product_efficient_attention", "", "");
      sim_.Cpu(6);
      OpScope fwd(sim_, "aten::_efficient_attention_forward", "", "");
      sim_.Cpu(6);
      sim_.Kernel(std::string(names::kMemEffFwdF32), flops / (kFp32PeakFlops * 0.7) * 1e6, GemmShape(double(c_.seq), double(c_.batch * c_.heads * 64)));
      return;
    }
    OpScope flash(sim_, "aten::_scaled_dot_product_flash_attention",
                  Dims({{c_.batch, c_.heads, c_.seq, d}, {c_.batch, c_.heads, c_.seq, d}, {c_.batch, c_.heads, c_.seq, d}, {}, {}, {}, {}}),
                  Types({TypeName(dt), TypeName(dt), TypeName(dt), "Scalar", "Scalar", "Scalar", ""}));
    sim_.Cpu(6);
    OpScope fwd(sim_, "aten::_flash_attention_forward", "", "");
    sim_.Cpu(8);
    KernelShape s;
    s.grid[0] = Clamp32(c_.seq / 128.0);
    s.grid[1] = c_.batch;
    s.grid[2] = c_.heads;
    s.block[0] = 128;
    s.registers = 255;
    s.shared_bytes = 49152;
    sim_.Kernel(names::FlashFwd(dt, int(d)), flops / (kTcPeakFlops * 0.55) * 1e6 + 4.0, s);
  }

  void TransformerForward() {
    layers_.assign(c_.layers, {});
    head_saved_.clear();
    const Dt g = Compute();
    const Dt r = Residual();
    const bool cast_w = c_.autocast && g != Dt::kFloat;
    sim_.Cpu(20);
    if (c_.ddp) sim_.BeginAnnotation("DistributedDataParallel.forward");
    // input projection: features (fp32) -> hidden
    Dt in_dt = Dt::kFloat;
    if (!c_.autocast && c_.low != Dt::kFloat) {
      // model.half(): the fp32 input itself is cast by the user (x.half()).
      head_saved_.push_back(Cast({c_.batch, c_.seq, c_.feat}, Dt::kFloat, c_.low));
      in_dt = c_.low;
    }
    Linear(c_.feat, c_.hidden, in_dt, g, cast_w, false, &head_saved_);
    for (int l = 0; l < c_.layers; ++l) {
      auto* sv = &layers_[l].blocks;
      const bool fp32_mlp = c_.fp32_mlp_layer0 && l == 0;
      sim_.Cpu(10);
      if (c_.manual_elementwise) {
        RmsNormManualFwd(r, sv);
      } else {
        LayerNormFwd(r, sv, next_seq_++);
      }
      Linear(c_.hidden, 3 * c_.hidden, r, g, cast_w, false, sv);
      Attention(g, sv);
      Linear(c_.hidden, c_.hidden, g, g, cast_w, false, sv);
      ResidualAdd(g, sv);
      if (c_.guards) Guard(T_ * c_.hidden, r);
      sim_.Cpu(8);
      if (c_.manual_elementwise) {
        RmsNormManualFwd(r, sv);
      } else {
        LayerNormFwd(r, sv, next_seq_++);
      }
      const Dt mlp = fp32_mlp ? Dt::kFloat : g;
      const bool mlp_cast_w = cast_w && !fp32_mlp;
      Linear(c_.hidden, c_.ffn, r, mlp, mlp_cast_w, c_.ffn % 8 != 0, sv, 3);
      GeluFwd(mlp, sv);
      Linear(c_.ffn, c_.hidden, mlp, mlp, mlp_cast_w, c_.ffn % 8 != 0, sv);
      ResidualAdd(mlp, sv);
      if (c_.guards) Guard(T_ * c_.hidden, r);
    }
    if (c_.ddp) sim_.End();
    // final norm, LM head, cross-entropy (log_softmax + nll_loss; fp32 under autocast)
    sim_.Cpu(10);
    LayerNormFwd(r, &head_saved_, next_seq_++);
    Linear(c_.hidden, c_.vocab, r, g, cast_w, c_.vocab % 8 != 0, &head_saved_);
    const Dt loss_dt = c_.autocast ? Dt::kFloat : c_.low;
    sim_.Cpu(15);
    {
      OpScope ce(sim_, "aten::cross_entropy_loss", Dims({{T_, c_.vocab}, {T_}, {}, {}, {}, {}}), Types({TypeName(g), "long int", "", "Scalar", "Scalar", "Scalar"}));
      sim_.Cpu(5);
      const double e = double(T_) * c_.vocab;
      {
        OpScope ls(sim_, "aten::log_softmax", Dims({{T_, c_.vocab}, {}, {}}), Types({TypeName(g), "Scalar", "ScalarType"}), next_seq_++);
        sim_.Cpu(4);
        if (loss_dt != g) head_saved_.push_back(Cast({T_, c_.vocab}, g, loss_dt));
        OpScope ls2(sim_, "aten::_log_softmax", Dims({{T_, c_.vocab}, {}, {}}), Types({TypeName(loss_dt), "Scalar", "Scalar"}));
        sim_.Cpu(4);
        head_saved_.push_back(Out(int64_t(e) * Bytes(loss_dt)));
        sim_.Kernel(names::LogSoftmaxFwd(loss_dt), MemUs(e * 2 * Bytes(loss_dt)), ReduceShape(double(T_)));
      }
      {
        OpScope nll(sim_, "aten::nll_loss_nd", Dims({{T_, c_.vocab}, {T_}, {}, {}, {}}), Types({TypeName(loss_dt), "long int", "", "Scalar", "Scalar"}), next_seq_++);
        OpScope nll2(sim_, "aten::nll_loss", Dims({{T_, c_.vocab}, {T_}, {}, {}, {}}), Types({TypeName(loss_dt), "long int", "", "Scalar", "Scalar"}));
        OpScope nll3(sim_, "aten::nll_loss_forward", Dims({{T_, c_.vocab}, {T_}, {}, {}, {}}), Types({TypeName(loss_dt), "long int", "", "Scalar", "Scalar"}));
        sim_.Cpu(6);
        head_saved_.push_back(Out(8));
        sim_.Kernel(names::NllLossFwd(loss_dt), MemUs(double(T_) * 12), ReduceShape(1));
      }
    }
    if (c_.scaler) {
      OpScope mul(sim_, "aten::mul", Dims({{}, {}}), Types({"float", "float"}), next_seq_++);
      sim_.Cpu(4);
      Small(names::Mul(Dt::kFloat));
    }
    if (c_.guards) {
      sim_.ItemSync(4, false);  // loss.item() for the progress bar
      sim_.CpuExact(c_.guard_python_us);
    }
  }

  // The backward of one transformer block, on the autograd thread.
  void TransformerLayerBackward(int l) {
    const Dt g = Compute();
    const Dt r = Residual();
    const bool cast_w = c_.autocast && g != Dt::kFloat;
    const bool fp32_mlp = c_.fp32_mlp_layer0 && l == 0;
    const Dt mlp = fp32_mlp ? Dt::kFloat : g;
    const bool mlp_cast_w = cast_w && !fp32_mlp;
    const int64_t h = c_.hidden, f = c_.ffn;
    const double eh = double(T_ * h), ef = double(T_ * f);
    const int base = 1 + l * 8;  // parameter index of layers.l.ln1.weight
    // residual add 2: the grad for the MLP branch is cast back to its dtype
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: AddBackward0", "", "", next_seq_++);
      OpScope node(sim_, "AddBackward0");
      sim_.Cpu(3);
      if (r != mlp) {
        OpScope to(sim_, "aten::to", Dims({{c_.batch, c_.seq, h}}), Types({TypeName(r)}));
        grad_tmp_.push_back(Out(T_ * h * Bytes(mlp)));
        Mem(names::CastToLow(mlp), eh, eh * (Bytes(r) + Bytes(mlp)));
      }
    }
    LinearBackward(f, h, mlp, mlp_cast_w, false, mlp, f % 8 != 0, base + 7);
    if (c_.manual_elementwise) {
      ManualGeluBackward(mlp);
    } else {
      OpScope ev(sim_, "autograd::engine::evaluate_function: GeluBackward0", "", "", next_seq_++);
      OpScope node(sim_, "GeluBackward0");
      OpScope gb(sim_, "aten::gelu_backward", Dims({{c_.batch, c_.seq, f}, {c_.batch, c_.seq, f}, {}}), Types({TypeName(mlp), TypeName(mlp), ""}));
      sim_.Cpu(4);
      grad_tmp_.push_back(Out(int64_t(ef) * Bytes(mlp)));
      Mem(names::GeluBackward(mlp), ef, ef * 3 * Bytes(mlp));
    }
    LinearBackward(h, f, mlp, mlp_cast_w, r != mlp, r, f % 8 != 0, base + 6);
    NormBackward(r, base + 4);
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: AddBackward0", "", "", next_seq_++);
      OpScope node(sim_, "AddBackward0");
      sim_.Cpu(3);
      if (r != g) {
        OpScope to(sim_, "aten::to", Dims({{c_.batch, c_.seq, h}}), Types({TypeName(r)}));
        grad_tmp_.push_back(Out(T_ * h * Bytes(g)));
        Mem(names::CastToLow(g), eh, eh * (Bytes(r) + Bytes(g)));
      }
    }
    if (c_.guards) Guard(T_ * h, g);  // backward hook on the attention block
    LinearBackward(h, h, g, cast_w, false, g, false, base + 3);
    AttentionBackward(g);
    LinearBackward(h, 3 * h, g, cast_w, r != g, r, false, base + 2);
    NormBackward(r, base);
    if (c_.guards) Guard(T_ * h, r);  // backward hook on the block input
    ReleaseGradTemps(2);
  }

  void NormBackward(Dt dt, int weight_param) {
    const int64_t h = c_.hidden;
    const double eh = double(T_ * h);
    if (c_.manual_elementwise) {
      // autograd of pow / mean / add / rsqrt / mul / mul: one kernel per derivative term
      OpScope ev(sim_, "autograd::engine::evaluate_function: MulBackward0", "", "", next_seq_++);
      OpScope node(sim_, "MulBackward0");
      const std::string kernels[] = {names::Mul(dt), names::Mul(dt), names::ReduceSum(dt), names::Mul(dt), names::MulScalar(dt),
                                     names::Pow(dt), names::Mul(dt), names::Add(dt)};
      for (const std::string& k : kernels) {
        OpScope o(sim_, "aten::mul", Dims({{c_.batch, c_.seq, h}, {c_.batch, c_.seq, h}}), Types({TypeName(dt), TypeName(dt)}));
        sim_.Cpu(4);
        grad_tmp_.push_back(Out(int64_t(eh) * Bytes(dt)));
        if (k.find("reduce_kernel") != std::string::npos) {
          sim_.Kernel(k, MemUs(eh * Bytes(dt)), ReduceShape(double(h)));
        } else {
          Mem(k, eh, eh * 3 * Bytes(dt));
        }
        ReleaseGradTemps(3);
      }
    } else {
      OpScope ev(sim_, "autograd::engine::evaluate_function: NativeLayerNormBackward0", "", "", next_seq_++);
      OpScope node(sim_, "NativeLayerNormBackward0");
      OpScope lnb(sim_, "aten::native_layer_norm_backward",
                  Dims({{c_.batch, c_.seq, h}, {c_.batch, c_.seq, h}, {1}, {c_.batch, c_.seq, 1}, {c_.batch, c_.seq, 1}, {h}, {h}, {}}),
                  Types({TypeName(dt), TypeName(dt), "", "float", "float", TypeName(dt), TypeName(dt), ""}));
      sim_.Cpu(6);
      grad_tmp_.push_back(Out(int64_t(eh) * Bytes(dt)));
      Mem(names::LayerNormBwdInput(dt), eh, eh * 3 * Bytes(dt));
      KernelShape gb;
      gb.grid[0] = Clamp32(h / 32.0);
      gb.block[0] = 32;
      gb.block[1] = 32;
      gb.registers = 64;
      gb.shared_bytes = 8448;
      sim_.Kernel(names::LayerNormBwdGammaBeta(dt), MemUs(eh * 2 * Bytes(dt)), gb);
    }
    // The residual stream's gradient from both branches is accumulated (InputBuffer::add).
    {
      OpScope add(sim_, "aten::add", Dims({{c_.batch, c_.seq, h}, {c_.batch, c_.seq, h}, {}}), Types({TypeName(dt), TypeName(dt), "Scalar"}));
      sim_.Cpu(3);
      Mem(names::Add(dt), eh, eh * 3 * Bytes(dt));
    }
    AccumulateGrad(weight_param);
    AccumulateGrad(weight_param + 1);
    ReleaseGradTemps(3);
  }

  void ManualGeluBackward(Dt dt) {
    const int64_t f = c_.ffn;
    const double ef = double(T_ * f);
    const std::string kernels[] = {names::Mul(dt),  names::Mul(dt),      names::Tanh(dt), names::Mul(dt), names::MulScalar(dt),
                                   names::Pow(dt),  names::MulScalar(dt), names::Mul(dt),  names::Add(dt), names::Add(dt)};
    OpScope ev(sim_, "autograd::engine::evaluate_function: MulBackward0", "", "", next_seq_++);
    OpScope node(sim_, "MulBackward0");
    for (const std::string& k : kernels) {
      OpScope o(sim_, "aten::mul", Dims({{c_.batch, c_.seq, f}, {c_.batch, c_.seq, f}}), Types({TypeName(dt), TypeName(dt)}));
      sim_.Cpu(4);
      grad_tmp_.push_back(Out(int64_t(ef) * Bytes(dt)));
      Mem(k, ef, ef * 3 * Bytes(dt));
      ReleaseGradTemps(3);
    }
  }

  void AttentionBackward(Dt dt) {
    const int64_t d = head_dim_;
    OpScope ev(sim_, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0", "", "", next_seq_++);
    OpScope node(sim_, dt == Dt::kFloat ? "ScaledDotProductEfficientAttentionBackward0" : "ScaledDotProductFlashAttentionBackward0");
    sim_.Cpu(6);
    const double flops = 2.5 * 4.0 * c_.batch * c_.heads * double(c_.seq) * c_.seq * d / 2.0;
    grad_tmp_.push_back(Out(3 * T_ * c_.hidden * Bytes(dt)));
    if (dt == Dt::kFloat) {
      OpScope b(sim_, "aten::_efficient_attention_backward", "", "");
      sim_.Cpu(6);
      sim_.Kernel(std::string(names::kMemEffBwdF32), flops / (kFp32PeakFlops * 0.6) * 1e6, GemmShape(double(c_.seq), double(c_.batch * c_.heads * 64)));
      return;
    }
    OpScope b(sim_, "aten::_scaled_dot_product_flash_attention_backward", "", "");
    sim_.Cpu(5);
    OpScope b2(sim_, "aten::_flash_attention_backward", "", "");
    sim_.Cpu(8);
    KernelShape s;
    s.grid[0] = Clamp32(c_.seq / 128.0);
    s.grid[1] = c_.batch;
    s.grid[2] = c_.heads;
    s.block[0] = 256;
    s.registers = 255;
    s.shared_bytes = 98304;
    const double eh = double(T_ * c_.hidden);
    sim_.Kernel(names::FlashBwdDot(dt, int(d)), MemUs(eh * 2 * Bytes(dt) + double(T_) * c_.heads * 4), ElementwiseShape(eh / 8));
    sim_.Kernel(names::FlashBwdMain(dt, int(d)), flops / (kTcPeakFlops * 0.45) * 1e6 + 6.0, s);
    sim_.Kernel(names::FlashBwdConvert(dt, int(d)), MemUs(eh * (4 + Bytes(dt))), ElementwiseShape(eh / 8));
  }

  void TransformerBackward() {
    const Dt g = Compute();
    const Dt r = Residual();
    const bool cast_w = c_.autocast && g != Dt::kFloat;
    const Dt loss_dt = c_.autocast ? Dt::kFloat : c_.low;
    const double e = double(T_) * c_.vocab;
    // torch.autograd.backward: grad of the (scaled) loss
    {
      OpScope ones(sim_, "aten::ones_like", Dims({{}, {}, {}, {}, {}, {}}), Types({"float", "", "", "", "", ""}));
      sim_.Cpu(4);
      Small(names::Fill(Dt::kFloat));
    }
    StartAutograd();
    if (c_.scaler) {
      OpScope ev(sim_, "autograd::engine::evaluate_function: MulBackward0", "", "", next_seq_++);
      OpScope node(sim_, "MulBackward0");
      OpScope mul(sim_, "aten::mul", Dims({{}, {}}), Types({"float", "float"}));
      sim_.Cpu(3);
      Small(names::Mul(Dt::kFloat));
    }
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: NllLossBackward0", "", "", next_seq_++);
      OpScope node(sim_, "NllLossBackward0");
      OpScope nb(sim_, "aten::nll_loss_backward", Dims({{}, {T_, c_.vocab}, {T_}, {}, {}, {}, {}}), Types({TypeName(loss_dt), TypeName(loss_dt), "long int", "", "Scalar", "Scalar", TypeName(loss_dt)}));
      sim_.Cpu(5);
      grad_tmp_.push_back(Out(int64_t(e) * Bytes(loss_dt)));
      {
        OpScope z(sim_, "aten::zero_", Dims({{T_, c_.vocab}}), Types({TypeName(loss_dt)}));
        sim_.Cpu(3);
        sim_.MemsetAsync(static_cast<uint64_t>(e * Bytes(loss_dt)));  // contiguous zero_: cudaMemsetAsync
      }
      sim_.Kernel(names::NllLossBwd(loss_dt), MemUs(double(T_) * 16), ReduceShape(double(T_)));
    }
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: LogSoftmaxBackward0", "", "", next_seq_++);
      OpScope node(sim_, "LogSoftmaxBackward0");
      OpScope lb(sim_, "aten::_log_softmax_backward_data", Dims({{T_, c_.vocab}, {T_, c_.vocab}, {}, {}}), Types({TypeName(loss_dt), TypeName(loss_dt), "Scalar", "Scalar"}));
      sim_.Cpu(5);
      grad_tmp_.push_back(Out(int64_t(e) * Bytes(loss_dt)));
      sim_.Kernel(names::LogSoftmaxBwd(loss_dt), MemUs(e * 3 * Bytes(loss_dt)), ReduceShape(double(T_)));
    }
    if (loss_dt != g) {
      OpScope ev(sim_, "autograd::engine::evaluate_function: ToCopyBackward0", "", "", next_seq_++);
      OpScope node(sim_, "ToCopyBackward0");
      sim_.Cpu(3);
      grad_tmp_.push_back(Cast({T_, c_.vocab}, loss_dt, g));
    }
    ReleaseGradTemps(1);
    const int lm_head = int(params_.size()) - 1;
    LinearBackward(c_.hidden, c_.vocab, g, cast_w, r != g, r, c_.vocab % 8 != 0, lm_head);
    NormBackward(r, lm_head - 2);
    for (int l = c_.layers - 1; l >= 0; --l) {
      TransformerLayerBackward(l);
      for (const Sim::Block& b : layers_[l].blocks) sim_.Free(b);
      layers_[l].blocks.clear();
    }
    LinearBackward(c_.feat, c_.hidden, c_.autocast ? g : c_.low, cast_w, false, Dt::kFloat, false, 0);
    ReleaseGradTemps(0);
    for (const Sim::Block& b : head_saved_) sim_.Free(b);
    head_saved_.clear();
  }

  // ---- a small fp16 NCHW CNN (for the layout-transform scenario) ------------------
  static constexpr int kConvBlocks = 8;
  static constexpr int64_t kConvBatch = 64;
  static constexpr int64_t kImage = 64;
  static constexpr int64_t kChannels = 256;
  static constexpr int64_t kSpatial = 32;

  void ConvForward() {
    layers_.assign(kConvBlocks + 1, {});
    head_saved_.clear();
    const int64_t n = kConvBatch, cch = kChannels, hw = kSpatial;
    const double act = double(n * cch * hw * hw);
    sim_.Cpu(20);
    auto conv = [&](int64_t cin, int64_t in_hw, std::vector<Sim::Block>* sv, bool first) {
      const int64_t seq = next_seq_++;
      OpScope c2d(sim_, "aten::conv2d", Dims({{n, cin, in_hw, in_hw}, {cch, cin, 3, 3}, {}, {}, {}, {}, {}}),
                  Types({first ? "float" : "c10::Half", "float", "", "", "", "", "Scalar"}), seq);
      sim_.Cpu(6);
      if (first) sv->push_back(Cast({n, cin, in_hw, in_hw}, Dt::kFloat, Dt::kHalf));
      sv->push_back(Cast({cch, cin, 3, 3}, Dt::kFloat, Dt::kHalf));
      OpScope cv(sim_, "aten::convolution", Dims({{n, cin, in_hw, in_hw}, {cch, cin, 3, 3}}), Types({"c10::Half", "c10::Half"}));
      OpScope cv2(sim_, "aten::_convolution", Dims({{n, cin, in_hw, in_hw}, {cch, cin, 3, 3}}), Types({"c10::Half", "c10::Half"}));
      OpScope cu(sim_, "aten::cudnn_convolution", Dims({{n, cin, in_hw, in_hw}, {cch, cin, 3, 3}, {}, {}, {}, {}, {}, {}, {}}),
                 Types({"c10::Half", "c10::Half", "", "", "", "Scalar", "Scalar", "Scalar", "Scalar"}));
      sim_.Cpu(12);
      const double in_elems = double(n * cin * in_hw * in_hw);
      sv->push_back(Out(int64_t(act) * 2));
      // NCHW tensors on an NHWC-only xmma kernel: cuDNN transposes in and out.
      Mem(std::string(names::kNchwToNhwc), in_elems, in_elems * 4);
      Mem(std::string(names::kNchwToNhwc), double(cch * cin * 9), double(cch * cin * 9) * 4);
      const double flops = 2.0 * n * hw * hw * cch * cin * 9;
      sim_.Kernel(std::string(names::kConvFprop), flops / (kTcPeakFlops * 0.62) * 1e6 + 4, GemmShape(double(n * hw * hw), double(cch)));
      Mem(std::string(names::kNhwcToNchw), act, act * 4);
    };
    conv(3, kImage, &layers_[0].blocks, true);
    for (int l = 0; l < kConvBlocks; ++l) {
      auto* sv = &layers_[l + 1].blocks;
      if (l > 0) conv(cch, hw, sv, false);
      {
        OpScope bn(sim_, "aten::batch_norm", Dims({{n, cch, hw, hw}, {cch}, {cch}, {cch}, {cch}, {}, {}, {}, {}}), Types({"c10::Half", "float", "float", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar"}), next_seq_++);
        OpScope cbn(sim_, "aten::cudnn_batch_norm", Dims({{n, cch, hw, hw}, {cch}, {cch}, {cch}, {cch}, {}, {}, {}}), Types({"c10::Half", "float", "float", "float", "float", "Scalar", "Scalar", "Scalar"}));
        sim_.Cpu(10);
        sv->push_back(Out(int64_t(act) * 2));
        sim_.Kernel(std::string(names::kBnFwd), MemUs(act * 2 * 2 * 1.5), ReduceShape(double(cch)));
      }
      {
        OpScope relu(sim_, "aten::relu_", Dims({{n, cch, hw, hw}}), Types({"c10::Half"}), next_seq_++);
        OpScope clamp(sim_, "aten::clamp_min_", Dims({{n, cch, hw, hw}, {}}), Types({"c10::Half", "Scalar"}));
        sim_.Cpu(5);
        Mem(names::ReluClamp(Dt::kHalf), act, act * 4);
      }
    }
    {
      OpScope pool(sim_, "aten::adaptive_avg_pool2d", Dims({{n, cch, hw, hw}, {2}}), Types({"c10::Half", ""}), next_seq_++);
      sim_.Cpu(8);
      head_saved_.push_back(Out(n * cch * 2));
      sim_.Kernel(names::AdaptiveAvgPool(Dt::kHalf), MemUs(act * 2), ReduceShape(double(n * cch)));
    }
    {
      const int64_t seq = next_seq_++;
      OpScope lin(sim_, "aten::linear", Dims({{n, cch}, {1000, cch}, {1000}}), Types({"c10::Half", "float", "float"}), seq);
      sim_.Cpu(5);
      head_saved_.push_back(Cast({1000, cch}, Dt::kFloat, Dt::kHalf));
      head_saved_.push_back(Cast({1000}, Dt::kFloat, Dt::kHalf));
      OpScope addmm(sim_, "aten::addmm", Dims({{1000}, {n, cch}, {cch, 1000}, {}, {}}), Types({"c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"}));
      sim_.Cpu(5);
      head_saved_.push_back(Out(n * 1000 * 2));
      sim_.Kernel(std::string(names::kGemmF16SmallTile), GemmUs(2.0 * n * cch * 1000, Dt::kHalf), GemmShape(double(n), 1000));
    }
    {
      OpScope ce(sim_, "aten::cross_entropy_loss", Dims({{n, 1000}, {n}, {}, {}, {}, {}}), Types({"c10::Half", "long int", "", "Scalar", "Scalar", "Scalar"}));
      OpScope ls(sim_, "aten::log_softmax", Dims({{n, 1000}, {}, {}}), Types({"c10::Half", "Scalar", "ScalarType"}), next_seq_++);
      sim_.Cpu(4);
      head_saved_.push_back(Cast({n, 1000}, Dt::kHalf, Dt::kFloat));
      sim_.Kernel(names::LogSoftmaxFwd(Dt::kFloat), MemUs(double(n) * 1000 * 8), ReduceShape(double(n)));
      OpScope nll(sim_, "aten::nll_loss_nd", Dims({{n, 1000}, {n}, {}, {}, {}}), Types({"float", "long int", "", "Scalar", "Scalar"}), next_seq_++);
      sim_.Cpu(5);
      sim_.Kernel(names::NllLossFwd(Dt::kFloat), MemUs(double(n) * 12), ReduceShape(1));
    }
    OpScope mul(sim_, "aten::mul", Dims({{}, {}}), Types({"float", "float"}), next_seq_++);
    sim_.Cpu(4);
    Small(names::Mul(Dt::kFloat));
  }

  void ConvBackward() {
    const int64_t n = kConvBatch, cch = kChannels, hw = kSpatial;
    const double act = double(n * cch * hw * hw);
    {
      OpScope ones(sim_, "aten::ones_like", Dims({{}, {}, {}, {}, {}, {}}), Types({"float", "", "", "", "", ""}));
      sim_.Cpu(4);
      Small(names::Fill(Dt::kFloat));
    }
    StartAutograd();
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: NllLossBackward0", "", "", next_seq_++);
      OpScope nb(sim_, "aten::nll_loss_backward", Dims({{}, {n, 1000}, {n}, {}, {}, {}, {}}), Types({"float", "float", "long int", "", "Scalar", "Scalar", "float"}));
      sim_.Cpu(5);
      Mem(names::Fill(Dt::kFloat), double(n) * 1000, double(n) * 4000);
      sim_.Kernel(names::NllLossBwd(Dt::kFloat), MemUs(double(n) * 16), ReduceShape(double(n)));
    }
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: LogSoftmaxBackward0", "", "", next_seq_++);
      sim_.Cpu(5);
      sim_.Kernel(names::LogSoftmaxBwd(Dt::kFloat), MemUs(double(n) * 1000 * 12), ReduceShape(double(n)));
    }
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: AddmmBackward0", "", "", next_seq_++);
      sim_.Cpu(5);
      {
        OpScope mm(sim_, "aten::mm", Dims({{n, 1000}, {1000, cch}}), Types({"c10::Half", "c10::Half"}));
        sim_.Cpu(4);
        sim_.Kernel(std::string(names::kGemmF16SmallTile), GemmUs(2.0 * n * cch * 1000, Dt::kHalf), GemmShape(double(n), double(cch)));
      }
      {
        OpScope mm(sim_, "aten::mm", Dims({{1000, n}, {n, cch}}), Types({"c10::Half", "c10::Half"}));
        sim_.Cpu(4);
        sim_.Kernel(std::string(names::kGemmF16SmallTile), GemmUs(2.0 * n * cch * 1000, Dt::kHalf), GemmShape(1000, double(cch)));
      }
      OpScope sum(sim_, "aten::sum", Dims({{n, 1000}, {1}, {}, {}}), Types({"c10::Half", "", "Scalar", ""}));
      sim_.Cpu(4);
      sim_.Kernel(names::ReduceSum(Dt::kHalf), MemUs(double(n) * 2000), ReduceShape(1000));
    }
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: ToCopyBackward0", "", "", next_seq_++);
      grad_tmp_.push_back(Cast({1000, cch}, Dt::kHalf, Dt::kFloat));
    }
    AccumulateGrad(int(params_.size()) - 1);
    {
      OpScope ev(sim_, "autograd::engine::evaluate_function: AdaptiveAvgPool2DBackward0", "", "", next_seq_++);
      sim_.Cpu(5);
      grad_tmp_.push_back(Out(int64_t(act) * 2));
      Mem(names::Fill(Dt::kHalf), act, act * 2);
    }
    for (int l = kConvBlocks - 1; l >= 0; --l) {
      {
        OpScope ev(sim_, "autograd::engine::evaluate_function: ReluBackward0", "", "", next_seq_++);
        OpScope tb(sim_, "aten::threshold_backward", Dims({{n, cch, hw, hw}, {n, cch, hw, hw}, {}}), Types({"c10::Half", "c10::Half", "Scalar"}));
        sim_.Cpu(5);
        grad_tmp_.push_back(Out(int64_t(act) * 2));
        Mem(names::ReluBackward(Dt::kHalf), act, act * 6);
      }
      {
        OpScope ev(sim_, "autograd::engine::evaluate_function: CudnnBatchNormBackward0", "", "", next_seq_++);
        OpScope bb(sim_, "aten::cudnn_batch_norm_backward", Dims({{n, cch, hw, hw}, {n, cch, hw, hw}, {cch}, {cch}, {cch}, {cch}, {cch}, {}, {0}}),
                   Types({"c10::Half", "c10::Half", "float", "float", "float", "float", "float", "Scalar", "unsigned char"}));
        sim_.Cpu(10);
        grad_tmp_.push_back(Out(int64_t(act) * 2));
        sim_.Kernel(std::string(names::kBnBwd), MemUs(act * 2 * 3), ReduceShape(double(cch)));
      }
      AccumulateGrad(1 + 3 * l + 1);
      AccumulateGrad(1 + 3 * l + 2);
      const bool first = l == 0;
      const int64_t cin = first ? 3 : cch;
      const int64_t in_hw = first ? kImage : hw;
      const double in_elems = double(n * cin * in_hw * in_hw);
      {
        OpScope ev(sim_, "autograd::engine::evaluate_function: ConvolutionBackward0", "", "", next_seq_++);
        OpScope cb(sim_, "aten::convolution_backward", Dims({{n, cch, hw, hw}, {n, cin, in_hw, in_hw}, {cch, cin, 3, 3}}), Types({"c10::Half", "c10::Half", "c10::Half"}));
        sim_.Cpu(14);
        const double flops = 2.0 * n * hw * hw * cch * cin * 9;
        Mem(std::string(names::kNchwToNhwc), act, act * 4);
        if (!first) {
          grad_tmp_.push_back(Out(int64_t(in_elems) * 2));
          sim_.Kernel(std::string(names::kConvDgrad), flops / (kTcPeakFlops * 0.58) * 1e6 + 4, GemmShape(double(n * hw * hw), double(cin)));
          Mem(std::string(names::kNhwcToNchw), in_elems, in_elems * 4);
        }
        Mem(std::string(names::kNchwToNhwc), in_elems, in_elems * 4);
        sim_.Kernel(std::string(names::kConvWgrad), flops / (kTcPeakFlops * 0.55) * 1e6 + 4, GemmShape(double(cch), double(cin * 9)));
        Mem(std::string(names::kNhwcToNchw), double(cch * cin * 9), double(cch * cin * 9) * 4);
      }
      {
        OpScope ev(sim_, "autograd::engine::evaluate_function: ToCopyBackward0", "", "", next_seq_++);
        grad_tmp_.push_back(Cast({cch, cin, 3, 3}, Dt::kHalf, Dt::kFloat));
      }
      AccumulateGrad(first ? 0 : 1 + 3 * l);
      ReleaseGradTemps(2);
    }
    ReleaseGradTemps(0);
    for (auto& l : layers_) {
      for (const Sim::Block& b : l.blocks) sim_.Free(b);
      l.blocks.clear();
    }
    for (const Sim::Block& b : head_saved_) sim_.Free(b);
    head_saved_.clear();
  }

  // The main thread blocks in loss.backward() while the autograd thread runs the graph.
  void StartAutograd() {
    sim_.SetNow(kAutogradThread, std::max(sim_.NowOf(kAutogradThread), sim_.NowOf(kMainThread)));
    sim_.SetThread(kAutogradThread);
    sim_.Cpu(20);
  }

  void Backward() {
    sim_.SetThread(kMainThread);
    sim_.Cpu(10);
    for (Bucket& b : buckets_) b.pending = 0;
    for (size_t i = 0; i < bucket_of_.size(); ++i) buckets_[bucket_of_[i]].pending++;
    if (c_.convnet) {
      ConvBackward();
    } else {
      TransformerBackward();
    }
    sim_.SetThread(kAutogradThread);
    if (c_.ddp && c_.ddp_overlap) {
      // Reducer::finalize_backward: the compute stream waits for the last all-reduce.
      sim_.Cpu(15);
      sim_.StreamWait(kComputeStream, kNcclStream);
    }
    sim_.SetNow(kMainThread, std::max(sim_.NowOf(kMainThread), sim_.NowOf(kAutogradThread) + internal::UsToNs(8)));
    sim_.SetThread(kMainThread);
    for (const Sim::Block& b : grad_tmp_) sim_.Free(b);
    grad_tmp_.clear();
    sim_.Free(input_);
    sim_.Free(labels_);
    if (c_.ddp && !c_.ddp_overlap) {
      // Hand-written data parallelism: average every gradient after backward.
      for (const Param& p : params_) {
        sim_.Cpu(12);
        LaunchAllReduce(p.numel);
        sim_.StreamWait(kComputeStream, kNcclStream);  // work.wait()
        OpScope div(sim_, "aten::div_", Dims({{p.numel}, {}}), Types({"float", "Scalar"}));
        sim_.Cpu(4);
        Mem(names::Div(Dt::kFloat), double(p.numel), double(p.numel) * 8);
      }
    }
    if (c_.guards) {
      // clip_grad_norm_ with error_if_nonfinite-style check: total_norm.item()
      OpScope norm(sim_, "aten::_foreach_norm", Dims({{int64_t(params_.size())}, {}}), Types({"TensorList", "Scalar"}));
      sim_.Cpu(10);
      sim_.Kernel(names::ReduceSum(Dt::kFloat), MemUs(double(param_elems_) * 4), ReduceShape(4096));
    }
    if (c_.guards) {
      sim_.ItemSync(4, false);
      sim_.CpuExact(c_.guard_python_us);
    }
  }

  // ---- GradScaler + AdamW ---------------------------------------------------------
  int Launches(int64_t elements) const {
    // multi_tensor_apply: 65536-element chunks, at most 320 blocks per launch.
    return int(std::max<int64_t>(1, (elements / 65536 + 319) / 320));
  }

  // One torch._foreach_* op over all parameters; `bytes_per_elem` counts fp32 tensor accesses.
  void Foreach(const char* op, const std::string& kernel, double bytes_per_elem) {
    const Dt pd = ParamDtype();
    OpScope o(sim_, op, Dims({{int64_t(params_.size())}, {int64_t(params_.size())}, {}}), Types({"TensorList", "TensorList", "Scalar"}));
    sim_.Cpu(10 + 0.4 * double(params_.size()));
    const int n = Launches(param_elems_);
    KernelShape s;
    s.grid[0] = 320;
    s.block[0] = 512;
    s.registers = 40;
    s.shared_bytes = 0;
    for (int i = 0; i < n; ++i) {
      sim_.Kernel(kernel, MemUs(double(param_elems_) / n * bytes_per_elem * Bytes(pd) / 4.0), s);
    }
  }

  Dt ParamDtype() const { return c_.autocast || c_.low == Dt::kFloat ? Dt::kFloat : c_.low; }

  void OptimizerStep(int64_t number) {
    sim_.SetThread(kMainThread);
    const Dt pd = ParamDtype();
    bool skip = false;
    if (c_.scaler) {
      sim_.Cpu(40);  // scaler.step(): Python
      {
        OpScope full(sim_, "aten::full", Dims({{0}, {}, {}, {}, {}, {}}), Types({"", "Scalar", "ScalarType", "", "Device", ""}));
        sim_.Cpu(3);
        OpScope fill(sim_, "aten::fill_", Dims({{}, {}}), Types({"float", "Scalar"}));
        sim_.Cpu(2);
        Small(names::Fill(Dt::kFloat));
      }
      {
        OpScope rec(sim_, "aten::reciprocal", Dims({{}}), Types({"double"}));
        sim_.Cpu(3);
        Small(names::CastToFloat(Dt::kHalf));
      }
      {
        OpScope uns(sim_, "aten::_amp_foreach_non_finite_check_and_unscale_", Dims({{int64_t(params_.size())}, {}, {}}), Types({"TensorList", "float", "float"}));
        sim_.Cpu(12 + 0.3 * double(params_.size()));
        const int n = Launches(param_elems_);
        KernelShape s;
        s.grid[0] = 320;
        s.block[0] = 512;
        s.registers = 32;
        for (int i = 0; i < n; ++i) sim_.Kernel(names::kAmpUnscale, MemUs(double(param_elems_) / n * 8), s);
      }
      skip = skipped_;
      if (!c_.fused_opt) {
        // _maybe_opt_step: sum(v.item() for v in found_inf_per_device.values())
        sim_.ItemSync(4, /*scaler=*/true);
        sim_.Cpu(15);
      }
    }
    if (skip && !c_.fused_opt) {
      sim_.MarkSkippedStep(number);
    } else {
      sim_.Cpu(c_.optimizer_python_us);  // optimizer.step() Python: _init_group, grouping
      AnnotationScope ann(sim_, "Optimizer.step#AdamW.step", /*project_to_gpu=*/true);
      sim_.Cpu(20);
      if (c_.fused_opt) {
        OpScope f(sim_, "aten::_fused_adamw_", Dims({{int64_t(params_.size())}, {int64_t(params_.size())}}), Types({"TensorList", "TensorList"}));
        sim_.Cpu(20 + 0.5 * double(params_.size()));
        const int n = Launches(param_elems_);
        KernelShape s;
        s.grid[0] = 320;
        s.block[0] = 512;
        s.registers = 64;
        for (int i = 0; i < n; ++i) sim_.Kernel(names::FusedAdamW(pd), MemUs(double(param_elems_) / n * 7 * Bytes(pd)), s);
        if (skipped_) sim_.MarkSkippedStep(number);  // skipped on the device: invisible in the trace
      } else if (c_.foreach_opt) {
        {
          OpScope st(sim_, "aten::_foreach_add_", Dims({{int64_t(params_.size())}, {}}), Types({"TensorList", "Scalar"}));
          sim_.Cpu(8);  // state steps live on the CPU: no kernel
        }
        Foreach("aten::_foreach_mul_", names::ForeachMulScalar(pd), 8);
        Foreach("aten::_foreach_lerp_", names::ForeachLerp(pd), 12);
        Foreach("aten::_foreach_mul_", names::ForeachMulScalar(pd), 8);
        Foreach("aten::_foreach_addcmul_", names::ForeachAddcmul(pd), 16);
        Foreach("aten::_foreach_sqrt", names::ForeachSqrt(pd), 8);
        Foreach("aten::_foreach_div_", names::ForeachDivScalar(pd), 8);
        Foreach("aten::_foreach_add_", names::ForeachAddScalar(pd), 8);
        Foreach("aten::_foreach_addcdiv_", names::ForeachAddcdiv(pd), 16);
      } else {
        // _single_tensor_adamw: eight kernels per parameter, launched from Python.
        for (const Param& p : params_) {
          sim_.Cpu(18);
          const double e = double(p.numel);
          const std::pair<const char*, std::string> ops[] = {
              {"aten::mul_", names::MulScalar(pd)}, {"aten::lerp_", names::Lerp(pd)},     {"aten::mul_", names::MulScalar(pd)},
              {"aten::addcmul_", names::Addcmul(pd)}, {"aten::sqrt", names::Sqrt(pd)},     {"aten::div", names::Div(pd)},
              {"aten::add_", names::AddScalarInplace(pd)}, {"aten::addcdiv_", names::Addcdiv(pd)}};
          for (const auto& [op, kernel] : ops) {
            OpScope o(sim_, op, Dims({{p.numel}, {}}), Types({TypeName(pd), "Scalar"}));
            sim_.Cpu(7);
            Mem(kernel, e, e * 3 * Bytes(pd));
            sim_.Cpu(2);
          }
        }
      }
    }
    if (c_.scaler) {
      sim_.Cpu(30);  // scaler.update(): Python
      OpScope up(sim_, "aten::_amp_update_scale_", Dims({{}, {1}, {}, {}, {}, {}}), Types({"float", "int", "float", "Scalar", "Scalar", "Scalar"}));
      sim_.Cpu(5);
      sim_.Kernel(names::kAmpUpdateScale, 2.0, SingleThread());
    }
    sim_.Cpu(35);  // optimizer.zero_grad(set_to_none=True)
    for (const Sim::Block& b : param_grads_) sim_.Free(b);
    param_grads_.clear();
  }

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

void Simulate(const ScenarioOptions& options, std::ostream* out, ScenarioSummary* summary) {
  const Config config = MakeConfig(options);
  Sim sim(options, out, summary);
  StepBuilder builder(sim, config);
  // One silent step first: the caching allocator and the host/GPU pipeline reach their
  // steady state before the profiler's active window (like torch.profiler's warmup).
  const bool warmup = config.silent_warmup;
  if (warmup) {
    sim.SetEmit(false);
    builder.RunStep(-1, config.first_step - 1);
    sim.Drain();
    sim.SetEmit(true);
  }
  if (options.problem == Problem::kMemoryPeak || options.problem == Problem::kFragmentation) {
    // A resident buffer (another model, a cache) pushes the peak towards the device capacity.
    const int64_t device = 84990623744;
    const int64_t peak = builder.natural_peak();
    if (options.problem == Problem::kMemoryPeak) {
      const double target = 0.90 + 0.05 * std::min(1.0, options.severity);
      sim.SetResidentBytes(std::max<int64_t>(0, int64_t(target * device) - peak), 0);
    } else {
      // Fragmented cache: reserved far above allocated, close to capacity.
      const int64_t extra = std::max<int64_t>(0, int64_t(0.93 * device) - sim.reserved());
      sim.SetResidentBytes(0, extra);
    }
  }
  sim.WriteHeader();
  for (int i = 0; i < std::max(1, options.steps); ++i) builder.RunStep(i, config.first_step + i);
  sim.Finish();
  sim.WriteFooter();
}

}  // namespace

const char* ProblemName(Problem p) {
  for (const ProblemInfo& i : kProblems) {
    if (i.problem == p) return i.name;
  }
  return "unknown";
}

std::optional<Problem> ParseProblem(std::string_view name) {
  for (const ProblemInfo& i : kProblems) {
    if (name == i.name) return i.problem;
  }
  return std::nullopt;
}

const std::vector<Problem>& AllProblems() {
  static const std::vector<Problem> all = [] {
    std::vector<Problem> v;
    for (const ProblemInfo& i : kProblems) v.push_back(i.problem);
    return v;
  }();
  return all;
}

std::string GenerateKinetoJson(const ScenarioOptions& options, ScenarioSummary* summary) {
  std::ostringstream out;
  WriteKinetoJson(options, out, summary);
  return std::move(out).str();
}

void WriteKinetoJson(const ScenarioOptions& options, std::ostream& out, ScenarioSummary* summary) {
  if (summary != nullptr) *summary = ScenarioSummary{};
  Simulate(options, &out, summary);
}

}  // namespace ampscope::scenario

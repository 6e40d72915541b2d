// StepBuilder: setup, one step, GEMM costs, casts, linear layers, DDP buckets, guards and
// data loading (the model is described in step_builder.h).
#include "tools/scenario/step_builder.h"

namespace ampscope::scenario::internal {
StepBuilder::StepBuilder(Sim& sim, const Config& c) : sim_(sim), c_(c) {
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

void StepBuilder::RunStep(int index, int64_t number) {
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

void StepBuilder::RegisterTransformerParams() {
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

void StepBuilder::RegisterConvParams() {
  params_.push_back({"stem.weight", 256 * 3 * 3 * 3});
  for (int l = 0; l < kConvBlocks; ++l) {
    params_.push_back({fmt::format("blocks.{}.conv.weight", l), 256 * 256 * 9});
    params_.push_back({fmt::format("blocks.{}.bn.weight", l), 256});
    params_.push_back({fmt::format("blocks.{}.bn.bias", l), 256});
  }
  params_.push_back({"fc.weight", 1000 * 256});
}

void StepBuilder::MakeBuckets() {
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

bool StepBuilder::IsSkipped(int index) const {
  if (!c_.scaler) return false;
  if (index >= 0 && index < c_.skip_first) return true;
  if (c_.skip_every > 0 && index % c_.skip_every == 1) return true;
  return false;
}

double StepBuilder::GemmUs(double flops, Dt dt, bool misaligned) const {
  const double peak = dt == Dt::kFloat ? kFp32PeakFlops : kTcPeakFlops;
  double eff = dt == Dt::kFloat ? kSimtGemmEfficiency : kTcGemmEfficiency;
  eff *= std::min(1.0, std::pow(flops / 2e10, 0.2));  // small GEMMs fill fewer waves
  if (misaligned) eff *= c_.gemm_efficiency_scale;
  return flops / (peak * eff) * 1e6 + 3.0;
}

std::string StepBuilder::GemmName(Dt dt, int kind, bool misaligned) const {
  if (dt == Dt::kFloat) return std::string(kind == 0 ? names::kGemmF32Fwd : kind == 1 ? names::kGemmF32Dgrad : names::kGemmF32Wgrad);
  if (misaligned && c_.small_tile_gemms) return std::string(names::kGemmF16SmallTile);
  if (dt == Dt::kBFloat16) return std::string(kind == 0 ? names::kGemmBf16Fwd : kind == 1 ? names::kGemmBf16Dgrad : names::kGemmBf16Wgrad);
  if (kind == 3) return std::string(names::kGemmF16Big);
  return std::string(kind == 0 ? names::kGemmF16Fwd : kind == 1 ? names::kGemmF16Dgrad : names::kGemmF16Wgrad);
}

void StepBuilder::Mem(const std::string& name, double elements, double bytes) {
  sim_.Kernel(name, MemUs(bytes), ElementwiseShape(elements));
}

Sim::Block StepBuilder::Out(int64_t bytes) {
  Sim::Block b = sim_.Alloc(bytes);
  peak_ = std::max(peak_, sim_.allocated());
  return b;
}

Sim::Block StepBuilder::Cast(std::vector<int64_t> shape, Dt from, Dt to) {
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

Sim::Block StepBuilder::Linear(int64_t k, int64_t n, Dt x_dt, Dt gemm_dt, bool cast_weight, bool misaligned, std::vector<Sim::Block>* saved, int gemm_kind) {
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

void StepBuilder::LinearBackward(int64_t k, int64_t n, Dt gemm_dt, bool cast_weight, bool act_cast, Dt act_dt, bool misaligned, int weight_param) {
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

void StepBuilder::AccumulateGrad(int param) {
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

void StepBuilder::AllReduceBucket(int64_t numel) {
  {
    OpScope div(sim_, "aten::div_", Dims({{numel}, {}}), Types({"float", "Scalar"}));
    sim_.Cpu(4);
    Mem(names::Div(Dt::kFloat), double(numel), double(numel) * 8);
  }
  LaunchAllReduce(numel);
}

void StepBuilder::LaunchAllReduce(int64_t numel) {
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

void StepBuilder::ReleaseGradTemps(size_t keep) {
  while (grad_tmp_.size() > keep) {
    sim_.Free(grad_tmp_.front());
    grad_tmp_.erase(grad_tmp_.begin());
  }
}

void StepBuilder::Guard(int64_t elements, Dt dt) {
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

void StepBuilder::LoadBatch() {
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

Sim::Block StepBuilder::CopyToDevice(const std::vector<int64_t>& shape, int64_t bytes, const char* type) {
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

}  // namespace ampscope::scenario::internal

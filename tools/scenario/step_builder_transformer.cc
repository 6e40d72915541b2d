// StepBuilder: the transformer forward and backward passes (norms, GELU, attention, residuals).
#include "tools/scenario/step_builder.h"

namespace ampscope::scenario::internal {
void StepBuilder::LayerNormFwd(Dt dt, std::vector<Sim::Block>* saved, int64_t seq) {
  const int64_t h = c_.hidden;
  OpScope ln(sim_, "aten::layer_norm", Dims({{c_.batch, c_.seq, h}, {1}, {h}, {h}, {}, {}}), Types({TypeName(dt), "", TypeName(dt), TypeName(dt), "Scalar", "Scalar"}), seq);
  sim_.Cpu(4);
  OpScope native(sim_, "aten::native_layer_norm", Dims({{c_.batch, c_.seq, h}, {1}, {h}, {h}, {}}), Types({TypeName(dt), "", TypeName(dt), TypeName(dt), "Scalar"}));
  sim_.Cpu(4);
  saved->push_back(Out(T_ * h * Bytes(dt)));
  Mem(names::LayerNormFwd(dt), double(T_ * h), double(T_ * h) * 2 * Bytes(dt));
}

void StepBuilder::RmsNormManualFwd(Dt dt, std::vector<Sim::Block>* saved) {
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

void StepBuilder::GeluFwd(Dt dt, std::vector<Sim::Block>* saved) {
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

void StepBuilder::ResidualAdd(Dt branch_dt, std::vector<Sim::Block>* saved) {
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

void StepBuilder::Attention(Dt dt, std::vector<Sim::Block>* saved) {
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

void StepBuilder::TransformerForward() {
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

void StepBuilder::TransformerLayerBackward(int l) {
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

void StepBuilder::NormBackward(Dt dt, int weight_param) {
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

void StepBuilder::ManualGeluBackward(Dt dt) {
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

void StepBuilder::AttentionBackward(Dt dt) {
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

void StepBuilder::TransformerBackward() {
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

}  // namespace ampscope::scenario::internal

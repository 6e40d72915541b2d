// StepBuilder: the CNN forward and backward passes, autograd, and the optimizer step (AdamW,
// GradScaler, zero_grad).
#include "tools/scenario/step_builder.h"

namespace ampscope::scenario::internal {
void StepBuilder::ConvForward() {
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

void StepBuilder::ConvBackward() {
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

void StepBuilder::StartAutograd() {
  sim_.SetNow(kAutogradThread, std::max(sim_.NowOf(kAutogradThread), sim_.NowOf(kMainThread)));
  sim_.SetThread(kAutogradThread);
  sim_.Cpu(20);
}

void StepBuilder::Backward() {
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

int StepBuilder::Launches(int64_t elements) const {
  // multi_tensor_apply: 65536-element chunks, at most 320 blocks per launch.
  return int(std::max<int64_t>(1, (elements / 65536 + 319) / 320));
}

void StepBuilder::Foreach(const char* op, const std::string& kernel, double bytes_per_elem) {
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

void StepBuilder::OptimizerStep(int64_t number) {
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

}  // namespace ampscope::scenario::internal

// A C++ port of torch.amp.GradScaler (torch/amp/grad_scaler.py) for one device and one optimizer.
//
// On CUDA it calls the same ATen ops as PyTorch, so a trace shows the same kernels:
//   unscale: at::_amp_foreach_non_finite_check_and_unscale_ (multi_tensor_apply_kernel ...)
//   update:  at::_amp_update_scale_                          (amp_update_scale_cuda_kernel, <<<1,1>>>)
//   step:    found_inf.item() -> a 4-byte D2H copy and a stream sync every step, then the optimizer
//            step is skipped when an inf/NaN was found.
// LibTorch 1.13 has no CPU kernels for those two ops (NotImplementedError), so on CPU the same
// arithmetic is written with ordinary tensor ops (isfinite, mul_, where).
#pragma once

#include <torch/torch.h>

#include <vector>

namespace amp_trainer {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2**16, PyTorch's default
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;  // successful steps before the scale grows
};

class GradScaler {
 public:
  // A disabled scaler passes the loss through and never skips, like GradScaler(enabled=False).
  GradScaler(const GradScalerOptions& options, torch::Device device, bool enabled);

  bool enabled() const { return enabled_; }

  // loss * scale. The scale is a 0-dim float32 tensor on the device, as in PyTorch.
  torch::Tensor Scale(const torch::Tensor& loss) const;

  // Divides every gradient by the scale in place and records whether any was inf/NaN.
  void Unscale(const std::vector<torch::Tensor>& params);

  // True when the optimizer step must be skipped. This is where PyTorch's scaler.step() syncs:
  // found_inf.item(). Call after Unscale.
  bool FoundInf();

  // Backs the scale off after an overflow, or grows it after growth_interval clean steps.
  void Update();

  // The scale as the host knows it without a sync: Update() applies the same rule to a float
  // copy, driven by the found_inf values FoundInf() already fetched.
  // 1.0 when disabled, like PyTorch's get_scale().
  float host_scale() const { return enabled_ ? host_scale_ : 1.0f; }

  // The scale as stored on the device (a sync on CUDA; for checks at the end of a run); 1.0 when
  // disabled.
  float DeviceScale() const;

 private:
  void UnscaleWithOrdinaryOps(const std::vector<torch::Tensor>& grads, const torch::Tensor& inv_scale);
  void UpdateWithOrdinaryOps();

  GradScalerOptions options_;
  torch::Device device_;
  bool enabled_;
  torch::Tensor scale_;           // float32, 0-dim
  torch::Tensor growth_tracker_;  // int32, 0-dim: consecutive steps without inf/NaN
  torch::Tensor found_inf_;       // float32, 0-dim: 1.0 when this step's gradients had an inf/NaN
  float host_scale_;
  int64_t host_growth_tracker_ = 0;
  bool last_found_inf_ = false;
};

}  // namespace amp_trainer

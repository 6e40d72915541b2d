#include "grad_scaler.h"

#include <cmath>

namespace amp_trainer {

GradScaler::GradScaler(const GradScalerOptions& options, torch::Device device, bool enabled)
    : options_(options), device_(device), enabled_(enabled), host_scale_(static_cast<float>(options.init_scale)) {
  if (!enabled_) return;
  const auto float_opts = torch::TensorOptions().dtype(torch::kFloat).device(device_);
  scale_ = torch::full({}, options_.init_scale, float_opts);
  growth_tracker_ = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt).device(device_));
  found_inf_ = torch::zeros({}, float_opts);
}

torch::Tensor GradScaler::Scale(const torch::Tensor& loss) const {
  if (!enabled_) return loss;
  return loss * scale_;
}

void GradScaler::Unscale(const std::vector<torch::Tensor>& params) {
  if (!enabled_) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const torch::Tensor& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  // PyTorch computes the reciprocal in double, then rounds to float (grad_scaler.py unscale_).
  const torch::Tensor inv_scale = scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
  found_inf_.zero_();
  if (grads.empty()) return;
  if (device_.is_cuda()) {
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
  } else {
    UnscaleWithOrdinaryOps(grads, inv_scale);
  }
}

void GradScaler::UnscaleWithOrdinaryOps(const std::vector<torch::Tensor>& grads, const torch::Tensor& inv_scale) {
  // Same contract as the CUDA kernel: every gradient is multiplied by inv_scale, and found_inf
  // becomes 1.0 when any input value was inf or NaN.
  for (const torch::Tensor& g : grads) {
    const torch::Tensor non_finite = torch::logical_not(torch::isfinite(g)).any().to(torch::kFloat);
    found_inf_.copy_(torch::maximum(found_inf_, non_finite));
    g.mul_(inv_scale);
  }
}

bool GradScaler::FoundInf() {
  if (!enabled_) return false;
  // The host sync PyTorch's scaler.step() makes: `if not sum(v.item() for v in found_inf_per_device)`.
  last_found_inf_ = found_inf_.item<float>() != 0.0f;
  return last_found_inf_;
}

void GradScaler::Update() {
  if (!enabled_) return;
  if (device_.is_cuda()) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor, options_.backoff_factor,
                           options_.growth_interval);
  } else {
    UpdateWithOrdinaryOps();
  }
  // Mirror of amp_update_scale_cuda_kernel on the host, in float like the device scale, so the
  // per-step line can print the scale without another sync.
  if (last_found_inf_) {
    host_scale_ *= static_cast<float>(options_.backoff_factor);
    host_growth_tracker_ = 0;
  } else if (host_growth_tracker_ + 1 == options_.growth_interval) {
    const float grown = host_scale_ * static_cast<float>(options_.growth_factor);
    if (std::isfinite(grown)) host_scale_ = grown;
    host_growth_tracker_ = 0;
  } else {
    ++host_growth_tracker_;
  }
}

void GradScaler::UpdateWithOrdinaryOps() {
  // aten/src/ATen/native/cuda/AmpKernels.cu, amp_update_scale_cuda_kernel:
  //   if found_inf: scale *= backoff; tracker = 0
  //   else: successful = tracker + 1
  //         if successful == growth_interval: scale *= growth (only if the result is finite); tracker = 0
  //         else tracker = successful
  torch::NoGradGuard no_grad;
  const torch::Tensor inf = found_inf_ > 0;
  const torch::Tensor successful = growth_tracker_ + 1;
  const torch::Tensor grow = torch::logical_and(torch::logical_not(inf), successful == options_.growth_interval);
  torch::Tensor grown = scale_ * options_.growth_factor;
  grown = torch::where(torch::isfinite(grown), grown, scale_);
  const torch::Tensor new_scale =
      torch::where(inf, scale_ * options_.backoff_factor, torch::where(grow, grown, scale_));
  const torch::Tensor new_tracker =
      torch::where(torch::logical_or(inf, grow), torch::zeros_like(growth_tracker_), successful);
  scale_.copy_(new_scale);
  growth_tracker_.copy_(new_tracker);
}

float GradScaler::DeviceScale() const {
  if (!enabled_) return 1.0f;
  return scale_.item<float>();
}

}  // namespace amp_trainer

// AdamW written with the multi-tensor _foreach_* ops, as torch.optim.AdamW(foreach=True) does
// (the default on CUDA in PyTorch 2.x). On CUDA every update is a handful of
// multi_tensor_apply_kernel launches for all parameters together, rather than a chain of small
// kernels per parameter as LibTorch's torch::optim::AdamW would launch; a per-parameter
// optimizer is one of the fusion problems ampscope reports, and the healthy run must not have it.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace amp_trainer {

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

class ForeachAdamW {
 public:
  ForeachAdamW(std::vector<torch::Tensor> params, const AdamWOptions& options);

  // One update from the current .grad() of every parameter. Parameters without a gradient are
  // skipped, as in PyTorch.
  void Step();

  // Drops the gradients (set_to_none=True, PyTorch 2.x's default): no kernels.
  void ZeroGrad();

  const std::vector<torch::Tensor>& params() const { return params_; }
  int64_t steps_taken() const { return step_; }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> exp_avg_;
  std::vector<torch::Tensor> exp_avg_sq_;
  AdamWOptions options_;
  int64_t step_ = 0;
};

}  // namespace amp_trainer

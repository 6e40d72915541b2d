#include "foreach_adamw.h"

#include <cmath>

namespace amp_trainer {

ForeachAdamW::ForeachAdamW(std::vector<torch::Tensor> params, const AdamWOptions& options)
    : params_(std::move(params)), options_(options) {
  torch::NoGradGuard no_grad;
  for (const torch::Tensor& p : params_) {
    exp_avg_.push_back(torch::zeros_like(p));
    exp_avg_sq_.push_back(torch::zeros_like(p));
  }
}

void ForeachAdamW::Step() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].grad().defined()) continue;
    params.push_back(params_[i]);
    grads.push_back(params_[i].grad());
    exp_avgs.push_back(exp_avg_[i]);
    exp_avg_sqs.push_back(exp_avg_sq_[i]);
  }
  if (params.empty()) return;
  ++step_;
  const double bias_correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(step_));
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, static_cast<double>(step_));

  // torch/optim/adamw.py _multi_tensor_adamw, with the step count kept on the host.
  at::_foreach_mul_(params, 1.0 - options_.lr * options_.weight_decay);  // decoupled weight decay
  at::_foreach_mul_(exp_avgs, options_.beta1);                            // m = b1*m + (1-b1)*g
  at::_foreach_add_(exp_avgs, grads, 1.0 - options_.beta1);
  at::_foreach_mul_(exp_avg_sqs, options_.beta2);  // v = b2*v + (1-b2)*g*g
  at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1.0 - options_.beta2);
  std::vector<torch::Tensor> denom = at::_foreach_sqrt(exp_avg_sqs);  // sqrt(v)/sqrt(bc2) + eps
  at::_foreach_div_(denom, std::sqrt(bias_correction2));
  at::_foreach_add_(denom, options_.eps);
  at::_foreach_addcdiv_(params, exp_avgs, denom, -options_.lr / bias_correction1);  // p -= lr/bc1 * m/denom
}

void ForeachAdamW::ZeroGrad() {
  for (torch::Tensor& p : params_) p.mutable_grad().reset();
}

}  // namespace amp_trainer

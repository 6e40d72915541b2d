#include "model.h"

#include <cmath>
#include <limits>

#include "autocast_region.h"

namespace amp_trainer {

BlockImpl::BlockImpl(int64_t dim, int64_t heads) : dim_(dim), heads_(heads) {
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  qkv_ = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
  proj_ = register_module("proj", torch::nn::Linear(dim, dim));
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  fc1_ = register_module("fc1", torch::nn::Linear(dim, 4 * dim));
  fc2_ = register_module("fc2", torch::nn::Linear(4 * dim, dim));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x, const torch::Tensor& causal_mask) {
  const int64_t batch = x.size(0);
  const int64_t seq = x.size(1);
  const int64_t head_dim = dim_ / heads_;

  // Causal self-attention: [B, T, 3D] -> q, k, v as [B, H, T, hd].
  std::vector<torch::Tensor> qkv = qkv_(ln1_(x)).chunk(3, /*dim=*/-1);
  auto split_heads = [&](const torch::Tensor& t) { return t.view({batch, seq, heads_, head_dim}).transpose(1, 2); };
  const torch::Tensor q = split_heads(qkv[0]);
  const torch::Tensor k = split_heads(qkv[1]);
  const torch::Tensor v = split_heads(qkv[2]);
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(head_dim)));
  scores = scores.masked_fill(causal_mask, -std::numeric_limits<float>::infinity());
  const torch::Tensor attention = torch::softmax(scores, /*dim=*/-1);  // autocast runs softmax in fp32
  const torch::Tensor mixed = torch::matmul(attention, v).transpose(1, 2).contiguous().view({batch, seq, dim_});
  torch::Tensor h = x + proj_(mixed);

  // MLP.
  h = h + fc2_(torch::gelu(fc1_(ln2_(h))));
  return h;
}

TinyLmImpl::TinyLmImpl(int64_t vocab, int64_t dim, int64_t seq, int64_t layers, int64_t heads) : seq_(seq) {
  token_embedding_ = register_module("token_embedding", torch::nn::Embedding(vocab, dim));
  position_embedding_ = register_parameter("position_embedding", torch::randn({seq, dim}) * 0.02);
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < layers; ++i) blocks_->push_back(Block(dim, heads));
  ln_f_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  head_ = register_module("head", torch::nn::Linear(torch::nn::LinearOptions(dim, vocab).bias(false)));
  causal_mask_ = register_buffer("causal_mask", torch::ones({seq, seq}, torch::kBool).triu(/*diagonal=*/1));
}

torch::Tensor TinyLmImpl::forward(const torch::Tensor& tokens, bool fp32_head, c10::DeviceType autocast_device,
                                  c10::ScalarType autocast_dtype) {
  const int64_t seq = tokens.size(1);
  TORCH_CHECK(seq <= seq_, "sequence longer than the position table");
  torch::Tensor x = token_embedding_(tokens) + position_embedding_.slice(/*dim=*/0, 0, seq);
  const torch::Tensor mask = causal_mask_.slice(0, 0, seq).slice(1, 0, seq);
  for (const auto& block : *blocks_) x = block->as<Block>()->forward(x, mask);
  x = ln_f_(x);
  if (fp32_head) {
    // `with torch.autocast(device, enabled=False): logits = head(x.float())`.
    AutocastRegion autocast_off(autocast_device, autocast_dtype, /*enabled=*/false);
    return head_(x.to(torch::kFloat));
  }
  return head_(x);
}

}  // namespace amp_trainer

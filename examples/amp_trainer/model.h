// A small decoder-only transformer language model: token + position embeddings, pre-norm blocks
// (causal self-attention and a GELU MLP), a final LayerNorm and a linear head over the
// vocabulary. Attention is written with matmul + softmax rather than
// scaled_dot_product_attention, which LibTorch 1.13 does not have.
#pragma once

#include <torch/torch.h>

namespace amp_trainer {

class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(int64_t dim, int64_t heads);
  // x: [batch, seq, dim]; causal_mask: [seq, seq] bool, true above the diagonal.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& causal_mask);

 private:
  int64_t dim_;
  int64_t heads_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  torch::nn::Linear qkv_{nullptr}, proj_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(Block);

class TinyLmImpl : public torch::nn::Module {
 public:
  TinyLmImpl(int64_t vocab, int64_t dim, int64_t seq, int64_t layers, int64_t heads);

  // tokens: [batch, seq] int64. Returns logits [batch, seq, vocab].
  // fp32_head: run the output head outside autocast, in fp32 (the --fp32-head planted problem:
  // the largest GEMM of the model then misses the Tensor Cores' low-precision path).
  // autocast_device/dtype: the autocast region the caller opened, needed to switch it off for
  // the head.
  torch::Tensor forward(const torch::Tensor& tokens, bool fp32_head, c10::DeviceType autocast_device,
                        c10::ScalarType autocast_dtype);

 private:
  int64_t seq_;
  torch::nn::Embedding token_embedding_{nullptr};
  torch::Tensor position_embedding_;
  torch::nn::ModuleList blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::nn::Linear head_{nullptr};
  torch::Tensor causal_mask_;  // registered as a buffer so .to(device) moves it
};
TORCH_MODULE(TinyLm);

}  // namespace amp_trainer

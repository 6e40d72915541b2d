// Command-line options of amp_trainer. Kept free of LibTorch headers so that the parser compiles
// quickly and can be read without knowing torch.
#pragma once

#include <cstdint>
#include <string>

namespace amp_trainer {

// Model and batch sizes. -1 means "the default for the chosen device" (see ResolveSizes).
struct ModelSizes {
  int64_t vocab = -1;   // tokens in the vocabulary = width of the output head
  int64_t dim = -1;     // model width
  int64_t seq = -1;     // tokens per sample
  int64_t layers = -1;  // transformer blocks
  int64_t heads = -1;   // attention heads per block
  int64_t batch = -1;   // samples per step
};

struct TrainerOptions {
  int64_t steps = 20;
  std::string device = "auto";  // cpu | cuda | auto
  std::string dtype;            // fp16 | bf16; empty = fp16 on CUDA, bf16 on CPU
  ModelSizes sizes;
  uint64_t seed = 1234;
  double lr = 1e-3;
  int threads = 0;  // intra-op CPU threads; 0 = LibTorch's default

  // GradScaler, with torch.amp.GradScaler's defaults.
  bool scaler = true;
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;

  // Planted problems (see docs/examples.md for what ampscope should report for each).
  int64_t sync_every = 0;       // .item() on the loss every N steps (0 = never)
  bool fp32_head = false;       // output head runs outside autocast, in fp32
  bool no_autocast = false;     // plain fp32 training (also disables the GradScaler)
  bool alloc_churn = false;     // allocate and free large tensors every step (+ emptyCache on CUDA)
  int64_t loader_delay_ms = 0;  // sleep inside the "dataloader" range at the start of every step
  int64_t overflow_at_step = 0; // make this step's gradients inf, as an fp16 overflow does (0 = never)

  bool quiet = false;  // no per-step lines, only the header and the summary
};

enum class ParseResult { kOk, kHelp, kError };

// Parses argv into *options. On kError, *error holds a one-line message naming the flag.
// Accepts "--flag value" and "--flag=value".
ParseResult ParseTrainerOptions(int argc, char** argv, TrainerOptions* options, std::string* error);

// The --help text.
std::string TrainerUsage(const char* argv0);

// Fills the -1 entries of options->sizes with the defaults for the device: small on CPU (the
// CI test runs it on 2 shared cores), large enough on CUDA that GEMMs dominate the step.
void ResolveSizes(bool cuda, ModelSizes* sizes);

}  // namespace amp_trainer

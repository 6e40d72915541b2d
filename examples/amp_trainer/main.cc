// amp_trainer: a LibTorch program that trains a small transformer LM with automatic mixed
// precision, for ampscope to wrap (`ampscope record -- amp_trainer ...`). Flags plant the
// problems ampscope diagnoses; docs/examples.md lists them and what the report should say.
//
// One training step, as NVTX ranges (the outer one is named exactly "step"):
//   step > dataloader  (> enumerate(DataLoader)#...: host batch, --loader-delay-ms sleeps here;
//                       then host -> device)
//        > forward     (inside autocast; --fp32-head leaves the head out of it)
//        > alloc_churn (only with --alloc-churn)
//        > loss        (inside autocast)
//        > backward    (scaled loss)
//        > optimizer   (unscale, found_inf.item(), > Optimizer.step#ForeachAdamW.step unless
//                       skipped, scale update)
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#if defined(AMP_TRAINER_HAVE_TORCH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "autocast_region.h"
#include "foreach_adamw.h"
#include "grad_scaler.h"
#include "model.h"
#include "nvtx_range.h"
#include "trainer_options.h"

namespace amp_trainer {
namespace {

constexpr int kExitUsage = 2;
constexpr int64_t kDistinctBatches = 8;  // the synthetic data set cycles through this many batches
// Inner NVTX ranges named as PyTorch's profiler names these regions (record_function in
// torch/utils/data/dataloader.py and torch/optim/optimizer.py).
constexpr const char* kDataLoaderRangeName = "enumerate(DataLoader)#SyntheticLoader.__next__";
constexpr const char* kOptimizerStepRangeName = "Optimizer.step#ForeachAdamW.step";

struct Batch {
  torch::Tensor tokens;   // [batch, seq] int64
  torch::Tensor targets;  // [batch, seq] int64
};

// A synthetic, deterministic data set held in host memory (pinned when training on CUDA, as a
// DataLoader with pin_memory=True gives), copied to the device each step with non_blocking.
class SyntheticLoader {
 public:
  SyntheticLoader(const ModelSizes& sizes, torch::Device device) : device_(device) {
    for (int64_t i = 0; i < kDistinctBatches; ++i) {
      torch::Tensor tokens = torch::randint(0, sizes.vocab, {sizes.batch, sizes.seq}, torch::kLong);
      // A target the model can learn: a fixed affine map of the token, so the loss falls.
      torch::Tensor targets = (tokens * 7 + 3).remainder(sizes.vocab);
      if (device.is_cuda()) {
        tokens = tokens.pin_memory();
        targets = targets.pin_memory();
      }
      host_batches_.push_back({tokens, targets});
    }
  }

  // The next batch in host memory (what a DataLoader iterator yields).
  const Batch& NextHostBatch() { return host_batches_[next_++ % host_batches_.size()]; }

  // Host -> device, asynchronous from pinned memory (x.to(device, non_blocking=True)).
  Batch ToDevice(const Batch& host) const {
    const auto on_device = torch::TensorOptions().device(device_);
    return {host.tokens.to(on_device, /*non_blocking=*/true), host.targets.to(on_device, /*non_blocking=*/true)};
  }

 private:
  torch::Device device_;
  std::vector<Batch> host_batches_;
  size_t next_ = 0;
};

// --alloc-churn: allocates and frees large tensors every step. On CUDA the caching allocator
// would normally keep the blocks, so its cache is emptied: every step then pays cudaMalloc and
// cudaFree (a synchronizing call), which is what the memory_fragmentation check looks for.
void ChurnAllocations(torch::Device device) {
  // 64, 128 and 256 MiB on CUDA; 4, 8 and 16 MiB on CPU (the CI machine is small).
  const int64_t base_floats = device.is_cuda() ? (int64_t{64} << 20) / 4 : (int64_t{4} << 20) / 4;
  for (int64_t factor : {1, 2, 4}) {
    torch::Tensor scratch = torch::empty({base_floats * factor}, torch::TensorOptions().device(device));
    scratch.fill_(1.0f);
  }
#if defined(AMP_TRAINER_HAVE_TORCH_CUDA)
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

// Per-step report line. On CUDA the loss is copied (non_blocking) into pinned memory and printed
// once a host sync has made it valid, so printing adds no sync of its own.
struct StepLine {
  int64_t step = 0;
  float scale = 0;
  bool skipped = false;
  double host_ms = 0;  // host wall time of the step
};

class StepPrinter {
 public:
  StepPrinter(int64_t steps, bool cuda, bool quiet) : steps_(steps), quiet_(quiet) {
    auto options = torch::TensorOptions().dtype(torch::kFloat);
    if (cuda) options = options.pinned_memory(true);
    losses_ = torch::zeros({steps}, options);
  }

  // Enqueues the copy of this step's loss into host memory (asynchronous on CUDA).
  void RecordLoss(int64_t step, const torch::Tensor& loss) {
    losses_.select(0, step - 1).copy_(loss.detach().to(torch::kFloat), /*non_blocking=*/true);
  }

  void Add(const StepLine& line) { pending_.push_back(line); }

  // Prints the pending lines. Call only when every loss copy enqueued so far has completed: after
  // a host sync on the stream (found_inf.item(), loss.item()) or on CPU.
  void Flush() {
    const float* values = losses_.data_ptr<float>();
    for (const StepLine& line : pending_) {
      const float loss = values[line.step - 1];
      if (line.step == 1) first_loss_ = loss;
      last_loss_ = loss;
      if (!quiet_) {
        std::printf("step %lld/%lld loss=%.4f scale=%g skipped=%d host_ms=%.2f\n", static_cast<long long>(line.step),
                    static_cast<long long>(steps_), loss, static_cast<double>(line.scale), line.skipped ? 1 : 0,
                    line.host_ms);
      }
    }
    pending_.clear();
    std::fflush(stdout);
  }

  float first_loss() const { return first_loss_; }
  float last_loss() const { return last_loss_; }

 private:
  int64_t steps_;
  bool quiet_;
  torch::Tensor losses_;  // [steps] float, pinned on CUDA
  std::deque<StepLine> pending_;
  float first_loss_ = NAN;
  float last_loss_ = NAN;
};

int Train(const TrainerOptions& opts_in) {
  TrainerOptions opts = opts_in;
  const bool cuda_available = torch::cuda::is_available();
  bool use_cuda = false;
  if (opts.device == "cuda") {
    if (!cuda_available) {
      std::fprintf(stderr,
                   "amp_trainer: --device cuda, but CUDA is not available (this LibTorch %s was built %s CUDA, "
                   "or no GPU/driver is present)\n",
                   TORCH_VERSION,
#if defined(AMP_TRAINER_HAVE_TORCH_CUDA)
                   "with"
#else
                   "without"
#endif
      );
      return kExitUsage;
    }
    use_cuda = true;
  } else if (opts.device == "auto") {
    use_cuda = cuda_available;
  }
  const torch::Device device(use_cuda ? torch::kCUDA : torch::kCPU);
  const c10::DeviceType autocast_device = device.type();

  if (opts.dtype.empty()) opts.dtype = use_cuda ? "fp16" : "bf16";
#if TORCH_VERSION_MAJOR < 2
  if (!use_cuda && opts.dtype == "fp16") {
    std::fprintf(stderr, "amp_trainer: CPU autocast in LibTorch %s supports bf16 only (use --dtype bf16)\n",
                 TORCH_VERSION);
    return kExitUsage;
  }
#endif
  const c10::ScalarType autocast_dtype = opts.dtype == "fp16" ? torch::kHalf : torch::kBFloat16;
  const bool autocast = !opts.no_autocast;
  const bool scaler_on = opts.scaler && autocast;

  ResolveSizes(use_cuda, &opts.sizes);
  const ModelSizes& sizes = opts.sizes;
  if (sizes.dim % sizes.heads != 0) {
    std::fprintf(stderr, "amp_trainer: --heads %lld does not divide --dim %lld\n", static_cast<long long>(sizes.heads),
                 static_cast<long long>(sizes.dim));
    return kExitUsage;
  }
  if (opts.threads > 0) torch::set_num_threads(opts.threads);

  // Everything random (weights, data) comes from this seed; manual_seed also seeds CUDA.
  torch::manual_seed(opts.seed);
  TinyLm model(sizes.vocab, sizes.dim, sizes.seq, sizes.layers, sizes.heads);
  model->to(device);
  model->train();
  SyntheticLoader loader(sizes, device);

  ForeachAdamW optimizer(model->parameters(), AdamWOptions{opts.lr});
  GradScalerOptions scaler_options;
  scaler_options.init_scale = opts.init_scale;
  scaler_options.growth_factor = opts.growth_factor;
  scaler_options.backoff_factor = opts.backoff_factor;
  scaler_options.growth_interval = opts.growth_interval;
  GradScaler scaler(scaler_options, device, scaler_on);

  int64_t parameter_count = 0;
  for (const torch::Tensor& p : model->parameters()) parameter_count += p.numel();
  std::string planted;
  if (opts.sync_every > 0) planted += " sync-every=" + std::to_string(opts.sync_every);
  if (opts.fp32_head) planted += " fp32-head";
  if (opts.no_autocast) planted += " no-autocast";
  if (opts.alloc_churn) planted += " alloc-churn";
  if (opts.loader_delay_ms > 0) planted += " loader-delay-ms=" + std::to_string(opts.loader_delay_ms);
  if (opts.overflow_at_step > 0) planted += " overflow-at-step=" + std::to_string(opts.overflow_at_step);
  if (opts.init_scale != 65536.0) {
    char scale_text[32];
    std::snprintf(scale_text, sizeof(scale_text), " init-scale=%g", opts.init_scale);
    planted += scale_text;
  }
  std::printf(
      "amp_trainer: libtorch %s device=%s dtype=%s autocast=%s scaler=%s init_scale=%g model: vocab=%lld dim=%lld "
      "seq=%lld layers=%lld heads=%lld batch=%lld params=%lld nvtx=%s planted:%s\n",
      TORCH_VERSION, use_cuda ? "cuda" : "cpu", autocast ? opts.dtype.c_str() : "fp32", autocast ? "on" : "off",
      scaler_on ? "on" : "off", opts.init_scale, static_cast<long long>(sizes.vocab), static_cast<long long>(sizes.dim),
      static_cast<long long>(sizes.seq), static_cast<long long>(sizes.layers), static_cast<long long>(sizes.heads),
      static_cast<long long>(sizes.batch), static_cast<long long>(parameter_count), kNvtxCompiledIn ? "on" : "off",
      planted.empty() ? " none" : planted.c_str());
  std::fflush(stdout);

  StepPrinter printer(opts.steps, use_cuda, opts.quiet);
  int64_t skipped_steps = 0;
  double total_host_ms = 0;
  const auto run_start = std::chrono::steady_clock::now();
  for (int64_t step = 1; step <= opts.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    bool synced = !use_cuda;  // on CPU every value is ready at once
    StepLine line;
    line.step = step;
    {
      NvtxRange step_range("step");
      Batch batch;
      {
        NvtxRange range("dataloader");
        const Batch* host_batch = nullptr;
        {
          // The name PyTorch's profiler gives a DataLoader fetch, so tools that know PyTorch
          // traces (ampscope, HTA) see the input pipeline.
          NvtxRange fetch(kDataLoaderRangeName);
          if (opts.loader_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(opts.loader_delay_ms));
          host_batch = &loader.NextHostBatch();
        }
        batch = loader.ToDevice(*host_batch);
      }
      torch::Tensor loss;
      {
        // `with torch.autocast(device, dtype, enabled=autocast):` around forward and loss only.
        AutocastRegion autocast_region(autocast_device, autocast_dtype, autocast);
        torch::Tensor logits;
        {
          NvtxRange range("forward");
          logits = model->forward(batch.tokens, opts.fp32_head, autocast_device, autocast_dtype);
        }
        if (opts.alloc_churn) {
          NvtxRange range("alloc_churn");
          ChurnAllocations(device);
        }
        {
          NvtxRange range("loss");
          loss = torch::nn::functional::cross_entropy(logits.view({-1, sizes.vocab}), batch.targets.view({-1}));
        }
        if (step == 1) {
          // Host-side metadata only (no sync): shows what autocast did to the head and the loss.
          std::printf("dtypes: logits=%s loss=%s\n", c10::toString(logits.scalar_type()),
                      c10::toString(loss.scalar_type()));
        }
      }
      printer.RecordLoss(step, loss);
      {
        NvtxRange range("backward");
        scaler.Scale(loss).backward();
        if (step == opts.overflow_at_step) {
          // What a too-large loss scale does to fp16 gradients: some overflow to inf (and 0 * inf
          // gives NaN). The scaler must find it, skip this step and halve the scale.
          torch::NoGradGuard no_grad;
          optimizer.params().front().grad().mul_(std::numeric_limits<float>::infinity());
        }
      }
      {
        NvtxRange range("optimizer");
        scaler.Unscale(optimizer.params());
        line.skipped = scaler.FoundInf();  // PyTorch's scaler.step(): found_inf.item(), a sync
        if (scaler.enabled()) synced = true;
        if (!line.skipped) {
          // PyTorch's Optimizer.step profiling name; absent on skipped steps, as in PyTorch,
          // where scaler.step() does not call optimizer.step() at all.
          NvtxRange optimizer_step(kOptimizerStepRangeName);
          optimizer.Step();
        }
        scaler.Update();
        optimizer.ZeroGrad();
      }
      if (opts.sync_every > 0 && step % opts.sync_every == 0) {
        // The planted sync: what a training loop that logs `loss.item()` every N steps does.
        volatile float logged = loss.item<float>();
        (void)logged;
        synced = true;
      }
    }
    line.scale = scaler.host_scale();
    line.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - step_start).count();
    total_host_ms += line.host_ms;
    if (line.skipped) ++skipped_steps;
    printer.Add(line);
    if (synced) printer.Flush();
  }
  if (use_cuda) torch::cuda::synchronize();
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - run_start).count();
  printer.Flush();

  // The device scale must agree with the host's mirror of the update rule (a check on the CPU
  // re-implementation; on CUDA it compares against PyTorch's own kernel).
  const float device_scale = scaler.DeviceScale();
  std::printf(
      "summary: steps=%lld skipped=%lld final_scale=%g first_loss=%.4f last_loss=%.4f mean_step_ms=%.3f "
      "wall_ms=%.1f optimizer_steps=%lld\n",
      static_cast<long long>(opts.steps), static_cast<long long>(skipped_steps), static_cast<double>(device_scale),
      static_cast<double>(printer.first_loss()), static_cast<double>(printer.last_loss()),
      total_host_ms / static_cast<double>(opts.steps), wall_ms, static_cast<long long>(optimizer.steps_taken()));
  if (device_scale != scaler.host_scale()) {
    std::fprintf(stderr, "amp_trainer: internal error: device scale %g != host mirror %g\n",
                 static_cast<double>(device_scale), static_cast<double>(scaler.host_scale()));
    return 1;
  }
  if (!std::isfinite(printer.last_loss())) {
    std::fprintf(stderr, "amp_trainer: the loss is not finite (%g)\n", static_cast<double>(printer.last_loss()));
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace amp_trainer

int main(int argc, char** argv) {
  amp_trainer::TrainerOptions options;
  std::string error;
  switch (amp_trainer::ParseTrainerOptions(argc, argv, &options, &error)) {
    case amp_trainer::ParseResult::kHelp:
      std::fputs(amp_trainer::TrainerUsage(argv[0]).c_str(), stdout);
      return 0;
    case amp_trainer::ParseResult::kError:
      std::fprintf(stderr, "amp_trainer: %s\n", error.c_str());
      return amp_trainer::kExitUsage;
    case amp_trainer::ParseResult::kOk:
      break;
  }
  try {
    return amp_trainer::Train(options);
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "amp_trainer: LibTorch error: %s\n", e.what_without_backtrace());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amp_trainer: error: %s\n", e.what());
  }
  return 1;
}

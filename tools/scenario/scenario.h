// The scenario generator: writes realistic PyTorch-profiler (Kineto) traces of an AMP
// training job with one planted problem each.
//
// The trace is produced by a small discrete-event simulation of one training process:
// a main thread (forward, GradScaler, optimizer), an autograd thread (backward), a compute
// stream, an NCCL stream when world_size > 1, a caching allocator, and a DataLoader. Each
// aten op costs host time, launches real kernel names (see shared/reference/kernel_names.tsv)
// whose GPU time comes from a roofline cost model of an A100-SXM4-80GB (GEMM FLOPs / Tensor
// Core peak, bytes / HBM bandwidth). Timing is consistent by construction: a kernel starts
// after its launch call, a stream runs one thing at a time, a sync returns after the stream
// drains, and each ProfilerStep contains the work it launches.
//
// Used by tests/analyzers (one trace per planted problem), by sample_traces/ (README demo)
// and by bench/ (large traces via WriteKinetoJson with many steps).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope::scenario {

// One planted problem per scenario. kNone is a well-tuned fp16 AMP run.
enum class Problem {
  kNone,               // healthy: autocast fp16 + GradScaler + foreach AdamW, pinned non_blocking H2D
  kHostSync,           // numerics guards: .item() after many ops (the seed's case study, GPU ~40% busy)
  kFp32Gemm,           // one transformer block's MLP runs outside autocast: ampere_sgemm kernels
  kNoAutocast,         // AMP not in use: fp32 everywhere (sgemm), no GradScaler
  kDataLoaderStall,    // single-process DataLoader: the GPU waits for the input at every step start
  kPageableH2D,        // input batch copied from pageable memory (pin_memory=False)
  kAllocChurn,         // torch.cuda.empty_cache() every step: cudaFree/cudaMalloc in steady state
  kScalerSkips,        // GradScaler(init_scale=1e9): skipped steps at the start of training
  kScalerSkipsSteady,  // persistent overflow: skipped steps after warm-up
  kBf16WithScaler,     // bf16 autocast with an unnecessary GradScaler (info)
  kFp16NoScaler,       // model.half() training without a GradScaler, loss in fp16
  kUnfusedElementwise, // hand-written tanh-GELU and RMSNorm: chains of small elementwise kernels
  kUnfusedOptimizer,   // AdamW(foreach=False): per-parameter optimizer kernels
  kExposedAllReduce,   // DDP over a slow link, all-reduce after backward: exposed communication
  kLaunchBound,        // tiny model: kernels of a few us, the host cannot keep the GPU busy
  kLayoutTransform,    // fp16 NCHW CNN: nchwToNhwc/nhwcToNchw around every cuDNN convolution
  kLowTflops,          // misaligned GEMM dims (not multiples of 8): GEMMs far below peak
  kMemoryPeak,         // peak allocated memory at ~95% of the device
  kFragmentation,      // reserved memory far above allocated, near the device capacity
};

// Stable names ("none", "host_sync", ...), used on the command line and in test names.
const char* ProblemName(Problem p);
std::optional<Problem> ParseProblem(std::string_view name);
const std::vector<Problem>& AllProblems();

struct ScenarioOptions {
  Problem problem = Problem::kNone;
  int steps = 8;              // ProfilerStep#N ranges written
  uint64_t seed = 1;          // jitter of host and GPU durations
  double severity = 1.0;      // scales the planted problem (1 = the documented default)
  int rank = 0;
  int world_size = 1;         // > 1: DDP with an NCCL all-reduce per gradient bucket
  bool record_shapes = true;  // cpu_op "Input Dims" / "Input type"
  bool profile_memory = true; // [memory] instant events
  bool fused_optimizer = false;  // AdamW(fused=True): no found_inf .item() sync (PyTorch >= 2.0)
  int first_step_number = -1;    // -1: the scenario's default (10; 0 for kScalerSkips)
  // Model overrides (0 = the scenario's default).
  int layers = 0;
  int batch = 0;
  int seq = 0;
  int hidden = 0;
};

// What the generator planted, measured on its own schedule (not by reading the trace back).
// Tests use it as an independent oracle for the analyzers' numbers.
struct ScenarioSummary {
  int64_t steps = 0;
  std::vector<int64_t> step_numbers;
  std::vector<int64_t> step_duration_ns;  // ProfilerStep CPU start .. max(CPU end, end of its GPU work)
  int64_t window_ns = 0;                  // sum of step durations
  int64_t gpu_busy_ns = 0;                // union of all GPU activity inside the step windows
  int64_t kernels = 0;
  // GPU idle that starts while the host is blocked in a non-GradScaler sync and lasts until
  // the next GPU activity (what removing those syncs could recover, before the CPU bound).
  int64_t sync_idle_ns = 0;
  // Host time per step that is not spent blocked in sync calls: union of cpu_ops, runtime calls
  // and DataLoader ranges, minus blocking calls (summed over steps).
  int64_t host_active_ns = 0;
  // DataLoader ranges inside steps not covered by GPU activity.
  int64_t exposed_dataloader_ns = 0;
  // NCCL kernel time not overlapped by compute kernels.
  int64_t exposed_comm_ns = 0;
  std::vector<int64_t> skipped_step_numbers;  // GradScaler skipped the optimizer
  int64_t syncs_beyond_scaler = 0;            // host-blocking sync calls, GradScaler's excluded
};

// The whole trace as text (JSON). Fine for tests; use WriteKinetoJson for large traces.
std::string GenerateKinetoJson(const ScenarioOptions& options, ScenarioSummary* summary = nullptr);

// Streams the trace to `out` as it is simulated; memory stays bounded for any number of steps.
void WriteKinetoJson(const ScenarioOptions& options, std::ostream& out,
                     ScenarioSummary* summary = nullptr);

// Writes to a file; ".gz" names are gzip-compressed. Returns false (with `error` set) on I/O
// failure and leaves no partial file behind.
bool WriteKinetoFile(const ScenarioOptions& options, const std::string& path, std::string* error,
                     ScenarioSummary* summary = nullptr);

}  // namespace ampscope::scenario

// The discrete-event simulation behind the scenario generator: host threads with op stacks,
// GPU streams, a caching allocator, and the Kineto JSON writer. Internal to tools/scenario.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/scenario/scenario.h"

namespace ampscope::scenario::internal {

using Ns = int64_t;
inline Ns UsToNs(double us) { return static_cast<Ns>(us * 1000.0 + 0.5); }

// Deterministic PRNG (splitmix64): the same seed gives the same trace on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  uint64_t Next();
  double Uniform();                        // [0, 1)
  double Jitter(double rel) { return 1.0 + rel * (2.0 * Uniform() - 1.0); }  // 1 +- rel

 private:
  uint64_t state_;
};

enum Thread : int { kMainThread = 0, kAutogradThread = 1, kThreadCount = 2 };
inline constexpr int kComputeStream = 7;
inline constexpr int kNcclStream = 20;

struct Interval {
  Ns start = 0;
  Ns end = 0;
};

struct KernelShape {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {128, 1, 1};
  int registers = 32;
  int shared_bytes = 0;
};

// Kinds of host intervals recorded for the summary oracle.
enum class HostKind { kOp, kRuntime, kDataLoader, kBlocking, kBlockingScaler, kBlockingAlloc };

// Writes the trace's events, comma-separated, one per call; none while muted (the silent
// warm-up step). The header and footer text go through Raw, muted or not.
class EventWriter {
 public:
  explicit EventWriter(std::ostream* out) : out_(out) {}
  bool has_output() const { return out_ != nullptr; }
  bool emitting() const { return emit_; }
  void SetEmit(bool emit) { emit_ = emit; }
  void Write(const fmt::memory_buffer& b);
  void Raw(const char* data, size_t size);
  // `"key": us.nnn`: µs with three decimals (ns resolution), as current Kineto writes them.
  static void Ts(fmt::memory_buffer& b, const char* key, Ns v);

 private:
  std::ostream* out_;
  bool emit_ = true;
  bool first_event_ = true;
};

// The ground truth the scenario tests compare against, kept from the simulation's own
// intervals (never from the JSON it writes) and summed up at the end.
class SummaryOracle {
 public:
  struct Step {
    int64_t number;
    Ns start, cpu_end, gpu_end;
  };
  explicit SummaryOracle(ScenarioSummary* summary) : summary_(summary) {}
  // Null when the caller asked for no summary: then nothing is kept.
  ScenarioSummary* summary() const { return summary_; }
  void Gpu(Interval i) { if (summary_ != nullptr) gpu_.push_back(i); }
  void Kernel(bool comm, Interval i);
  void Host(HostKind kind, Interval i) { if (summary_ != nullptr) host_.push_back({kind, i}); }
  void StepDone(const Step& step) { steps_.push_back(step); }
  void Finish();

 private:
  ScenarioSummary* summary_;
  std::vector<Step> steps_;
  std::vector<Interval> gpu_;
  std::vector<Interval> compute_kernels_;
  std::vector<Interval> comm_kernels_;
  std::vector<std::pair<HostKind, Interval>> host_;
};

class Sim {
 public:
  Sim(const ScenarioOptions& options, std::ostream* out, ScenarioSummary* summary);
  ~Sim();

  // ---- output control -------------------------------------------------------------
  void WriteHeader();
  void WriteFooter();
  void SetEmit(bool emit) { writer_.SetEmit(emit); }   // false during the silent warm-up step
  // Host threads wait until every stream is idle (end of the warm-up).
  void Drain();
  bool emitting() const { return writer_.emitting(); }

  // ---- host threads ---------------------------------------------------------------
  void SetThread(Thread t) { thread_ = t; }
  Thread thread() const { return thread_; }
  Ns Now() const { return now_[thread_]; }
  Ns NowOf(Thread t) const { return now_[t]; }
  void SetNow(Thread t, Ns v) { now_[t] = v; }
  // Host time on the current thread: `us` microseconds with +-8% jitter.
  void Cpu(double us);
  // Host time with no jitter (planted problems use exact amounts).
  void CpuExact(double us) { now_[thread_] += UsToNs(us); }

  // Nested cpu_op / user_annotation ranges on the current thread.
  void BeginOp(const std::string& name, const std::string& dims = "", const std::string& types = "",
               int64_t seq = -1);
  void BeginAnnotation(const std::string& name, bool project_to_gpu = false);
  void End();  // closes the innermost range on the current thread and writes it

  // ---- GPU work -------------------------------------------------------------------
  // Launches a kernel from the current thread (cudaLaunchKernel) onto `stream`. The kernel
  // starts no earlier than `not_before` (cross-stream dependencies). Returns its end time.
  // `comm_nelems` >= 0 marks an NCCL all-reduce of that many fp32 elements (Kineto's
  // collective args).
  Ns Kernel(const std::string& name, double gpu_us, const KernelShape& shape, int stream = kComputeStream,
            Ns not_before = 0, int64_t comm_nelems = -1);
  // cudaMemcpyAsync host->device of `bytes`. Pageable: the call blocks until the stream drains
  // and the staged copy completes (CUDA's API synchronization behaviour).
  void MemcpyH2D(uint64_t bytes, bool pinned);
  // cudaMemsetAsync of `bytes` on the compute stream (aten::zero_ on a contiguous tensor).
  void MemsetAsync(uint64_t bytes);
  // .item() / _local_scalar_dense: D2H of `bytes` into pageable memory (the call returns when
  // the copy is done) followed by cudaStreamSynchronize. `scaler` marks GradScaler's found_inf.
  void ItemSync(uint64_t bytes, bool scaler);
  // Blocking cudaFree (implicitly synchronizes the device) / cudaMalloc of `bytes`.
  void CudaFree();
  void CudaMalloc(uint64_t bytes);
  Ns StreamFree(int stream) const;
  // Makes `stream` wait for work already queued on `other` (cudaStreamWaitEvent).
  void StreamWait(int stream, int other);

  // ---- allocator ------------------------------------------------------------------
  struct Block {
    uint64_t addr = 0;
    int64_t bytes = 0;
  };
  Block Alloc(int64_t bytes);
  void Free(const Block& b);
  void EmptyCache();  // torch.cuda.empty_cache(): cudaFree every cached segment
  void SetResidentBytes(int64_t allocated, int64_t extra_reserved);
  int64_t allocated() const { return alloc_.allocated; }
  int64_t reserved() const { return alloc_.reserved; }

  // ---- steps ----------------------------------------------------------------------
  void BeginStep(int64_t number);
  void EndStep();
  void MarkSkippedStep(int64_t number);

  Rng& rng() { return rng_; }
  int device() const { return process_.device; }
  const ScenarioOptions& options() const { return options_; }

  // Summary bookkeeping (computed when the simulation ends).
  void Finish();

 private:
  struct Frame {
    std::string name;
    std::string dims;
    std::string types;
    Ns start = 0;
    int64_t external_id = 0;
    int64_t seq = -1;
    bool annotation = false;
    bool project = false;
    Ns gpu_first = -1;
    Ns gpu_last = -1;
  };
  void WriteEvent(const fmt::memory_buffer& b) { writer_.Write(b); }
  static void WriteTs(fmt::memory_buffer& b, const char* key, Ns v) { EventWriter::Ts(b, key, v); }
  int64_t CurrentExternalId() const;
  void Runtime(const char* name, int cbid, Ns start, Ns dur, int64_t correlation);
  void NoteGpu(Ns start, Ns end);
  void RecordHost(HostKind kind, Ns start, Ns end);
  void MemoryEvent(uint64_t addr, int64_t bytes);

  ScenarioOptions options_;
  EventWriter writer_;
  SummaryOracle oracle_;
  Rng rng_;
  struct Process {
    int64_t pid = 0;
    int64_t tids[kThreadCount] = {};
    int device = 0;
  } process_;
  Thread thread_ = kMainThread;
  Ns now_[kThreadCount];
  Ns trace_start_ = 0;
  Ns last_end_ = 0;  // the last GPU activity's end, muted or not (the footer's window end)
  std::vector<Frame> frames_[kThreadCount];
  Ns stream_free_[64];
  std::deque<Ns> pending_;  // end times of launched kernels, launch order (launch queue)
  struct Ids {
    int64_t next_external = 1;
    int64_t next_correlation = 1;
    int64_t ev_idx = 0;
  } ids_;
  // The caching allocator: what is allocated, what is reserved in cudaMalloc'd segments.
  struct Allocator {
    int64_t allocated = 0;
    int64_t reserved = 0;
    int64_t extra_reserved = 0;
    uint64_t next_addr = 0x7f3a00000000ull;
    std::vector<int64_t> segments;  // sizes of cudaMalloc'd segments (for empty_cache)
  } alloc_;
  struct OpenStep {
    int64_t number = -1;
    Ns cpu_start = 0;
    Ns gpu_end = 0;
  } step_;
};

// RAII helpers for ranges.
class OpScope {
 public:
  OpScope(Sim& sim, const std::string& name, const std::string& dims = "", const std::string& types = "",
          int64_t seq = -1)
      : sim_(sim) {
    sim_.BeginOp(name, dims, types, seq);
  }
  ~OpScope() { sim_.End(); }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  Sim& sim_;
};

class AnnotationScope {
 public:
  AnnotationScope(Sim& sim, const std::string& name, bool project_to_gpu = false) : sim_(sim) {
    sim_.BeginAnnotation(name, project_to_gpu);
  }
  ~AnnotationScope() { sim_.End(); }
  AnnotationScope(const AnnotationScope&) = delete;
  AnnotationScope& operator=(const AnnotationScope&) = delete;

 private:
  Sim& sim_;
};

}  // namespace ampscope::scenario::internal

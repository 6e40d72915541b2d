#include "tools/scenario/sim.h"

#include <algorithm>
#include <cmath>

namespace ampscope::scenario::internal {
namespace {

// A100-SXM4-80GB as Kineto reports it (deviceProperties of HTA's a100_16rank_recsys trace).
constexpr const char* kDeviceName = "NVIDIA A100-SXM4-80GB";
constexpr int64_t kDeviceMemory = 84990623744;
constexpr int kSmCount = 108;
// Kineto's trace clock: µs since an epoch; baseTimeNanoseconds shifts it to Unix time.
constexpr Ns kTraceStartNs = 2000000000000ll;  // 2e9 us: exactly representable as a double with ns digits
// Host-side costs (µs), typical of PyTorch 2.x on a server CPU.
constexpr double kLaunchApiUs = 4.5;
constexpr double kMemcpyApiUs = 7.0;
// GPU-side constants.
constexpr double kPinnedH2DBytesPerUs = 22.0e3;    // ~22 GB/s: PCIe Gen4 x16 from pinned memory
constexpr double kPageableH2DBytesPerUs = 6.5e3;   // ~6.5 GB/s: staged through a driver buffer
constexpr int64_t kSegmentBytes = 2ll << 20;        // caching allocator rounds segments to 2 MiB
// CUDA's launch queue: once this many kernels are pending, cudaLaunchKernel blocks.
constexpr size_t kLaunchQueueDepth = 1024;

Ns Merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (i.end <= i.start) continue;
    if (!out.empty() && i.start <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  v.swap(out);
  Ns total = 0;
  for (const Interval& i : v) total += i.end - i.start;
  return total;
}

// Length of merged `a` minus merged `b` (both merged, sorted).
Ns Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  Ns total = 0;
  size_t j = 0;
  for (const Interval& x : a) {
    Ns cur = x.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < x.end) {
      if (b[k].start > cur) total += b[k].start - cur;
      cur = std::max(cur, b[k].end);
      ++k;
    }
    if (cur < x.end) total += x.end - cur;
  }
  return total;
}

std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    Ns s = std::max(a[i].start, b[j].start);
    Ns e = std::min(a[i].end, b[j].end);
    if (s < e) out.push_back({s, e});
    if (a[i].end < b[j].end) ++i; else ++j;
  }
  return out;
}

void AppendEscaped(fmt::memory_buffer& b, const std::string& s) {
  for (char c : s) {
    if (c == '"' || c == '\\') {
      b.push_back('\\');
      b.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(std::back_inserter(b), "\\u{:04x}", static_cast<int>(c));
    } else {
      b.push_back(c);
    }
  }
}

}  // namespace

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

void EventWriter::Ts(fmt::memory_buffer& b, const char* key, Ns v) {
  const Ns us = v / 1000;
  const Ns frac = v % 1000;
  fmt::format_to(std::back_inserter(b), "\"{}\": {}.{:03d}", key, us, static_cast<int>(frac));
}

void EventWriter::Write(const fmt::memory_buffer& b) {
  if (!emit_ || out_ == nullptr) return;
  if (!first_event_) out_->write(",\n", 2);
  first_event_ = false;
  out_->write(b.data(), static_cast<std::streamsize>(b.size()));
}

void EventWriter::Raw(const char* data, size_t size) {
  if (out_ != nullptr) out_->write(data, static_cast<std::streamsize>(size));
}

void SummaryOracle::Kernel(bool comm, Interval i) {
  if (summary_ == nullptr) return;
  ++summary_->kernels;
  (comm ? comm_kernels_ : compute_kernels_).push_back(i);
}

Sim::Sim(const ScenarioOptions& options, std::ostream* out, ScenarioSummary* summary)
    : options_(options), writer_(out), oracle_(summary), rng_(options.seed) {
  process_.pid = 48213 + 7 * options.rank;
  process_.tids[kMainThread] = process_.pid;
  process_.tids[kAutogradThread] = process_.pid + 61;
  process_.device = options.world_size > 1 ? options.rank % 8 : 0;
  trace_start_ = kTraceStartNs + 1000 * options.rank + static_cast<Ns>(options.seed % 997) * 1000;
  for (Ns& n : now_) n = trace_start_;
  for (Ns& s : stream_free_) s = trace_start_;
}

Sim::~Sim() = default;

void Sim::WriteHeader() {
  if (!writer_.has_output()) return;
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
  const int devices = options_.world_size > 1 ? 8 : 1;
  for (int d = 0; d < devices; ++d) {
    fmt::format_to(it,
                   "    {{\"id\": {}, \"name\": \"{}\", \"totalGlobalMem\": {}, \"computeMajor\": 8, \"computeMinor\": 0, "
                   "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
                   "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
                   "\"sharedMemPerMultiprocessor\": 167936, \"numSms\": {}, \"sharedMemPerBlockOptin\": 166912}}{}\n",
                   d, kDeviceName, kDeviceMemory, kSmCount, d + 1 < devices ? "," : "");
  }
  fmt::format_to(it, "  ],\n");
  if (options_.world_size > 1) {
    std::string ranks;
    for (int r = 0; r < options_.world_size; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
    fmt::format_to(it,
                   "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {0}, \"world_size\": {1}, \"pg_count\": 1, "
                   "\"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
                   "\"pg_size\": {1}, \"ranks\": [{2}]}}], \"nccl_version\": \"2.21.5\"}},\n",
                   options_.rank, options_.world_size, ranks);
  }
  fmt::format_to(it,
                 "  \"record_shapes\": {},\n  \"profile_memory\": {},\n  \"with_stack\": 0,\n"
                 "  \"cuda_runtime_version\": 12040,\n  \"cuda_driver_version\": 12040,\n  \"cupti_version\": 22,\n"
                 "  \"trace_id\": \"{:016X}\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1712000000000000000,\n"
                 "  \"traceEvents\": [\n",
                 options_.record_shapes ? 1 : 0, options_.profile_memory ? 1 : 0, rng_.Next());
  writer_.Raw(b.data(), b.size());
}

void Sim::WriteFooter() {
  if (!writer_.has_output()) return;
  const bool was = writer_.emitting();
  writer_.SetEmit(true);
  Ns end = last_end_;
  for (Ns n : now_) end = std::max(end, n);
  auto meta = [&](int64_t pid, int64_t tid, const char* what, const std::string& arg_key, const std::string& value,
                  bool numeric) {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "  {{\"name\": \"{}\", \"ph\": \"M\", ", what);
    WriteTs(b, "ts", trace_start_);
    fmt::format_to(it, ", \"pid\": {}, \"tid\": {}, \"args\": {{\"{}\": ", pid, tid, arg_key);
    if (numeric) {
      fmt::format_to(it, "{}}}}}", value);
    } else {
      fmt::format_to(it, "\"{}\"}}}}", value);
    }
    WriteEvent(b);
  };
  meta(process_.pid, 0, "process_name", "name", "python3.10", false);
  meta(process_.pid, 0, "process_labels", "labels", "CPU", false);
  meta(process_.pid, 0, "process_sort_index", "sort_index", std::to_string(process_.pid), true);
  meta(process_.pid, process_.tids[kMainThread], "thread_name", "name", fmt::format("thread {} (python3.10)", process_.tids[kMainThread]), false);
  meta(process_.pid, process_.tids[kAutogradThread], "thread_name", "name", fmt::format("thread {} (pt_autograd_0)", process_.tids[kAutogradThread]), false);
  meta(process_.device, 0, "process_name", "name", fmt::format("GPU {}", process_.device), false);
  meta(process_.device, 0, "process_labels", "labels", fmt::format("GPU {}", process_.device), false);
  meta(process_.device, 0, "process_sort_index", "sort_index", std::to_string(5000000 + process_.device), true);
  meta(process_.device, kComputeStream, "thread_name", "name", fmt::format("stream {} ", kComputeStream), false);
  if (options_.world_size > 1) meta(process_.device, kNcclStream, "thread_name", "name", fmt::format("stream {} ", kNcclStream), false);
  {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"Trace\", ");
    WriteTs(b, "ts", trace_start_);
    fmt::format_to(it, ", ");
    WriteTs(b, "dur", end - trace_start_);
    fmt::format_to(it, ", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", \"args\": {{\"Op count\": 0}}}}");
    WriteEvent(b);
  }
  {
    fmt::memory_buffer b;
    fmt::format_to(std::back_inserter(b), "  {{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", ");
    WriteTs(b, "ts", trace_start_);
    b.push_back('}');
    WriteEvent(b);
  }
  {
    fmt::memory_buffer b;
    fmt::format_to(std::back_inserter(b), "  {{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", ");
    WriteTs(b, "ts", end);
    b.push_back('}');
    WriteEvent(b);
  }
  writer_.SetEmit(was);
  const std::string tail = fmt::format("\n  ],\n  \"traceName\": \"ampscope_scenario_{}.rank{}.pt.trace.json\"\n}}\n",
                                       ProblemName(options_.problem), options_.rank);
  writer_.Raw(tail.data(), tail.size());
}

void Sim::Cpu(double us) { now_[thread_] += UsToNs(us * rng_.Jitter(0.08)); }

int64_t Sim::CurrentExternalId() const {
  const auto& f = frames_[thread_];
  for (auto it = f.rbegin(); it != f.rend(); ++it) {
    if (!it->annotation) return it->external_id;
  }
  return f.empty() ? 0 : f.back().external_id;
}

void Sim::BeginOp(const std::string& name, const std::string& dims, const std::string& types, int64_t seq) {
  Frame f;
  f.name = name;
  f.dims = dims;
  f.types = types;
  f.start = now_[thread_];
  f.external_id = ids_.next_external++;
  f.seq = seq;
  frames_[thread_].push_back(std::move(f));
  Cpu(1.5);  // dispatcher + RecordFunction entry
}

void Sim::BeginAnnotation(const std::string& name, bool project_to_gpu) {
  Frame f;
  f.name = name;
  f.start = now_[thread_];
  f.external_id = ids_.next_external++;
  f.annotation = true;
  f.project = project_to_gpu;
  frames_[thread_].push_back(std::move(f));
}

void Sim::End() {
  auto& stack = frames_[thread_];
  if (stack.empty()) return;
  Frame f = std::move(stack.back());
  stack.pop_back();
  if (!f.annotation) Cpu(1.0);  // RecordFunction exit
  const Ns end = now_[thread_];
  // Propagate GPU extents to the enclosing ranges.
  if (f.gpu_first >= 0 && !stack.empty()) {
    Frame& parent = stack.back();
    parent.gpu_first = parent.gpu_first < 0 ? f.gpu_first : std::min(parent.gpu_first, f.gpu_first);
    parent.gpu_last = std::max(parent.gpu_last, f.gpu_last);
  }
  if (writer_.emitting()) {
    // Host activity is cpu_ops and DataLoader ranges; other annotations (ProfilerStep,
    // Optimizer.step) only group work.
    if (!f.annotation) {
      RecordHost(HostKind::kOp, f.start, end);
    } else if (f.name.rfind("enumerate(DataLoader)", 0) == 0) {
      RecordHost(HostKind::kDataLoader, f.start, end);
    }
  }
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"", f.annotation ? "user_annotation" : "cpu_op");
  AppendEscaped(b, f.name);
  fmt::format_to(it, "\", \"pid\": {}, \"tid\": {}, ", process_.pid, process_.tids[thread_]);
  WriteTs(b, "ts", f.start);
  fmt::format_to(it, ", ");
  WriteTs(b, "dur", end - f.start);
  fmt::format_to(it, ", \"args\": {{\"External id\": {}, \"Record function id\": {}, \"Ev Idx\": {}", f.external_id,
                 f.external_id + 17, ids_.ev_idx++);
  if (!f.annotation) {
    if (options_.record_shapes && !f.dims.empty()) {
      fmt::format_to(it, ", \"Input Dims\": {}, \"Input type\": {}", f.dims, f.types.empty() ? "[]" : f.types);
    }
    if (f.seq >= 0) {
      fmt::format_to(it, ", \"Sequence number\": {}, \"Fwd thread id\": {}", f.seq, thread_ == kAutogradThread ? 1 : 0);
    }
  }
  fmt::format_to(it, "}}}}");
  WriteEvent(b);
  if (f.annotation && f.project && f.gpu_first >= 0) {
    fmt::memory_buffer g;
    auto git = std::back_inserter(g);
    fmt::format_to(git, "  {{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"");
    AppendEscaped(g, f.name);
    fmt::format_to(git, "\", \"pid\": {}, \"tid\": {}, ", process_.device, kComputeStream);
    WriteTs(g, "ts", f.gpu_first);
    fmt::format_to(git, ", ");
    WriteTs(g, "dur", f.gpu_last - f.gpu_first);
    fmt::format_to(git, ", \"args\": {{\"External id\": {}}}}}", f.external_id);
    WriteEvent(g);
  }
}

void Sim::Runtime(const char* name, int cbid, Ns start, Ns dur, int64_t correlation) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, ", name, process_.pid,
                 process_.tids[thread_]);
  WriteTs(b, "ts", start);
  fmt::format_to(it, ", ");
  WriteTs(b, "dur", dur);
  fmt::format_to(it, ", \"args\": {{\"External id\": {}, \"cbid\": {}, \"correlation\": {}}}}}", CurrentExternalId(), cbid,
                 correlation);
  WriteEvent(b);
  if (writer_.emitting()) RecordHost(HostKind::kRuntime, start, start + dur);
}

void Sim::NoteGpu(Ns start, Ns end) {
  last_end_ = std::max(last_end_, end);
  if (step_.number >= 0) step_.gpu_end = std::max(step_.gpu_end, end);
  for (int t = 0; t < kThreadCount; ++t) {
    if (t != thread_) continue;
    auto& stack = frames_[t];
    if (stack.empty()) continue;
    Frame& f = stack.back();
    f.gpu_first = f.gpu_first < 0 ? start : std::min(f.gpu_first, start);
    f.gpu_last = std::max(f.gpu_last, end);
  }
  if (writer_.emitting()) oracle_.Gpu({start, end});
}

void Sim::RecordHost(HostKind kind, Ns start, Ns end) {
  if (writer_.emitting()) oracle_.Host(kind, {start, end});
}

Ns Sim::Kernel(const std::string& name, double gpu_us, const KernelShape& shape, int stream, Ns not_before,
               int64_t comm_nelems) {
  const Ns api_start = now_[thread_];
  Ns api_dur = UsToNs(kLaunchApiUs * rng_.Jitter(0.25));
  while (!pending_.empty() && pending_.front() <= api_start) pending_.pop_front();
  if (pending_.size() >= kLaunchQueueDepth) {
    // The queue is full: the call returns when the oldest pending kernel retires.
    api_dur += pending_.front() - api_start;
    pending_.pop_front();
  }
  const int64_t corr = ids_.next_correlation++;
  const int64_t ext = CurrentExternalId();
  Runtime("cudaLaunchKernel", 211, api_start, api_dur, corr);
  {
    fmt::memory_buffer f;
    fmt::format_to(std::back_inserter(f), "  {{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, ", corr, process_.pid, process_.tids[thread_]);
    WriteTs(f, "ts", api_start);
    fmt::format_to(std::back_inserter(f), ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}}");
    WriteEvent(f);
  }
  const Ns ready = api_start + api_dur - UsToNs(1.0);
  const Ns gap = UsToNs(1.2 + rng_.Uniform());  // back-to-back kernels on one stream
  Ns start = std::max(ready, not_before);
  if (stream_free_[stream] + gap > start) start = stream_free_[stream] + gap;
  const Ns dur = std::max<Ns>(UsToNs(1.0), UsToNs(gpu_us * rng_.Jitter(0.03)));
  stream_free_[stream] = start + dur;
  pending_.push_back(start + dur);

  const double blocks = double(shape.grid[0]) * shape.grid[1] * shape.grid[2];
  const double threads = double(shape.block[0]) * shape.block[1] * shape.block[2];
  const double warps_per_block = std::ceil(threads / 32.0);
  const double blocks_per_sm = blocks / kSmCount;
  double max_active = std::min(32.0, std::floor(2048.0 / std::max(1.0, threads)));
  if (shape.registers > 0) max_active = std::min(max_active, std::floor(65536.0 / (shape.registers * std::max(32.0, threads))));
  if (shape.shared_bytes > 0) max_active = std::min(max_active, std::floor(167936.0 / shape.shared_bytes));
  max_active = std::max(1.0, max_active);
  const double occupancy = std::min(100.0, std::min(blocks_per_sm, max_active) * warps_per_block / 64.0 * 100.0);

  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"");
  AppendEscaped(b, name);
  fmt::format_to(it, "\", \"pid\": {}, \"tid\": {}, ", process_.device, stream);
  WriteTs(b, "ts", start);
  fmt::format_to(it, ", ");
  WriteTs(b, "dur", dur);
  fmt::format_to(it,
                 ", \"args\": {{\"External id\": {}, \"queued\": 0, \"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, "
                 "\"registers per thread\": {}, \"shared memory\": {}, \"blocks per SM\": {:.6f}, \"warps per SM\": {:.6f}, "
                 "\"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], \"est. achieved occupancy %\": {}",
                 ext, process_.device, stream, corr, shape.registers, shape.shared_bytes, blocks_per_sm, blocks_per_sm * warps_per_block,
                 shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0], shape.block[1], shape.block[2],
                 static_cast<int>(occupancy));
  if (comm_nelems >= 0) {
    std::string ranks;
    for (int r = 0; r < options_.world_size; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
    const int64_t nelems = comm_nelems;
    fmt::format_to(it,
                   ", \"Collective name\": \"allreduce\", \"In msg nelems\": {0}, \"Out msg nelems\": {0}, \"Group size\": {1}, "
                   "\"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
                   "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[{2}]\"",
                   nelems, options_.world_size, ranks);
  }
  fmt::format_to(it, "}}}}");
  WriteEvent(b);
  {
    fmt::memory_buffer f;
    fmt::format_to(std::back_inserter(f), "  {{\"ph\": \"f\", \"id\": {}, \"pid\": {}, \"tid\": {}, ", corr, process_.device, stream);
    WriteTs(f, "ts", start);
    fmt::format_to(std::back_inserter(f), ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}}");
    WriteEvent(f);
  }
  NoteGpu(start, start + dur);
  if (writer_.emitting()) oracle_.Kernel(stream == kNcclStream, {start, start + dur});
  now_[thread_] = api_start + api_dur;
  return start + dur;
}

void Sim::MemcpyH2D(uint64_t bytes, bool pinned) {
  const Ns api_start = now_[thread_];
  const int64_t corr = ids_.next_correlation++;
  const Ns gap = UsToNs(1.5);
  Ns copy_start, copy_dur, api_end;
  if (pinned) {
    const Ns api_dur = UsToNs(kMemcpyApiUs * rng_.Jitter(0.2));
    copy_start = std::max(api_start + api_dur - UsToNs(2.0), stream_free_[kComputeStream] + gap);
    copy_dur = UsToNs((double(bytes) / kPinnedH2DBytesPerUs + 2.0) * rng_.Jitter(0.03));
    api_end = api_start + api_dur;
  } else {
    // Pageable source: the driver synchronizes the stream, then stages the copy; the call
    // returns when the data has been transferred.
    copy_start = std::max(api_start + UsToNs(6.0), stream_free_[kComputeStream] + gap);
    copy_dur = UsToNs((double(bytes) / kPageableH2DBytesPerUs + 5.0) * rng_.Jitter(0.05));
    api_end = copy_start + copy_dur + UsToNs(4.0);
  }
  Runtime("cudaMemcpyAsync", 41, api_start, api_end - api_start, corr);
  stream_free_[kComputeStream] = copy_start + copy_dur;
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD ({} -> Device)\", \"pid\": {}, \"tid\": {}, ",
                 pinned ? "Pinned" : "Pageable", process_.device, kComputeStream);
  WriteTs(b, "ts", copy_start);
  fmt::format_to(it, ", ");
  WriteTs(b, "dur", copy_dur);
  fmt::format_to(it,
                 ", \"args\": {{\"External id\": {}, \"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                 "\"memory bandwidth (GB/s)\": {:.6f}}}}}",
                 CurrentExternalId(), process_.device, kComputeStream, corr, bytes, double(bytes) / double(copy_dur));
  WriteEvent(b);
  NoteGpu(copy_start, copy_start + copy_dur);
  now_[thread_] = api_end;
}

void Sim::MemsetAsync(uint64_t bytes) {
  const Ns api_start = now_[thread_];
  const Ns api_dur = UsToNs(4.0 * rng_.Jitter(0.2));
  const int64_t corr = ids_.next_correlation++;
  Runtime("cudaMemsetAsync", 51, api_start, api_dur, corr);
  const Ns gap = UsToNs(1.2 + rng_.Uniform());
  Ns start = api_start + api_dur - UsToNs(1.0);
  if (stream_free_[kComputeStream] + gap > start) start = stream_free_[kComputeStream] + gap;
  // Memsets stream at about the HBM write bandwidth (~1.6 TB/s on an A100).
  const Ns dur = std::max<Ns>(UsToNs(1.0), UsToNs((double(bytes) / 1.6e6 + 1.5) * rng_.Jitter(0.03)));
  stream_free_[kComputeStream] = start + dur;
  pending_.push_back(start + dur);
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": {}, \"tid\": {}, ", process_.device,
                 kComputeStream);
  WriteTs(b, "ts", start);
  fmt::format_to(it, ", ");
  WriteTs(b, "dur", dur);
  fmt::format_to(it,
                 ", \"args\": {{\"External id\": {}, \"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                 "\"memory bandwidth (GB/s)\": {:.6f}}}}}",
                 CurrentExternalId(), process_.device, kComputeStream, corr, bytes, double(bytes) / double(dur));
  WriteEvent(b);
  NoteGpu(start, start + dur);
  now_[thread_] = api_start + api_dur;
}

void Sim::ItemSync(uint64_t bytes, bool scaler) {
  OpScope item(*this, "aten::item", "[[]]", scaler ? "[\"float\"]" : "[\"bool\"]");
  Cpu(2.0);
  OpScope local(*this, "aten::_local_scalar_dense", "[[]]", scaler ? "[\"float\"]" : "[\"bool\"]");
  Cpu(1.5);
  const Ns api_start = now_[thread_];
  const int64_t corr = ids_.next_correlation++;
  // D2H into a pageable stack variable: the call returns once the copy has completed, which
  // needs everything queued before it on the stream to finish.
  const Ns copy_start = std::max(api_start + UsToNs(4.0), stream_free_[kComputeStream] + UsToNs(1.2));
  const Ns copy_dur = UsToNs(1.4 + 0.6 * rng_.Uniform());
  const Ns api_end = copy_start + copy_dur + UsToNs(3.0 + 2.0 * rng_.Uniform());
  Runtime("cudaMemcpyAsync", 41, api_start, api_end - api_start, corr);
  stream_free_[kComputeStream] = copy_start + copy_dur;
  {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pageable)\", \"pid\": {}, \"tid\": {}, ",
                   process_.device, kComputeStream);
    WriteTs(b, "ts", copy_start);
    fmt::format_to(it, ", ");
    WriteTs(b, "dur", copy_dur);
    fmt::format_to(it,
                   ", \"args\": {{\"External id\": {}, \"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                   "\"memory bandwidth (GB/s)\": {:.6f}}}}}",
                   CurrentExternalId(), process_.device, kComputeStream, corr, bytes, double(bytes) / double(copy_dur));
    WriteEvent(b);
  }
  NoteGpu(copy_start, copy_start + copy_dur);
  now_[thread_] = api_end;
  // cudaStreamSynchronize: the stream is already drained, so it returns quickly.
  const Ns sync_start = now_[thread_] + UsToNs(0.5);
  const Ns sync_dur = UsToNs(2.0 + 1.5 * rng_.Uniform());
  const int64_t sync_corr = ids_.next_correlation++;
  now_[thread_] = sync_start;
  Runtime("cudaStreamSynchronize", 131, sync_start, sync_dur, sync_corr);
  {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "  {{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": {}, \"tid\": {}, ", process_.device,
                   kComputeStream);
    WriteTs(b, "ts", sync_start);
    fmt::format_to(it, ", ");
    WriteTs(b, "dur", sync_dur);
    fmt::format_to(it,
                   ", \"args\": {{\"External id\": {}, \"cuda_sync_kind\": \"Stream Sync\", \"stream\": {}, \"correlation\": {}, "
                   "\"device\": {}, \"context\": 1}}}}",
                   CurrentExternalId(), kComputeStream, sync_corr, process_.device);
    WriteEvent(b);
  }
  now_[thread_] = sync_start + sync_dur;
  RecordHost(scaler ? HostKind::kBlockingScaler : HostKind::kBlocking, api_start, now_[thread_]);
  if (writer_.emitting() && oracle_.summary() != nullptr && !scaler && step_.number >= 0)
    ++oracle_.summary()->syncs_beyond_scaler;
}

Ns Sim::StreamFree(int stream) const { return stream_free_[stream]; }

void Sim::StreamWait(int stream, int other) {
  const Ns api_start = now_[thread_];
  const Ns api_dur = UsToNs(2.5 * rng_.Jitter(0.2));
  Runtime("cudaEventRecord", 135, api_start, api_dur, ids_.next_correlation++);
  now_[thread_] += api_dur;
  const Ns wait_start = now_[thread_];
  Runtime("cudaStreamWaitEvent", 147, wait_start, api_dur, ids_.next_correlation++);
  now_[thread_] += api_dur;
  stream_free_[stream] = std::max(stream_free_[stream], stream_free_[other]);
}

void Sim::CudaFree() {
  const Ns api_start = now_[thread_];
  Ns drained = api_start;
  for (Ns s : stream_free_) drained = std::max(drained, s);
  const Ns end = drained + UsToNs(60.0 + 80.0 * rng_.Uniform());
  Runtime("cudaFree", 22, api_start, end - api_start, ids_.next_correlation++);
  now_[thread_] = end;
  RecordHost(HostKind::kBlockingAlloc, api_start, end);
}

void Sim::CudaMalloc(uint64_t bytes) {
  const Ns api_start = now_[thread_];
  const Ns dur = UsToNs((25.0 + double(bytes) / double(1 << 20) * 0.6) * rng_.Jitter(0.1));
  Runtime("cudaMalloc", 20, api_start, dur, ids_.next_correlation++);
  now_[thread_] = api_start + dur;
}

void Sim::MemoryEvent(uint64_t addr, int64_t bytes) {
  if (!options_.profile_memory) return;
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "  {{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": {}, \"tid\": {}, ",
                 process_.pid, process_.tids[thread_]);
  WriteTs(b, "ts", now_[thread_]);
  fmt::format_to(it,
                 ", \"args\": {{\"Total Reserved\": {}, \"Total Allocated\": {}, \"Bytes\": {}, \"Addr\": {}, \"Device Id\": {}, "
                 "\"Device Type\": 1, \"Ev Idx\": {}}}}}",
                 alloc_.reserved, alloc_.allocated, bytes, addr, process_.device, ids_.ev_idx++);
  WriteEvent(b);
}

Sim::Block Sim::Alloc(int64_t bytes) {
  bytes = std::max<int64_t>(512, (bytes + 511) / 512 * 512);
  if (alloc_.allocated + bytes > alloc_.reserved - alloc_.extra_reserved) {
    const int64_t need = alloc_.allocated + bytes - (alloc_.reserved - alloc_.extra_reserved);
    const int64_t seg = (need + kSegmentBytes - 1) / kSegmentBytes * kSegmentBytes;
    CudaMalloc(static_cast<uint64_t>(seg));
    alloc_.reserved += seg;
    alloc_.segments.push_back(seg);
  }
  alloc_.allocated += bytes;
  Block b{alloc_.next_addr, bytes};
  alloc_.next_addr += static_cast<uint64_t>(bytes) + 4096;
  MemoryEvent(b.addr, bytes);
  return b;
}

void Sim::Free(const Block& b) {
  if (b.bytes <= 0) return;
  alloc_.allocated -= b.bytes;
  MemoryEvent(b.addr, -b.bytes);
}

void Sim::EmptyCache() {
  int64_t cached = alloc_.reserved - alloc_.extra_reserved - alloc_.allocated;
  while (!alloc_.segments.empty() && alloc_.segments.back() <= cached) {
    CudaFree();
    cached -= alloc_.segments.back();
    alloc_.reserved -= alloc_.segments.back();
    alloc_.segments.pop_back();
  }
}

void Sim::Drain() {
  Ns t = 0;
  for (Ns s : stream_free_) t = std::max(t, s);
  for (Ns& n : now_) n = std::max(n, t) + UsToNs(50.0);
  pending_.clear();
}

void Sim::SetResidentBytes(int64_t allocated, int64_t extra_reserved) {
  alloc_.allocated += allocated;
  alloc_.reserved += allocated + extra_reserved;
  alloc_.extra_reserved += extra_reserved;
}

void Sim::BeginStep(int64_t number) {
  step_.number = number;
  step_.cpu_start = now_[kMainThread];
  step_.gpu_end = 0;
  SetThread(kMainThread);
  BeginAnnotation(fmt::format("ProfilerStep#{}", number), /*project_to_gpu=*/true);
}

void Sim::EndStep() {
  SetThread(kMainThread);
  End();
  if (writer_.emitting()) oracle_.StepDone({step_.number, step_.cpu_start, now_[kMainThread], step_.gpu_end});
  step_.number = -1;
}

void Sim::MarkSkippedStep(int64_t number) {
  if (writer_.emitting() && oracle_.summary() != nullptr) oracle_.summary()->skipped_step_numbers.push_back(number);
}

void Sim::Finish() { oracle_.Finish(); }

void SummaryOracle::Finish() {
  if (summary_ == nullptr) return;
  ScenarioSummary& s = *summary_;
  s.steps = static_cast<int64_t>(steps_.size());
  // A step spans its CPU range extended to the end of the GPU work it launched; it starts no
  // earlier than the previous step ends, so windows never overlap.
  std::vector<Interval> windows;
  Ns prev_end = 0;
  for (const Step& r : steps_) {
    const Ns start = std::max(prev_end, r.start);
    const Ns end = std::max({r.cpu_end, r.gpu_end, start});
    s.step_numbers.push_back(r.number);
    s.step_duration_ns.push_back(end - start);
    s.window_ns += end - start;
    windows.push_back({start, end});
    prev_end = end;
  }
  Merge(windows);
  Merge(gpu_);
  const std::vector<Interval> busy = Intersect(gpu_, windows);
  for (const Interval& i : busy) s.gpu_busy_ns += i.end - i.start;

  std::vector<Interval> active, blocking, loader;
  std::vector<std::pair<Interval, bool>> blocking_calls;  // (interval, counts toward sync idle)
  for (const auto& [kind, iv] : host_) {
    switch (kind) {
      case HostKind::kOp:
      case HostKind::kRuntime: active.push_back(iv); break;
      case HostKind::kDataLoader: active.push_back(iv); loader.push_back(iv); break;
      case HostKind::kBlocking: blocking.push_back(iv); blocking_calls.push_back({iv, true}); break;
      case HostKind::kBlockingScaler:
      case HostKind::kBlockingAlloc: blocking.push_back(iv); blocking_calls.push_back({iv, false}); break;
    }
  }
  Merge(active);
  Merge(blocking);
  Merge(loader);
  s.host_active_ns = Subtract(Intersect(active, windows), blocking);
  s.exposed_dataloader_ns = Subtract(Intersect(loader, windows), busy);

  // GPU idle gaps inside the windows that begin while the host is blocked in a sync.
  std::vector<Interval> gaps;
  for (const Interval& w : windows) {
    Ns cur = w.start;
    for (const Interval& b : busy) {
      if (b.end <= w.start || b.start >= w.end) continue;
      if (b.start > cur) gaps.push_back({cur, b.start});
      cur = std::max(cur, b.end);
    }
    if (cur < w.end) gaps.push_back({cur, w.end});
  }
  for (const Interval& g : gaps) {
    for (const auto& [iv, counts] : blocking_calls) {
      if (iv.start <= g.start && g.start <= iv.end) {
        if (counts) s.sync_idle_ns += g.end - g.start;
        break;
      }
    }
  }
  Merge(comm_kernels_);
  Merge(compute_kernels_);
  s.exposed_comm_ns = Subtract(Intersect(comm_kernels_, windows), compute_kernels_);
}

}  // namespace ampscope::scenario::internal

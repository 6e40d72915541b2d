// The trace model: what every reader produces and every analyzer consumes.
//
// Units: every timestamp and duration is int64 nanoseconds on the trace's single clock
// (field names end in _ns). Kineto's microsecond numbers are converted once, in
// trace/formats/kineto/kineto_time.cc (ParseMicrosToNs). Byte counts are uint64 bytes.
//
// Time bounds: readers keep every time within +/-2^62 ns, all times of a trace within 2^61 ns
// of each other, and end >= start (trace/time_bounds.h), so spans and sums cannot overflow.
// duration_ns() is 0 for end < start (and saturates) for tables built by other means.
//
// Tables are vectors of packed records with a static_assert on their size, so a trace
// with millions of kernels stays compact. Strings (kernel names, op names, ...) are
// interned in `strings` and referenced by StringId.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "base/saturating.h"
#include "base/units.h"
#include "trace/string_table.h"

namespace ampscope {

// kMemorySnapshot: a rank read from a PyTorch memory snapshot alone (its trace is empty).
// kNcu: an Nsight Compute CSV analysed alone (trace/formats/ncu/): kernels measured one at a time,
// no timeline.
enum class SourceFormat : uint8_t { kUnknown, kKineto, kAmptrace, kNsys, kMemorySnapshot, kNcu };
const char* SourceFormatName(SourceFormat f);  // "kineto" | "amptrace" | "nsys" | "memory_snapshot" | "ncu" | "unknown"

enum class GpuVendor : uint8_t { kUnknown, kNvidia, kAmd };
const char* GpuVendorName(GpuVendor v);  // "nvidia" | "amd" | "unknown"

// ---------------------------------------------------------------------------------------
// GPU activity

// How a kernel was launched. A run launches the same kernels with the same configuration every
// step, so these 44 bytes are interned: each distinct configuration is stored once in
// Trace::launch_configs and a kernel holds its index (KernelEvent::launch_config). Read one
// through Trace::launch(kernel); readers add one through Trace::InternLaunch.
struct LaunchConfig {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  int32_t registers_per_thread = -1;
  int32_t static_shared_bytes = -1;   // -1 unknown
  int32_t dynamic_shared_bytes = -1;  // -1 unknown; Kineto only gives "shared memory" (static+dynamic) here
  float blocks_per_sm = -1.f;         // Kineto "blocks per SM" (-1 unknown)
  float est_occupancy_pct = -1.f;     // Kineto "est. achieved occupancy %" (-1 unknown)
};
static_assert(sizeof(LaunchConfig) == 44, "LaunchConfig layout changed; check LaunchConfigKey");

struct KernelEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t correlation = -1;    // links to ApiCall::correlation (-1 unknown)
  int64_t external_id = -1;    // Kineto "External id": links to CpuOp::external_id
  StringId name = kNoString;
  int32_t device = -1;
  int32_t stream = -1;
  uint32_t graph_id = 0;              // 0 = not launched from a CUDA graph
  int32_t comm_index = -1;            // index into Trace::comm_infos for NCCL kernels, else -1
  uint32_t launch_config = 0;         // index into Trace::launch_configs; 0 = nothing known
  TimeNs duration_ns() const { return SpanOrZero(start_ns, end_ns); }
};
// 56 bytes: the launch configuration (44 B, the same for most launches) lives in
// Trace::launch_configs, which took a row from 96 to 56 bytes (issue 38, point 6).
static_assert(sizeof(KernelEvent) == 56, "KernelEvent layout changed; check packing");

// Collective metadata attached to NCCL kernels in newer Kineto traces.
struct CommInfo {
  StringId collective = kNoString;      // "Collective name", e.g. "allreduce"
  StringId dtype = kNoString;
  StringId process_group = kNoString;   // "Process Group Name"
  StringId process_group_desc = kNoString;
  int64_t in_nelems = -1;
  int64_t out_nelems = -1;
  int32_t group_size = -1;
  int64_t seq = -1;                     // "Seq": the process group's collective sequence number (-1 none)
};

enum class MemcpyKind : uint8_t { kUnknown, kHtoD, kDtoH, kDtoD, kHtoH, kPtoP };
const char* MemcpyKindName(MemcpyKind k);  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown"

enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kManaged, kArray };
const char* MemoryKindName(MemoryKind k);  // "pageable", "pinned", "device", "managed", "array", "unknown"

struct MemcpyEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t correlation = -1;
  int64_t external_id = -1;
  uint64_t bytes = 0;
  int32_t device = -1;
  int32_t stream = -1;
  MemcpyKind kind = MemcpyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  bool async = true;     // false for cudaMemcpy (synchronous) when known
  uint32_t padding = 0;
  TimeNs duration_ns() const { return SpanOrZero(start_ns, end_ns); }
};
static_assert(sizeof(MemcpyEvent) == 56, "MemcpyEvent layout changed");

struct MemsetEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t correlation = -1;
  int64_t external_id = -1;
  uint64_t bytes = 0;
  int32_t device = -1;
  int32_t stream = -1;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  TimeNs duration_ns() const { return SpanOrZero(start_ns, end_ns); }
};
static_assert(sizeof(MemsetEvent) == 56, "MemsetEvent layout changed");

// ---------------------------------------------------------------------------------------
// Host activity

enum class ApiDomain : uint8_t { kRuntime, kDriver };

// CUPTI callback ids are small (CUDA 13: runtime < 523, driver < 807), so they are kept in 16 bits.
// Anything outside [0, kMaxCbid] in an input is not a CUPTI callback id: it is stored as -1 (unknown).
constexpr int64_t kMaxCbid = 32767;
inline int16_t CbidOrUnknown(int64_t cbid) {
  return cbid >= 0 && cbid <= kMaxCbid ? static_cast<int16_t>(cbid) : int16_t{-1};
}

struct ApiCall {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t correlation = -1;
  int64_t external_id = -1;
  int64_t pid = -1;
  int64_t tid = -1;
  StringId name = kNoString;   // e.g. "cudaLaunchKernel"
  int16_t cbid = -1;           // CUPTI callback id when known (CbidOrUnknown), else -1
  ApiDomain domain = ApiDomain::kRuntime;
  TimeNs duration_ns() const { return SpanOrZero(start_ns, end_ns); }
};
static_assert(sizeof(ApiCall) == 56, "ApiCall layout changed");

enum class SyncType : uint8_t { kUnknown, kEventSync, kStreamWaitEvent, kStreamSync, kContextSync };
const char* SyncTypeName(SyncType t);  // "event_sync", "stream_wait_event", "stream_sync", "context_sync"

// A CUPTI SYNCHRONIZATION record (Kineto cat "cuda_sync").
struct SyncEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t correlation = -1;
  int64_t pid = -1;
  int64_t tid = -1;
  int32_t device = -1;
  int32_t stream = -1;
  SyncType type = SyncType::kUnknown;
};

enum class RangeKind : uint8_t {
  kCpuAnnotation,   // Kineto user_annotation / record_function ranges (and old-format ProfilerStep ops)
  kGpuAnnotation,   // Kineto gpu_user_annotation (projected onto a GPU stream)
  kNvtx,            // NVTX push/pop or start/end ranges recorded by the collector
  kNvtxMark,        // NVTX instantaneous mark (start_ns == end_ns)
};

// Nesting deeper than this is stored as kMaxRangeDepth (FinalizeTrace saturates it): no real
// trace nests ranges 32767 deep on one thread, and a hostile one must not wrap to a negative depth.
constexpr int16_t kMaxRangeDepth = 32767;

struct Range {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;          // host thread, or the stream for kGpuAnnotation
  int64_t external_id = -1;
  int64_t step_number = -1;     // a recorded step's own number (.amptrace --steps window), -1 none
  StringId name = kNoString;
  StringId domain = kNoString;  // NVTX domain, or kNoString for the default domain
  int32_t device = -1;          // for kGpuAnnotation
  int16_t depth = 0;            // nesting depth on its thread (0 = outermost), filled by FinalizeTrace
  RangeKind kind = RangeKind::kCpuAnnotation;
};
static_assert(sizeof(Range) == 64, "Range layout changed");

struct CpuOp {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  int64_t external_id = -1;
  int64_t sequence_number = -1;
  int64_t fwd_thread_id = -1;
  StringId name = kNoString;
  StringId input_types = kNoString;  // the "Input type" JSON array as compact text, e.g. ["c10::Half","float"]
  StringId input_dims = kNoString;   // the "Input Dims" JSON array as compact text, e.g. [[32,64],[64]]
  StringId input_strides = kNoString;    // the "Input Strides" JSON array as compact text (newer traces)
  StringId concrete_inputs = kNoString;  // the "Concrete Inputs" JSON array as compact text, e.g. ["","","0.","True"]
  StringId kernel_backend = kNoString;  // e.g. "triton"
};

enum class MemoryOp : uint8_t { kAlloc, kFree };

// A [memory] instant (Kineto profile_memory) or a CUPTI MEMORY2 record.
struct MemoryEvent {
  TimeNs time_ns = 0;
  uint64_t address = 0;
  int64_t bytes = 0;                // positive for alloc, negative for free (Kineto convention)
  int64_t total_allocated = -1;     // -1 unknown
  int64_t total_reserved = -1;      // -1 unknown
  int32_t device = -1;              // -1 = CPU
  MemoryOp op = MemoryOp::kAlloc;
};

struct CounterSample {
  TimeNs time_ns = 0;
  StringId name = kNoString;   // e.g. "tensor_active_pct"
  int32_t device = -1;
  double value = 0;
};

// A flow arrow (Kineto 's'/'f' events), kept so the Chrome trace writer can reproduce them.
struct FlowEvent {
  TimeNs time_ns = 0;
  int64_t id = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  StringId category = kNoString;  // "ac2g", "fwdbwd", "async", ...
  StringId name = kNoString;
  char phase = 's';               // 's' start, 'f' finish, 't' step
  bool bind_enclosing = false;    // "bp":"e"
};

// Any other complete ('X') or instant ('i') event that no table above models
// (python_function, Trace spans, ...). Kept so exports are faithful.
struct OtherEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;           // == start_ns for instants
  int64_t pid = -1;
  int64_t tid = -1;
  StringId name = kNoString;
  StringId category = kNoString;
  char phase = 'X';
};

// ---------------------------------------------------------------------------------------
// Devices and metadata

struct Device {
  int32_t id = -1;
  std::string name;
  GpuVendor vendor = GpuVendor::kUnknown;
  int32_t cc_major = -1;
  int32_t cc_minor = -1;
  int32_t sm_count = -1;
  int64_t total_memory_bytes = -1;
  int32_t max_threads_per_sm = -1;
  int32_t regs_per_sm = -1;
  int64_t shared_mem_per_sm = -1;
  // How cc_major/cc_minor are known: empty when the trace's device properties give them, else
  // how they were inferred (no deviceProperties: the lowest architecture the kernel names prove,
  // trace/classify/kernel_arch.h), e.g. "inferred from kernel names: compute capability >= 8.0 ...".
  std::string arch_basis;
};

// Names from 'M' metadata events (process_name, thread_name, process_labels).
struct ProcessInfo {
  std::string name;
  std::string labels;
  std::map<int64_t, std::string> thread_names;
};

// One pair of (trace clock, other clock) readings taken at the same moment.
struct ClockCalibration {
  TimeNs trace_ns = 0;
  TimeNs monotonic_ns = 0;
  TimeNs realtime_ns = 0;
};

// A trace with more steps than the analysis keeps in detail (`analyze --detail-steps`, issue 38):
// read in two passes, its events kept for a chosen set of steps only
// (trace/formats/kineto/kineto_step_sample.h). steps_in_trace == 0: every step was kept.
struct StepSampling {
  uint64_t steps_in_trace = 0;    // ProfilerStep#N ranges in the file
  uint64_t steps_kept = 0;        // the steps whose events were kept
  uint64_t every = 0;             // every `every`-th step is among them
  std::string rule;               // which steps, in words
  uint64_t events_left_out = 0;   // events of the other steps, not kept
  // The length of every step's ProfilerStep range, in µs (the kept steps' analysed windows
  // also reach over their GPU tails).
  double mean_us = 0, median_us = 0, p90_us = 0, min_us = 0, max_us = 0;
};

struct TraceMetadata {
  SourceFormat format = SourceFormat::kUnknown;
  std::string path;
  int32_t rank = -1;          // -1 unknown
  int32_t world_size = -1;
  std::string host;
  int64_t pid = -1;
  std::string command_line;
  std::string distributed_backend;  // "nccl", "gloo", ...
  std::string nccl_version;
  std::string cuda_runtime_version;
  std::string cupti_version;
  std::string driver_version;
  std::string framework_version;    // e.g. PyTorch version when known
  uint64_t input_bytes = 0;         // size of the file as read (uncompressed bytes for .gz)
  uint64_t event_count = 0;         // events seen in the input
  std::vector<ClockCalibration> clock_calibration;
  StepSampling step_sampling;
  std::map<std::string, std::string> extra;  // anything else worth showing
};

// ---------------------------------------------------------------------------------------

// One trace file (one process, usually one rank). Several Trace objects make a job.
struct Trace {
  TraceMetadata metadata;
  StringTable strings;
  std::vector<Device> devices;
  std::map<int64_t, ProcessInfo> processes;  // by pid (GPU "processes" in Kineto are device ids)

  std::vector<KernelEvent> kernels;
  // Distinct launch configurations, referenced by KernelEvent::launch_config. Entry 0 is the
  // all-unknown configuration, the one a default KernelEvent points at.
  std::vector<LaunchConfig> launch_configs = std::vector<LaunchConfig>(1);
  std::vector<CommInfo> comm_infos;
  std::vector<MemcpyEvent> memcpys;
  std::vector<MemsetEvent> memsets;
  std::vector<ApiCall> api_calls;
  std::vector<SyncEvent> syncs;
  std::vector<Range> ranges;
  std::vector<CpuOp> cpu_ops;
  std::vector<MemoryEvent> memory_events;
  std::vector<CounterSample> counters;
  std::vector<FlowEvent> flows;
  std::vector<OtherEvent> other_events;

  Diagnostics diagnostics;

  std::string_view str(StringId id) const { return strings.get(id); }
  // Adds `d` unless a device with its id is there already: then nullptr (a reader counts the
  // duplicate). Readers add devices this way, so that a lookup costs O(1) whatever their number
  // (a linear search per device made 160k devices take 12 s).
  Device* AddDevice(Device d);
  // The device with this id, or nullptr. O(1) when every device came through AddDevice; a
  // linear search otherwise (a test that pushes into `devices` itself).
  const Device* FindDevice(int32_t id) const;
  Device* FindDevice(int32_t id) { return const_cast<Device*>(static_cast<const Trace&>(*this).FindDevice(id)); }
  std::unordered_map<int32_t, uint32_t> device_index;  // id -> position in `devices` (AddDevice's)

  // The launch configuration of `k`; the all-unknown one when its index is out of range.
  const LaunchConfig& launch(const KernelEvent& k) const {
    static const LaunchConfig kUnknown;
    return k.launch_config < launch_configs.size() ? launch_configs[k.launch_config] : kUnknown;
  }
  // The index of `c` in launch_configs, added when new (equal = the same bits, so -0.f and 0.f
  // stay apart and every output keeps its bytes). Readers set KernelEvent::launch_config only
  // this way. While a trace is read an open-addressing table of indices (launch_slots, 8 to 16
  // bytes per distinct configuration) finds one in O(1); FinalizeTrace drops it, and a later
  // call rebuilds it first.
  uint32_t InternLaunch(const LaunchConfig& c);
  std::vector<uint32_t> launch_slots;  // index + 1 into launch_configs, 0 = empty slot
};

// Sorts every table by start time, fills Range::depth (saturated at kMaxRangeDepth), drops the
// launch configurations' lookup table (Trace::launch_slots), and records 'unsorted_events'
// (info) when the input was out of order. Readers call it once at the end. With `threads` > 1
// a large table is sorted in two halves side by side, then merged (the same order: the sort
// is stable either way).
void FinalizeTrace(Trace& trace, int threads = 1);

// The order FinalizeTrace leaves ranges and cpu ops in: by start, the longer (enclosing) one
// first on equal starts.
struct EnclosingFirst {
  template <typename Row> bool operator()(const Row& a, const Row& b) const {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  }
};

// Calls f(StringId&) for every string id a row holds. Code that moves rows from one string
// table to another (the parallel Kineto reader's merge) goes through these, so a new StringId
// field must be added here too (a test compares parallel and sequential reads field by field).
template <typename F> void ForEachStringId(KernelEvent& e, F&& f) { f(e.name); }
template <typename F> void ForEachStringId(CommInfo& e, F&& f) {
  f(e.collective), f(e.dtype), f(e.process_group), f(e.process_group_desc);
}
template <typename F> void ForEachStringId(ApiCall& e, F&& f) { f(e.name); }
template <typename F> void ForEachStringId(Range& e, F&& f) { f(e.name), f(e.domain); }
template <typename F> void ForEachStringId(CpuOp& e, F&& f) {
  f(e.name), f(e.input_types), f(e.input_dims), f(e.input_strides), f(e.concrete_inputs), f(e.kernel_backend);
}
template <typename F> void ForEachStringId(CounterSample& e, F&& f) { f(e.name); }
template <typename F> void ForEachStringId(FlowEvent& e, F&& f) { f(e.category), f(e.name); }
template <typename F> void ForEachStringId(OtherEvent& e, F&& f) { f(e.name), f(e.category); }
// Tables without strings.
template <typename F> void ForEachStringId(MemcpyEvent&, F&&) {}
template <typename F> void ForEachStringId(MemsetEvent&, F&&) {}
template <typename F> void ForEachStringId(SyncEvent&, F&&) {}
template <typename F> void ForEachStringId(MemoryEvent&, F&&) {}

}  // namespace ampscope

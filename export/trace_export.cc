#include "export/trace_export.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "base/strings.h"

namespace ampscope {
namespace trace_export {

// ---------------------------------------------------------------------------------------
// Formatting

void AppendMicros(std::string& out, TimeNs ns) {
  // Magnitude as uint64 so INT64_MIN does not overflow.
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), mag / 1000);
  out.append(buf, res.ptr);
  uint64_t frac = mag % 1000;
  out.push_back('.');
  out.push_back(static_cast<char>('0' + frac / 100));
  out.push_back(static_cast<char>('0' + (frac / 10) % 10));
  out.push_back(static_cast<char>('0' + frac % 10));
}

std::string FormatMicros(TimeNs ns) {
  std::string s;
  AppendMicros(s, ns);
  return s;
}

void AppendJsonEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
        ++i;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
}

void AppendValidUtf8(std::string& out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Pids

int64_t RankPids::Map(int64_t input_pid) const {
  auto it = by_input_pid.find(input_pid);
  return it == by_input_pid.end() ? input_pid : it->second;
}

std::pair<int64_t, int64_t> EventDescriber::SyncTrack(const SyncEvent& e) {
  // Kineto puts cuda_sync records on the GPU stream they synchronise.
  if (e.device >= 0 && e.stream >= 0) return {e.device, e.stream};
  if (e.pid >= 0) return {e.pid, e.tid};
  return {e.device, e.stream < 0 ? 0 : e.stream};
}

std::pair<int64_t, int64_t> EventDescriber::RangeTrack(const Range& e) {
  if (e.kind == RangeKind::kGpuAnnotation && e.device >= 0) return {e.device, e.tid};
  return {e.pid, e.tid};
}

namespace {

int64_t GuessHostPid(const Trace& trace) {
  if (trace.metadata.pid >= 0) return trace.metadata.pid;
  std::map<int64_t, uint64_t> counts;
  for (const ApiCall& a : trace.api_calls) counts[a.pid]++;
  for (const CpuOp& o : trace.cpu_ops) counts[o.pid]++;
  int64_t best = -1;
  uint64_t best_n = 0;
  for (const auto& [pid, n] : counts)
    if (n > best_n) best = pid, best_n = n;
  return best;
}

// Calls f(pid, tid) for every (pid, tid) an input event is written on, skipping repeats of
// the previous pair (tables are long runs on the same track).
template <typename F>
void ForEachTrack(const Trace& trace, F&& f) {
  std::pair<int64_t, int64_t> last{std::numeric_limits<int64_t>::min(), 0};
  auto visit = [&](std::pair<int64_t, int64_t> p) {
    if (p == last) return;
    last = p;
    f(p.first, p.second);
  };
  for (const KernelEvent& e : trace.kernels) visit(EventDescriber::KernelTrack(e));
  for (const MemcpyEvent& e : trace.memcpys) visit(EventDescriber::MemcpyTrack(e));
  for (const MemsetEvent& e : trace.memsets) visit(EventDescriber::MemsetTrack(e));
  for (const ApiCall& e : trace.api_calls) visit({e.pid, e.tid});
  for (const SyncEvent& e : trace.syncs) visit(EventDescriber::SyncTrack(e));
  for (const Range& e : trace.ranges) visit(EventDescriber::RangeTrack(e));
  for (const CpuOp& e : trace.cpu_ops) visit({e.pid, e.tid});
  for (const OtherEvent& e : trace.other_events) visit({e.pid, e.tid});
  for (const FlowEvent& e : trace.flows) visit({e.pid, e.tid});
}

std::set<int32_t> GpuDevices(const Trace& trace) {
  std::set<int32_t> devices;
  int32_t last = std::numeric_limits<int32_t>::min();
  auto add = [&](int32_t d) {
    if (d != last) devices.insert(d), last = d;
  };
  for (const KernelEvent& e : trace.kernels) add(e.device);
  for (const MemcpyEvent& e : trace.memcpys) add(e.device);
  for (const MemsetEvent& e : trace.memsets) add(e.device);
  for (const CounterSample& c : trace.counters)
    if (c.device >= 0) add(c.device);
  for (const Device& d : trace.devices) devices.insert(d.id);
  return devices;
}

}  // namespace

std::vector<int64_t> UsedPids(const Trace& trace) {
  std::set<int64_t> pids;
  ForEachTrack(trace, [&](int64_t pid, int64_t) { pids.insert(pid); });
  if (!trace.memory_events.empty()) pids.insert(GuessHostPid(trace));
  for (const CounterSample& c : trace.counters) pids.insert(c.device >= 0 ? c.device : GuessHostPid(trace));
  return std::vector<int64_t>(pids.begin(), pids.end());
}

std::vector<RankPids> AssignPids(const std::vector<Trace>& traces) {
  std::vector<RankPids> out(traces.size());
  constexpr int64_t kMaxPid = std::numeric_limits<int32_t>::max();
  if (traces.size() == 1) {
    // Keep the input's pids; only pids a 32-bit reader cannot take are moved.
    std::vector<int64_t> used = UsedPids(traces[0]);
    int64_t next = 0;
    for (int64_t p : used)
      if (p >= 0 && p < kMaxPid) next = std::max(next, p + 1);
    for (int64_t p : used) out[0].by_input_pid[p] = (p >= 0 && p < kMaxPid) ? p : next++;
    out[0].analysis_pid = next++;
    return out;
  }
  // Several ranks: rank i gets [base_i, base_i + stride); base_i + 0 is its analysis process.
  std::vector<std::vector<int64_t>> used(traces.size());
  size_t widest = 0;
  for (size_t i = 0; i < traces.size(); ++i) {
    used[i] = UsedPids(traces[i]);
    widest = std::max(widest, used[i].size());
  }
  int64_t stride = 100;
  while (stride < static_cast<int64_t>(widest) + 1) stride *= 10;
  for (size_t i = 0; i < traces.size(); ++i) {
    int64_t base = static_cast<int64_t>(i + 1) * stride;
    out[i].analysis_pid = base;
    for (size_t k = 0; k < used[i].size(); ++k) out[i].by_input_pid[used[i][k]] = base + 1 + static_cast<int64_t>(k);
  }
  return out;
}

std::string RankLabel(const Trace& trace, size_t index) {
  return "rank " + std::to_string(trace.metadata.rank >= 0 ? trace.metadata.rank : static_cast<int64_t>(index));
}

// ---------------------------------------------------------------------------------------
// Event descriptions

namespace {

const char* MemoryKindTitle(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kManaged: return "Managed";
    case MemoryKind::kArray: return "Array";
    default: return "Unknown";
  }
}

constexpr size_t kMemoryKinds = 6;  // MemoryKind values
constexpr size_t kMemcpyKinds = 6;  // MemcpyKind values

}  // namespace

EventDescriber::EventDescriber(const Trace& trace) : trace_(trace) {
  host_pid_ = GuessHostPid(trace);
  memcpy_names_.resize(kMemcpyKinds * kMemoryKinds * kMemoryKinds);
}

std::string_view EventDescriber::MemcpyName(const MemcpyEvent& e) const {
  size_t idx = (static_cast<size_t>(e.kind) % kMemcpyKinds) * kMemoryKinds * kMemoryKinds +
               (static_cast<size_t>(e.src_kind) % kMemoryKinds) * kMemoryKinds +
               static_cast<size_t>(e.dst_kind) % kMemoryKinds;
  std::string& name = memcpy_names_[idx];
  if (name.empty()) {
    // Kineto's spelling: "Memcpy HtoD (Pageable -> Device)".
    name = std::string("Memcpy ") + MemcpyKindName(e.kind);
    if (e.src_kind != MemoryKind::kUnknown || e.dst_kind != MemoryKind::kUnknown)
      name += fmt::format(" ({} -> {})", MemoryKindTitle(e.src_kind), MemoryKindTitle(e.dst_kind));
  }
  return name;
}

std::string_view EventDescriber::MemsetName(const MemsetEvent& e) const {
  switch (e.memory_kind) {
    case MemoryKind::kDevice: return "Memset (Device)";
    case MemoryKind::kPinned: return "Memset (Pinned)";
    case MemoryKind::kPageable: return "Memset (Pageable)";
    case MemoryKind::kManaged: return "Memset (Managed)";
    default: return "Memset";
  }
}

const char* EventDescriber::SyncName(SyncType t) {
  switch (t) {
    case SyncType::kEventSync: return "Event Sync";
    case SyncType::kStreamWaitEvent: return "Stream Wait Event";
    case SyncType::kStreamSync: return "Stream Sync";
    case SyncType::kContextSync: return "Context Sync";
    default: return "Unknown Sync";
  }
}

const char* EventDescriber::RangeCategory(RangeKind k) {
  switch (k) {
    case RangeKind::kGpuAnnotation: return "gpu_user_annotation";
    case RangeKind::kNvtx: return "nvtx";
    case RangeKind::kNvtxMark: return "nvtx";
    default: return "user_annotation";
  }
}

bool EventDescriber::IsJson(StringId id) const {
  if (id >= json_state_.size()) json_state_.resize(static_cast<size_t>(id) + 1, 0);
  if (json_state_[id] == 0) {
    std::string_view s = trace_.str(id);
    json_state_[id] = (!s.empty() && nlohmann::json::accept(s.begin(), s.end())) ? 1 : 2;
  }
  return json_state_[id] == 1;
}

void EventDescriber::KernelArgs(const KernelEvent& e, const KernelClass* cls, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
  const LaunchConfig& lc = trace_.launch(e);
  if (lc.grid[0] != 0 || lc.block[0] != 0) {
    int64_t grid[3] = {lc.grid[0], lc.grid[1], lc.grid[2]};
    int64_t block[3] = {lc.block[0], lc.block[1], lc.block[2]};
    sink.IntArray("grid", grid, 3);
    sink.IntArray("block", block, 3);
  }
  if (lc.registers_per_thread >= 0) sink.Int("registers per thread", lc.registers_per_thread);
  if (lc.static_shared_bytes >= 0 || lc.dynamic_shared_bytes >= 0)
    sink.Int("shared memory", int64_t{std::max(0, lc.static_shared_bytes)} + std::max(0, lc.dynamic_shared_bytes));
  if (lc.blocks_per_sm >= 0) sink.Double("blocks per SM", lc.blocks_per_sm);
  if (lc.est_occupancy_pct >= 0) sink.Double("est. achieved occupancy %", lc.est_occupancy_pct);
  if (e.graph_id != 0) sink.Int("graph id", e.graph_id);
  if (e.comm_index >= 0 && static_cast<size_t>(e.comm_index) < trace_.comm_infos.size()) {
    const CommInfo& c = trace_.comm_infos[e.comm_index];
    if (c.collective != kNoString) sink.String("Collective name", trace_.str(c.collective));
    if (c.dtype != kNoString) sink.String("dtype", trace_.str(c.dtype));
    if (c.in_nelems >= 0) sink.Int("In msg nelems", c.in_nelems);
    if (c.out_nelems >= 0) sink.Int("Out msg nelems", c.out_nelems);
    if (c.group_size >= 0) sink.Int("Group size", c.group_size);
    if (c.seq >= 0) sink.Int("Seq", c.seq);
    if (c.process_group != kNoString) sink.String("Process Group Name", trace_.str(c.process_group));
    if (c.process_group_desc != kNoString)
      sink.String("Process Group Description", trace_.str(c.process_group_desc));
  }
  // The analysis' class of the kernel, next to Kineto's fields (none when the rank was not analysed).
  if (cls == nullptr) return;
  sink.String("ampscope category", KernelCategoryName(cls->category));
  sink.String("ampscope precision", PrecisionName(cls->precision));
  sink.String("ampscope tensor core", TensorCoreUseName(cls->tensor_core));
}

namespace {

// The args Kineto gives a memcpy and a memset alike.
template <typename Transfer>
void TransferArgs(const Transfer& e, ArgSink& sink) {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
  sink.Int("bytes", static_cast<int64_t>(e.bytes));
  // Kineto's "memory bandwidth (GB/s)": bytes / duration; bytes per ns = GB/s.
  if (e.duration_ns() > 0) sink.Double("memory bandwidth (GB/s)", double(e.bytes) / double(e.duration_ns()));
}

}  // namespace

void EventDescriber::MemcpyArgs(const MemcpyEvent& e, ArgSink& sink) const {
  TransferArgs(e, sink);
  if (!e.async) sink.Bool("synchronous", true);
}

void EventDescriber::MemsetArgs(const MemsetEvent& e, ArgSink& sink) const { TransferArgs(e, sink); }

void EventDescriber::ApiArgs(const ApiCall& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.cbid >= 0) sink.Int("cbid", e.cbid);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
}

void EventDescriber::SyncArgs(const SyncEvent& e, ArgSink& sink) const {
  sink.String("cuda_sync_kind", SyncName(e.type));
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
}

void EventDescriber::RangeArgs(const Range& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.domain != kNoString) sink.String("domain", trace_.str(e.domain));
  if (e.kind == RangeKind::kGpuAnnotation) sink.Int("device", e.device);
}

void EventDescriber::CpuOpArgs(const CpuOp& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.sequence_number >= 0) sink.Int("Sequence number", e.sequence_number);
  if (e.fwd_thread_id >= 0) sink.Int("Fwd thread id", e.fwd_thread_id);
  auto raw = [&](std::string_view key, StringId id) {
    if (id == kNoString) return;
    if (IsJson(id)) {
      sink.RawJson(key, trace_.str(id));
    } else {
      sink.String(key, trace_.str(id));
    }
  };
  raw("Input Dims", e.input_dims);
  raw("Input type", e.input_types);
  if (e.kernel_backend != kNoString) sink.String("kernel_backend", trace_.str(e.kernel_backend));
}

void EventDescriber::MemoryArgs(const MemoryEvent& e, ArgSink& sink) const {
  // Kineto's [memory] instant: "Device Type" 0 = CPU, 1 = CUDA.
  sink.Int("Device Type", e.device >= 0 ? 1 : 0);
  sink.Int("Device Id", e.device);
  sink.Int("Addr", static_cast<int64_t>(e.address));
  sink.Int("Bytes", e.bytes);
  if (e.total_allocated >= 0) sink.Int("Total Allocated", e.total_allocated);
  if (e.total_reserved >= 0) sink.Int("Total Reserved", e.total_reserved);
}

// ---------------------------------------------------------------------------------------
// Track names

TrackNames NameTracks(const Trace& trace) {
  TrackNames names;
  std::set<int32_t> gpus = GpuDevices(trace);
  int64_t host = GuessHostPid(trace);
  auto is_gpu = [&](int64_t pid) {
    // A GPU "process" (Kineto: pid = device id) unless the host process has that pid.
    return pid != host && pid >= std::numeric_limits<int32_t>::min() && pid <= std::numeric_limits<int32_t>::max() &&
           gpus.count(static_cast<int32_t>(pid)) > 0;
  };
  for (int64_t pid : UsedPids(trace)) {
    auto it = trace.processes.find(pid);
    std::string name = it != trace.processes.end() ? it->second.name : std::string();
    std::string labels = it != trace.processes.end() ? it->second.labels : std::string();
    if (name.empty()) {
      if (is_gpu(pid)) {
        name = "GPU " + std::to_string(pid);
        const Device* d = trace.FindDevice(static_cast<int32_t>(pid));
        if (d != nullptr && !d->name.empty()) name += " (" + d->name + ")";
      } else if (pid == host && !trace.metadata.command_line.empty()) {
        std::string cmd = trace.metadata.command_line.substr(0, trace.metadata.command_line.find(' '));
        name = cmd.substr(cmd.find_last_of('/') == std::string::npos ? 0 : cmd.find_last_of('/') + 1);
      } else if (pid < 0) {
        name = "events without a numeric pid";  // e.g. Kineto's "Spans"/"Traces" pseudo-processes
      } else {
        name = "process " + std::to_string(pid);
      }
    }
    if (is_gpu(pid)) names.gpu_pids.insert(pid);
    if (labels.empty() && is_gpu(pid)) labels = "GPU " + std::to_string(pid);
    names.process[pid] = name;
    if (!labels.empty()) names.process_labels[pid] = labels;
  }
  ForEachTrack(trace, [&](int64_t pid, int64_t tid) {
    auto key = std::make_pair(pid, tid);
    if (names.thread.count(key)) return;
    auto it = trace.processes.find(pid);
    if (it != trace.processes.end()) {
      auto t = it->second.thread_names.find(tid);
      if (t != it->second.thread_names.end() && !t->second.empty()) {
        names.thread[key] = t->second;
        return;
      }
    }
    names.thread[key] = tid < 0 ? std::string("events without a numeric tid")
                                : (is_gpu(pid) ? "stream " : "thread ") + std::to_string(tid);
  });
  return names;
}

}  // namespace trace_export
}  // namespace ampscope

#include "reports/chrome_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "base/strings.h"
#include "base/units.h"
#include "reports/fields_json.h"
#include "reports/json_report.h"

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

const char* TensorCoreName(TensorCoreUse t) {
  switch (t) {
    case TensorCoreUse::kYes: return "yes";
    case TensorCoreUse::kNo: return "no";
    default: return "unknown";
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

const KernelClass& EventDescriber::Classify(StringId name) const {
  if (name >= classes_.size()) {
    classes_.resize(static_cast<size_t>(name) + 1);
    classified_.resize(static_cast<size_t>(name) + 1, 0);
  }
  if (!classified_[name]) {
    classes_[name] = ClassifyKernel(trace_.str(name));
    classified_[name] = 1;
  }
  return classes_[name];
}

bool EventDescriber::IsJson(StringId id) const {
  if (id >= json_state_.size()) json_state_.resize(static_cast<size_t>(id) + 1, 0);
  if (json_state_[id] == 0) {
    std::string_view s = trace_.str(id);
    json_state_[id] = (!s.empty() && nlohmann::json::accept(s.begin(), s.end())) ? 1 : 2;
  }
  return json_state_[id] == 1;
}

void EventDescriber::KernelArgs(const KernelEvent& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
  if (e.grid[0] != 0 || e.block[0] != 0) {
    int64_t grid[3] = {e.grid[0], e.grid[1], e.grid[2]};
    int64_t block[3] = {e.block[0], e.block[1], e.block[2]};
    sink.IntArray("grid", grid, 3);
    sink.IntArray("block", block, 3);
  }
  if (e.registers_per_thread >= 0) sink.Int("registers per thread", e.registers_per_thread);
  if (e.static_shared_bytes >= 0 || e.dynamic_shared_bytes >= 0)
    sink.Int("shared memory", int64_t{std::max(0, e.static_shared_bytes)} + std::max(0, e.dynamic_shared_bytes));
  if (e.blocks_per_sm >= 0) sink.Double("blocks per SM", e.blocks_per_sm);
  if (e.est_occupancy_pct >= 0) sink.Double("est. achieved occupancy %", e.est_occupancy_pct);
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
  // ampscope's classification of the kernel, next to Kineto's fields.
  const KernelClass& cls = Classify(e.name);
  sink.String("ampscope category", KernelCategoryName(cls.category));
  sink.String("ampscope precision", PrecisionName(cls.precision));
  sink.String("ampscope tensor core", TensorCoreName(cls.tensor_core));
}

void EventDescriber::MemcpyArgs(const MemcpyEvent& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
  sink.Int("bytes", static_cast<int64_t>(e.bytes));
  // Kineto's "memory bandwidth (GB/s)": bytes / duration; bytes per ns = GB/s.
  if (e.duration_ns() > 0) sink.Double("memory bandwidth (GB/s)", double(e.bytes) / double(e.duration_ns()));
  if (!e.async) sink.Bool("synchronous", true);
}

void EventDescriber::MemsetArgs(const MemsetEvent& e, ArgSink& sink) const {
  if (e.external_id >= 0) sink.Int("External id", e.external_id);
  if (e.correlation >= 0) sink.Int("correlation", e.correlation);
  sink.Int("device", e.device);
  sink.Int("stream", e.stream);
  sink.Int("bytes", static_cast<int64_t>(e.bytes));
  if (e.duration_ns() > 0) sink.Double("memory bandwidth (GB/s)", double(e.bytes) / double(e.duration_ns()));
}

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

// ---------------------------------------------------------------------------------------
// Analysis tracks

const char* ChromeColorName(SpanColor c) {
  // catapult's reserved colour names (tracing/base/color_scheme.html).
  switch (c) {
    case SpanColor::kStep: return "rail_response";
    case SpanColor::kHostWait: return "terrible";
    case SpanColor::kKernelWait: return "yellow";
    case SpanColor::kOtherIdle: return "grey";
    case SpanColor::kSync: return "bad";
    case SpanColor::kInfo: return "good";
    case SpanColor::kWarning: return "yellow";
    case SpanColor::kCritical: return "terrible";
    default: return "";
  }
}

namespace {

class TrackBuilder {
 public:
  explicit TrackBuilder(AnalysisTracks& out) : out_(out) {}

  uint32_t Name(const std::string& s) {
    auto it = name_ids_.find(s);
    if (it != name_ids_.end()) return it->second;
    out_.names.push_back(s);
    uint32_t id = static_cast<uint32_t>(out_.names.size() - 1);
    name_ids_.emplace(s, id);
    return id;
  }
  int32_t Args(nlohmann::json args) {
    out_.args.push_back(std::move(args));
    return static_cast<int32_t>(out_.args.size() - 1);
  }

  // Sorts `spans` and splits them into properly nested lanes, appended as tracks.
  void AddTrack(const std::string& name, const std::string& category, std::vector<AnalysisSpan> spans) {
    if (spans.empty()) return;
    std::stable_sort(spans.begin(), spans.end(), [](const AnalysisSpan& a, const AnalysisSpan& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      return a.end_ns > b.end_ns;  // enclosing first
    });
    std::vector<std::vector<TimeNs>> open;  // per lane: a stack of open span ends
    std::vector<std::vector<AnalysisSpan>> lanes;
    for (const AnalysisSpan& s : spans) {
      size_t lane = 0;
      for (; lane < open.size(); ++lane) {
        std::vector<TimeNs>& stack = open[lane];
        while (!stack.empty() && stack.back() <= s.start_ns) stack.pop_back();
        if (stack.empty() || stack.back() >= s.end_ns) break;
      }
      if (lane == open.size()) {
        open.emplace_back();
        lanes.emplace_back();
      }
      if (!s.instant) open[lane].push_back(s.end_ns);
      lanes[lane].push_back(s);
    }
    for (size_t l = 0; l < lanes.size(); ++l) {
      AnalysisTrack t;
      t.name = l == 0 ? name : fmt::format("{} (overlap {})", name, l);
      t.category = category;
      t.spans = std::move(lanes[l]);
      out_.tracks.push_back(std::move(t));
    }
  }

 private:
  AnalysisTracks& out_;
  std::unordered_map<std::string, uint32_t> name_ids_;
};

SpanColor SeverityColor(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kCritical: return SpanColor::kCritical;
    case FindingSeverity::kWarning: return SpanColor::kWarning;
    default: return SpanColor::kInfo;
  }
}

// Per-step counter samples: the value from the step's start; 0 after the last step and
// in gaps between steps, so a value never spills outside its step.
AnalysisCounter StepCounter(const std::string& name, const std::string& series, const std::vector<StepWindow>& steps,
                            const std::vector<std::optional<double>>& values) {
  AnalysisCounter c;
  c.name = name;
  c.series = series;
  for (size_t i = 0; i < steps.size() && i < values.size(); ++i) {
    if (!values[i]) continue;
    c.samples.emplace_back(steps[i].start_ns, *values[i]);
    bool next_starts_later = i + 1 >= steps.size() || steps[i + 1].start_ns > steps[i].end_ns || !values[i + 1];
    if (next_starts_later) c.samples.emplace_back(steps[i].end_ns, 0.0);
  }
  return c;
}

std::optional<double> NumberAt(const nlohmann::json& per_step, size_t i, const char* key) {
  if (!per_step.is_array() || i >= per_step.size()) return std::nullopt;
  const nlohmann::json& s = per_step[i];
  if (!s.is_object() || !s.contains(key) || !s[key].is_number()) return std::nullopt;
  double v = s[key].get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

AnalysisTracks BuildAnalysisTracks(const RankAnalysis& rank) {
  AnalysisTracks out;
  TrackBuilder b(out);
  const std::vector<StepWindow>& steps = rank.steps.steps;
  const nlohmann::json per_step = PerStepJson(rank.per_step);

  // Steps: one span per analysed step.
  {
    std::vector<AnalysisSpan> spans;
    for (size_t i = 0; i < steps.size(); ++i) {
      const StepWindow& w = steps[i];
      nlohmann::json args = {{"step_index", i},
                             {"number", w.number},
                             {"step_source", StepSourceName(rank.steps.source)},
                             {"duration_us", NsToUs(w.duration_ns())},
                             {"cpu_start_us", NsToUs(w.cpu_start_ns)},
                             {"cpu_end_us", NsToUs(w.cpu_end_ns)}};
      if (per_step.is_array() && i < per_step.size() && per_step[i].is_object())
        for (const char* key : {"busy_pct", "kernel_busy_pct", "tensor_core_kernel_pct", "kernels", "syncs"})
          if (per_step[i].contains(key)) args[key] = per_step[i][key];
      std::string name = w.name.empty() ? "step " + std::to_string(w.number) : w.name;
      spans.push_back({w.start_ns, w.end_ns, b.Name(name), b.Args(std::move(args)), SpanColor::kStep, false});
    }
    b.AddTrack("steps", "ampscope.step", std::move(spans));
  }

  // Idle gaps per device, with HTA's categories.
  {
    const std::vector<IdleGap>& gaps = rank.gpu.idle_gaps;  // the analysis' gaps (analyzers/context)
    static constexpr struct {
      IdleKind kind;
      SpanColor color;
      const char* meaning;
    } kKinds[] = {
        {IdleKind::kHostWait, SpanColor::kHostWait,
         "host_wait: the GPU waited for the CPU to launch the next work (the launch started after the GPU went idle)"},
        {IdleKind::kKernelWait, SpanColor::kKernelWait,
         "kernel_wait: a short gap (< 30 us) between back-to-back GPU work that was already launched"},
        {IdleKind::kOther, SpanColor::kOtherIdle, "other: idle for another reason (e.g. waiting on a sync or event)"},
    };
    int32_t kind_args[3];
    for (const auto& k : kKinds)
      kind_args[static_cast<int>(k.kind)] = b.Args({{"idle_kind", IdleKindName(k.kind)}, {"meaning", k.meaning}});
    std::map<int32_t, std::vector<AnalysisSpan>> by_device;
    for (const IdleGap& g : gaps) {
      const auto& k = kKinds[static_cast<int>(g.kind)];
      by_device[g.device].push_back({g.start_ns, g.end_ns, b.Name(IdleKindName(g.kind)),
                                     kind_args[static_cast<int>(g.kind)], k.color, false});
    }
    for (auto& [device, spans] : by_device)
      b.AddTrack(fmt::format("GPU {} idle gaps", device), "ampscope.idle", std::move(spans));
  }

  // Sync points (host-blocking syncs).
  {
    std::vector<AnalysisSpan> spans;
    for (const SyncPoint& p : rank.syncs.points) {
      nlohmann::json args = {{"api", p.api},
                             {"tid", p.tid},
                             {"step_index", p.step_index},
                             {"blocked_us", NsToUs(p.end_ns - p.start_ns)}};
      spans.push_back({p.start_ns, std::max(p.start_ns, p.end_ns), b.Name(p.api), b.Args(std::move(args)),
                       SpanColor::kSync, p.end_ns <= p.start_ns});
    }
    b.AddTrack("sync points", "ampscope.sync", std::move(spans));
  }

  // Findings: one track each, spans where the finding shows, an instant at the start of the
  // analysed window when it has no time ranges.
  for (const Finding& f : rank.findings) {
    nlohmann::json args = {{"id", f.id},
                           {"severity", FindingSeverityName(f.severity)},
                           {"title", f.title},
                           {"dimension", f.dimension},
                           {"checklist", f.checklist},
                           {"est_saving_pct", f.est_saving_pct},
                           {"evidence", FieldsJson(f.evidence)},
                           {"recommendation", f.recommendation}};
    int32_t a = b.Args(std::move(args));
    uint32_t name = b.Name(f.id + ": " + f.title);
    std::vector<AnalysisSpan> spans;
    for (const auto& [start, end] : f.time_ranges) {
      if (spans.size() >= kMaxRangesPerFinding) {
        out.dropped_finding_ranges++;
        continue;
      }
      spans.push_back({start, std::max(start, end), name, a, SeverityColor(f.severity), end <= start});
    }
    if (spans.empty()) {
      TimeNs at = rank.steps.window_start_ns;
      spans.push_back({at, at, name, a, SeverityColor(f.severity), true});
    }
    b.AddTrack("finding " + f.id, "ampscope.finding", std::move(spans));
  }

  // Counters per step.
  if (!steps.empty()) {
    static constexpr struct {
      const char* key;
      const char* name;
    } kCounters[] = {
        {"busy_pct", "GPU busy per step"},
        {"kernel_busy_pct", "GPU kernel busy per step"},
        {"tensor_core_kernel_pct", "Tensor Core kernel share per step"},
    };
    for (const auto& c : kCounters) {
      std::vector<std::optional<double>> values;
      for (size_t i = 0; i < steps.size(); ++i) values.push_back(NumberAt(per_step, i, c.key));
      AnalysisCounter counter = StepCounter(c.name, c.key, steps, values);
      if (!counter.samples.empty()) out.counters.push_back(std::move(counter));
    }
    // Sampled Tensor Core activity: the per-step means the analysis computed.
    if (!rank.tensor_active_per_step_pct.empty()) {
      const std::vector<std::optional<double>>& values = rank.tensor_active_per_step_pct;
      AnalysisCounter counter = StepCounter("Tensor Core active per step", "tensor_active_pct", steps, values);
      if (!counter.samples.empty()) out.counters.push_back(std::move(counter));
    }
  }
  return out;
}

const RankAnalysis* FindRankAnalysis(const std::vector<Trace>& traces, size_t index, const JobAnalysis& job) {
  const std::string& path = traces[index].metadata.path;
  // Paths identify inputs unless two inputs share one (tests build traces in memory).
  size_t same_path = 0;
  for (const Trace& t : traces) same_path += t.metadata.path == path;
  if (same_path == 1)
    for (const RankAnalysis& r : job.ranks)
      if (r.input_path == path) return &r;
  if (job.ranks.size() == traces.size()) return &job.ranks[index];
  if (job.ranks.empty() && traces.size() == 1 && !job.job.steps.steps.empty()) return &job.job;
  return nullptr;
}

}  // namespace trace_export

// ---------------------------------------------------------------------------------------
// The JSON writer

namespace {

using trace_export::AppendJsonEscaped;
using trace_export::AppendMicros;

constexpr size_t kFlushBytes = 1 << 20;

class JsonOut {
 public:
  explicit JsonOut(std::ostream& out) : out_(out) { buf_.reserve(kFlushBytes + 4096); }
  std::string& buf() { return buf_; }
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  bool ok() const { return static_cast<bool>(out_); }

  // Starts an event object: {"ph":..,"cat":..,"name":..,"pid":..,"tid":..,"ts":..
  void Begin(char ph, std::string_view cat, std::string_view escaped_name, int64_t pid, int64_t tid, TimeNs ts) {
    buf_ += first_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
    first_ = false;
    buf_.push_back(ph);
    buf_ += "\",\"cat\":\"";
    AppendJsonEscaped(buf_, cat);
    buf_ += "\",\"name\":\"";
    buf_ += escaped_name;
    buf_ += "\",\"pid\":";
    AppendInt(pid);
    buf_ += ",\"tid\":";
    AppendInt(tid);
    buf_ += ",\"ts\":";
    AppendMicros(buf_, ts);
  }
  void Dur(TimeNs dur) {
    buf_ += ",\"dur\":";
    AppendMicros(buf_, dur < 0 ? 0 : dur);
  }
  void End() {
    buf_.push_back('}');
    MaybeFlush();
  }
  void AppendInt(int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
  }

 private:
  std::ostream& out_;
  std::string buf_;
  bool first_ = true;
};

// Writes "args":{...} members into the buffer.
class JsonArgSink : public trace_export::ArgSink {
 public:
  explicit JsonArgSink(std::string& buf) : buf_(buf) {}
  void Open() {
    buf_ += ",\"args\":{";
    n_ = 0;
  }
  void Close() { buf_.push_back('}'); }

  void Int(std::string_view key, int64_t v) override {
    Key(key);
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
  }
  void Double(std::string_view key, double v) override {
    Key(key);
    AppendDouble(v);
  }
  void String(std::string_view key, std::string_view v) override {
    Key(key);
    buf_.push_back('"');
    AppendJsonEscaped(buf_, v);
    buf_.push_back('"');
  }
  void Bool(std::string_view key, bool v) override {
    Key(key);
    buf_ += v ? "true" : "false";
  }
  void IntArray(std::string_view key, const int64_t* v, size_t n) override {
    Key(key);
    buf_.push_back('[');
    for (size_t i = 0; i < n; ++i) {
      if (i) buf_.push_back(',');
      char tmp[24];
      auto r = std::to_chars(tmp, tmp + sizeof(tmp), v[i]);
      buf_.append(tmp, r.ptr);
    }
    buf_.push_back(']');
  }
  void RawJson(std::string_view key, std::string_view json) override {
    Key(key);
    buf_ += json;
  }
  void Json(std::string_view key, const nlohmann::json& v) override {
    Key(key);
    buf_ += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 private:
  void Key(std::string_view key) {
    if (n_++) buf_.push_back(',');
    buf_.push_back('"');
    AppendJsonEscaped(buf_, key);
    buf_ += "\":";
  }
  void AppendDouble(double v) {
    if (!std::isfinite(v)) {
      buf_ += "null";
      return;
    }
    fmt::format_to(std::back_inserter(buf_), "{}", v);
  }
  std::string& buf_;
  int n_ = 0;
};

// Escaped names per StringId, computed once.
class EscapedNames {
 public:
  explicit EscapedNames(const Trace& trace) : trace_(trace) {}
  const std::string& Get(StringId id) {
    if (id >= names_.size()) {
      names_.resize(static_cast<size_t>(id) + 1);
      done_.resize(static_cast<size_t>(id) + 1, 0);
    }
    if (!done_[id]) {
      AppendJsonEscaped(names_[id], trace_.str(id));
      done_[id] = 1;
    }
    return names_[id];
  }

 private:
  const Trace& trace_;
  std::vector<std::string> names_;
  std::vector<uint8_t> done_;
};

std::string Escaped(std::string_view s) {
  std::string out;
  AppendJsonEscaped(out, s);
  return out;
}

// Flow (cat, id) pairs that have both a start and a finish; dangling halves draw nothing
// and are left out (counted in otherData).
struct FlowKey {
  StringId cat;
  int64_t id;
  bool operator==(const FlowKey& o) const { return cat == o.cat && id == o.id; }
};
struct FlowKeyHash {
  size_t operator()(const FlowKey& k) const {
    return std::hash<int64_t>()(k.id) * 31u + std::hash<uint32_t>()(k.cat);
  }
};

std::unordered_map<FlowKey, uint8_t, FlowKeyHash> FlowPhases(const Trace& trace) {
  std::unordered_map<FlowKey, uint8_t, FlowKeyHash> phases;
  phases.reserve(trace.flows.size());
  for (const FlowEvent& f : trace.flows) {
    uint8_t bit = f.phase == 's' ? 1 : f.phase == 'f' ? 2 : 4;
    phases[{f.category, f.id}] |= bit;
  }
  return phases;
}

// Flow ids of several ranks must not collide: id * ranks + rank index.
int64_t RankFlowId(int64_t id, size_t rank_index, size_t ranks) {
  if (ranks <= 1) return id;
  const int64_t r = static_cast<int64_t>(ranks);
  if (id >= 0 && id <= (std::numeric_limits<int64_t>::max() - r) / r) return id * r + static_cast<int64_t>(rank_index);
  // Out of range (never seen in practice): a deterministic mix, the same for both ends.
  uint64_t h = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull + rank_index;
  return static_cast<int64_t>(h >> 1);
}

void WriteMetadata(JsonOut& w, const char* what, int64_t pid, int64_t tid, const char* key, std::string_view value) {
  w.Begin('M', "__metadata", what, pid, tid, 0);
  w.buf() += ",\"args\":{\"";
  w.buf() += key;
  w.buf() += "\":\"";
  AppendJsonEscaped(w.buf(), value);
  w.buf() += "\"}";
  w.End();
}

void WriteSortIndex(JsonOut& w, const char* what, int64_t pid, int64_t tid, int64_t index) {
  w.Begin('M', "__metadata", what, pid, tid, 0);
  w.buf() += ",\"args\":{\"sort_index\":";
  w.AppendInt(index);
  w.buf() += "}";
  w.End();
}

void WriteRank(JsonOut& w, const Trace& trace, size_t rank_index, size_t ranks, const trace_export::RankPids& pids,
               const RankAnalysis* rank, uint64_t* unpaired_flows, uint64_t* dropped_ranges) {
  using trace_export::EventDescriber;
  EventDescriber describe(trace);
  EscapedNames names(trace);
  JsonArgSink args(w.buf());
  const std::string prefix = ranks > 1 ? trace_export::RankLabel(trace, rank_index) + " \xC2\xB7 " : "";

  // Processes and threads.
  trace_export::TrackNames track_names = trace_export::NameTracks(trace);
  for (const auto& [pid, name] : track_names.process) {
    int64_t out_pid = pids.Map(pid);
    WriteMetadata(w, "process_name", out_pid, 0, "name", prefix + name);
    auto labels = track_names.process_labels.find(pid);
    if (labels != track_names.process_labels.end())
      WriteMetadata(w, "process_labels", out_pid, 0, "labels", labels->second);
    // Kineto's order (CPU by pid, GPUs after); with several ranks, the dense pid order.
    bool gpu = track_names.gpu_pids.count(pid) > 0;
    WriteSortIndex(w, "process_sort_index", out_pid, 0, ranks > 1 ? out_pid : (gpu ? 0x1000000 + pid : pid));
  }
  for (const auto& [key, name] : track_names.thread) WriteMetadata(w, "thread_name", pids.Map(key.first), key.second, "name", name);

  // GPU activity.
  for (const KernelEvent& e : trace.kernels) {
    w.Begin('X', "kernel", names.Get(e.name), pids.Map(e.device), e.stream, e.start_ns);
    w.Dur(e.duration_ns());
    args.Open();
    describe.KernelArgs(e, args);
    args.Close();
    w.End();
  }
  for (const MemcpyEvent& e : trace.memcpys) {
    w.Begin('X', "gpu_memcpy", Escaped(describe.MemcpyName(e)), pids.Map(e.device), e.stream, e.start_ns);
    w.Dur(e.duration_ns());
    args.Open();
    describe.MemcpyArgs(e, args);
    args.Close();
    w.End();
  }
  for (const MemsetEvent& e : trace.memsets) {
    w.Begin('X', "gpu_memset", describe.MemsetName(e), pids.Map(e.device), e.stream, e.start_ns);
    w.Dur(e.duration_ns());
    args.Open();
    describe.MemsetArgs(e, args);
    args.Close();
    w.End();
  }
  // Host activity.
  for (const ApiCall& e : trace.api_calls) {
    w.Begin('X', e.domain == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", names.Get(e.name), pids.Map(e.pid),
            e.tid, e.start_ns);
    w.Dur(e.duration_ns());
    args.Open();
    describe.ApiArgs(e, args);
    args.Close();
    w.End();
  }
  for (const SyncEvent& e : trace.syncs) {
    auto [pid, tid] = EventDescriber::SyncTrack(e);
    w.Begin('X', "cuda_sync", EventDescriber::SyncName(e.type), pids.Map(pid), tid, e.start_ns);
    w.Dur(e.end_ns - e.start_ns);
    args.Open();
    describe.SyncArgs(e, args);
    args.Close();
    w.End();
  }
  for (const Range& e : trace.ranges) {
    auto [pid, tid] = EventDescriber::RangeTrack(e);
    bool mark = e.kind == RangeKind::kNvtxMark;
    w.Begin(mark ? 'i' : 'X', EventDescriber::RangeCategory(e.kind), names.Get(e.name), pids.Map(pid), tid, e.start_ns);
    if (mark) {
      w.buf() += ",\"s\":\"t\"";
    } else {
      w.Dur(e.end_ns - e.start_ns);
    }
    args.Open();
    describe.RangeArgs(e, args);
    args.Close();
    w.End();
  }
  for (const CpuOp& e : trace.cpu_ops) {
    w.Begin('X', "cpu_op", names.Get(e.name), pids.Map(e.pid), e.tid, e.start_ns);
    w.Dur(e.end_ns - e.start_ns);
    args.Open();
    describe.CpuOpArgs(e, args);
    args.Close();
    w.End();
  }
  for (const OtherEvent& e : trace.other_events) {
    bool instant = e.phase == 'i' || e.phase == 'I';
    w.Begin(instant ? 'i' : 'X', trace.str(e.category).empty() ? std::string_view("other") : trace.str(e.category),
            names.Get(e.name), pids.Map(e.pid), e.tid, e.start_ns);
    if (instant) {
      w.buf() += ",\"s\":\"t\"";
    } else {
      w.Dur(e.end_ns - e.start_ns);
    }
    w.End();
  }
  const int64_t host_pid = pids.Map(describe.HostPid());
  for (const MemoryEvent& e : trace.memory_events) {
    w.Begin('i', "cpu_instant_event", "[memory]", host_pid, 0, e.time_ns);
    w.buf() += ",\"s\":\"p\"";
    args.Open();
    describe.MemoryArgs(e, args);
    args.Close();
    w.End();
  }
  for (const CounterSample& c : trace.counters) {
    w.Begin('C', "counter", names.Get(c.name), c.device >= 0 ? pids.Map(c.device) : host_pid, 0, c.time_ns);
    args.Open();
    args.Double("value", c.value);
    args.Close();
    w.End();
  }
  // Flows, paired only.
  {
    auto phases = FlowPhases(trace);
    for (const FlowEvent& f : trace.flows) {
      uint8_t have = phases[{f.category, f.id}];
      if ((have & 3) != 3) {
        ++*unpaired_flows;
        continue;
      }
      char ph = f.phase == 's' || f.phase == 'f' ? f.phase : 't';
      w.Begin(ph, trace.str(f.category), names.Get(f.name), pids.Map(f.pid), f.tid, f.time_ns);
      w.buf() += ",\"id\":";
      w.AppendInt(RankFlowId(f.id, rank_index, ranks));
      if (f.bind_enclosing) w.buf() += ",\"bp\":\"e\"";
      w.End();
    }
  }

  // The analysis process.
  const int64_t apid = pids.analysis_pid;
  WriteMetadata(w, "process_name", apid, 0, "name", prefix + "ampscope analysis");
  WriteMetadata(w, "process_labels", apid, 0, "labels", "steps, idle gaps, syncs, findings");
  WriteSortIndex(w, "process_sort_index", apid, 0, ranks > 1 ? apid : -1);
  if (rank == nullptr) return;
  trace_export::AnalysisTracks tracks = trace_export::BuildAnalysisTracks(*rank);
  *dropped_ranges += tracks.dropped_finding_ranges;
  std::vector<std::string> escaped_names;
  escaped_names.reserve(tracks.names.size());
  for (const std::string& n : tracks.names) escaped_names.push_back(Escaped(n));
  for (size_t t = 0; t < tracks.tracks.size(); ++t) {
    const trace_export::AnalysisTrack& track = tracks.tracks[t];
    const int64_t tid = static_cast<int64_t>(t) + 1;
    WriteMetadata(w, "thread_name", apid, tid, "name", track.name);
    WriteSortIndex(w, "thread_sort_index", apid, tid, tid);
    for (const trace_export::AnalysisSpan& s : track.spans) {
      w.Begin(s.instant ? 'i' : 'X', track.category, escaped_names[s.name], apid, tid, s.start_ns);
      if (s.instant) {
        w.buf() += ",\"s\":\"t\"";
      } else {
        w.Dur(s.end_ns - s.start_ns);
      }
      const char* color = trace_export::ChromeColorName(s.color);
      if (*color) {
        w.buf() += ",\"cname\":\"";
        w.buf() += color;
        w.buf() += "\"";
      }
      if (s.args >= 0) {
        w.buf() += ",\"args\":";
        w.buf() += tracks.args[s.args].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
      w.End();
    }
  }
  for (const trace_export::AnalysisCounter& c : tracks.counters) {
    std::string name = Escaped(c.name);
    for (const auto& [ts, v] : c.samples) {
      w.Begin('C', "ampscope.counter", name, apid, 0, ts);
      args.Open();
      args.Double(c.series, v);
      args.Close();
      w.End();
    }
  }
}

void WriteDeviceProperties(JsonOut& w, const Trace& trace) {
  std::string& b = w.buf();
  b += ",\"deviceProperties\":[";
  bool first = true;
  for (const Device& d : trace.devices) {
    if (!first) b += ",";
    first = false;
    nlohmann::json j = {{"id", d.id}, {"name", d.name}};
    if (d.total_memory_bytes >= 0) j["totalGlobalMem"] = d.total_memory_bytes;
    if (d.cc_major >= 0) j["computeMajor"] = d.cc_major;
    if (d.cc_minor >= 0) j["computeMinor"] = d.cc_minor;
    if (d.sm_count >= 0) j["numSms"] = d.sm_count;
    if (d.max_threads_per_sm >= 0) j["maxThreadsPerMultiprocessor"] = d.max_threads_per_sm;
    if (d.regs_per_sm >= 0) j["regsPerMultiprocessor"] = d.regs_per_sm;
    if (d.shared_mem_per_sm >= 0) j["sharedMemPerMultiprocessor"] = d.shared_mem_per_sm;
    b += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  b += "]";
}

}  // namespace

Status WriteChromeTrace(const std::vector<Trace>& traces, const JobAnalysis& analysis, std::ostream& out) {
  JsonOut w(out);
  std::vector<trace_export::RankPids> pids = trace_export::AssignPids(traces);

  std::string& b = w.buf();
  b += "{\"displayTimeUnit\":\"ns\"";
  if (traces.size() == 1) {
    WriteDeviceProperties(w, traces[0]);
    const TraceMetadata& m = traces[0].metadata;
    if (m.rank >= 0 || m.world_size >= 0) {
      nlohmann::json di = {{"rank", m.rank}, {"world_size", m.world_size}};
      if (!m.distributed_backend.empty()) di["backend"] = m.distributed_backend;
      b += ",\"distributedInfo\":" + di.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  b += ",\"traceEvents\":[";

  uint64_t unpaired_flows = 0, dropped_ranges = 0;
  for (size_t i = 0; i < traces.size(); ++i) {
    const RankAnalysis* rank = trace_export::FindRankAnalysis(traces, i, analysis);
    WriteRank(w, traces[i], i, traces.size(), pids[i], rank, &unpaired_flows, &dropped_ranges);
    if (!w.ok()) return Status::Error("cannot write the Chrome trace (output stream failed)");
  }

  nlohmann::json other = {{"generator", "ampscope"},
                          {"time_unit_note", "ts and dur are microseconds printed exactly from int64 nanoseconds"},
                          {"unpaired_flow_events_dropped", unpaired_flows},
                          {"finding_ranges_dropped", dropped_ranges}};
  nlohmann::json inputs = nlohmann::json::array();
  for (size_t i = 0; i < traces.size(); ++i) {
    const TraceMetadata& m = traces[i].metadata;
    inputs.push_back({{"path", m.path},
                      {"format", SourceFormatName(m.format)},
                      {"rank", m.rank},
                      {"analysis_pid", pids[i].analysis_pid}});
  }
  other["inputs"] = inputs;
  b += "\n],\"otherData\":";
  b += other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  b += "}\n";
  w.Flush();
  out.flush();
  if (!w.ok()) return Status::Error("cannot write the Chrome trace (output stream failed)");
  return Status::Ok();
}

}  // namespace ampscope

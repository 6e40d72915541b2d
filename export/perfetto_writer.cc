#include "export/perfetto_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "export/chrome_trace.h"
#include "export/event_sink.h"

namespace ampscope {
namespace perfetto_proto {

void Encoder::Varint(uint64_t v) {
  while (v >= 0x80) {
    data_.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  data_.push_back(static_cast<char>(v));
}

void Encoder::Fixed64(uint32_t field, uint64_t v) {
  Key(field, kFixed64);
  for (int i = 0; i < 8; ++i) data_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));  // little-endian
}

void Encoder::Double(uint32_t field, double v) {
  uint64_t bits;
  static_assert(sizeof(bits) == sizeof(v), "double must be 64-bit");
  std::memcpy(&bits, &v, sizeof(bits));
  Fixed64(field, bits);
}

void Encoder::Bytes(uint32_t field, std::string_view bytes) {
  Key(field, kLengthDelimited);
  Varint(bytes.size());
  data_.append(bytes.data(), bytes.size());
}

void Encoder::String(uint32_t field, std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Rare (kernel names are ASCII): validate, replacing bad bytes with U+FFFD.
      std::string clean;
      trace_export::AppendValidUtf8(clean, s);
      Bytes(field, clean);
      return;
    }
  }
  Bytes(field, s);
}

}  // namespace perfetto_proto

namespace {

using perfetto_proto::Encoder;
using trace_export::AnalysisCounter;
using trace_export::AnalysisSpan;
using trace_export::AnalysisTrack;
using trace_export::EventDescriber;

// Field numbers from perfetto/protos/perfetto/trace/... (checked against
// tests/export/perfetto_trace_subset.proto by the decode test).
namespace field {
constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr uint32_t kTimestamp = 8;
constexpr uint32_t kSequenceId = 10;  // trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kInternedData = 12;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTrackDescriptor = 60;
// TrackEvent
constexpr uint32_t kCategoryIids = 3;
constexpr uint32_t kDebugAnnotations = 4;
constexpr uint32_t kType = 9;
constexpr uint32_t kNameIid = 10;
constexpr uint32_t kTrackUuid = 11;
constexpr uint32_t kDoubleCounterValue = 44;
constexpr uint32_t kFlowIds = 47;
constexpr uint32_t kTerminatingFlowIds = 48;
// TrackDescriptor
constexpr uint32_t kUuid = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kProcess = 3;
constexpr uint32_t kThread = 4;
constexpr uint32_t kParentUuid = 5;
constexpr uint32_t kCounter = 8;
// ProcessDescriptor / ThreadDescriptor
constexpr uint32_t kPid = 1;
constexpr uint32_t kTid = 2;
constexpr uint32_t kThreadName = 5;
constexpr uint32_t kProcessName = 6;
// InternedData and its entries
constexpr uint32_t kEventCategories = 1;
constexpr uint32_t kEventNames = 2;
constexpr uint32_t kDebugAnnotationNames = 3;
constexpr uint32_t kIid = 1;
constexpr uint32_t kInternedName = 2;
// DebugAnnotation
constexpr uint32_t kAnnotationNameIid = 1;
constexpr uint32_t kBoolValue = 2;
constexpr uint32_t kIntValue = 4;
constexpr uint32_t kDoubleValue = 5;
constexpr uint32_t kStringValue = 6;
constexpr uint32_t kLegacyJsonValue = 9;
}  // namespace field

enum TrackEventType : uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterEvent = 4 };
enum SequenceFlags : uint64_t { kIncrementalStateCleared = 1, kNeedsIncrementalState = 2 };
constexpr uint64_t kSequence = 1;

// ---- interning and packet output ----

class PacketWriter {
 public:
  explicit PacketWriter(std::ostream& out) : out_(out) { buf_.reserve(1 << 20); }

  uint64_t InternName(std::string_view s) { return Intern(names_, field::kEventNames, s); }
  uint64_t InternCategory(std::string_view s) { return Intern(categories_, field::kEventCategories, s); }
  uint64_t InternArgName(std::string_view s) { return Intern(arg_names_, field::kDebugAnnotationNames, s); }

  void WriteTrackDescriptor(const Encoder& td) {
    packet_.clear();
    packet_.Message(field::kTrackDescriptor, td);
    packet_.Uint(field::kSequenceId, kSequence);
    if (first_) {
      packet_.Uint(field::kSequenceFlags, kIncrementalStateCleared);
      first_ = false;
    }
    Emit();
  }

  void WriteEvent(uint64_t ts, const Encoder& track_event) {
    packet_.clear();
    packet_.Uint(field::kTimestamp, ts);
    packet_.Uint(field::kSequenceId, kSequence);
    packet_.Uint(field::kSequenceFlags, first_ ? (kIncrementalStateCleared | kNeedsIncrementalState)
                                               : static_cast<uint64_t>(kNeedsIncrementalState));
    first_ = false;
    if (interned_.size() > 0) {
      packet_.Message(field::kInternedData, interned_);
      interned_.clear();
    }
    packet_.Message(field::kTrackEvent, track_event);
    Emit();
  }

  void Flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  bool ok() const { return static_cast<bool>(out_); }

 private:
  uint64_t Intern(std::unordered_map<std::string, uint64_t>& table, uint32_t interned_field, std::string_view s) {
    auto it = table.find(std::string(s));
    if (it != table.end()) return it->second;
    uint64_t iid = table.size() + 1;  // 0 is "not set"
    table.emplace(std::string(s), iid);
    entry_.clear();
    entry_.Uint(field::kIid, iid);
    entry_.String(field::kInternedName, s);
    interned_.Message(interned_field, entry_);
    return iid;
  }

  void Emit() {
    Encoder& b = frame_;
    b.clear();
    b.Message(field::kTracePacket, packet_);
    buf_ += b.data();
    if (buf_.size() >= (1u << 20)) Flush();
  }

  std::ostream& out_;
  std::string buf_;
  Encoder packet_, interned_, entry_, frame_;
  std::unordered_map<std::string, uint64_t> names_, categories_, arg_names_;
  bool first_ = true;
};

// Debug annotations of one TrackEvent.
class ProtoArgSink : public trace_export::ArgSink {
 public:
  ProtoArgSink(PacketWriter& w, Encoder& event) : w_(w), event_(event) {}
  void Int(std::string_view key, int64_t v) override {
    Start(key);
    a_.Int(field::kIntValue, v);
    Finish();
  }
  void Double(std::string_view key, double v) override {
    Start(key);
    a_.Double(field::kDoubleValue, v);
    Finish();
  }
  void String(std::string_view key, std::string_view v) override {
    Start(key);
    a_.String(field::kStringValue, v);
    Finish();
  }
  void Bool(std::string_view key, bool v) override {
    Start(key);
    a_.Bool(field::kBoolValue, v);
    Finish();
  }
  void IntArray(std::string_view key, const int64_t* v, size_t n) override {
    std::string json = "[";
    for (size_t i = 0; i < n; ++i) json += (i ? "," : "") + std::to_string(v[i]);
    json += "]";
    RawJson(key, json);
  }
  void RawJson(std::string_view key, std::string_view json) override {
    Start(key);
    a_.String(field::kLegacyJsonValue, json);
    Finish();
  }
  void Json(std::string_view key, const nlohmann::json& v) override {
    if (v.is_string()) return String(key, v.get_ref<const std::string&>());
    if (v.is_boolean()) return Bool(key, v.get<bool>());
    if (v.is_number_integer()) return Int(key, v.get<int64_t>());
    if (v.is_number_unsigned()) return Int(key, static_cast<int64_t>(v.get<uint64_t>()));
    if (v.is_number_float()) return Double(key, v.get<double>());
    RawJson(key, v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }

 private:
  void Start(std::string_view key) {
    a_.clear();
    a_.Uint(field::kAnnotationNameIid, w_.InternArgName(key));
  }
  void Finish() { event_.Message(field::kDebugAnnotations, a_); }
  PacketWriter& w_;
  Encoder& event_;
  Encoder a_;
};

// ---- event references ----

enum class Src : uint8_t {
  kKernel, kMemcpy, kMemset, kApi, kSync, kRange, kCpuOp, kOther, kMemory, kCounter,
  kAnalysisSpan, kAnalysisCounter
};
using Ref = uint64_t;
Ref MakeRef(Src s, size_t index) { return (static_cast<uint64_t>(s) << 56) | static_cast<uint64_t>(index); }
Src RefSrc(Ref r) { return static_cast<Src>(r >> 56); }
size_t RefIndex(Ref r) { return static_cast<size_t>(r & ((1ull << 56) - 1)); }

struct RankState {
  const Trace* trace = nullptr;
  const RankAnalysis* analysis_result = nullptr;  // null: the rank was not analysed
  size_t index = 0;
  std::unique_ptr<EventDescriber> describe;
  trace_export::RankPids pids;
  trace_export::AnalysisTracks analysis;
  std::vector<std::pair<Ref, uint64_t>> flows;  // sorted by ref; top bit of the id = terminating
  std::vector<uint64_t> name_iids;              // by StringId, 0 = not interned yet
};

constexpr uint64_t kTerminatingBit = 1ull << 63;

struct Cursor {
  uint64_t uuid = 0;
  RankState* rank = nullptr;
  const AnalysisTrack* analysis_track = nullptr;
  const AnalysisCounter* analysis_counter = nullptr;
  std::vector<Ref> items;
  size_t pos = 0;
  std::vector<Ref> open;  // refs of slices begun and not yet ended (innermost last)
};

TimeNs StartOf(const RankState& r, const Cursor& c, Ref ref) {
  const Trace& t = *r.trace;
  size_t i = RefIndex(ref);
  switch (RefSrc(ref)) {
    case Src::kKernel: return t.kernels[i].start_ns;
    case Src::kMemcpy: return t.memcpys[i].start_ns;
    case Src::kMemset: return t.memsets[i].start_ns;
    case Src::kApi: return t.api_calls[i].start_ns;
    case Src::kSync: return t.syncs[i].start_ns;
    case Src::kRange: return t.ranges[i].start_ns;
    case Src::kCpuOp: return t.cpu_ops[i].start_ns;
    case Src::kOther: return t.other_events[i].start_ns;
    case Src::kMemory: return t.memory_events[i].time_ns;
    case Src::kCounter: return t.counters[i].time_ns;
    case Src::kAnalysisSpan: return c.analysis_track->spans[i].start_ns;
    case Src::kAnalysisCounter: return c.analysis_counter->samples[i].first;
  }
  return 0;
}

TimeNs EndOf(const RankState& r, const Cursor& c, Ref ref) {
  const Trace& t = *r.trace;
  size_t i = RefIndex(ref);
  TimeNs start = StartOf(r, c, ref);
  TimeNs end = start;
  switch (RefSrc(ref)) {
    case Src::kKernel: end = t.kernels[i].end_ns; break;
    case Src::kMemcpy: end = t.memcpys[i].end_ns; break;
    case Src::kMemset: end = t.memsets[i].end_ns; break;
    case Src::kApi: end = t.api_calls[i].end_ns; break;
    case Src::kSync: end = t.syncs[i].end_ns; break;
    case Src::kRange: end = t.ranges[i].end_ns; break;
    case Src::kCpuOp: end = t.cpu_ops[i].end_ns; break;
    case Src::kOther: end = t.other_events[i].end_ns; break;
    case Src::kAnalysisSpan: end = c.analysis_track->spans[i].end_ns; break;
    default: break;
  }
  return std::max(start, end);  // negative durations are drawn as zero-length
}

bool IsInstant(const RankState& r, const Cursor& c, Ref ref) {
  size_t i = RefIndex(ref);
  switch (RefSrc(ref)) {
    case Src::kRange: return r.trace->ranges[i].kind == RangeKind::kNvtxMark;
    case Src::kOther: return r.trace->other_events[i].phase == 'i' || r.trace->other_events[i].phase == 'I';
    case Src::kMemory: return true;
    case Src::kAnalysisSpan: return c.analysis_track->spans[i].instant;
    default: return false;
  }
}

bool IsCounter(Ref ref) { return RefSrc(ref) == Src::kCounter || RefSrc(ref) == Src::kAnalysisCounter; }

// Sorts by start, enclosing slices first.
void SortItems(const RankState& r, const Cursor& c, std::vector<Ref>& items) {
  std::stable_sort(items.begin(), items.end(), [&](Ref a, Ref b) {
    TimeNs sa = StartOf(r, c, a), sb = StartOf(r, c, b);
    if (sa != sb) return sa < sb;
    return EndOf(r, c, a) > EndOf(r, c, b);
  });
}

// Splits sorted items into lanes in which slices nest properly (Perfetto needs that).
std::vector<std::vector<Ref>> SplitLanes(const RankState& r, const Cursor& c, const std::vector<Ref>& items) {
  std::vector<std::vector<TimeNs>> open;
  std::vector<std::vector<Ref>> lanes;
  for (Ref ref : items) {
    TimeNs s = StartOf(r, c, ref), e = EndOf(r, c, ref);
    size_t lane = 0;
    for (; lane < open.size(); ++lane) {
      std::vector<TimeNs>& stack = open[lane];
      while (!stack.empty() && stack.back() <= s) stack.pop_back();
      if (stack.empty() || stack.back() >= e) break;
    }
    if (lane == open.size()) {
      open.emplace_back();
      lanes.emplace_back();
    }
    if (!IsInstant(r, c, ref)) open[lane].push_back(e);
    lanes[lane].push_back(ref);
  }
  return lanes;
}

uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

uint64_t FlowId(size_t rank, std::string_view category, int64_t id) {
  uint64_t h = 1469598103934665603ull;
  for (char c : category) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  uint64_t v = Mix64(h ^ Mix64(static_cast<uint64_t>(id) + 0x9E3779B97F4A7C15ull * (rank + 1)));
  v &= ~kTerminatingBit;
  return v == 0 ? 1 : v;
}

// Finds the slice a flow event binds to on a track (sorted items): the innermost slice
// enclosing `ts` (Chrome's "enclosing slice"), or for a non-enclosing finish the next slice
// starting at or after `ts`. Returns false when there is none.
bool BindFlow(const RankState& r, const Cursor& c, const std::vector<Ref>& items, TimeNs ts, bool next_slice,
              Ref* out) {
  auto by_start = [&](TimeNs t, Ref ref) { return t < StartOf(r, c, ref); };
  if (next_slice) {
    auto it = std::lower_bound(items.begin(), items.end(), ts,
                               [&](Ref ref, TimeNs t) { return StartOf(r, c, ref) < t; });
    for (; it != items.end(); ++it)
      if (!IsInstant(r, c, *it)) return *out = *it, true;
    return false;
  }
  auto it = std::upper_bound(items.begin(), items.end(), ts, by_start);
  // Walk back over the slices starting at or before ts; the first that still covers ts is
  // the innermost. Bounded: a flow far from any slice is dropped, not searched for.
  for (int steps = 0; it != items.begin() && steps < 4096; ++steps) {
    --it;
    if (IsInstant(r, c, *it)) continue;
    if (EndOf(r, c, *it) >= ts) return *out = *it, true;
  }
  return false;
}

// The rank's events per track, collected by one walk of the rank (export/event_sink.h).
struct TrackCollector : trace_export::EventSink {
  explicit TrackCollector(int64_t host_pid) : host_pid(host_pid) {}
  void Kernel(size_t i, const KernelEvent& e, const trace_export::KernelFacts&) override {
    by_track[EventDescriber::KernelTrack(e)].push_back(MakeRef(Src::kKernel, i));
  }
  void Memcpy(size_t i, const MemcpyEvent& e) override {
    by_track[EventDescriber::MemcpyTrack(e)].push_back(MakeRef(Src::kMemcpy, i));
  }
  void Memset(size_t i, const MemsetEvent& e) override {
    by_track[EventDescriber::MemsetTrack(e)].push_back(MakeRef(Src::kMemset, i));
  }
  void Api(size_t i, const ApiCall& e) override { by_track[{e.pid, e.tid}].push_back(MakeRef(Src::kApi, i)); }
  void Sync(size_t i, const SyncEvent& e) override {
    by_track[EventDescriber::SyncTrack(e)].push_back(MakeRef(Src::kSync, i));
  }
  void Range(size_t i, const ampscope::Range& e) override {
    by_track[EventDescriber::RangeTrack(e)].push_back(MakeRef(Src::kRange, i));
  }
  void CpuOp(size_t i, const ampscope::CpuOp& e) override { by_track[{e.pid, e.tid}].push_back(MakeRef(Src::kCpuOp, i)); }
  void Other(size_t i, const OtherEvent& e) override { by_track[{e.pid, e.tid}].push_back(MakeRef(Src::kOther, i)); }
  void Memory(size_t i, const MemoryEvent&) override { memory.push_back(MakeRef(Src::kMemory, i)); }
  void Counter(size_t i, const CounterSample& s) override {
    counters[{s.device >= 0 ? s.device : host_pid, s.name}].push_back(MakeRef(Src::kCounter, i));
  }
  bool WantsAnalysisTracks() const override { return true; }
  void AnalysisTracksBegin(const trace_export::AnalysisTracks& tracks) override { spans.assign(tracks.tracks.size(), {}); }
  void AnalysisSpan(size_t track, size_t index, const trace_export::AnalysisSpan&) override {
    spans[track].push_back(MakeRef(Src::kAnalysisSpan, index));
  }

  int64_t host_pid;
  std::map<std::pair<int64_t, int64_t>, std::vector<Ref>> by_track;
  std::vector<Ref> memory;
  std::map<std::pair<int64_t, StringId>, std::vector<Ref>> counters;
  std::vector<std::vector<Ref>> spans;  // per analysis track
};

class PerfettoTraceWriter {
 public:
  explicit PerfettoTraceWriter(std::ostream& out) : w_(out) {}

  Status Write(const std::vector<Trace>& traces, const JobAnalysis& analysis);

 private:
  uint64_t NewUuid() { return next_uuid_++; }
  void Descriptor(uint64_t uuid, uint64_t parent, std::string_view name) {
    td_.clear();
    td_.Uint(field::kUuid, uuid);
    if (parent) td_.Uint(field::kParentUuid, parent);
    td_.String(field::kName, name);
    w_.WriteTrackDescriptor(td_);
  }
  void ProcessDescriptor(uint64_t uuid, int64_t pid, std::string_view name) {
    Encoder p;
    p.Int(field::kPid, pid);
    p.String(field::kProcessName, name);
    td_.clear();
    td_.Uint(field::kUuid, uuid);
    td_.Message(field::kProcess, p);
    w_.WriteTrackDescriptor(td_);
  }
  void ThreadDescriptor(uint64_t uuid, int64_t pid, int64_t tid, std::string_view name) {
    Encoder t;
    t.Int(field::kPid, pid);
    t.Int(field::kTid, tid);
    t.String(field::kThreadName, name);
    td_.clear();
    td_.Uint(field::kUuid, uuid);
    td_.Message(field::kThread, t);
    w_.WriteTrackDescriptor(td_);
  }
  void CounterDescriptor(uint64_t uuid, uint64_t parent, std::string_view name) {
    Encoder empty;
    td_.clear();
    td_.Uint(field::kUuid, uuid);
    td_.Uint(field::kParentUuid, parent);
    td_.String(field::kName, name);
    td_.Message(field::kCounter, empty);
    w_.WriteTrackDescriptor(td_);
  }

  void SetUpRank(RankState& r, size_t ranks, const RankAnalysis* analysis);
  void EmitEvent(Cursor& c, Ref ref, bool end);
  uint64_t NameIid(RankState& r, StringId id) {
    if (id >= r.name_iids.size()) r.name_iids.resize(static_cast<size_t>(id) + 1, 0);
    if (r.name_iids[id] == 0) r.name_iids[id] = w_.InternName(r.trace->str(id));
    return r.name_iids[id];
  }

  PacketWriter w_;
  Encoder td_, ev_;
  uint64_t next_uuid_ = 1;
  std::vector<std::unique_ptr<RankState>> ranks_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
};

void PerfettoTraceWriter::SetUpRank(RankState& r, size_t ranks, const RankAnalysis* analysis) {
  const Trace& t = *r.trace;
  const std::string prefix = ranks > 1 ? trace_export::RankLabel(t, r.index) + " \xC2\xB7 " : "";
  trace_export::TrackNames names = trace_export::NameTracks(t);

  // Process tracks.
  std::map<int64_t, uint64_t> process_uuid;
  for (const auto& [pid, name] : names.process) {
    uint64_t uuid = NewUuid();
    process_uuid[pid] = uuid;
    ProcessDescriptor(uuid, r.pids.Map(pid), prefix + name);
  }
  auto process_of = [&](int64_t pid) {
    auto it = process_uuid.find(pid);
    if (it != process_uuid.end()) return it->second;
    uint64_t uuid = NewUuid();
    process_uuid[pid] = uuid;
    ProcessDescriptor(uuid, r.pids.Map(pid), prefix + "process " + std::to_string(pid));
    return uuid;
  };

  // Items per (pid, tid), [memory] instants, counters and analysis spans, from one walk of the rank.
  TrackCollector collected(r.describe->HostPid());
  trace_export::WalkRank(t, analysis, collected, &r.analysis);
  std::map<std::pair<int64_t, int64_t>, std::vector<Ref>>& by_track = collected.by_track;

  Cursor plain;  // for StartOf/EndOf of input events (no analysis pointers needed)
  for (auto& [key, items] : by_track) SortItems(r, plain, items);

  // Flows: bind each end of a paired flow to its slice.
  {
    struct Seen {
      bool start = false, finish = false;
    };
    std::map<std::pair<StringId, int64_t>, Seen> pairs;
    for (const FlowEvent& f : t.flows) {
      Seen& s = pairs[{f.category, f.id}];
      if (f.phase == 's') s.start = true;
      if (f.phase == 'f') s.finish = true;
    }
    for (const FlowEvent& f : t.flows) {
      const Seen& s = pairs[{f.category, f.id}];
      if (!s.start || !s.finish) continue;
      auto it = by_track.find({f.pid, f.tid});
      if (it == by_track.end()) continue;
      Ref ref;
      bool next_slice = f.phase == 'f' && !f.bind_enclosing;
      if (!BindFlow(r, plain, it->second, f.time_ns, next_slice, &ref)) continue;
      uint64_t id = FlowId(r.index, t.str(f.category), f.id);
      r.flows.emplace_back(ref, f.phase == 'f' ? (id | kTerminatingBit) : id);
    }
    std::sort(r.flows.begin(), r.flows.end());
  }

  // Lanes and their tracks.
  for (auto& [key, items] : by_track) {
    const auto& [pid, tid] = key;
    uint64_t parent = process_of(pid);
    auto tn = names.thread.find(key);
    std::string name = tn != names.thread.end() ? tn->second : "thread " + std::to_string(tid);
    bool gpu = names.gpu_pids.count(pid) > 0;
    int64_t out_pid = r.pids.Map(pid);
    std::vector<std::vector<Ref>> lanes = SplitLanes(r, plain, items);
    items.clear();
    items.shrink_to_fit();
    for (size_t l = 0; l < lanes.size(); ++l) {
      auto c = std::make_unique<Cursor>();
      c->uuid = NewUuid();
      c->rank = &r;
      c->items = std::move(lanes[l]);
      bool fits32 = out_pid >= 0 && out_pid <= std::numeric_limits<int32_t>::max() && tid >= 0 &&
                    tid <= std::numeric_limits<int32_t>::max();
      if (l == 0 && !gpu && fits32) {
        ThreadDescriptor(c->uuid, out_pid, tid, name);
      } else {
        Descriptor(c->uuid, parent, l == 0 ? name : fmt::format("{} (overlap {})", name, l));
      }
      cursors_.push_back(std::move(c));
    }
  }

  // [memory] instants on the host process track; input counters on counter tracks.
  if (!collected.memory.empty()) {
    auto c = std::make_unique<Cursor>();
    c->uuid = process_of(r.describe->HostPid());
    c->rank = &r;
    c->items = std::move(collected.memory);
    cursors_.push_back(std::move(c));
  }
  for (auto& [key, items] : collected.counters) {
    auto c = std::make_unique<Cursor>();
    c->uuid = NewUuid();
    c->rank = &r;
    c->items = std::move(items);
    CounterDescriptor(c->uuid, process_of(key.first), t.str(key.second));
    cursors_.push_back(std::move(c));
  }

  // The analysis process.
  uint64_t apid = NewUuid();
  ProcessDescriptor(apid, r.pids.analysis_pid, prefix + "ampscope analysis");
  if (analysis == nullptr) return;
  for (size_t k = 0; k < r.analysis.tracks.size(); ++k) {
    const AnalysisTrack& track = r.analysis.tracks[k];
    auto c = std::make_unique<Cursor>();
    c->uuid = NewUuid();
    c->rank = &r;
    c->analysis_track = &track;
    c->items = std::move(collected.spans[k]);
    Descriptor(c->uuid, apid, track.name);
    cursors_.push_back(std::move(c));
  }
  for (const AnalysisCounter& counter : r.analysis.counters) {
    auto c = std::make_unique<Cursor>();
    c->uuid = NewUuid();
    c->rank = &r;
    c->analysis_counter = &counter;
    for (size_t i = 0; i < counter.samples.size(); ++i) c->items.push_back(MakeRef(Src::kAnalysisCounter, i));
    CounterDescriptor(c->uuid, apid, counter.name);
    cursors_.push_back(std::move(c));
  }
}

void PerfettoTraceWriter::EmitEvent(Cursor& c, Ref ref, bool end) {
  RankState& r = *c.rank;
  const Trace& t = *r.trace;
  const EventDescriber& d = *r.describe;
  ev_.clear();
  if (end) {
    ev_.Uint(field::kType, kSliceEnd);
    ev_.Uint(field::kTrackUuid, c.uuid);
    w_.WriteEvent(static_cast<uint64_t>(EndOf(r, c, ref)), ev_);
    return;
  }
  const size_t i = RefIndex(ref);
  const Src src = RefSrc(ref);
  if (IsCounter(ref)) {
    double v = src == Src::kCounter ? t.counters[i].value : c.analysis_counter->samples[i].second;
    ev_.Uint(field::kType, kCounterEvent);
    ev_.Uint(field::kTrackUuid, c.uuid);
    ev_.Double(field::kDoubleCounterValue, std::isfinite(v) ? v : 0.0);
    w_.WriteEvent(static_cast<uint64_t>(StartOf(r, c, ref)), ev_);
    return;
  }
  ev_.Uint(field::kType, IsInstant(r, c, ref) ? kInstant : kSliceBegin);
  ev_.Uint(field::kTrackUuid, c.uuid);
  ProtoArgSink args(w_, ev_);
  auto name_and_cat = [&](uint64_t name_iid, std::string_view category) {
    ev_.Uint(field::kNameIid, name_iid);
    ev_.Uint(field::kCategoryIids, w_.InternCategory(category));
  };
  switch (src) {
    case Src::kKernel:
      name_and_cat(NameIid(r, t.kernels[i].name), "kernel");
      d.KernelArgs(t.kernels[i], trace_export::FactsOfKernel(r.analysis_result, i).cls, args);
      break;
    case Src::kMemcpy:
      name_and_cat(w_.InternName(d.MemcpyName(t.memcpys[i])), "gpu_memcpy");
      d.MemcpyArgs(t.memcpys[i], args);
      break;
    case Src::kMemset:
      name_and_cat(w_.InternName(d.MemsetName(t.memsets[i])), "gpu_memset");
      d.MemsetArgs(t.memsets[i], args);
      break;
    case Src::kApi:
      name_and_cat(NameIid(r, t.api_calls[i].name),
                   t.api_calls[i].domain == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime");
      d.ApiArgs(t.api_calls[i], args);
      break;
    case Src::kSync:
      name_and_cat(w_.InternName(EventDescriber::SyncName(t.syncs[i].type)), "cuda_sync");
      d.SyncArgs(t.syncs[i], args);
      break;
    case Src::kRange:
      name_and_cat(NameIid(r, t.ranges[i].name), EventDescriber::RangeCategory(t.ranges[i].kind));
      d.RangeArgs(t.ranges[i], args);
      break;
    case Src::kCpuOp:
      name_and_cat(NameIid(r, t.cpu_ops[i].name), "cpu_op");
      d.CpuOpArgs(t.cpu_ops[i], args);
      break;
    case Src::kOther: {
      std::string_view cat = t.str(t.other_events[i].category);
      name_and_cat(NameIid(r, t.other_events[i].name), cat.empty() ? std::string_view("other") : cat);
      break;
    }
    case Src::kMemory:
      name_and_cat(w_.InternName("[memory]"), "cpu_instant_event");
      d.MemoryArgs(t.memory_events[i], args);
      break;
    case Src::kAnalysisSpan: {
      const AnalysisSpan& s = c.analysis_track->spans[i];
      name_and_cat(w_.InternName(r.analysis.names[s.name]), c.analysis_track->category);
      if (s.args >= 0) {
        const nlohmann::json span_args = r.analysis.Args(s.args);
        for (const auto& [key, value] : span_args.items()) args.Json(key, value);
      }
      break;
    }
    default: break;
  }
  auto range = std::equal_range(r.flows.begin(), r.flows.end(), std::make_pair(ref, uint64_t{0}),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second & kTerminatingBit) {
      ev_.Fixed64(field::kTerminatingFlowIds, it->second & ~kTerminatingBit);
    } else {
      ev_.Fixed64(field::kFlowIds, it->second);
    }
  }
  w_.WriteEvent(static_cast<uint64_t>(StartOf(r, c, ref)), ev_);
}

Status CheckTimestamps(const Trace& t) {
  TimeNs min_ts = 0;
  auto see = [&](TimeNs ts) { min_ts = std::min(min_ts, ts); };
  for (const KernelEvent& e : t.kernels) see(e.start_ns);
  for (const MemcpyEvent& e : t.memcpys) see(e.start_ns);
  for (const MemsetEvent& e : t.memsets) see(e.start_ns);
  for (const ApiCall& e : t.api_calls) see(e.start_ns);
  for (const SyncEvent& e : t.syncs) see(e.start_ns);
  for (const Range& e : t.ranges) see(e.start_ns);
  for (const CpuOp& e : t.cpu_ops) see(e.start_ns);
  for (const OtherEvent& e : t.other_events) see(e.start_ns);
  for (const MemoryEvent& e : t.memory_events) see(e.time_ns);
  for (const CounterSample& e : t.counters) see(e.time_ns);
  if (min_ts < 0)
    return Status::Error(t.metadata.path + ": negative timestamp " + std::to_string(min_ts) +
                         " ns cannot be written as a Perfetto trace (timestamps are unsigned); use --chrome-trace");
  return Status::Ok();
}

Status PerfettoTraceWriter::Write(const std::vector<Trace>& traces, const JobAnalysis& analysis) {
  for (const Trace& t : traces) AMPSCOPE_RETURN_IF_ERROR(CheckTimestamps(t));
  std::vector<trace_export::RankPids> pids = trace_export::AssignPids(traces);
  for (size_t i = 0; i < traces.size(); ++i) {
    auto r = std::make_unique<RankState>();
    r->trace = &traces[i];
    r->analysis_result = trace_export::FindRankAnalysis(traces, i, analysis);
    r->index = i;
    r->describe = std::make_unique<EventDescriber>(traces[i]);
    r->pids = pids[i];
    ranks_.push_back(std::move(r));
  }
  for (size_t i = 0; i < traces.size(); ++i)
    SetUpRank(*ranks_[i], traces.size(), ranks_[i]->analysis_result);
  if (!w_.ok()) return Status::Error("cannot write the Perfetto trace (output stream failed)");

  // Merge all tracks by timestamp: each cursor yields its events in order (ends of open
  // slices before a begin at the same time), the heap picks the earliest.
  using HeapItem = std::pair<TimeNs, size_t>;
  std::priority_queue<HeapItem, std::vector<HeapItem>, std::greater<HeapItem>> heap;
  auto next_ts = [&](Cursor& c, bool* is_end) -> std::optional<TimeNs> {
    RankState& r = *c.rank;
    if (!c.open.empty()) {
      TimeNs end = EndOf(r, c, c.open.back());
      if (c.pos >= c.items.size() || end <= StartOf(r, c, c.items[c.pos])) {
        *is_end = true;
        return end;
      }
    }
    if (c.pos >= c.items.size()) return std::nullopt;
    *is_end = false;
    return StartOf(r, c, c.items[c.pos]);
  };
  for (size_t i = 0; i < cursors_.size(); ++i) {
    bool is_end;
    if (auto ts = next_ts(*cursors_[i], &is_end)) heap.emplace(*ts, i);
  }
  while (!heap.empty()) {
    size_t i = heap.top().second;
    heap.pop();
    Cursor& c = *cursors_[i];
    bool is_end = false;
    if (!next_ts(c, &is_end)) continue;
    if (is_end) {
      Ref ref = c.open.back();
      c.open.pop_back();
      EmitEvent(c, ref, true);
    } else {
      Ref ref = c.items[c.pos++];
      EmitEvent(c, ref, false);
      if (!IsCounter(ref) && !IsInstant(*c.rank, c, ref)) c.open.push_back(ref);
    }
    if (auto ts = next_ts(c, &is_end)) heap.emplace(*ts, i);
    if (!w_.ok()) return Status::Error("cannot write the Perfetto trace (output stream failed)");
  }
  w_.Flush();
  if (!w_.ok()) return Status::Error("cannot write the Perfetto trace (output stream failed)");
  return Status::Ok();
}

}  // namespace

Status WritePerfettoTrace(const std::vector<Trace>& traces, const JobAnalysis& analysis, std::ostream& out) {
  PerfettoTraceWriter writer(out);
  Status st = writer.Write(traces, analysis);
  out.flush();
  if (st.ok() && !out) return Status::Error("cannot write the Perfetto trace (output stream failed)");
  return st;
}

}  // namespace ampscope

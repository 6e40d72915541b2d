#include "export/chrome_trace.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "export/event_sink.h"

namespace ampscope {

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

// One rank as Chrome events: a sink of the rank walk (export/event_sink.h).
class ChromeRankSink : public trace_export::EventSink {
 public:
  ChromeRankSink(JsonOut& w, const Trace& trace, size_t rank_index, size_t ranks, const trace_export::RankPids& pids)
      : w_(w), trace_(trace), rank_index_(rank_index), ranks_(ranks), pids_(pids), describe_(trace), names_(trace),
        args_(w.buf()), phases_(FlowPhases(trace)) {
    prefix_ = ranks > 1 ? trace_export::RankLabel(trace, rank_index) + " \xC2\xB7 " : "";
    host_pid_ = pids.Map(describe_.HostPid());
  }
  uint64_t unpaired_flows() const { return unpaired_flows_; }
  uint64_t dropped_ranges() const { return dropped_ranges_; }

  // Processes and threads.
  void WriteTrackNames() {
    trace_export::TrackNames track_names = trace_export::NameTracks(trace_);
    for (const auto& [pid, name] : track_names.process) {
      int64_t out_pid = pids_.Map(pid);
      WriteMetadata(w_, "process_name", out_pid, 0, "name", prefix_ + name);
      auto labels = track_names.process_labels.find(pid);
      if (labels != track_names.process_labels.end())
        WriteMetadata(w_, "process_labels", out_pid, 0, "labels", labels->second);
      // Kineto's order (CPU by pid, GPUs after); with several ranks, the dense pid order.
      bool gpu = track_names.gpu_pids.count(pid) > 0;
      WriteSortIndex(w_, "process_sort_index", out_pid, 0, ranks_ > 1 ? out_pid : (gpu ? 0x1000000 + pid : pid));
    }
    for (const auto& [key, name] : track_names.thread)
      WriteMetadata(w_, "thread_name", pids_.Map(key.first), key.second, "name", name);
  }

  // GPU activity.
  void Kernel(size_t, const KernelEvent& e, const trace_export::KernelFacts& facts) override {
    Slice("kernel", names_.Get(e.name), pids_.Map(e.device), e.stream, e.start_ns, e.duration_ns());
    args_.Open();
    describe_.KernelArgs(e, facts.cls, args_);
    Close();
  }
  void Memcpy(size_t, const MemcpyEvent& e) override {
    Slice("gpu_memcpy", Escaped(describe_.MemcpyName(e)), pids_.Map(e.device), e.stream, e.start_ns, e.duration_ns());
    args_.Open();
    describe_.MemcpyArgs(e, args_);
    Close();
  }
  void Memset(size_t, const MemsetEvent& e) override {
    Slice("gpu_memset", describe_.MemsetName(e), pids_.Map(e.device), e.stream, e.start_ns, e.duration_ns());
    args_.Open();
    describe_.MemsetArgs(e, args_);
    Close();
  }
  // Host activity.
  void Api(size_t, const ApiCall& e) override {
    Slice(e.domain == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", names_.Get(e.name), pids_.Map(e.pid), e.tid,
          e.start_ns, e.duration_ns());
    args_.Open();
    describe_.ApiArgs(e, args_);
    Close();
  }
  void Sync(size_t, const SyncEvent& e) override {
    auto [pid, tid] = EventDescriber::SyncTrack(e);
    Slice("cuda_sync", EventDescriber::SyncName(e.type), pids_.Map(pid), tid, e.start_ns, e.end_ns - e.start_ns);
    args_.Open();
    describe_.SyncArgs(e, args_);
    Close();
  }
  void Range(size_t, const ampscope::Range& e) override {
    auto [pid, tid] = EventDescriber::RangeTrack(e);
    bool mark = e.kind == RangeKind::kNvtxMark;
    w_.Begin(mark ? 'i' : 'X', EventDescriber::RangeCategory(e.kind), names_.Get(e.name), pids_.Map(pid), tid,
             e.start_ns);
    if (mark) {
      w_.buf() += ",\"s\":\"t\"";
    } else {
      w_.Dur(e.end_ns - e.start_ns);
    }
    args_.Open();
    describe_.RangeArgs(e, args_);
    Close();
  }
  void CpuOp(size_t, const ampscope::CpuOp& e) override {
    Slice("cpu_op", names_.Get(e.name), pids_.Map(e.pid), e.tid, e.start_ns, e.end_ns - e.start_ns);
    args_.Open();
    describe_.CpuOpArgs(e, args_);
    Close();
  }
  void Other(size_t, const OtherEvent& e) override {
    bool instant = e.phase == 'i' || e.phase == 'I';
    w_.Begin(instant ? 'i' : 'X', trace_.str(e.category).empty() ? std::string_view("other") : trace_.str(e.category),
             names_.Get(e.name), pids_.Map(e.pid), e.tid, e.start_ns);
    if (instant) {
      w_.buf() += ",\"s\":\"t\"";
    } else {
      w_.Dur(e.end_ns - e.start_ns);
    }
    w_.End();
  }
  void Memory(size_t, const MemoryEvent& e) override {
    w_.Begin('i', "cpu_instant_event", "[memory]", host_pid_, 0, e.time_ns);
    w_.buf() += ",\"s\":\"p\"";
    args_.Open();
    describe_.MemoryArgs(e, args_);
    Close();
  }
  void Counter(size_t, const CounterSample& c) override {
    w_.Begin('C', "counter", names_.Get(c.name), c.device >= 0 ? pids_.Map(c.device) : host_pid_, 0, c.time_ns);
    args_.Open();
    args_.Double("value", c.value);
    Close();
  }
  // Flows, paired only.
  void Flow(size_t, const FlowEvent& f) override {
    uint8_t have = phases_[{f.category, f.id}];
    if ((have & 3) != 3) {
      ++unpaired_flows_;
      return;
    }
    char ph = f.phase == 's' || f.phase == 'f' ? f.phase : 't';
    w_.Begin(ph, trace_.str(f.category), names_.Get(f.name), pids_.Map(f.pid), f.tid, f.time_ns);
    w_.buf() += ",\"id\":";
    w_.AppendInt(RankFlowId(f.id, rank_index_, ranks_));
    if (f.bind_enclosing) w_.buf() += ",\"bp\":\"e\"";
    w_.End();
  }

  // The analysis process.
  void EndEvents() override {
    const int64_t apid = pids_.analysis_pid;
    WriteMetadata(w_, "process_name", apid, 0, "name", prefix_ + "ampscope analysis");
    WriteMetadata(w_, "process_labels", apid, 0, "labels", "steps, idle gaps, syncs, findings");
    WriteSortIndex(w_, "process_sort_index", apid, 0, ranks_ > 1 ? apid : -1);
  }
  bool WantsAnalysisTracks() const override { return true; }
  void AnalysisTracksBegin(const trace_export::AnalysisTracks& tracks) override {
    tracks_ = &tracks;
    dropped_ranges_ += tracks.dropped_finding_ranges;
    escaped_names_.clear();
    escaped_names_.reserve(tracks.names.size());
    for (const std::string& n : tracks.names) escaped_names_.push_back(Escaped(n));
  }
  void AnalysisTrackBegin(size_t t, const trace_export::AnalysisTrack& track) override {
    const int64_t tid = static_cast<int64_t>(t) + 1;
    WriteMetadata(w_, "thread_name", pids_.analysis_pid, tid, "name", track.name);
    WriteSortIndex(w_, "thread_sort_index", pids_.analysis_pid, tid, tid);
  }
  void AnalysisSpan(size_t t, size_t, const trace_export::AnalysisSpan& s) override {
    const trace_export::AnalysisTrack& track = tracks_->tracks[t];
    w_.Begin(s.instant ? 'i' : 'X', track.category, escaped_names_[s.name], pids_.analysis_pid,
             static_cast<int64_t>(t) + 1, s.start_ns);
    if (s.instant) {
      w_.buf() += ",\"s\":\"t\"";
    } else {
      w_.Dur(s.end_ns - s.start_ns);
    }
    const char* color = trace_export::ChromeColorName(s.color);
    if (*color) {
      w_.buf() += ",\"cname\":\"";
      w_.buf() += color;
      w_.buf() += "\"";
    }
    if (s.args >= 0) {
      w_.buf() += ",\"args\":";
      w_.buf() += tracks_->Args(s.args).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    w_.End();
  }
  void AnalysisCounter(size_t, const trace_export::AnalysisCounter& c) override {
    std::string name = Escaped(c.name);
    for (const auto& [ts, v] : c.samples) {
      w_.Begin('C', "ampscope.counter", name, pids_.analysis_pid, 0, ts);
      args_.Open();
      args_.Double(c.series, v);
      Close();
    }
  }

 private:
  using EventDescriber = trace_export::EventDescriber;
  void Slice(std::string_view cat, std::string_view escaped_name, int64_t pid, int64_t tid, TimeNs ts, TimeNs dur) {
    w_.Begin('X', cat, escaped_name, pid, tid, ts);
    w_.Dur(dur);
  }
  void Close() {
    args_.Close();
    w_.End();
  }

  JsonOut& w_;
  const Trace& trace_;
  size_t rank_index_, ranks_;
  const trace_export::RankPids& pids_;
  EventDescriber describe_;
  EscapedNames names_;
  JsonArgSink args_;
  std::unordered_map<FlowKey, uint8_t, FlowKeyHash> phases_;
  std::string prefix_;
  int64_t host_pid_ = 0;
  uint64_t unpaired_flows_ = 0, dropped_ranges_ = 0;
  const trace_export::AnalysisTracks* tracks_ = nullptr;
  std::vector<std::string> escaped_names_;
};

void WriteRank(JsonOut& w, const Trace& trace, size_t rank_index, size_t ranks, const trace_export::RankPids& pids,
               const RankAnalysis* rank, uint64_t* unpaired_flows, uint64_t* dropped_ranges) {
  ChromeRankSink sink(w, trace, rank_index, ranks, pids);
  sink.WriteTrackNames();
  trace_export::WalkRank(trace, rank, sink);
  *unpaired_flows += sink.unpaired_flows();
  *dropped_ranges += sink.dropped_ranges();
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

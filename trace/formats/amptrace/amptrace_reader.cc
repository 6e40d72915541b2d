#include "trace/formats/amptrace/amptrace_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "trace/formats/amptrace/amptrace_chunk_file.h"
#include "trace/time_bounds.h"

namespace ampscope {

const char* AmpChunkTypeName(AmpChunkType type) {
  switch (type) {
    case AmpChunkType::kStrings: return "strings";
    case AmpChunkType::kWarnings: return "warnings";
    case AmpChunkType::kStats: return "stats";
    case AmpChunkType::kClock: return "clock";
    case AmpChunkType::kDevice: return "device";
    case AmpChunkType::kContext: return "context";
    case AmpChunkType::kName: return "name";
    case AmpChunkType::kKernel: return "kernel";
    case AmpChunkType::kMemcpy: return "memcpy";
    case AmpChunkType::kMemset: return "memset";
    case AmpChunkType::kApi: return "api";
    case AmpChunkType::kSync: return "sync";
    case AmpChunkType::kMemory: return "memory";
    case AmpChunkType::kOverhead: return "overhead";
    case AmpChunkType::kNvtx: return "nvtx";
    case AmpChunkType::kCounter: return "counter";
    case AmpChunkType::kFooter: return "footer";
  }
  return "unknown";
}

namespace {

using amptrace_detail::At;
using amptrace_detail::ChunkFile;
using amptrace_detail::ParseWarnings;

template <typename T>
T RecordAt(const std::vector<uint8_t>& payload, size_t index, size_t record_size) {
  T r;
  std::memcpy(&r, payload.data() + index * record_size, sizeof(T));
  return r;
}

MemcpyKind ToMemcpyKind(uint8_t k) {
  switch (static_cast<AmpMemcpyKind>(k)) {
    case AmpMemcpyKind::kHtoD:
    case AmpMemcpyKind::kHtoA: return MemcpyKind::kHtoD;
    case AmpMemcpyKind::kDtoH:
    case AmpMemcpyKind::kAtoH: return MemcpyKind::kDtoH;
    case AmpMemcpyKind::kDtoD:
    case AmpMemcpyKind::kAtoA:
    case AmpMemcpyKind::kAtoD:
    case AmpMemcpyKind::kDtoA: return MemcpyKind::kDtoD;
    case AmpMemcpyKind::kHtoH: return MemcpyKind::kHtoH;
    case AmpMemcpyKind::kPtoP: return MemcpyKind::kPtoP;
    default: return MemcpyKind::kUnknown;
  }
}

MemoryKind ToMemoryKind(uint8_t k) {
  switch (static_cast<AmpMemoryKind>(k)) {
    case AmpMemoryKind::kPageable: return MemoryKind::kPageable;
    case AmpMemoryKind::kPinned: return MemoryKind::kPinned;
    case AmpMemoryKind::kDevice:
    case AmpMemoryKind::kDeviceStatic: return MemoryKind::kDevice;
    case AmpMemoryKind::kManaged:
    case AmpMemoryKind::kManagedStatic: return MemoryKind::kManaged;
    case AmpMemoryKind::kArray: return MemoryKind::kArray;
    default: return MemoryKind::kUnknown;
  }
}

SyncType ToSyncType(uint8_t t) {
  switch (static_cast<AmpSyncType>(t)) {
    case AmpSyncType::kEventSynchronize: return SyncType::kEventSync;
    case AmpSyncType::kStreamWaitEvent: return SyncType::kStreamWaitEvent;
    case AmpSyncType::kStreamSynchronize: return SyncType::kStreamSync;
    case AmpSyncType::kContextSynchronize: return SyncType::kContextSync;
    default: return SyncType::kUnknown;
  }
}

Severity ToSeverity(AmpSeverity s) {
  switch (s) {
    case AmpSeverity::kInfo: return Severity::kInfo;
    case AmpSeverity::kWarning: return Severity::kDataLoss;
    default: return Severity::kError;
  }
}

std::string DriverVersionString(uint32_t v) {
  if (v == 0) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Turns the chunks of one file into a Trace.
class TraceBuilder {
 public:
  explicit TraceBuilder(Trace& trace) : trace_(trace) {}

  void SetHeader(const ChunkFile& file) {
    const AmpFileHeader& h = file.header();
    pid_ = h.pid;
    TraceMetadata& m = trace_.metadata;
    m.format = SourceFormat::kAmptrace;
    m.rank = h.rank;
    m.world_size = h.world_size;
    m.host = file.host();
    m.pid = h.pid;
    m.command_line = file.command_line();
    if (h.cupti_version != 0) m.cupti_version = std::to_string(h.cupti_version);
    m.driver_version = DriverVersionString(h.driver_version);
    m.input_bytes = file.size();
    m.extra["amptrace_version"] = std::to_string(h.version_major) + "." + std::to_string(h.version_minor);
    if (h.local_rank >= 0) m.extra["local_rank"] = std::to_string(h.local_rank);
    AddClock({h.start_cupti_ns, h.start_monotonic_ns, h.start_realtime_ns}, offsetof(AmpFileHeader, start_cupti_ns));
  }

  void Chunk(const AmpChunkHeader& h, const std::vector<uint8_t>& payload, int64_t offset) {
    const size_t rs = h.record_size;
    const uint32_t n = h.record_count;
    switch (static_cast<AmpChunkType>(h.type)) {
      case AmpChunkType::kStrings: Strings(payload, offset); break;
      case AmpChunkType::kWarnings: {
        std::vector<AmptraceWarning> warnings;
        if (!ParseWarnings(payload, &warnings))
          trace_.diagnostics.Add(DiagCode::kCorruptChunk, offset, "malformed warnings chunk");
        for (const AmptraceWarning& w : warnings) Warning(w);
        break;
      }
      case AmpChunkType::kStats:
        for (uint32_t i = 0; i < n; ++i) stats_ = RecordAt<AmpStatsRecord>(payload, i, rs), have_stats_ = true;
        break;
      case AmpChunkType::kFooter: {
        AmpFooterRecord f = RecordAt<AmpFooterRecord>(payload, 0, rs);
        stats_ = f.stats;
        have_stats_ = true;
        footer_flags_ = f.flags;
        AddClock(f.end_clock, offset);
        break;
      }
      case AmpChunkType::kClock:
        for (uint32_t i = 0; i < n; ++i) AddClock(RecordAt<AmpClockRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kDevice:
        for (uint32_t i = 0; i < n; ++i) AddDevice(RecordAt<AmpDeviceRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kContext:
        for (uint32_t i = 0; i < n; ++i) {
          AmpContextRecord c = RecordAt<AmpContextRecord>(payload, i, rs);
          context_device_[c.context] = static_cast<int32_t>(c.device);
        }
        break;
      case AmpChunkType::kName:
        for (uint32_t i = 0; i < n; ++i) AddName(RecordAt<AmpNameRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kKernel:
        for (uint32_t i = 0; i < n; ++i) AddKernel(RecordAt<AmpKernelRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kMemcpy:
        for (uint32_t i = 0; i < n; ++i) AddMemcpy(RecordAt<AmpMemcpyRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kMemset:
        for (uint32_t i = 0; i < n; ++i) AddMemset(RecordAt<AmpMemsetRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kApi:
        for (uint32_t i = 0; i < n; ++i) AddApi(RecordAt<AmpApiRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kSync:
        for (uint32_t i = 0; i < n; ++i) AddSync(RecordAt<AmpSyncRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kMemory:
        for (uint32_t i = 0; i < n; ++i) AddMemory(RecordAt<AmpMemoryRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kOverhead:
        for (uint32_t i = 0; i < n; ++i) AddOverhead(RecordAt<AmpOverheadRecord>(payload, i, rs), offset);
        break;
      case AmpChunkType::kNvtx:
        for (uint32_t i = 0; i < n; ++i) {
          AmpNvtxEvent e = RecordAt<AmpNvtxEvent>(payload, i, rs);
          nvtx_.push_back(Nvtx{e, Str(e.name, offset), Str(e.domain, offset), offset});
        }
        break;
      case AmpChunkType::kCounter:
        for (uint32_t i = 0; i < n; ++i) {
          AmpCounterRecord c = RecordAt<AmpCounterRecord>(payload, i, rs);
          if (!Instant(c.time_ns, offset, "counter")) continue;
          trace_.counters.push_back(CounterSample{c.time_ns, Str(c.name, offset), c.device, c.value});
        }
        break;
      default:
        trace_.diagnostics.Add(DiagCode::kUnknownChunkType, offset,
                               "chunk type " + std::to_string(h.type) + " is not known to this reader; skipped");
        return;
    }
    if (h.record_size > 0 && h.type != static_cast<uint16_t>(AmpChunkType::kFooter))
      trace_.metadata.event_count += n;
  }

  void Finish(const ChunkFile& file) {
    TraceMetadata& m = trace_.metadata;
    m.extra["clean_end"] = file.clean_end() ? "true" : "false";
    if (footer_flags_ & kAmpFooterFlagSignal) m.extra["closed_by_signal"] = "true";
    if (have_stats_) {
      Diagnostics& d = trace_.diagnostics;
      d.AddCount(DiagCode::kCuptiDroppedRecords, stats_.cupti_dropped_records, -1,
                 "CUPTI dropped activity records (its buffers were full or not returned in time)");
      d.AddCount(DiagCode::kCuptiBuffersRefused, stats_.buffers_refused, -1,
                 "CUPTI asked for a buffer while the collector's bounded pool was empty; its records were dropped");
      d.AddCount(DiagCode::kNvtxEventsDropped, stats_.nvtx_events_dropped, -1,
                 "NVTX events were dropped because the collector's queue was full");
      d.AddCount(DiagCode::kApiRecordsFiltered, stats_.records_filtered, -1,
                 "high-rate trivial CUDA API calls (cudaGetDevice, cudaPeekAtLastError, ...) were not recorded");
      d.AddCount(DiagCode::kUnknownCuptiRecords, stats_.unknown_records, -1,
                 "CUPTI records of kinds the collector does not convert were skipped");
      m.extra["dropped_records"] = std::to_string(stats_.cupti_dropped_records + stats_.buffers_refused +
                                                  stats_.nvtx_events_dropped);
    }
    // Syncs: the device comes from the context table, the thread from the API call that
    // shares the correlation id.
    std::unordered_map<uint32_t, std::pair<int64_t, int64_t>> api_thread;  // correlation -> (pid, tid)
    for (const ApiCall& a : trace_.api_calls)
      if (a.correlation >= 0) api_thread.emplace(static_cast<uint32_t>(a.correlation), std::make_pair(a.pid, a.tid));
    for (size_t i = 0; i < trace_.syncs.size(); ++i) {
      SyncEvent& s = trace_.syncs[i];
      auto ctx = context_device_.find(sync_context_[i]);
      if (ctx != context_device_.end()) s.device = ctx->second;
      auto api = api_thread.find(static_cast<uint32_t>(s.correlation));
      if (api != api_thread.end()) {
        s.pid = api->second.first;
        s.tid = api->second.second;
      }
    }
    BuildNvtxRanges(file);
    FinalizeTrace(trace_);
  }

  // The span and total of every accepted time (trace/time_bounds.h); an error names the chunk.
  Status CheckTimes(const std::string& path) const { return bounds_.Check(path); }

 private:
  struct Nvtx {
    AmpNvtxEvent event;
    StringId name;
    StringId domain;
    int64_t offset;  // of its chunk
  };

  StringId Str(uint32_t file_id, int64_t offset) {
    if (file_id == 0) return kNoString;
    auto it = strings_.find(file_id);
    if (it != strings_.end()) return it->second;
    trace_.diagnostics.Add(DiagCode::kUnknownStringId, offset,
                           "record refers to string id " + std::to_string(file_id) + " that no strings chunk defined");
    return kNoString;
  }

  void Strings(const std::vector<uint8_t>& p, int64_t offset) {
    size_t pos = 0;
    while (pos < p.size()) {
      if (p.size() - pos < 8) break;
      uint32_t id, len;
      std::memcpy(&id, p.data() + pos, 4);
      std::memcpy(&len, p.data() + pos + 4, 4);
      pos += 8;
      if (p.size() - pos < len) break;
      strings_[id] = trace_.strings.Intern(std::string_view(reinterpret_cast<const char*>(p.data() + pos), len));
      pos += len;
    }
    if (pos != p.size())
      trace_.diagnostics.Add(DiagCode::kCorruptChunk, offset, "malformed strings chunk");
  }

  void Seen(int64_t t) {
    if (t > max_time_ns_) max_time_ns_ = t;
  }

  // Records come from a collector, but a file can be damaged in ways its checksums pass (a
  // bad clock, a buggy writer): every time is checked as the Kineto reader checks its times.
  // False (counted as time_out_of_range) when the record must be skipped; end < start is
  // negative_duration and the record is kept as zero-length.
  bool Interval(int64_t start, int64_t* end, int64_t offset, const char* what) {
    if (!IsAcceptedTime(start) || !IsAcceptedTime(*end)) {
      OutOfRange(what, IsAcceptedTime(start) ? *end : start, offset);
      return false;
    }
    if (*end < start) {
      trace_.diagnostics.Add(DiagCode::kNegativeDuration, offset,
                             std::string(what) + " record ends " + std::to_string(SaturatingSub(start, *end)) +
                                 " ns before it starts; read as zero-length");
      *end = start;
    }
    bounds_.AddInterval(start, *end, offset);
    Seen(*end);
    return true;
  }
  bool Instant(int64_t t, int64_t offset, const char* what) {
    if (!IsAcceptedTime(t)) {
      OutOfRange(what, t, offset);
      return false;
    }
    bounds_.AddInstant(t, offset);
    Seen(t);
    return true;
  }
  void OutOfRange(const char* what, int64_t t, int64_t offset) {
    trace_.diagnostics.Add(DiagCode::kTimeOutOfRange, offset,
                           std::string(what) + " record with time " + std::to_string(t) +
                               " ns, beyond +/-2^62 ns; skipped");
  }

  void AddClock(const AmpClockRecord& c, int64_t offset) {
    if (c.cupti_ns == 0 && c.monotonic_ns == 0 && c.realtime_ns == 0) return;
    // Calibration pairs feed the NVTX clock offset (a difference of two of them): unbounded
    // readings would overflow it.
    if (!IsAcceptedTime(c.cupti_ns) || !IsAcceptedTime(c.monotonic_ns) || !IsAcceptedTime(c.realtime_ns)) {
      OutOfRange("clock calibration", !IsAcceptedTime(c.cupti_ns) ? c.cupti_ns
                                      : !IsAcceptedTime(c.monotonic_ns) ? c.monotonic_ns : c.realtime_ns, offset);
      return;
    }
    trace_.metadata.clock_calibration.push_back(ClockCalibration{c.cupti_ns, c.monotonic_ns, c.realtime_ns});
  }

  // A collector warning becomes a diagnostic with the file's own code. Any process can drop a
  // file into the output folder: at most kMaxWarningCodes distinct codes are kept (each message
  // cut to kMaxWarningChars), the rest counted as collector_warnings_capped.
  void Warning(const AmptraceWarning& w) {
    static constexpr size_t kMaxWarningCodes = 64;
    static constexpr size_t kMaxWarningChars = 1024;
    if (warning_codes_.count(w.code) == 0) {
      if (warning_codes_.size() >= kMaxWarningCodes) {
        trace_.diagnostics.Add(DiagCode::kCollectorWarningsCapped, -1,
                               "collector warnings beyond the first " + std::to_string(kMaxWarningCodes) +
                                   " distinct codes, e.g. " + w.code.substr(0, 64));
        return;
      }
      warning_codes_.insert(w.code);
      std::string& all = trace_.metadata.extra["collector_warnings"];
      if (!all.empty()) all += "\n";
      all += w.code + ": " + w.message.substr(0, kMaxWarningChars);
    }
    trace_.diagnostics.AddFromInput(w.code, ToSeverity(w.severity), -1, w.message.substr(0, kMaxWarningChars));
  }

  void AddDevice(const AmpDeviceRecord& r, int64_t offset) {
    if (trace_.FindDevice(static_cast<int32_t>(r.id)) != nullptr) return;  // O(1): devices come through AddDevice
    Device d;
    d.id = static_cast<int32_t>(r.id);
    d.name = std::string(trace_.str(Str(r.name, offset)));
    d.vendor = GpuVendor::kNvidia;
    d.cc_major = static_cast<int32_t>(r.cc_major);
    d.cc_minor = static_cast<int32_t>(r.cc_minor);
    d.sm_count = static_cast<int32_t>(r.sm_count);
    d.total_memory_bytes = static_cast<int64_t>(r.global_memory_bytes);
    d.max_threads_per_sm = static_cast<int32_t>(r.max_warps_per_sm * r.threads_per_warp);
    d.regs_per_sm = static_cast<int32_t>(r.max_registers_per_sm);
    d.shared_mem_per_sm = r.max_shared_memory_per_sm;
    trace_.AddDevice(std::move(d));
  }

  void AddName(const AmpNameRecord& r, int64_t offset) {
    std::string name(trace_.str(Str(r.name, offset)));
    switch (static_cast<AmpObjectKind>(r.object_kind)) {
      case AmpObjectKind::kThread:
        trace_.processes[pid_].thread_names[static_cast<int64_t>(r.object_id)] = name;
        break;
      case AmpObjectKind::kDevice:
        trace_.metadata.extra["device_name." + std::to_string(r.object_id)] = name;
        break;
      case AmpObjectKind::kContext:
        trace_.metadata.extra["context_name." + std::to_string(r.object_id & 0xFFFFFFFFu)] = name;
        break;
      case AmpObjectKind::kStream:
        trace_.metadata.extra["stream_name." + std::to_string(r.object_id & 0xFFFFFFFFu)] = name;
        break;
      default: break;
    }
  }

  void AddKernel(const AmpKernelRecord& r, int64_t offset) {
    KernelEvent k;
    k.start_ns = r.start_ns;
    k.end_ns = r.end_ns;
    if (!Interval(k.start_ns, &k.end_ns, offset, "kernel")) return;
    k.correlation = r.correlation;
    k.name = Str(r.name, offset);
    k.device = static_cast<int32_t>(r.device);
    k.stream = static_cast<int32_t>(r.stream);
    LaunchConfig lc;
    for (int i = 0; i < 3; ++i) {
      lc.grid[i] = static_cast<uint32_t>(r.grid[i]);
      lc.block[i] = static_cast<uint32_t>(r.block[i]);
    }
    lc.registers_per_thread = r.registers_per_thread;
    lc.static_shared_bytes = r.static_shared_bytes;
    lc.dynamic_shared_bytes = r.dynamic_shared_bytes;
    k.launch_config = trace_.InternLaunch(lc);
    k.graph_id = r.graph_id;
    trace_.kernels.push_back(k);
  }

  void AddMemcpy(const AmpMemcpyRecord& r, int64_t offset) {
    MemcpyEvent m;
    m.start_ns = r.start_ns;
    m.end_ns = r.end_ns;
    if (!Interval(m.start_ns, &m.end_ns, offset, "memcpy")) return;
    m.correlation = r.correlation;
    m.bytes = r.bytes;
    m.device = static_cast<int32_t>(r.device);
    m.stream = static_cast<int32_t>(r.stream);
    m.kind = ToMemcpyKind(r.copy_kind);
    m.src_kind = ToMemoryKind(r.src_kind);
    m.dst_kind = ToMemoryKind(r.dst_kind);
    m.async = (r.flags & kAmpMemcpyFlagAsync) != 0;
    trace_.memcpys.push_back(m);
  }

  void AddMemset(const AmpMemsetRecord& r, int64_t offset) {
    MemsetEvent m;
    m.start_ns = r.start_ns;
    m.end_ns = r.end_ns;
    if (!Interval(m.start_ns, &m.end_ns, offset, "memset")) return;
    m.correlation = r.correlation;
    m.bytes = r.bytes;
    m.device = static_cast<int32_t>(r.device);
    m.stream = static_cast<int32_t>(r.stream);
    m.memory_kind = ToMemoryKind(r.memory_kind);
    trace_.memsets.push_back(m);
  }

  void AddApi(const AmpApiRecord& r, int64_t offset) {
    ApiCall a;
    a.start_ns = r.start_ns;
    a.end_ns = r.end_ns;
    if (!Interval(a.start_ns, &a.end_ns, offset, "api")) return;
    a.correlation = r.correlation;
    a.pid = r.pid;
    a.tid = r.tid;
    a.name = Str(r.name, offset);
    a.cbid = CbidOrUnknown(int64_t{r.cbid});
    a.domain = r.domain == static_cast<uint8_t>(AmpApiDomain::kDriver) ? ApiDomain::kDriver : ApiDomain::kRuntime;
    trace_.api_calls.push_back(a);
  }

  void AddSync(const AmpSyncRecord& r, int64_t offset) {
    SyncEvent s;
    s.start_ns = r.start_ns;
    s.end_ns = r.end_ns;
    if (!Interval(s.start_ns, &s.end_ns, offset, "sync")) return;
    s.correlation = r.correlation;
    s.stream = r.stream == 0xFFFFFFFFu ? -1 : static_cast<int32_t>(r.stream);
    s.type = ToSyncType(r.type);
    trace_.syncs.push_back(s);
    sync_context_.push_back(r.context);
  }

  void AddMemory(const AmpMemoryRecord& r, int64_t offset) {
    if (!Instant(r.time_ns, offset, "memory")) return;
    MemoryEvent m;
    m.time_ns = r.time_ns;
    m.address = r.address;
    const bool release = r.op == static_cast<uint8_t>(AmpMemoryOp::kRelease);
    m.bytes = release ? -static_cast<int64_t>(r.bytes) : static_cast<int64_t>(r.bytes);
    m.device = static_cast<int32_t>(r.device);
    m.op = release ? MemoryOp::kFree : MemoryOp::kAlloc;
    trace_.memory_events.push_back(m);
  }

  void AddOverhead(const AmpOverheadRecord& r, int64_t offset) {
    OtherEvent e;
    e.start_ns = r.start_ns;
    e.end_ns = r.end_ns;
    if (!Interval(e.start_ns, &e.end_ns, offset, "overhead")) return;
    e.pid = pid_;
    e.tid = r.object_kind == static_cast<uint8_t>(AmpObjectKind::kThread) ? static_cast<int64_t>(r.object_id) : -1;
    e.name = Str(r.name, offset);
    e.category = trace_.strings.Intern("cupti_overhead");
    e.phase = 'X';
    trace_.other_events.push_back(e);
  }

  // NVTX timestamps are CLOCK_REALTIME; GPU records are on CUPTI's clock. CUPTI's default
  // clock is CLOCK_REALTIME too, so the two agree to within the microseconds between the two
  // readings of a calibration pair. Only a real difference (> 1 ms: CUPTI on another clock) is
  // applied, so that same-clock traces are not shifted by reading noise.
  int64_t NvtxClockOffset() {
    for (const ClockCalibration& c : trace_.metadata.clock_calibration) {
      if (c.trace_ns == 0 || c.realtime_ns == 0) continue;
      // Both readings are within +/-2^62 (AddClock), so the difference can reach 2^63: it
      // saturates, an offset beyond +/-2^62 is out of range, and every NVTX time it moves is
      // checked again in BuildNvtxRanges.
      int64_t offset = SaturatingSub(c.trace_ns, c.realtime_ns);
      if (!IsAcceptedTime(offset)) {
        OutOfRange("clock calibration (NVTX clock offset)", offset, -1);
        return 0;
      }
      if (offset > 1000000 || offset < -1000000) {
        trace_.metadata.extra["nvtx_clock_offset_ns"] = std::to_string(offset);
        return offset;
      }
      return 0;
    }
    return 0;
  }

  void BuildNvtxRanges(const ChunkFile& file) {
    if (nvtx_.empty()) return;
    const int64_t offset = NvtxClockOffset();
    struct Open {
      int64_t start_ns;
      int64_t tid;
      StringId name;
      StringId domain;
      int64_t offset;  // chunk of the push / start
      int64_t step_number = -1;
    };
    // kStepNumber: the number of the step range the same thread opens next.
    std::unordered_map<uint32_t, int64_t> pending_step;
    auto take_step = [&](uint32_t tid) -> int64_t {
      auto it = pending_step.find(tid);
      if (it == pending_step.end()) return -1;
      const int64_t number = it->second;
      pending_step.erase(it);
      return number;
    };
    // Push/pop nest per (thread, domain), as NVTX defines them; start/end pair by id.
    std::map<std::pair<uint32_t, StringId>, std::vector<Open>> stacks;
    std::unordered_map<uint64_t, Open> started;
    // NVTX time + clock offset, both within +/-2^62: the sum can leave the bounds, so each is
    // checked and the event skipped (time_out_of_range) when it does.
    std::vector<int64_t> moved(nvtx_.size());
    std::vector<bool> usable(nvtx_.size(), false);
    for (size_t i = 0; i < nvtx_.size(); ++i) {
      const int64_t raw = nvtx_[i].event.time_ns;
      int64_t t = 0;
      if (!IsAcceptedTime(raw)) {
        OutOfRange("NVTX", raw, nvtx_[i].offset);
      } else if (__builtin_add_overflow(raw, offset, &t) || !IsAcceptedTime(t)) {
        OutOfRange("NVTX (moved by the clock offset)", raw, nvtx_[i].offset);
      } else {
        Instant(t, nvtx_[i].offset, "NVTX");
        moved[i] = t;
        usable[i] = true;
      }
    }
    int64_t last_ns = max_time_ns_;
    auto emit = [&](const Open& o, int64_t end_ns, RangeKind kind) {
      Range r;
      r.start_ns = o.start_ns;
      r.end_ns = end_ns;
      if (r.end_ns < r.start_ns) {  // a pop read before its push (clock steps, a buggy writer)
        trace_.diagnostics.Add(DiagCode::kNegativeDuration, o.offset,
                               "NVTX range ends " + std::to_string(SaturatingSub(r.start_ns, r.end_ns)) +
                                   " ns before it starts; read as zero-length");
        r.end_ns = r.start_ns;
      }
      bounds_.AddInterval(r.start_ns, r.end_ns, o.offset);
      r.pid = pid_;
      r.tid = o.tid;
      r.name = o.name;
      r.domain = o.domain;
      r.kind = kind;
      r.step_number = o.step_number;
      trace_.ranges.push_back(r);
    };
    for (size_t i = 0; i < nvtx_.size(); ++i) {
      if (!usable[i]) continue;
      const Nvtx& n = nvtx_[i];
      const AmpNvtxEvent& e = n.event;
      const int64_t t = moved[i];
      switch (static_cast<AmpNvtxType>(e.type)) {
        case AmpNvtxType::kPush: stacks[{e.tid, n.domain}].push_back(Open{t, e.tid, n.name, n.domain, n.offset, take_step(e.tid)}); break;
        case AmpNvtxType::kPop: {
          auto& stack = stacks[{e.tid, n.domain}];
          if (stack.empty()) {
            trace_.diagnostics.Add(DiagCode::kNvtxUnmatchedPop, -1,
                                   "an NVTX pop on thread " + std::to_string(e.tid) + " had no open push");
            break;
          }
          emit(stack.back(), t, RangeKind::kNvtx);
          stack.pop_back();
          break;
        }
        case AmpNvtxType::kStart: started[e.range_id] = Open{t, e.tid, n.name, n.domain, n.offset, take_step(e.tid)}; break;
        case AmpNvtxType::kStepNumber:
          // Numbers beyond int64 cannot come from the collector; such a record is ignored.
          if (e.range_id <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            pending_step[e.tid] = static_cast<int64_t>(e.range_id);
          break;
        case AmpNvtxType::kEnd: {
          auto it = started.find(e.range_id);
          if (it == started.end()) {
            trace_.diagnostics.Add(DiagCode::kNvtxUnmatchedEnd, -1,
                                   "an NVTX range end (id " + std::to_string(e.range_id) + ") had no start");
            break;
          }
          emit(it->second, t, RangeKind::kNvtx);
          started.erase(it);
          break;
        }
        case AmpNvtxType::kMark: emit(Open{t, e.tid, n.name, n.domain, n.offset}, t, RangeKind::kNvtxMark); break;
        default:
          trace_.diagnostics.Add(DiagCode::kUnknownNvtxEvent, -1,
                                 "NVTX event type " + std::to_string(e.type) + " is not known; skipped");
      }
    }
    // Ranges still open at the end are kept, closed at the last timestamp in the file, so a
    // step that was running when the process died still shows.
    uint64_t unclosed = 0;
    for (auto& [key, stack] : stacks)
      for (const Open& o : stack) emit(o, std::max(o.start_ns, last_ns), RangeKind::kNvtx), ++unclosed;
    for (auto& [id, o] : started) emit(o, std::max(o.start_ns, last_ns), RangeKind::kNvtx), ++unclosed;
    trace_.diagnostics.AddCountEscalated(DiagCode::kNvtxUnclosedRange,
                                         file.clean_end() ? Severity::kInfo : Severity::kDataLoss, unclosed, -1,
                                         "NVTX ranges were still open when the file ended; they end at the last timestamp");
  }

  Trace& trace_;
  std::unordered_set<std::string> warning_codes_;  // distinct collector warning codes kept (Warning)
  int64_t pid_ = -1;
  std::unordered_map<uint32_t, StringId> strings_;
  std::unordered_map<uint32_t, int32_t> context_device_;
  std::vector<uint32_t> sync_context_;  // parallel to trace_.syncs until Finish()
  std::vector<Nvtx> nvtx_;
  TimeBounds bounds_;
  AmpStatsRecord stats_ = {};
  bool have_stats_ = false;
  uint32_t footer_flags_ = 0;
  int64_t max_time_ns_ = std::numeric_limits<int64_t>::min();
};

}  // namespace

StatusOr<Trace> ReadAmptrace(const std::string& path) {
  ChunkFile file;
  AMPSCOPE_RETURN_IF_ERROR(file.Open(path));
  Trace trace;
  trace.metadata.path = path;
  TraceBuilder builder(trace);
  builder.SetHeader(file);
  AmpChunkHeader h;
  std::vector<uint8_t> payload;
  while (file.Next(&h, trace.diagnostics)) {
    if (!file.ReadPayload(h, &payload, trace.diagnostics)) continue;
    builder.Chunk(h, payload, static_cast<int64_t>(file.chunk_offset()));
  }
  builder.Finish(file);
  AMPSCOPE_RETURN_IF_ERROR(builder.CheckTimes(path));
  return trace;
}

StatusOr<AmptraceSummary> ReadAmptraceSummary(const std::string& path) {
  ChunkFile file;
  AMPSCOPE_RETURN_IF_ERROR(file.Open(path));
  AmptraceSummary s;
  s.path = path;
  s.file_bytes = file.size();
  const AmpFileHeader& hdr = file.header();
  s.pid = hdr.pid;
  s.rank = hdr.rank;
  s.local_rank = hdr.local_rank;
  s.world_size = hdr.world_size;
  s.cupti_version = hdr.cupti_version;
  s.host = file.host();
  s.command_line = file.command_line();
  Diagnostics diag;
  AmpChunkHeader h;
  std::vector<uint8_t> payload;
  while (file.Next(&h, diag)) {
    const auto type = static_cast<AmpChunkType>(h.type);
    if (type == AmpChunkType::kWarnings || type == AmpChunkType::kStats || type == AmpChunkType::kFooter) {
      if (!file.ReadPayload(h, &payload, diag)) continue;
      if (type == AmpChunkType::kWarnings) {
        ParseWarnings(payload, &s.warnings);
      } else if (type == AmpChunkType::kStats) {
        for (uint32_t i = 0; i < h.record_count; ++i) s.stats = RecordAt<AmpStatsRecord>(payload, i, h.record_size);
        s.have_stats = h.record_count > 0 || s.have_stats;
      } else {
        AmpFooterRecord f = RecordAt<AmpFooterRecord>(payload, 0, h.record_size);
        s.stats = f.stats;
        s.have_stats = true;
        s.footer_flags = f.flags;
      }
    }
    if (h.record_size > 0 && type != AmpChunkType::kFooter) {
      s.records += h.record_count;
      s.records_by_type[type] += h.record_count;
    }
  }
  s.chunks = file.chunks();
  s.clean_end = file.clean_end() && !file.corrupt();
  s.truncated = file.truncated();
  s.corrupt = file.corrupt();
  return s;
}

}  // namespace ampscope

// Host-side and sampled tables of an nsys export: NVTX ranges, thread and process names,
// CUDA memory allocations, and GPU metrics (Tensor Active and friends).
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "trace/time_bounds.h"
#include "trace/formats/nsys/nsys_importer.h"

namespace ampscope::nsys {

namespace {

// GPU_METRICS rows become counters with these names. "tensor_active_pct" is the name the
// analyzers and the collector's PM sampler use for sampled Tensor Core activity.
struct MetricMapping {
  const char* name_prefix;  // TARGET_INFO_GPU_METRICS.metricName starts with this ...
  const char* counter;      // ... and contains "%" (a percentage of peak)
};
constexpr MetricMapping kMetricMappings[] = {
    {"Tensor Active", "tensor_active_pct"},           // "Tensor Active [Throughput %]"
    {"SMs Active", "sm_active_pct"},                  // "SMs Active [Throughput %]"
    {"DRAM Read Bandwidth", "dram_read_bandwidth_pct"},   // "DRAM Read Bandwidth [Throughput %]"
    {"DRAM Write Bandwidth", "dram_write_bandwidth_pct"},  // "DRAM Write Bandwidth [Throughput %]"
};

const char* CounterFor(const std::string& metric_name) {
  if (metric_name.find('%') == std::string::npos) return nullptr;
  for (const MetricMapping& m : kMetricMappings)
    if (metric_name.rfind(m.name_prefix, 0) == 0) return m.counter;
  return nullptr;
}

// A range read from NVTX_EVENTS whose domain name may only be known later in the table.
struct PendingRange {
  Range range;
  int64_t domain_id = 0;
  bool unclosed = false;
};

}  // namespace

Status Importer::ReadNvtx() {
  enum Col { kStart, kEnd, kEventType, kText, kGlobalTid, kTextId, kDomainId };
  const std::vector<ColumnSpec> columns = {{"start", true},     {"end", true},    {"eventType", true},
                                           {"text", false},     {"globalTid", false}, {"textId", false},
                                           {"domainId", false}};
  std::vector<PendingRange> ranges;
  std::map<std::pair<int64_t, int64_t>, StringId> domains;  // (pid, domainId) -> name
  uint64_t ignored = 0;
  int64_t first_ignored = -1;
  std::string ignored_types;
  Status read = ForEachRow(kNvtxTable, columns, IfAbsent::kCountMissing, [&](RowValues& v, TableRows& rows) {
    const int64_t type = v.Req(kEventType, "eventType");
    const int64_t start = v.Req(kStart, "start");
    const bool has_end = rows.present(kEnd) && !rows.stmt().is_null(rows.pos(kEnd));
    const int64_t global_tid = v.Opt(kGlobalTid, "globalTid", -1);
    const int64_t domain_id = v.Opt(kDomainId, "domainId", 0);
    const int64_t text_id = v.Opt(kTextId, "textId", -1);
    const std::optional<std::string> text = v.Text(kText);
    if (v.bad()) return;
    const int64_t pid = global_tid >= 0 ? PidOfGlobalId(global_tid) : -1;
    const int64_t tid = global_tid >= 0 ? TidOfGlobalId(global_tid) : -1;
    StringId name = kNoString;
    if (text) {
      name = trace_.strings.Intern(*text);
    } else if (text_id >= 0) {
      name = Str(text_id, rows, "textId");
    }
    if (type == kNvtxDomainCreate) {
      domains[{pid, domain_id}] = name;
      return;
    }
    if (type == kNvtxThread) {
      if (pid >= 0 && tid >= 0) trace_.processes[pid].thread_names[tid] = std::string(trace_.str(name));
      return;
    }
    if (type != kNvtxPushPopRange && type != kNvtxStartEndRange && type != kNvtxMark) {
      if (ignored++ == 0) first_ignored = rows.row();
      if (ignored_types.find(" " + std::to_string(type) + ",") == std::string::npos && ignored_types.size() < 60)
        ignored_types += " " + std::to_string(type) + ",";
      return;
    }
    PendingRange p;
    Range& r = p.range;
    r.pid = pid;
    r.tid = tid;
    r.name = name;
    r.kind = type == kNvtxMark ? RangeKind::kNvtxMark : RangeKind::kNvtx;
    p.domain_id = domain_id;
    TimeNs end = start;
    if (type != kNvtxMark) {
      if (has_end) {
        v.Times(kStart, kEnd, &r.start_ns, &end);
        if (v.bad()) return;
      } else {
        p.unclosed = true;  // still open when the capture stopped
      }
    }
    if (type == kNvtxMark || !has_end) {
      r.start_ns = start;
      if (!IsAcceptedTime(start)) {
        v.MarkBad(DiagCode::kNsysTimeOutOfRange, "start " + std::to_string(start) + " ns is outside -2^62..2^62 ns");
        return;
      }
    }
    r.end_ns = end;
    SeePid(pid);
    SeeTimes(rows, r.start_ns, end);
    ranges.push_back(p);
  });
  if (!read.ok()) return read;
  for (PendingRange& p : ranges) {
    if (p.domain_id != 0) {
      auto it = domains.find({p.range.pid, p.domain_id});
      p.range.domain = it != domains.end() ? it->second : trace_.strings.Intern("domain " + std::to_string(p.domain_id));
    }
    if (p.unclosed) unclosed_ranges_.push_back(trace_.ranges.size());
    trace_.ranges.push_back(p.range);
  }
  if (ignored > 0) {
    ignored_types.pop_back();
    DiagCount(DiagCode::kNsysNvtxEventIgnored, ignored, first_ignored,
              std::to_string(ignored) + " NVTX_EVENTS rows of eventType" + ignored_types + " carry no range");
  }
  return Status::Ok();
}

Status Importer::ReadThreadAndProcessNames() {
  enum ThreadCol { kNameId, kThreadGlobalTid };
  Status read = ForEachRow(kThreadNamesTable, {{"nameId", true}, {"globalTid", true}}, IfAbsent::kSkip,
                           [&](RowValues& v, TableRows& rows) {
                             const int64_t name_id = v.Req(kNameId, "nameId");
                             const int64_t global_tid = v.Req(kThreadGlobalTid, "globalTid");
                             if (v.bad()) return;
                             const int64_t pid = PidOfGlobalId(global_tid);
                             // Threads of processes that did no CUDA/NVTX work are left out.
                             if (pids_.seen.count(pid) == 0) return;
                             std::string& slot = trace_.processes[pid].thread_names[TidOfGlobalId(global_tid)];
                             if (slot.empty()) slot = std::string(trace_.str(Str(name_id, rows, "nameId")));
                           });
  if (!read.ok()) return read;
  enum ProcessCol { kGlobalPid, kPid, kName };
  return ForEachRow(kProcessesTable, {{"globalPid", false}, {"pid", true}, {"name", false}}, IfAbsent::kSkip,
                    [&](RowValues& v, TableRows&) {
                      const int64_t pid = v.Req(kPid, "pid");
                      const std::optional<std::string> name = v.Text(kName);
                      if (v.bad() || !name || pids_.seen.count(pid) == 0) return;
                      trace_.processes[pid].name = *name;
                    });
}

// CUDA_GPU_MEMORY_USAGE_EVENTS (--cuda-memory-usage=true): one row per allocation or free.
Status Importer::ReadMemoryUsage() {
  enum Col { kStart, kGlobalPid, kDevice, kAddress, kBytes, kMemKind, kOperation };
  const std::vector<ColumnSpec> columns = {{"start", true},  {"globalPid", false}, {"deviceId", true},
                                           {"address", false}, {"bytes", true},      {"memKind", false},
                                           {"memoryOperationType", true}};
  // Only with --cuda-memory-usage: its absence is normal.
  return ForEachRow(kMemoryUsageTable, columns, IfAbsent::kSkip, [&](RowValues& v, TableRows& rows) {
    MemoryEvent m;
    m.time_ns = v.Req(kStart, "start");
    const int64_t device = v.Req(kDevice, "deviceId");
    m.address = static_cast<uint64_t>(v.Opt(kAddress, "address", 0));
    const int64_t bytes = v.Req(kBytes, "bytes");
    const int64_t kind = v.Opt(kMemKind, "memKind", -1);
    const int64_t op = v.Req(kOperation, "memoryOperationType");  // 0 allocation, 1 deallocation
    if (v.bad()) return;
    if (bytes < 0 || (op != 0 && op != 1) || device < -1 || device > std::numeric_limits<int32_t>::max() ||
        m.time_ns > (int64_t{1} << 62) || m.time_ns < -(int64_t{1} << 62)) {
      v.MarkBad(DiagCode::kNsysBadValue, "bytes, memoryOperationType, deviceId or start out of range");
      return;
    }
    m.op = op == 0 ? MemoryOp::kAlloc : MemoryOp::kFree;
    m.bytes = op == 0 ? bytes : -bytes;  // the model's convention: frees are negative
    const MemoryKind mk = kind >= 0 ? MemKind(kind, rows) : MemoryKind::kUnknown;
    // Pageable and pinned memory is host memory (-1 = CPU in the model).
    m.device = mk == MemoryKind::kPageable || mk == MemoryKind::kPinned ? -1 : static_cast<int32_t>(device);
    SeeTimes(rows, m.time_ns, m.time_ns);
    trace_.memory_events.push_back(m);
  });
}

// GPU_METRICS + TARGET_INFO_GPU_METRICS (--gpu-metrics-devices): Tensor Active, SMs Active
// and DRAM bandwidth become counter samples; the GPU of a sample is typeId & 0xFF.
Status Importer::ReadGpuMetrics() {
  if (!db_.HasTable(kGpuMetricsTable)) return Status::Ok();  // only with --gpu-metrics-devices
  if (!db_.HasTable(kGpuMetricsInfoTable)) {
    missing_tables_.insert(kGpuMetricsInfoTable);
    return Status::Ok();
  }
  // metric ids (per typeId where the table has it) -> counter name
  std::map<std::pair<int64_t, int64_t>, StringId> wanted;  // (typeId or -1, metricId)
  bool by_type = false;
  {
    enum Col { kTypeId, kMetricId, kMetricName };
    StatusOr<std::optional<TableRows>> opened =
        OpenTable(kGpuMetricsInfoTable, {{"typeId", false}, {"metricId", true}, {"metricName", true}});
    if (!opened.ok()) return opened.status();
    TableRows& rows = **opened;
    by_type = rows.present(kTypeId);
    while (true) {
      StatusOr<bool> more = rows.Next();
      if (!more.ok()) return RowError(rows, more.status().message());
      if (!*more) break;
      RowValues v(*this, rows);
      const int64_t type_id = v.Opt(kTypeId, "typeId", -1), metric_id = v.Req(kMetricId, "metricId");
      const std::optional<std::string> name = v.Text(kMetricName);
      if (v.bad() || !name) continue;
      if (const char* counter = CounterFor(*name)) wanted[{by_type ? type_id : -1, metric_id}] = trace_.strings.Intern(counter);
    }
  }
  if (wanted.empty()) return Status::Ok();
  std::string ids;
  for (const auto& [key, counter] : wanted) ids += (ids.empty() ? "" : ",") + std::to_string(key.second);
  enum Col { kTimestamp, kTypeId, kMetricId, kValue };
  StatusOr<std::optional<TableRows>> opened =
      OpenTable(kGpuMetricsTable, {{"timestamp", true}, {"typeId", true}, {"metricId", true}, {"value", true}},
                "metricId IN (" + ids + ")");
  if (!opened.ok()) return opened.status();
  TableRows& rows = **opened;
  std::set<int32_t> busy_devices;  // GPUs this export ran work on
  for (const KernelEvent& k : trace_.kernels) busy_devices.insert(k.device);
  for (const MemcpyEvent& m : trace_.memcpys) busy_devices.insert(m.device);
  for (const MemsetEvent& m : trace_.memsets) busy_devices.insert(m.device);
  std::vector<CounterSample> samples;
  std::vector<int64_t> sample_rows;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    CounterSample c;
    c.time_ns = v.Req(kTimestamp, "timestamp");
    const int64_t type_id = v.Req(kTypeId, "typeId"), metric_id = v.Req(kMetricId, "metricId");
    c.value = v.ReqReal(kValue, "value");
    if (v.bad()) continue;
    auto it = wanted.find({by_type ? type_id : -1, metric_id});
    if (it == wanted.end()) continue;  // the same metricId of another metric type
    if (!IsAcceptedTime(c.time_ns)) {
      v.MarkBad(DiagCode::kNsysTimeOutOfRange, "timestamp " + std::to_string(c.time_ns) + " ns is outside -2^62..2^62 ns");
      continue;
    }
    c.name = it->second;
    c.device = static_cast<int32_t>(type_id & 0xFF);
    samples.push_back(c);
    sample_rows.push_back(rows.row());
  }
  // Sampling every GPU of a node while this process used one would dilute its Tensor Core
  // activity with idle GPUs: keep the samples of GPUs that ran this export's work, unless
  // none of the sampled GPU ids matches (then the id mapping is not what we expect).
  const bool any_match = std::any_of(samples.begin(), samples.end(),
                                     [&](const CounterSample& c) { return busy_devices.count(c.device) > 0; });
  uint64_t skipped = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const CounterSample& c = samples[i];
    if (any_match && busy_devices.count(c.device) == 0) {
      ++skipped;
      continue;
    }
    SeeTimes(rows.table(), sample_rows[i], c.time_ns, c.time_ns);
    trace_.counters.push_back(c);
  }
  DiagCount(DiagCode::kNsysGpuMetricsDevice, skipped, -1,
            std::to_string(skipped) + " GPU_METRICS samples of GPUs without kernels or copies in this export skipped");
  if (!any_match && !samples.empty() && !busy_devices.empty())
    Diag(DiagCode::kNsysGpuMetricsDevice, -1, "GPU_METRICS GPU ids match no device that ran work; all samples kept");
  return Status::Ok();
}

}  // namespace ampscope::nsys

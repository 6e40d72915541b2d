// CUPTI activity tables of an nsys export: kernels, memcpys, memsets, synchronizations and
// CUDA runtime/driver API calls.
#include <initializer_list>
#include <limits>

#include "trace/formats/nsys/nsys_importer.h"

namespace ampscope::nsys {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kUint32Max = std::numeric_limits<uint32_t>::max();

// The column positions of the prefix every GPU activity table starts with (GpuActivityColumns).
enum PrefixCol { kStart, kEnd, kDevice, kStream, kCorrelation, kGlobalPid, kPrefixColumns };

// The activity prefix (required start, end, deviceId, streamId; optional correlationId,
// globalPid), then the table's own columns, numbered from kPrefixColumns on.
std::vector<ColumnSpec> GpuActivityColumns(std::initializer_list<ColumnSpec> own) {
  std::vector<ColumnSpec> columns = {{"start", true},          {"end", true},       {"deviceId", true},
                                     {"streamId", true},       {"correlationId", false}, {"globalPid", false}};
  columns.insert(columns.end(), own.begin(), own.end());
  return columns;
}

}  // namespace

template <typename Event>
Importer::ActivityPrefix Importer::ReadActivityPrefix(RowValues& v, Event* e) {
  ActivityPrefix p;
  v.Times(kStart, kEnd, &e->start_ns, &e->end_ns);
  p.device = v.Req(kDevice, "deviceId");
  p.stream = v.Req(kStream, "streamId");
  e->correlation = v.Opt(kCorrelation, "correlationId", -1);
  p.global_pid = v.Opt(kGlobalPid, "globalPid", -1);
  return p;
}

template <typename Event>
bool Importer::AddActivity(RowValues& v, const ActivityPrefix& p, Event e, std::vector<Event>* events,
                           std::vector<int64_t>* pids) {
  if (v.bad()) return false;
  if (p.device < -1 || p.device > kInt32Max || p.stream < -1 || p.stream > kInt32Max) {
    v.MarkBad(DiagCode::kNsysBadValue, "deviceId or streamId out of range");
    return false;
  }
  e.device = static_cast<int32_t>(p.device);
  e.stream = static_cast<int32_t>(p.stream);
  const int64_t pid = p.global_pid >= 0 ? PidOfGlobalId(p.global_pid) : -1;
  SeePid(pid);
  SeeTimes(v.rows(), e.start_ns, e.end_ns);
  events->push_back(e);
  pids->push_back(pid);
  return true;
}

Status Importer::ReadKernels() {
  enum Col { kDemangled = kPrefixColumns, kShort, kMangled, kRegisters, kGridX, kGridY, kGridZ, kBlockX, kBlockY,
             kBlockZ, kStaticShared, kDynamicShared, kGraphId, kGraphNode };
  const std::vector<ColumnSpec> columns =
      GpuActivityColumns({{"demangledName", false},
                          {"shortName", false},
                          {"mangledName", false},
                          {"registersPerThread", false},
                          {"gridX", false},
                          {"gridY", false},
                          {"gridZ", false},
                          {"blockX", false},
                          {"blockY", false},
                          {"blockZ", false},
                          {"staticSharedMemory", false},
                          {"dynamicSharedMemory", false},
                          {"graphId", false, "graphNodeId"},  // graphId is new in 2025
                          {"graphNodeId", false}});
  return ForEachRow(kKernelTable, columns, IfAbsent::kCountMissing, [&](RowValues& v, TableRows& rows) {
    const bool graph_from_node = !rows.present(kGraphId) && rows.present(kGraphNode);
    KernelEvent k;
    const ActivityPrefix prefix = ReadActivityPrefix(v, &k);
    // demangledName is the full name the classifier needs; shortName and mangledName stand
    // in when it is missing or empty.
    int64_t name_ids[3] = {v.Opt(kDemangled, "demangledName", -1), v.Opt(kShort, "shortName", -1),
                           v.Opt(kMangled, "mangledName", -1)};
    LaunchConfig lc;
    lc.registers_per_thread = static_cast<int32_t>(v.OptIn(kRegisters, "registersPerThread", -1, 0, kInt32Max));
    const int grid_cols[3] = {kGridX, kGridY, kGridZ}, block_cols[3] = {kBlockX, kBlockY, kBlockZ};
    const char* grid_names[3] = {"gridX", "gridY", "gridZ"};
    const char* block_names[3] = {"blockX", "blockY", "blockZ"};
    for (int i = 0; i < 3; ++i) {
      lc.grid[i] = static_cast<uint32_t>(v.OptIn(grid_cols[i], grid_names[i], 0, 0, kUint32Max));
      lc.block[i] = static_cast<uint32_t>(v.OptIn(block_cols[i], block_names[i], 0, 0, kUint32Max));
    }
    lc.static_shared_bytes = static_cast<int32_t>(v.OptIn(kStaticShared, "staticSharedMemory", -1, 0, kInt32Max));
    lc.dynamic_shared_bytes = static_cast<int32_t>(v.OptIn(kDynamicShared, "dynamicSharedMemory", -1, 0, kInt32Max));
    const int64_t graph = graph_from_node ? v.Opt(kGraphNode, "graphNodeId", 0) : v.Opt(kGraphId, "graphId", 0);
    if (v.bad()) return;
    k.launch_config = trace_.InternLaunch(lc);
    if (graph > 0) {
      // 0 means "not from a graph" in the model: a non-zero id stays non-zero when truncated.
      const uint32_t low = static_cast<uint32_t>(graph & 0xFFFFFFFF);
      k.graph_id = low != 0 ? low : 1u;
    }
    for (int64_t id : name_ids) {
      if (id < 0) continue;
      k.name = Str(id, rows, "kernel name");
      if (k.name != kNoString) break;
    }
    if (AddActivity(v, prefix, k, &trace_.kernels, &pids_.kernels) && graph_from_node && k.graph_id != 0)
      Diag(DiagCode::kNsysGraphIdFromNode, rows.row(), std::string(kKernelTable) + " has graphNodeId but no graphId");
  });
}

Status Importer::ReadMemcpys() {
  enum Col { kBytes = kPrefixColumns, kCopyKind, kSrcKind, kDstKind };
  const std::vector<ColumnSpec> columns =
      GpuActivityColumns({{"bytes", true}, {"copyKind", true}, {"srcKind", false}, {"dstKind", false}});
  return ForEachRow(kMemcpyTable, columns, IfAbsent::kCountMissing, [&](RowValues& v, TableRows& rows) {
    MemcpyEvent m;
    const ActivityPrefix prefix = ReadActivityPrefix(v, &m);
    const int64_t bytes = v.Req(kBytes, "bytes");
    const int64_t copy_kind = v.Req(kCopyKind, "copyKind");
    const int64_t src = v.Opt(kSrcKind, "srcKind", -1), dst = v.Opt(kDstKind, "dstKind", -1);
    if (v.bad()) return;
    if (bytes < 0) return v.MarkBad(DiagCode::kNsysBadValue, "negative bytes");
    m.bytes = static_cast<uint64_t>(bytes);
    m.kind = CopyKind(copy_kind, rows);
    if (src >= 0) m.src_kind = MemKind(src, rows);
    if (dst >= 0) m.dst_kind = MemKind(dst, rows);
    AddActivity(v, prefix, m, &trace_.memcpys, &pids_.memcpys);
  });
}

Status Importer::ReadMemsets() {
  enum Col { kBytes = kPrefixColumns, kMemKind };
  const std::vector<ColumnSpec> columns = GpuActivityColumns({{"bytes", true}, {"memKind", false}});
  return ForEachRow(kMemsetTable, columns, IfAbsent::kCountMissing, [&](RowValues& v, TableRows& rows) {
    MemsetEvent m;
    const ActivityPrefix prefix = ReadActivityPrefix(v, &m);
    const int64_t bytes = v.Req(kBytes, "bytes");
    const int64_t kind = v.Opt(kMemKind, "memKind", -1);
    if (v.bad()) return;
    if (bytes < 0) return v.MarkBad(DiagCode::kNsysBadValue, "negative bytes");
    m.bytes = static_cast<uint64_t>(bytes);
    if (kind >= 0) m.memory_kind = MemKind(kind, rows);
    AddActivity(v, prefix, m, &trace_.memsets, &pids_.memsets);
  });
}

Status Importer::ReadSyncs() {
  // The activity prefix's columns, with deviceId and streamId optional here.
  enum Col { kSyncType = kPrefixColumns };
  const std::vector<ColumnSpec> columns = {{"start", true},          {"end", true},       {"deviceId", false},
                                           {"streamId", false},      {"correlationId", false}, {"globalPid", false},
                                           {"syncType", true}};
  return ForEachRow(kSyncTable, columns, IfAbsent::kCountMissing, [&](RowValues& v, TableRows& rows) {
    SyncEvent s;
    v.Times(kStart, kEnd, &s.start_ns, &s.end_ns);
    s.device = static_cast<int32_t>(v.OptIn(kDevice, "deviceId", -1, -1, kInt32Max));
    // CUPTI reports "no stream" (context and event syncs) as a huge unsigned id.
    const int64_t stream = v.Opt(kStream, "streamId", -1);
    s.stream = stream >= 0 && stream <= kInt32Max ? static_cast<int32_t>(stream) : -1;
    s.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t global_pid = v.Opt(kGlobalPid, "globalPid", -1);
    const int64_t type = v.Req(kSyncType, "syncType");
    if (v.bad()) return;
    s.type = SyncKind(type, rows);
    s.pid = global_pid >= 0 ? PidOfGlobalId(global_pid) : -1;
    SeePid(s.pid);
    SeeTimes(rows, s.start_ns, s.end_ns);
    trace_.syncs.push_back(s);
  });
}

// CUPTI_ACTIVITY_KIND_RUNTIME holds runtime calls (eventClass 0), driver calls (1) and, when
// backtraces were collected, a second row per call with its call chain (67), which is skipped.
Status Importer::ReadApiCalls(const char* table) {
  enum Col { kApiStart, kApiEnd, kEventClass, kGlobalTid, kApiCorrelation, kNameId };
  const bool driver_table = std::string(table) == kDriverTable;
  const std::vector<ColumnSpec> columns = {{"start", true},    {"end", true},           {"eventClass", false},
                                           {"globalTid", false}, {"correlationId", false}, {"nameId", true}};
  std::unordered_map<int64_t, StringId> names;  // nameId -> name without its _vNNNN suffix
  uint64_t backtrace_rows = 0;
  int64_t first_backtrace_row = -1;
  // A separate driver table is the exception: its absence is normal.
  const IfAbsent absent = driver_table ? IfAbsent::kSkip : IfAbsent::kCountMissing;
  Status read = ForEachRow(table, columns, absent, [&](RowValues& v, TableRows& rows) {
    ApiCall a;
    v.Times(kApiStart, kApiEnd, &a.start_ns, &a.end_ns);
    const int64_t event_class = v.Opt(kEventClass, "eventClass", driver_table ? kEventClassCudaDriver : kEventClassCudaRuntime);
    const int64_t global_tid = v.Opt(kGlobalTid, "globalTid", -1);
    a.correlation = v.Opt(kApiCorrelation, "correlationId", -1);
    const int64_t name_id = v.Req(kNameId, "nameId");
    if (v.bad()) return;
    if (event_class == kEventClassCudaBacktrace) {
      if (backtrace_rows++ == 0) first_backtrace_row = rows.row();
      return;
    }
    if (event_class == kEventClassCudaDriver) {
      a.domain = ApiDomain::kDriver;
    } else if (event_class != kEventClassCudaRuntime) {
      Diag(DiagCode::kNsysUnknownEventClass, rows.row(),
           std::string(table) + " row " + std::to_string(rows.row()) + ": eventClass " + std::to_string(event_class));
    }
    auto it = names.find(name_id);
    if (it == names.end()) {
      const StringId raw = Str(name_id, rows, "nameId");
      it = names.emplace(name_id, trace_.strings.Intern(StripApiVersionSuffix(trace_.str(raw)))).first;
    }
    a.name = it->second;
    if (global_tid >= 0) {
      a.pid = PidOfGlobalId(global_tid);
      a.tid = TidOfGlobalId(global_tid);
    }
    SeePid(a.pid);
    SeeTimes(rows, a.start_ns, a.end_ns);
    trace_.api_calls.push_back(a);
  });
  if (!read.ok()) return read;
  DiagCount(DiagCode::kNsysBacktraceDuplicate, backtrace_rows, first_backtrace_row,
            std::to_string(backtrace_rows) + " rows of " + table + " with eventClass 67 (CUDA backtrace) skipped");
  return Status::Ok();
}

}  // namespace ampscope::nsys

// CUPTI activity tables of an nsys export: kernels, memcpys, memsets, synchronizations and
// CUDA runtime/driver API calls.
#include <limits>

#include "trace/formats/nsys/nsys_importer.h"

namespace ampscope::nsys {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kUint32Max = std::numeric_limits<uint32_t>::max();

}  // namespace

Status Importer::ReadKernels() {
  enum Col { kStart, kEnd, kDevice, kStream, kCorrelation, kGlobalPid, kDemangled, kShort, kMangled, kRegisters,
             kGridX, kGridY, kGridZ, kBlockX, kBlockY, kBlockZ, kStaticShared, kDynamicShared, kGraphId, kGraphNode };
  StatusOr<std::optional<TableRows>> opened =
      OpenTable(kKernelTable, {{"start", true},
                               {"end", true},
                               {"deviceId", true},
                               {"streamId", true},
                               {"correlationId", false},
                               {"globalPid", false},
                               {"demangledName", false},
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
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) {
    missing_tables_.insert(kKernelTable);
    return Status::Ok();
  }
  TableRows& rows = **opened;
  const bool graph_from_node = !rows.present(kGraphId) && rows.present(kGraphNode);
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    KernelEvent k;
    v.Times(kStart, kEnd, &k.start_ns, &k.end_ns);
    const int64_t device = v.Req(kDevice, "deviceId"), stream = v.Req(kStream, "streamId");
    k.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t global_pid = v.Opt(kGlobalPid, "globalPid", -1);
    // demangledName is the full name the classifier needs; shortName and mangledName stand
    // in when it is missing or empty.
    int64_t name_ids[3] = {v.Opt(kDemangled, "demangledName", -1), v.Opt(kShort, "shortName", -1),
                           v.Opt(kMangled, "mangledName", -1)};
    k.registers_per_thread = static_cast<int32_t>(v.OptIn(kRegisters, "registersPerThread", -1, 0, kInt32Max));
    const int grid_cols[3] = {kGridX, kGridY, kGridZ}, block_cols[3] = {kBlockX, kBlockY, kBlockZ};
    const char* grid_names[3] = {"gridX", "gridY", "gridZ"};
    const char* block_names[3] = {"blockX", "blockY", "blockZ"};
    for (int i = 0; i < 3; ++i) {
      k.grid[i] = static_cast<uint32_t>(v.OptIn(grid_cols[i], grid_names[i], 0, 0, kUint32Max));
      k.block[i] = static_cast<uint32_t>(v.OptIn(block_cols[i], block_names[i], 0, 0, kUint32Max));
    }
    k.static_shared_bytes = static_cast<int32_t>(v.OptIn(kStaticShared, "staticSharedMemory", -1, 0, kInt32Max));
    k.dynamic_shared_bytes = static_cast<int32_t>(v.OptIn(kDynamicShared, "dynamicSharedMemory", -1, 0, kInt32Max));
    const int64_t graph = graph_from_node ? v.Opt(kGraphNode, "graphNodeId", 0) : v.Opt(kGraphId, "graphId", 0);
    if (v.bad()) continue;
    if (device < -1 || device > kInt32Max || stream < -1 || stream > kInt32Max) {
      v.MarkBad(DiagCode::kNsysBadValue, "deviceId or streamId out of range");
      continue;
    }
    k.device = static_cast<int32_t>(device);
    k.stream = static_cast<int32_t>(stream);
    if (graph > 0) {
      // 0 means "not from a graph" in the model: a non-zero id stays non-zero when truncated.
      const uint32_t low = static_cast<uint32_t>(graph & 0xFFFFFFFF);
      k.graph_id = low != 0 ? low : 1u;
    }
    if (graph_from_node && k.graph_id != 0)
      Diag(DiagCode::kNsysGraphIdFromNode, rows.row(), std::string(kKernelTable) + " has graphNodeId but no graphId");
    for (int64_t id : name_ids) {
      if (id < 0) continue;
      k.name = Str(id, rows, "kernel name");
      if (k.name != kNoString) break;
    }
    const int64_t pid = global_pid >= 0 ? PidOfGlobalId(global_pid) : -1;
    SeePid(pid);
    SeeTime(k.end_ns);
    trace_.kernels.push_back(k);
    pids_.kernels.push_back(pid);
  }
  return Status::Ok();
}

Status Importer::ReadMemcpys() {
  enum Col { kStart, kEnd, kDevice, kStream, kCorrelation, kGlobalPid, kBytes, kCopyKind, kSrcKind, kDstKind };
  StatusOr<std::optional<TableRows>> opened = OpenTable(kMemcpyTable, {{"start", true},
                                                                       {"end", true},
                                                                       {"deviceId", true},
                                                                       {"streamId", true},
                                                                       {"correlationId", false},
                                                                       {"globalPid", false},
                                                                       {"bytes", true},
                                                                       {"copyKind", true},
                                                                       {"srcKind", false},
                                                                       {"dstKind", false}});
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) {
    missing_tables_.insert(kMemcpyTable);
    return Status::Ok();
  }
  TableRows& rows = **opened;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    MemcpyEvent m;
    v.Times(kStart, kEnd, &m.start_ns, &m.end_ns);
    const int64_t device = v.Req(kDevice, "deviceId"), stream = v.Req(kStream, "streamId");
    m.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t global_pid = v.Opt(kGlobalPid, "globalPid", -1);
    const int64_t bytes = v.Req(kBytes, "bytes");
    const int64_t copy_kind = v.Req(kCopyKind, "copyKind");
    const int64_t src = v.Opt(kSrcKind, "srcKind", -1), dst = v.Opt(kDstKind, "dstKind", -1);
    if (v.bad()) continue;
    if (bytes < 0 || device < -1 || device > kInt32Max || stream < -1 || stream > kInt32Max) {
      v.MarkBad(DiagCode::kNsysBadValue, "negative bytes or deviceId/streamId out of range");
      continue;
    }
    m.device = static_cast<int32_t>(device);
    m.stream = static_cast<int32_t>(stream);
    m.bytes = static_cast<uint64_t>(bytes);
    m.kind = CopyKind(copy_kind, rows);
    if (src >= 0) m.src_kind = MemKind(src, rows);
    if (dst >= 0) m.dst_kind = MemKind(dst, rows);
    const int64_t pid = global_pid >= 0 ? PidOfGlobalId(global_pid) : -1;
    SeePid(pid);
    SeeTime(m.end_ns);
    trace_.memcpys.push_back(m);
    pids_.memcpys.push_back(pid);
  }
  return Status::Ok();
}

Status Importer::ReadMemsets() {
  enum Col { kStart, kEnd, kDevice, kStream, kCorrelation, kGlobalPid, kBytes, kMemKind };
  StatusOr<std::optional<TableRows>> opened = OpenTable(kMemsetTable, {{"start", true},
                                                                       {"end", true},
                                                                       {"deviceId", true},
                                                                       {"streamId", true},
                                                                       {"correlationId", false},
                                                                       {"globalPid", false},
                                                                       {"bytes", true},
                                                                       {"memKind", false}});
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) {
    missing_tables_.insert(kMemsetTable);
    return Status::Ok();
  }
  TableRows& rows = **opened;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    MemsetEvent m;
    v.Times(kStart, kEnd, &m.start_ns, &m.end_ns);
    const int64_t device = v.Req(kDevice, "deviceId"), stream = v.Req(kStream, "streamId");
    m.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t global_pid = v.Opt(kGlobalPid, "globalPid", -1);
    const int64_t bytes = v.Req(kBytes, "bytes");
    const int64_t kind = v.Opt(kMemKind, "memKind", -1);
    if (v.bad()) continue;
    if (bytes < 0 || device < -1 || device > kInt32Max || stream < -1 || stream > kInt32Max) {
      v.MarkBad(DiagCode::kNsysBadValue, "negative bytes or deviceId/streamId out of range");
      continue;
    }
    m.device = static_cast<int32_t>(device);
    m.stream = static_cast<int32_t>(stream);
    m.bytes = static_cast<uint64_t>(bytes);
    if (kind >= 0) m.memory_kind = MemKind(kind, rows);
    const int64_t pid = global_pid >= 0 ? PidOfGlobalId(global_pid) : -1;
    SeePid(pid);
    SeeTime(m.end_ns);
    trace_.memsets.push_back(m);
    pids_.memsets.push_back(pid);
  }
  return Status::Ok();
}

Status Importer::ReadSyncs() {
  enum Col { kStart, kEnd, kDevice, kStream, kCorrelation, kGlobalPid, kSyncType };
  StatusOr<std::optional<TableRows>> opened = OpenTable(kSyncTable, {{"start", true},
                                                                     {"end", true},
                                                                     {"deviceId", false},
                                                                     {"streamId", false},
                                                                     {"correlationId", false},
                                                                     {"globalPid", false},
                                                                     {"syncType", true}});
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) {
    missing_tables_.insert(kSyncTable);
    return Status::Ok();
  }
  TableRows& rows = **opened;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    SyncEvent s;
    v.Times(kStart, kEnd, &s.start_ns, &s.end_ns);
    s.device = static_cast<int32_t>(v.OptIn(kDevice, "deviceId", -1, -1, kInt32Max));
    // CUPTI reports "no stream" (context and event syncs) as a huge unsigned id.
    const int64_t stream = v.Opt(kStream, "streamId", -1);
    s.stream = stream >= 0 && stream <= kInt32Max ? static_cast<int32_t>(stream) : -1;
    s.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t global_pid = v.Opt(kGlobalPid, "globalPid", -1);
    const int64_t type = v.Req(kSyncType, "syncType");
    if (v.bad()) continue;
    s.type = SyncKind(type, rows);
    s.pid = global_pid >= 0 ? PidOfGlobalId(global_pid) : -1;
    SeePid(s.pid);
    SeeTime(s.end_ns);
    trace_.syncs.push_back(s);
  }
  return Status::Ok();
}

// CUPTI_ACTIVITY_KIND_RUNTIME holds runtime calls (eventClass 0), driver calls (1) and, when
// backtraces were collected, a second row per call with its call chain (67), which is skipped.
Status Importer::ReadApiCalls(const char* table) {
  enum Col { kStart, kEnd, kEventClass, kGlobalTid, kCorrelation, kNameId };
  const bool driver_table = std::string(table) == kDriverTable;
  StatusOr<std::optional<TableRows>> opened = OpenTable(table, {{"start", true},
                                                                {"end", true},
                                                                {"eventClass", false},
                                                                {"globalTid", false},
                                                                {"correlationId", false},
                                                                {"nameId", true}});
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) {
    if (!driver_table) missing_tables_.insert(table);  // a separate driver table is the exception
    return Status::Ok();
  }
  TableRows& rows = **opened;
  std::unordered_map<int64_t, StringId> names;  // nameId -> name without its _vNNNN suffix
  uint64_t backtrace_rows = 0;
  int64_t first_backtrace_row = -1;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    ApiCall a;
    v.Times(kStart, kEnd, &a.start_ns, &a.end_ns);
    const int64_t event_class = v.Opt(kEventClass, "eventClass", driver_table ? kEventClassCudaDriver : kEventClassCudaRuntime);
    const int64_t global_tid = v.Opt(kGlobalTid, "globalTid", -1);
    a.correlation = v.Opt(kCorrelation, "correlationId", -1);
    const int64_t name_id = v.Req(kNameId, "nameId");
    if (v.bad()) continue;
    if (event_class == kEventClassCudaBacktrace) {
      if (backtrace_rows++ == 0) first_backtrace_row = rows.row();
      continue;
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
    SeeTime(a.end_ns);
    trace_.api_calls.push_back(a);
  }
  DiagCount(DiagCode::kNsysBacktraceDuplicate, backtrace_rows, first_backtrace_row,
            std::to_string(backtrace_rows) + " rows of " + table + " with eventClass 67 (CUDA backtrace) skipped");
  return Status::Ok();
}

}  // namespace ampscope::nsys

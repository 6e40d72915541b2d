// The Nsight Systems reader: recognition, export and capture metadata, enums, devices, and
// the checks that need every table (correlation links, one clock, several processes).
#include "trace/formats/nsys/nsys_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <limits>

#include "trace/classify/api_roles.h"
#include "trace/formats/nsys/nsys_importer.h"

namespace ampscope {

namespace nsys {

namespace {

bool EndsWithNoCase(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

bool LooksLikeJsonOrGzip(const unsigned char* head, size_t n) {
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;
  for (size_t i = 0; i < n; ++i) {
    if (std::isspace(head[i])) continue;
    return head[i] == '{' || head[i] == '[';
  }
  return false;
}

// Single-quotes a path for a shell command line when it holds anything but safe characters.
std::string ShellWord(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ',' || c == ':';
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

MemcpyKind CopyKindFromSymbol(std::string_view s) {
  // ENUM_CUDA_MEMCPY_OPER names; arrays are device memory, and unified-memory migrations
  // (UVM_*) move data in the same directions.
  static const std::pair<std::string_view, MemcpyKind> kMap[] = {
      {"HTOD", MemcpyKind::kHtoD}, {"DTOH", MemcpyKind::kDtoH}, {"HTOA", MemcpyKind::kHtoD},
      {"ATOH", MemcpyKind::kDtoH}, {"ATOA", MemcpyKind::kDtoD}, {"ATOD", MemcpyKind::kDtoD},
      {"DTOA", MemcpyKind::kDtoD}, {"DTOD", MemcpyKind::kDtoD}, {"HTOH", MemcpyKind::kHtoH},
      {"PTOP", MemcpyKind::kPtoP}, {"UVM_HTOD", MemcpyKind::kHtoD}, {"UVM_DTOH", MemcpyKind::kDtoH},
      {"UVM_DTOD", MemcpyKind::kDtoD}};
  constexpr std::string_view kPrefix = "CUDA_MEMCPY_KIND_";
  if (s.substr(0, kPrefix.size()) == kPrefix) s.remove_prefix(kPrefix.size());
  for (const auto& [name, kind] : kMap)
    if (s == name) return kind;
  return MemcpyKind::kUnknown;
}

MemoryKind MemKindFromSymbol(std::string_view s) {
  static const std::pair<std::string_view, MemoryKind> kMap[] = {
      {"PAGEABLE", MemoryKind::kPageable}, {"PINNED", MemoryKind::kPinned},
      {"DEVICE", MemoryKind::kDevice},     {"ARRAY", MemoryKind::kArray},
      {"MANAGED", MemoryKind::kManaged},   {"DEVICE_STATIC", MemoryKind::kDevice},
      {"MANAGED_STATIC", MemoryKind::kManaged}};
  constexpr std::string_view kPrefix = "CUDA_MEMOPR_MEMORY_KIND_";
  if (s.substr(0, kPrefix.size()) == kPrefix) s.remove_prefix(kPrefix.size());
  for (const auto& [name, kind] : kMap)
    if (s == name) return kind;
  return MemoryKind::kUnknown;
}

SyncType SyncTypeFromSymbol(std::string_view s) {
  static const std::pair<std::string_view, SyncType> kMap[] = {
      {"EVENT_SYNCHRONIZE", SyncType::kEventSync},
      {"STREAM_WAIT_EVENT", SyncType::kStreamWaitEvent},
      {"STREAM_SYNCHRONIZE", SyncType::kStreamSync},
      {"CONTEXT_SYNCHRONIZE", SyncType::kContextSync}};
  constexpr std::string_view kPrefix = "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_";
  if (s.substr(0, kPrefix.size()) == kPrefix) s.remove_prefix(kPrefix.size());
  for (const auto& [name, kind] : kMap)
    if (s == name) return kind;
  return SyncType::kUnknown;
}

// The documented numbering (nsys_schema.h) for exports without ENUM_* tables.
void DefaultCopyKinds(EnumMaps& e) {
  const char* names[] = {"UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD",
                         "DTOA",    "DTOD", "HTOH", "PTOP", "UVM_HTOD", "UVM_DTOH", "UVM_DTOD"};
  for (int64_t i = 0; i < 14; ++i) e.copy_kind[i] = CopyKindFromSymbol(names[i]);
}
void DefaultMemoryKinds(EnumMaps& e) {
  const char* names[] = {"PAGEABLE", "PINNED", "DEVICE", "ARRAY", "MANAGED", "DEVICE_STATIC", "MANAGED_STATIC", "UNKNOWN"};
  for (int64_t i = 0; i < 8; ++i) e.memory_kind[i] = MemKindFromSymbol(names[i]);
}
void DefaultSyncTypes(EnumMaps& e) {
  const char* names[] = {"UNKNOWN", "EVENT_SYNCHRONIZE", "STREAM_WAIT_EVENT", "STREAM_SYNCHRONIZE", "CONTEXT_SYNCHRONIZE"};
  for (int64_t i = 0; i < 5; ++i) e.sync_type[i] = SyncTypeFromSymbol(names[i]);
}

// "RANK=\"3\"" -> ("RANK", "3")
std::pair<std::string, std::string> SplitEnvironmentEntry(const std::string& entry) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos) return {entry, ""};
  std::string value = entry.substr(eq + 1);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  return {entry.substr(0, eq), value};
}

bool ParseInt32(const std::string& s, int32_t* out) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    return false;
  *out = static_cast<int32_t>(std::stol(s));
  return true;
}

}  // namespace

// ---- the run ---------------------------------------------------------------------------

Status Importer::Run() {
  TraceMetadata& m = trace_.metadata;
  m.format = SourceFormat::kNsys;
  m.path = path_;
  struct stat st;
  if (stat(path_.c_str(), &st) == 0) m.input_bytes = static_cast<uint64_t>(st.st_size);
  AMPSCOPE_RETURN_IF_ERROR(CheckTables());
  // Metadata first (it says which schema to expect), then the tables the analyses need.
  using Step = Status (Importer::*)();
  static constexpr Step kSteps[] = {&Importer::ReadExportMetadata, &Importer::ReadCaptureMetadata,
                                    &Importer::ReadSystemInfo,     &Importer::ReadEnums,
                                    &Importer::ReadDevices,        &Importer::ReadKernels,
                                    &Importer::ReadMemcpys,        &Importer::ReadMemsets,
                                    &Importer::ReadSyncs,          &Importer::ReadNvtx,
                                    &Importer::ReadMemoryUsage,    &Importer::ReadGpuMetrics};
  const size_t total = std::size(kSteps) + 3;
  size_t done = 0;
  for (Step step : kSteps) {
    AMPSCOPE_RETURN_IF_ERROR((this->*step)());
    Progress(++done, total);
  }
  AMPSCOPE_RETURN_IF_ERROR(ReadApiCalls(kRuntimeTable));
  Progress(++done, total);
  AMPSCOPE_RETURN_IF_ERROR(ReadApiCalls(kDriverTable));
  Progress(++done, total);
  AMPSCOPE_RETURN_IF_ERROR(ReadThreadAndProcessNames());  // needs the pids seen above
  Progress(++done, total);
  AMPSCOPE_RETURN_IF_ERROR(CheckTimes());
  Finish();
  return Status::Ok();
}

void Importer::Progress(size_t tables_done, size_t tables_total) {
  if (!options_.progress) return;
  const uint64_t total = trace_.metadata.input_bytes;
  options_.progress(total * tables_done / std::max<size_t>(1, tables_total), total);
}

Status Importer::CheckTables() {
  const std::set<std::string>& tables = db_.tables();
  const bool nsys_like = std::any_of(tables.begin(), tables.end(), [](const std::string& t) {
    return t == kStringIds || t == kExportMetaTable || t == kOldExportMetaTable || t == kNvtxTable ||
           t.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0 || t.rfind("TARGET_INFO_", 0) == 0;
  });
  if (!nsys_like) {
    std::string list;
    size_t shown = 0;
    for (const std::string& t : tables) {
      if (shown++ == 5) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + t;
    }
    return Status::Error(path_ + ": a SQLite database but not an Nsight Systems export (" +
                         (tables.empty() ? std::string("it has no tables")
                                         : "no StringIds, CUPTI_ACTIVITY_KIND_* or TARGET_INFO_* table among " +
                                               std::to_string(tables.size()) + ": " + list) +
                         ")");
  }
  if (!db_.HasTable(kStringIds))
    return Status::Error(path_ + ": table StringIds is missing: kernel and API names cannot be resolved (a damaged export?)");
  if (!db_.HasTable(kKernelTable) && !db_.HasTable(kRuntimeTable))
    return Status::Error(path_ + ": neither " + kKernelTable + " nor " + kRuntimeTable +
                         " is present: the export holds no CUDA trace (profile with nsys profile --trace=cuda)");
  return Status::Ok();
}

// META_DATA_EXPORT (nsys 2023+) or EXPORT_META_DATA (older): product and schema versions.
Status Importer::ReadExportMetadata() {
  const char* table = db_.HasTable(kExportMetaTable) ? kExportMetaTable : kOldExportMetaTable;
  auto& extra = trace_.metadata.extra;
  if (!db_.HasTable(table)) {
    missing_tables_.insert(kExportMetaTable);
    extra["nsys_export_schema_version"] = "unknown";
    return Status::Ok();
  }
  extra["nsys_export_metadata_table"] = table;
  Status read = ForEachNameValue(table, [&](const std::string& name, const std::string& value) {
    if (name == "EXPORT_SCHEMA_VERSION") extra["nsys_export_schema_version"] = value;
    if (name == "EXPORT_PRODUCT_VERSION") extra["nsys_version"] = value;
  });
  if (!read.ok()) return read;
  auto it = extra.find("nsys_export_schema_version");
  if (it == extra.end()) {
    extra["nsys_export_schema_version"] = "unknown";
    return Status::Ok();
  }
  // Checked against schema 2.9.1 (nsys 2022.2) and 3.13.2 (nsys 2024.5); nsys 2023-2025
  // exports are 3.x, whose changes are additions and renames that the column discovery absorbs.
  const std::string major = it->second.substr(0, it->second.find('.'));
  if (major != "2" && major != "3")
    Diag(DiagCode::kNsysSchemaVersion, -1,
         "export schema " + it->second + " (this reader knows 2.x and 3.x); columns are discovered, read with care");
  return Status::Ok();
}

// META_DATA_CAPTURE: the command nsys launched and, from its environment, the rank.
Status Importer::ReadCaptureMetadata() {
  std::set<std::string> process_keys;  // "PROCESS_0", ...
  std::string command;
  std::map<int, std::string> arguments;
  std::map<std::string, std::string> env;
  Status read = ForEachNameValue(kCaptureMetaTable, [&](const std::string& name, const std::string& value) {
    if (name.rfind("PROCESS_", 0) != 0) return;
    const size_t colon = name.find(':');
    if (colon == std::string::npos) return;
    process_keys.insert(name.substr(0, colon));
    const std::string key = name.substr(colon + 1);
    if (key == "COMMAND") command = value;
    if (key.rfind("ARGUMENT_", 0) == 0) {
      int32_t index = 0;
      if (ParseInt32(key.substr(9), &index)) arguments[index] = value;
    }
    if (key == "ENVIRONMENT_VARIABLE") env.insert(SplitEnvironmentEntry(value));
  });
  if (!read.ok()) return read;
  if (process_keys.size() != 1) return Status::Ok();  // several launched processes: no single command or rank
  TraceMetadata& m = trace_.metadata;
  m.command_line = command;
  for (const auto& [i, arg] : arguments) m.command_line += " " + arg;
  // torchrun, Open MPI, PMI (MPICH, Cray) and Slurm name the rank of a process they start.
  for (const auto& [rank_var, size_var] : {std::pair<const char*, const char*>{"RANK", "WORLD_SIZE"},
                                           {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                           {"PMI_RANK", "PMI_SIZE"},
                                           {"SLURM_PROCID", "SLURM_NTASKS"}}) {
    auto r = env.find(rank_var);
    int32_t rank = -1, size = -1;
    if (r == env.end() || !ParseInt32(r->second, &rank)) continue;
    m.rank = rank;
    auto s = env.find(size_var);
    if (s != env.end() && ParseInt32(s->second, &size)) m.world_size = size;
    m.extra["rank_source"] = std::string("environment ") + rank_var;
    break;
  }
  return Status::Ok();
}

// TARGET_INFO_SYSTEM_ENV (host, driver) and TARGET_INFO_SESSION_START_TIME (wall clock of t=0).
Status Importer::ReadSystemInfo() {
  TraceMetadata& m = trace_.metadata;
  Status read = ForEachNameValue(kSystemEnvTable, [&](const std::string& name, const std::string& value) {
    if (name == "Hostname" && m.host.empty()) m.host = value;
    if (name == "NvDriverVersion" && m.driver_version.empty()) m.driver_version = value;
    if (name == "CudaDriverVersion") m.extra.emplace("cuda_driver_version", value);
  });
  if (!read.ok()) return read;
  enum Col { kUtcEpochNs };
  StatusOr<std::optional<TableRows>> opened = OpenTable(kSessionStartTable, {{"utcEpochNs", true}});
  if (!opened.ok()) return opened.status();
  if (!opened->has_value()) return Status::Ok();
  TableRows& rows = **opened;
  StatusOr<bool> more = rows.Next();
  if (!more.ok()) return RowError(rows, more.status().message());
  if (*more && rows.stmt().type(rows.pos(kUtcEpochNs)) == SQLITE_INTEGER)
    trace_.metadata.extra["nsys_session_start_utc_ns"] = std::to_string(rows.stmt().int64(rows.pos(kUtcEpochNs)));
  return Status::Ok();
}

Status Importer::ReadEnums() {
  struct EnumTable {
    const char* table;
    void (*fill)(EnumMaps&, int64_t id, std::string_view symbol);
    void (*defaults)(EnumMaps&);
  };
  const EnumTable kTables[] = {
      {kMemcpyKindEnum, [](EnumMaps& e, int64_t id, std::string_view s) { e.copy_kind[id] = CopyKindFromSymbol(s); },
       DefaultCopyKinds},
      {kMemKindEnum, [](EnumMaps& e, int64_t id, std::string_view s) { e.memory_kind[id] = MemKindFromSymbol(s); },
       DefaultMemoryKinds},
      {kSyncTypeEnum, [](EnumMaps& e, int64_t id, std::string_view s) { e.sync_type[id] = SyncTypeFromSymbol(s); },
       DefaultSyncTypes}};
  for (const EnumTable& et : kTables) {
    enum Col { kId, kName };
    if (!db_.HasTable(et.table)) {
      missing_tables_.insert(et.table);
      et.defaults(enums_);
      continue;
    }
    Status read = ForEachRow(et.table, {{"id", true}, {"name", true}}, IfAbsent::kSkip, [&](RowValues& v, TableRows&) {
      const int64_t id = v.Req(kId, "id");
      const std::optional<std::string> name = v.Text(kName);
      if (!v.bad() && name) et.fill(enums_, id, *name);
    });
    if (!read.ok()) return read;
  }
  return Status::Ok();
}

// TARGET_INFO_GPU: one row per GPU (id = the deviceId of the activity tables);
// TARGET_INFO_CUDA_DEVICE (newer exports) adds per-process SM counts.
Status Importer::ReadDevices() {
  enum Col { kId, kName, kMajor, kMinor, kSmCount, kMemory, kShmemPerSm, kRegsPerSm, kWarpsPerSm, kThreadsPerWarp };
  StatusOr<std::optional<TableRows>> opened = OpenTable(kGpuTable, {{"id", true},
                                                                    {"name", false},
                                                                    {"computeMajor", false},
                                                                    {"computeMinor", false},
                                                                    {"smCount", false},
                                                                    {"totalMemory", false},
                                                                    {"maxShmemPerSm", false},
                                                                    {"maxRegistersPerSm", false},
                                                                    {"maxWarpsPerSm", false},
                                                                    {"threadsPerWarp", false}});
  if (!opened.ok()) return opened.status();
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (!opened->has_value()) {
    missing_tables_.insert(kGpuTable);
  } else {
    TableRows& rows = **opened;
    while (true) {
      StatusOr<bool> more = rows.Next();
      if (!more.ok()) return RowError(rows, more.status().message());
      if (!*more) break;
      RowValues v(*this, rows);
      Device d;
      const int64_t id = v.Req(kId, "id");
      d.name = v.Text(kName).value_or("");
      d.cc_major = static_cast<int32_t>(v.OptIn(kMajor, "computeMajor", -1, 0, 100));
      d.cc_minor = static_cast<int32_t>(v.OptIn(kMinor, "computeMinor", -1, 0, 100));
      d.sm_count = static_cast<int32_t>(v.OptIn(kSmCount, "smCount", -1, 0, kInt32Max));
      d.total_memory_bytes = v.OptIn(kMemory, "totalMemory", -1, 0, INT64_MAX);
      d.shared_mem_per_sm = v.OptIn(kShmemPerSm, "maxShmemPerSm", -1, 0, INT64_MAX);
      d.regs_per_sm = static_cast<int32_t>(v.OptIn(kRegsPerSm, "maxRegistersPerSm", -1, 0, kInt32Max));
      const int64_t warps = v.OptIn(kWarpsPerSm, "maxWarpsPerSm", -1, 0, 1 << 16);
      const int64_t warp_size = v.OptIn(kThreadsPerWarp, "threadsPerWarp", -1, 0, 1 << 10);
      if (v.bad()) continue;
      if (id < 0 || id > kInt32Max) {
        v.MarkBad(DiagCode::kNsysBadValue, "id " + std::to_string(id) + " is out of range");
        continue;
      }
      d.id = static_cast<int32_t>(id);
      if (warps > 0 && warp_size > 0) d.max_threads_per_sm = static_cast<int32_t>(warps * warp_size);
      d.vendor = GpuVendor::kNvidia;  // Nsight Systems traces NVIDIA GPUs only
      if (trace_.AddDevice(d) == nullptr)
        Diag(DiagCode::kNsysDuplicateDevice, rows.row(), std::string(kGpuTable) + " lists device " + std::to_string(d.id) + " again");
    }
  }
  enum CudaCol { kGpuId, kCudaId, kSms };
  StatusOr<std::optional<TableRows>> cuda =
      OpenTable(kCudaDeviceTable, {{"gpuId", false}, {"cudaId", true}, {"numMultiprocessors", false}});
  if (!cuda.ok()) return cuda.status();
  if (!cuda->has_value()) return Status::Ok();
  TableRows& rows = **cuda;
  while (true) {
    StatusOr<bool> more = rows.Next();
    if (!more.ok()) return RowError(rows, more.status().message());
    if (!*more) break;
    RowValues v(*this, rows);
    const int64_t gpu = v.Opt(kGpuId, "gpuId", -1), cuda_id = v.Req(kCudaId, "cudaId");
    const int64_t sms = v.OptIn(kSms, "numMultiprocessors", -1, 0, kInt32Max);
    if (v.bad()) continue;
    const int64_t id = gpu >= 0 ? gpu : cuda_id;
    if (id < 0 || id > kInt32Max) {
      v.MarkBad(DiagCode::kNsysBadValue, "device id " + std::to_string(id) + " is out of range");
      continue;
    }
    Device* d = trace_.FindDevice(static_cast<int32_t>(id));
    if (d == nullptr) {
      Device added;
      added.id = static_cast<int32_t>(id);
      added.vendor = GpuVendor::kNvidia;
      d = trace_.AddDevice(std::move(added));
    }
    if (d->sm_count < 0 && sms > 0) d->sm_count = static_cast<int32_t>(sms);
  }
  return Status::Ok();
}

// ---- after the last table --------------------------------------------------------------

void Importer::Finish() {
  TraceMetadata& m = trace_.metadata;
  // Several processes: one trace (the reader interface returns one), with correlation ids
  // made unique per process because CUPTI numbers them per process.
  if (pids_.seen.size() > 1) {
    std::map<int64_t, int64_t> index;
    std::string list;
    for (int64_t pid : pids_.seen) {
      index[pid] = static_cast<int64_t>(index.size()) + 1;
      list += (list.empty() ? "" : ",") + std::to_string(pid);
    }
    Diag(DiagCode::kNsysSeveralProcesses, -1,
         std::to_string(pids_.seen.size()) + " processes (pids " + list +
             ") read as one trace; correlation ids are prefixed with the process index to keep them unique");
    auto remap = [&](int64_t& corr, int64_t pid) {
      auto it = index.find(pid);
      if (corr >= 0 && it != index.end()) corr = (it->second << 32) | (corr & 0xFFFFFFFF);
    };
    for (size_t i = 0; i < trace_.kernels.size(); ++i) remap(trace_.kernels[i].correlation, pids_.kernels[i]);
    for (size_t i = 0; i < trace_.memcpys.size(); ++i) remap(trace_.memcpys[i].correlation, pids_.memcpys[i]);
    for (size_t i = 0; i < trace_.memsets.size(); ++i) remap(trace_.memsets[i].correlation, pids_.memsets[i]);
    for (SyncEvent& s : trace_.syncs) remap(s.correlation, s.pid);
    for (ApiCall& a : trace_.api_calls) remap(a.correlation, a.pid);
    m.extra["nsys_pids"] = list;
    m.pid = -1;
    m.rank = -1;  // the capture's environment is that of the first process only
    m.world_size = -1;
    m.extra.erase("rank_source");
  } else if (pids_.seen.size() == 1) {
    m.pid = *pids_.seen.begin();
  }
  pids_ = ActivityPids{};

  // Correlation links, and the one-clock check: GPU work cannot start before its launch.
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  by_corr.reserve(trace_.api_calls.size());
  for (size_t i = 0; i < trace_.api_calls.size(); ++i)
    if (trace_.api_calls[i].correlation >= 0) by_corr.emplace_back(trace_.api_calls[i].correlation, static_cast<uint32_t>(i));
  std::sort(by_corr.begin(), by_corr.end());
  auto find_call = [&](int64_t corr) -> const ApiCall* {
    auto it = std::lower_bound(by_corr.begin(), by_corr.end(), std::make_pair(corr, uint32_t{0}));
    return it != by_corr.end() && it->first == corr ? &trace_.api_calls[it->second] : nullptr;
  };
  const bool have_api = !trace_.api_calls.empty();
  uint64_t unmatched = 0, early = 0;
  std::string first_unmatched, first_early;
  auto check = [&](const char* what, int64_t corr, TimeNs start) -> const ApiCall* {
    if (!have_api || corr < 0) return nullptr;
    const ApiCall* call = find_call(corr);
    if (call == nullptr) {
      if (unmatched++ == 0) first_unmatched = std::string(what) + " with correlation " + std::to_string(corr) + " has no CUDA API call in the export";
    } else if (start < call->start_ns) {
      if (early++ == 0)
        first_early = std::string(what) + " with correlation " + std::to_string(corr) + " starts " +
                      std::to_string(call->start_ns - start) + " ns before its API call";
    }
    return call;
  };
  for (const KernelEvent& k : trace_.kernels) check("kernel", k.correlation, k.start_ns);
  for (MemcpyEvent& mc : trace_.memcpys) {
    const ApiCall* call = check("memcpy", mc.correlation, mc.start_ns);
    if (call == nullptr) continue;
    // cudaMemcpy / cuMemcpyDtoH... without "Async" block the host (classify/ names them).
    if (ClassifyApi(trace_.str(call->name)) == ApiRole::kMemcpySync) mc.async = false;
  }
  for (const MemsetEvent& ms : trace_.memsets) check("memset", ms.correlation, ms.start_ns);
  for (SyncEvent& s : trace_.syncs) {
    const ApiCall* call = s.correlation >= 0 && have_api ? find_call(s.correlation) : nullptr;
    if (call != nullptr) s.tid = call->tid;  // the sync table has the process, not the thread
  }
  DiagCount(DiagCode::kUnmatchedCorrelation, unmatched, -1, first_unmatched);
  DiagCount(DiagCode::kNsysGpuBeforeLaunch, early, -1, first_early);

  // NVTX ranges still open when the capture stopped end at the last timestamp seen.
  for (size_t i : unclosed_ranges_) trace_.ranges[i].end_ns = std::max(trace_.ranges[i].start_ns, last_ns_);
  DiagCount(DiagCode::kNvtxUnclosedRange, unclosed_ranges_.size(), -1,
            std::to_string(unclosed_ranges_.size()) + " NVTX ranges without an end closed at " + std::to_string(last_ns_) + " ns");

  // No TARGET_INFO_GPU: one device per id that ran GPU work (name and peaks unknown).
  if (trace_.devices.empty()) {
    std::set<int32_t> ids;
    for (const KernelEvent& k : trace_.kernels) ids.insert(k.device);
    for (const MemcpyEvent& mc : trace_.memcpys) ids.insert(mc.device);
    for (const MemsetEvent& ms : trace_.memsets) ids.insert(ms.device);
    ids.erase(-1);
    for (int32_t id : ids) {
      Device d;
      d.id = id;
      d.vendor = GpuVendor::kNvidia;
      trace_.AddDevice(d);
    }
  }
  if (!missing_tables_.empty()) {
    std::string list;
    bool enums = false;
    for (const std::string& t : missing_tables_) {
      list += (list.empty() ? "" : ", ") + t;
      enums |= t.rfind("ENUM_", 0) == 0;
    }
    // nsys creates tables lazily: an absent activity table usually means no such activity.
    DiagCount(DiagCode::kNsysTableMissing, missing_tables_.size(), -1,
              "absent: " + list + " (tables are created only for recorded activity" +
                  (enums ? "; for ENUM_* tables the documented numeric codes are used)" : ")"));
  }
  m.event_count = trace_.kernels.size() + trace_.memcpys.size() + trace_.memsets.size() + trace_.api_calls.size() +
                  trace_.syncs.size() + trace_.ranges.size() + trace_.memory_events.size() + trace_.counters.size();
  FinalizeTrace(trace_);
}

}  // namespace nsys

// ---- public entry points -------------------------------------------------------------------

bool IsNsysInput(const std::string& path, const unsigned char* head, size_t n) {
  if (nsys::HasSqliteMagic(head, n)) return true;
  return (nsys::EndsWithNoCase(path, ".nsys-rep") || nsys::EndsWithNoCase(path, ".qdrep")) &&
         !nsys::LooksLikeJsonOrGzip(head, n);
}

std::string NsysReportMessage(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  const std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? path.substr(0, dot) : path;
  return path + ": an Nsight Systems report, which ampscope cannot read directly; export it with `nsys export --type sqlite --output " +
         nsys::ShellWord(stem + ".sqlite") + " " + nsys::ShellWord(path) + "` and analyze the .sqlite file";
}

StatusOr<Trace> ReadNsysInput(const std::string& path, const NsysReadOptions& options) {
  unsigned char head[16] = {0};
  size_t n = 0;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof(head), f);
    std::fclose(f);
  }
  if (!nsys::HasSqliteMagic(head, n) && (nsys::EndsWithNoCase(path, ".nsys-rep") || nsys::EndsWithNoCase(path, ".qdrep")))
    return Status::Error(NsysReportMessage(path));
  return ReadNsysExport(path, options);
}

StatusOr<Trace> ReadNsysExport(const std::string& path, const NsysReadOptions& options) {
  StatusOr<nsys::SqliteFile> db = nsys::SqliteFile::Open(path);
  if (!db.ok()) return db.status();
  Trace trace;
  nsys::Importer importer(*db, path, trace, options);
  Status st = importer.Run();
  if (!st.ok()) return st;
  return trace;
}

}  // namespace ampscope

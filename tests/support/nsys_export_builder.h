// Builds small Nsight Systems SQLite exports for tests, with the sqlite3 C API.
//
// The CREATE TABLE statements are the real nsys schema: copied (comments dropped) from
// `.schema` of the two shared exports, perlmutter-cloverleaf-cuda.sqlite (nsys 2024.5.1,
// schema 3.13.2; most tables) and saxpy-mpi-cuda_nsys_perlmutter0.sqlite (nsys 2022.2,
// schema 2.9.1; MEMSET, NVTX_EVENTS, CUDA_GPU_MEMORY_USAGE_EVENTS, which the newer one
// lacks), and GPU_METRICS / TARGET_INFO_GPU_METRICS from NVIDIA's "SQLite Schema
// Reference" (Nsight Systems user guide), since neither shared export has GPU metrics.
// The ENUM rows are those of the 2024.5.1 export.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ampscope::testing {

// (vm id << 48) | (pid << 24) | tid, as nsys serializes a thread's global id.
inline int64_t GlobalTid(int64_t pid, int64_t tid) { return (int64_t{1} << 48) | (pid << 24) | tid; }
inline int64_t GlobalPid(int64_t pid) { return GlobalTid(pid, 0); }

inline constexpr const char* kNsysDdl[] = {
    "CREATE TABLE StringIds ( id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL )",
    "CREATE TABLE META_DATA_EXPORT ( name TEXT NOT NULL, value TEXT )",
    "CREATE TABLE META_DATA_CAPTURE ( name TEXT NOT NULL, value TEXT )",
    "CREATE TABLE TARGET_INFO_GPU ( vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, "
    "isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, "
    "smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, "
    "ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER, "
    "maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, "
    "maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, "
    "maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER, "
    "maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER, "
    "computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER )",
    "CREATE TABLE TARGET_INFO_SYSTEM_ENV ( globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, "
    "nameEnum INTEGER NOT NULL, value TEXT NOT NULL )",
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME ( utcEpochNs INTEGER, utcTime TEXT, localTime TEXT )",
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER ( id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT )",
    "CREATE TABLE ENUM_CUDA_MEM_KIND ( id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT )",
    "CREATE TABLE ENUM_CUPTI_SYNC_TYPE ( id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT )",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ( start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
    "launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, "
    "gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, "
    "blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
    "localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, "
    "sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER )",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY ( start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, "
    "dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, "
    "migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER )",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET ( start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER "
    "REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId), globalPid INTEGER, value INTEGER NOT NULL, "
    "bytes INTEGER NOT NULL, graphNodeId INTEGER REFERENCES CUDA_GRAPH_EVENTS(graphNodeId), memKind INTEGER )",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME ( start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
    "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER )",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ( start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, "
    "correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL )",
    "CREATE TABLE NVTX_EVENTS ( start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, "
    "category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER "
    "REFERENCES StringIds(id), domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, "
    "uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT )",
    "CREATE TABLE ThreadNames ( nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER )",
    "CREATE TABLE PROCESSES ( globalPid INTEGER, pid INTEGER, name TEXT )",
};

// Optional tables, created on request.
inline constexpr const char* kMemoryUsageDdl =
    "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS ( start INTEGER NOT NULL, globalPid INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL, "
    "bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, name TEXT, "
    "correlationId INTEGER )";
inline constexpr const char* kGpuMetricsDdl[] = {
    "CREATE TABLE TARGET_INFO_GPU_METRICS ( typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, "
    "typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL )",
    "CREATE TABLE GPU_METRICS ( timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, "
    "value INTEGER NOT NULL )",
};

struct KernelRow {
  int64_t start = 0, end = 0;
  int64_t correlation = -1;  // NULL when negative
  std::string name;          // demangled; the short name is the part before '('
  int64_t device = 0, stream = 7, pid = 100;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {128, 1, 1};
  int64_t registers = 32, static_shared = 0, dynamic_shared = 0;
};

class NsysExportBuilder {
 public:
  struct Options {
    bool enums = true;                 // ENUM_* tables (nsys 2023 and later)
    const char* export_meta_table = "META_DATA_EXPORT";  // nullptr: none; "EXPORT_META_DATA": nsys 2022
    std::string schema_version = "3.13.2";
  };
  explicit NsysExportBuilder(const std::string& path) : NsysExportBuilder(path, Options{}) {}
  NsysExportBuilder(const std::string& path, const Options& options) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("cannot create " + path);
    Exec("BEGIN");
    for (const char* ddl : kNsysDdl) {
      const std::string s = ddl;
      if (!options.enums && s.find("TABLE ENUM_") != std::string::npos) continue;
      if (s.find("TABLE META_DATA_EXPORT") != std::string::npos) {
        if (options.export_meta_table == nullptr) continue;
        Exec(fmt::format("CREATE TABLE {} ( name TEXT NOT NULL, value TEXT )", options.export_meta_table));
        Exec(fmt::format("INSERT INTO {} VALUES ('EXPORT_SCHEMA_VERSION', '{}'), "
                         "('EXPORT_PRODUCT_VERSION', '2024.5.1.113')",
                         options.export_meta_table, options.schema_version));
        continue;
      }
      Exec(s);
    }
    if (options.enums) {
      Exec("INSERT INTO ENUM_CUDA_MEMCPY_OPER (id, name) VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN'), "
           "(1,'CUDA_MEMCPY_KIND_HTOD'), (2,'CUDA_MEMCPY_KIND_DTOH'), (8,'CUDA_MEMCPY_KIND_DTOD'), "
           "(9,'CUDA_MEMCPY_KIND_HTOH'), (10,'CUDA_MEMCPY_KIND_PTOP')");
      Exec("INSERT INTO ENUM_CUDA_MEM_KIND (id, name) VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE'), "
           "(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED'), (2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE'), "
           "(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY'), (4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED'), "
           "(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN')");
      Exec("INSERT INTO ENUM_CUPTI_SYNC_TYPE (id, name) VALUES (0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN'), "
           "(1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE'), "
           "(2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT'), "
           "(3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE'), "
           "(4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE')");
    }
  }
  ~NsysExportBuilder() { Close(); }

  void Close() {
    if (db_ == nullptr) return;
    Exec("COMMIT");
    sqlite3_close(db_);
    db_ = nullptr;
  }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string what = std::string(err ? err : "?") + " in: " + sql;
      sqlite3_free(err);
      throw std::runtime_error(what);
    }
  }

  // StringIds row for `s` (one id per distinct string, from 1).
  int64_t String(const std::string& s) {
    const int64_t id = ++next_string_;
    Exec(fmt::format("INSERT INTO StringIds VALUES ({}, {})", id, Quote(s)));
    return id;
  }

  void Gpu(int64_t id, const std::string& name, int major, int minor, int sms, int64_t memory) {
    Exec(fmt::format("INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, computeMajor, computeMinor, "
                     "maxShmemPerSm, maxRegistersPerSm, maxWarpsPerSm, threadsPerWarp) "
                     "VALUES (281474976710656, {}, {}, {}, {}, {}, {}, 167936, 65536, 64, 32)",
                     id, Quote(name), memory, sms, major, minor));
  }

  void Kernel(const KernelRow& k) {
    const int64_t demangled = String(k.name);
    const int64_t short_name = String(k.name.substr(0, k.name.find('(')));
    Exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
                     "globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
                     "blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) "
                     "VALUES ({}, {}, {}, 1, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, 0, 0, {})",
                     k.start, k.end, k.device, k.stream, Null(k.correlation), GlobalPid(k.pid), demangled, short_name,
                     k.registers, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.static_shared,
                     k.dynamic_shared, ++next_grid_));
  }

  void Memcpy(int64_t start, int64_t end, int64_t correlation, int64_t bytes, int copy_kind, int src_kind, int dst_kind,
              int64_t pid = 100, int64_t device = 0, int64_t stream = 7) {
    Exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, "
                     "globalPid, bytes, copyKind, srcKind, dstKind) VALUES ({}, {}, {}, 1, {}, {}, {}, {}, {}, {}, {})",
                     start, end, device, stream, Null(correlation), GlobalPid(pid), bytes, copy_kind, src_kind, dst_kind));
  }

  void Memset(int64_t start, int64_t end, int64_t correlation, int64_t bytes, int mem_kind, int64_t pid = 100) {
    Exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, "
                     "globalPid, value, bytes, memKind) VALUES ({}, {}, 0, 1, 7, {}, {}, 0, {}, {})",
                     start, end, Null(correlation), GlobalPid(pid), bytes, mem_kind));
  }

  // A CUDA API row; `name` as nsys writes it (e.g. "cudaLaunchKernel_v7000").
  void Api(int64_t start, int64_t end, int64_t correlation, const std::string& name, int64_t pid = 100,
           int64_t tid = 101, int event_class = 0) {
    Exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, "
                     "returnValue) VALUES ({}, {}, {}, {}, {}, {}, 0)",
                     start, end, event_class, GlobalTid(pid, tid), Null(correlation), String(name)));
  }

  void Sync(int64_t start, int64_t end, int64_t correlation, int sync_type, int64_t stream = 7, int64_t pid = 100) {
    Exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
                     "correlationId, globalPid, syncType, eventId) VALUES ({}, {}, 0, 1, {}, {}, {}, {}, 0)",
                     start, end, stream, Null(correlation), GlobalPid(pid), sync_type));
  }

  // An NVTX_EVENTS row; `end` < 0 writes NULL. Text goes to `text` unless `registered`, then
  // to StringIds through textId.
  void Nvtx(int64_t start, int64_t end, int event_type, const std::string& text, int64_t domain = 0,
            bool registered = false, int64_t pid = 100, int64_t tid = 101) {
    const std::string text_sql = registered ? "NULL" : Quote(text);
    const std::string text_id = registered ? std::to_string(String(text)) : "NULL";
    Exec(fmt::format("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
                     "VALUES ({}, {}, {}, {}, {}, {}, {})",
                     start, Null(end), event_type, text_sql, GlobalTid(pid, tid), text_id, domain));
  }

  void MemoryUsage(int64_t start, int64_t address, int64_t bytes, int mem_kind, int op, int64_t device = 0,
                   int64_t pid = 100) {
    if (!have_memory_usage_) {
      Exec(kMemoryUsageDdl);
      have_memory_usage_ = true;
    }
    Exec(fmt::format("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, "
                     "memKind, memoryOperationType) VALUES ({}, {}, {}, 1, {}, 0, {}, {}, {})",
                     start, GlobalPid(pid), device, address, bytes, mem_kind, op));
  }

  void GpuMetricName(int64_t type_id, int64_t metric_id, const std::string& name) {
    if (!have_gpu_metrics_) {
      for (const char* ddl : kGpuMetricsDdl) Exec(ddl);
      have_gpu_metrics_ = true;
    }
    Exec(fmt::format("INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({}, 0, {}, {}, {})", type_id,
                     Quote(fmt::format("GPU Metrics [{}]", type_id & 0xFF)), metric_id, Quote(name)));
  }
  void GpuMetric(int64_t timestamp, int64_t type_id, int64_t metric_id, int64_t value) {
    Exec(fmt::format("INSERT INTO GPU_METRICS VALUES ({}, {}, {}, {})", timestamp, type_id, metric_id, value));
  }

  static std::string Quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  static std::string Null(int64_t v) { return v < 0 ? "NULL" : std::to_string(v); }

 private:
  sqlite3* db_ = nullptr;
  int64_t next_string_ = 0;
  int64_t next_grid_ = 0;
  bool have_memory_usage_ = false;
  bool have_gpu_metrics_ = false;
};

}  // namespace ampscope::testing

// What the Nsight Systems reader knows about the `nsys export --type sqlite` schema: the
// tables it reads, the numeric codes it interprets, and every diagnostic it can raise.
//
// Sources: the exports' own column comments (`.schema` in sqlite3) and ENUM_* tables of
// nsys 2022.2 (schema 2.9.1) and 2024.5 (schema 3.13.2) exports; NVIDIA's "SQLite Schema
// Reference" in the Nsight Systems user guide; CUPTI's CUpti_ActivityMemcpyKind and
// CUpti_ActivitySynchronizationType.
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope::nsys {

// ---- tables -------------------------------------------------------------------------
inline constexpr const char* kStringIds = "StringIds";
inline constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr const char* kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr const char* kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr const char* kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";  // not in the exports we know; read if present
inline constexpr const char* kSyncTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
inline constexpr const char* kNvtxTable = "NVTX_EVENTS";
inline constexpr const char* kGpuTable = "TARGET_INFO_GPU";
inline constexpr const char* kCudaDeviceTable = "TARGET_INFO_CUDA_DEVICE";
inline constexpr const char* kGpuMetricsTable = "GPU_METRICS";
inline constexpr const char* kGpuMetricsInfoTable = "TARGET_INFO_GPU_METRICS";
inline constexpr const char* kMemoryUsageTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
inline constexpr const char* kThreadNamesTable = "ThreadNames";
inline constexpr const char* kProcessesTable = "PROCESSES";
inline constexpr const char* kSystemEnvTable = "TARGET_INFO_SYSTEM_ENV";
inline constexpr const char* kSessionStartTable = "TARGET_INFO_SESSION_START_TIME";
inline constexpr const char* kCaptureMetaTable = "META_DATA_CAPTURE";
inline constexpr const char* kExportMetaTable = "META_DATA_EXPORT";         // nsys 2023 and later
inline constexpr const char* kOldExportMetaTable = "EXPORT_META_DATA";      // nsys 2022 and earlier
inline constexpr const char* kMemcpyKindEnum = "ENUM_CUDA_MEMCPY_OPER";
inline constexpr const char* kMemKindEnum = "ENUM_CUDA_MEM_KIND";
inline constexpr const char* kSyncTypeEnum = "ENUM_CUPTI_SYNC_TYPE";

// ---- serialized global ids ----------------------------------------------------------
// globalTid / globalPid: (hardware id << 56) | (vm id << 48) | (pid << 24) | tid.
inline int64_t PidOfGlobalId(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
inline int64_t TidOfGlobalId(int64_t global_id) { return global_id & 0xFFFFFF; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys names API calls with the CUDA
// version that introduced them; nsys's own stats reports strip it too.
std::string_view StripApiVersionSuffix(std::string_view name);

// ---- CUPTI_ACTIVITY_KIND_RUNTIME.eventClass (ENUM_NSYS_EVENT_CLASS) -------------------
inline constexpr int64_t kEventClassCudaRuntime = 0;    // TRACE_PROCESS_EVENT_CUDA_RUNTIME
inline constexpr int64_t kEventClassCudaDriver = 1;     // TRACE_PROCESS_EVENT_CUDA_DRIVER
inline constexpr int64_t kEventClassCudaBacktrace = 67; // TRACE_PROCESS_EVENT_CUDABACKTRACE: a second row
                                                        // for a call already listed, with its call chain

// ---- NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE) -------------------------------------
inline constexpr int64_t kNvtxCategory = 33;
inline constexpr int64_t kNvtxMark = 34;
inline constexpr int64_t kNvtxThread = 39;           // nvtxNameOsThread: text is the thread's name
inline constexpr int64_t kNvtxPushPopRange = 59;
inline constexpr int64_t kNvtxStartEndRange = 60;
inline constexpr int64_t kNvtxDomainCreate = 75;     // text is the name of domain `domainId`
inline constexpr int64_t kNvtxDomainDestroy = 76;

// ---- enum fallbacks, for exports without the ENUM_* tables (nsys 2022 and earlier) ------
// copyKind: CUpti_ActivityMemcpyKind (0 unknown, 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA,
// 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP); nsys adds 11-13 for unified-memory migrations.
// srcKind/dstKind/memKind: nsys's CUDA_MEMOPR_MEMORY_KIND, which is NOT CUPTI's numbering:
// 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static, 6 managed static,
// 7 unknown (ENUM_CUDA_MEM_KIND of a 2024.5 export; the 2022.2 column comments name the
// same enum). syncType: CUpti_ActivitySynchronizationType (0 unknown, 1 event sync,
// 2 stream wait event, 3 stream sync, 4 context sync).

// ---- diagnostics ----------------------------------------------------------------------
// Every diagnostic the reader raises is a row of base/diagnostic_codes_table.h (the nsys_*
// codes, plus negative_duration, unmatched_correlation and nvtx_unclosed_range, which the
// other readers count for the same problems); call sites name DiagCode::kX.

}  // namespace ampscope::nsys

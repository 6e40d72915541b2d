// CUDA/HIP runtime and driver API names -> what the call does for the GPU timeline. The one
// place where API names are matched (analyzers and readers ask for the role).
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

enum class ApiRole : uint8_t {
  kOther,
  kSync,         // host-blocking synchronisation: cuda{Device,Stream,Event,Thread}Synchronize, cu*/hip* twins
                 // (every role has its CUDA runtime, driver and HIP names: api_roles.cc)
  kLaunch,       // kernel and graph launches (runtime, driver, HIP)
  kMemcpySync,   // cudaMemcpy*, cuMemcpy*, hipMemcpy* without "Async": the host waits for the copy
  kMemcpyAsync,  // the same families with "Async"
  kMemset,       // cudaMemset*, cuMemset*, hipMemset*
  kAlloc,        // cudaMalloc*, cudaHostAlloc, cuMemAlloc*, cuMemHostAlloc, hipMalloc*, hipHostMalloc, hipExtMallocWithFlags
  kFree,         // cudaFree*, cuMemFree*, hipFree*, hipHostFree
  kStreamWait,   // cudaStreamWaitEvent and twins: GPU-side waits, not host-blocking
  kCount
};
const char* ApiRoleName(ApiRole r);  // "other", "sync", "launch", "memcpy_sync", ...

// Names are matched by prefix, so versioned and per-thread forms (_v2, _ptsz, _ptds) count too.
ApiRole ClassifyApi(std::string_view name);

// What a call makes the host wait for, or records, as the dependency graph needs it
// (analyzers/graph/): device-wide syncs (cuda/cu/hip Device, Thread and Ctx Synchronize, and
// cudaFree, which synchronizes the device before it frees), a stream sync, an event sync, an event
// record (cudaEventRecord: the point a later event sync or stream wait refers to).
enum class ApiWaitScope : uint8_t { kNone, kDevice, kStream, kEvent, kEventRecord };
ApiWaitScope ClassifyApiWaitScope(std::string_view name);

// Which API family a name belongs to: cuda* is the CUDA runtime, cu* (not cuda*) the driver,
// hip* ROCm's HIP (evidence of an AMD GPU when a trace has no device properties).
enum class ApiFamily : uint8_t { kOther, kCudaRuntime, kCudaDriver, kHip };
ApiFamily ApiFamilyOf(std::string_view name);

}  // namespace ampscope

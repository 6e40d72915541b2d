#include "trace/classify/api_roles.h"

#include "base/strings.h"

namespace ampscope {

namespace {

// Every family has its CUDA runtime (cuda*), CUDA driver (cu*) and ROCm HIP (hip*) names: a
// role that only knew the CUDA spelling made an MI300X run with 1,360 hipFree calls report 0
// allocator calls (issue 32). HIP names: hip/hip_runtime_api.h (ROCm 5-6).
//
// Host-blocking synchronization calls (diagnosis_rules.md §D). cudaStreamWaitEvent is not.
constexpr std::string_view kSync[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
    "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",   "hipDeviceSynchronize",
    "hipStreamSynchronize",  "hipEventSynchronize",   "hipCtxSynchronize"};
// Kernel and graph launches. HIP: hipLaunchKernel (the runtime's <<<>>>), hipExtLaunchKernel,
// hipModuleLaunchKernel / hipExtModuleLaunchKernel (code objects: rocBLAS, hipBLASLt, MIOpen),
// hipHccModuleLaunchKernel (older ROCm), cooperative and multi-device launches, hipLaunchByPtr
// (ROCm < 4), hipGraphLaunch.
constexpr std::string_view kLaunch[] = {"cudaLaunchKernel",          "cudaLaunchCooperativeKernel",
                                        "cudaGraphLaunch",           "cuLaunchKernel",
                                        "cuLaunchCooperativeKernel", "cuGraphLaunch",
                                        "cudaLaunchKernelExC",       "hipLaunchKernel",
                                        "hipExtLaunchKernel",        "hipModuleLaunchKernel",
                                        "hipExtModuleLaunchKernel",  "hipHccModuleLaunchKernel",
                                        "hipLaunchCooperativeKernel", "hipModuleLaunchCooperativeKernel",
                                        "hipExtLaunchMultiKernelMultiDevice", "hipLaunchByPtr",
                                        "hipGraphLaunch"};
constexpr std::string_view kMemcpy[] = {"cudaMemcpy", "cuMemcpy", "hipMemcpy"};
constexpr std::string_view kMemset[] = {"cudaMemset", "cuMemset", "hipMemset"};
// Device, managed and pinned-host allocations: cudaMalloc* (cudaMallocAsync, cudaMallocHost,
// cudaMallocManaged, ...), cudaHostAlloc, cuMemAlloc* (cuMemAllocHost, cuMemAllocAsync, ...),
// cuMemHostAlloc; hipMalloc* (hipMallocAsync, hipMallocManaged, ...), hipExtMallocWithFlags,
// hipHostMalloc / hipHostAlloc.
constexpr std::string_view kAlloc[] = {"cudaMalloc", "cudaHostAlloc", "cuMemAlloc",            "cuMemHostAlloc",
                                       "hipMalloc",  "hipHostMalloc", "hipExtMallocWithFlags", "hipHostAlloc"};
// Their frees: cudaFree* (cudaFreeHost, cudaFreeAsync, ...), cuMemFree* (cuMemFreeHost, ...),
// hipFree* (hipFreeAsync, hipFreeHost, ...), hipHostFree.
constexpr std::string_view kFree[] = {"cudaFree", "cuMemFree", "hipFree", "hipHostFree"};
constexpr std::string_view kStreamWait[] = {"cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent"};

template <size_t N>
bool AnyPrefix(std::string_view name, const std::string_view (&prefixes)[N]) {
  for (std::string_view p : prefixes)
    if (StartsWith(name, p)) return true;
  return false;
}

}  // namespace

const char* ApiRoleName(ApiRole r) {
  switch (r) {
    case ApiRole::kSync: return "sync";
    case ApiRole::kLaunch: return "launch";
    case ApiRole::kMemcpySync: return "memcpy_sync";
    case ApiRole::kMemcpyAsync: return "memcpy_async";
    case ApiRole::kMemset: return "memset";
    case ApiRole::kAlloc: return "alloc";
    case ApiRole::kFree: return "free";
    case ApiRole::kStreamWait: return "stream_wait";
    case ApiRole::kOther:
    case ApiRole::kCount: break;
  }
  return "other";
}

ApiRole ClassifyApi(std::string_view name) {
  if (AnyPrefix(name, kSync)) return ApiRole::kSync;
  if (AnyPrefix(name, kLaunch)) return ApiRole::kLaunch;
  if (AnyPrefix(name, kMemcpy)) return Contains(name, "Async") ? ApiRole::kMemcpyAsync : ApiRole::kMemcpySync;
  if (AnyPrefix(name, kMemset)) return ApiRole::kMemset;
  if (AnyPrefix(name, kAlloc)) return ApiRole::kAlloc;
  if (AnyPrefix(name, kFree)) return ApiRole::kFree;
  if (AnyPrefix(name, kStreamWait)) return ApiRole::kStreamWait;
  return ApiRole::kOther;
}

ApiWaitScope ClassifyApiWaitScope(std::string_view name) {
  constexpr std::string_view kDevice[] = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize",
                                          "hipDeviceSynchronize"};
  constexpr std::string_view kStream[] = {"cudaStreamSynchronize", "cuStreamSynchronize", "hipStreamSynchronize"};
  constexpr std::string_view kEvent[] = {"cudaEventSynchronize", "cuEventSynchronize", "hipEventSynchronize"};
  constexpr std::string_view kRecord[] = {"cudaEventRecord", "cuEventRecord", "hipEventRecord"};
  // cudaFreeAsync is stream-ordered: it does not wait.
  const bool free = (AnyPrefix(name, kFree) || StartsWith(name, "hipFree")) && !Contains(name, "Async");
  if (AnyPrefix(name, kDevice) || free) return ApiWaitScope::kDevice;
  if (AnyPrefix(name, kStream)) return ApiWaitScope::kStream;
  if (AnyPrefix(name, kEvent)) return ApiWaitScope::kEvent;
  if (AnyPrefix(name, kRecord)) return ApiWaitScope::kEventRecord;
  return ApiWaitScope::kNone;
}

ApiFamily ApiFamilyOf(std::string_view name) {
  if (StartsWith(name, "cuda")) return ApiFamily::kCudaRuntime;
  if (StartsWith(name, "cu")) return ApiFamily::kCudaDriver;
  if (StartsWith(name, "hip")) return ApiFamily::kHip;
  return ApiFamily::kOther;
}

}  // namespace ampscope

#include "trace/classify/api_roles.h"

#include "base/strings.h"

namespace ampscope {

namespace {

// Host-blocking synchronization calls (diagnosis_rules.md §D). cudaStreamWaitEvent is not.
constexpr std::string_view kSync[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
    "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",   "hipDeviceSynchronize",
    "hipStreamSynchronize",  "hipEventSynchronize"};
constexpr std::string_view kLaunch[] = {"cudaLaunchKernel",          "cudaLaunchCooperativeKernel",
                                        "cudaGraphLaunch",           "cuLaunchKernel",
                                        "cuLaunchCooperativeKernel", "cuGraphLaunch",
                                        "cudaLaunchKernelExC",       "hipLaunchKernel",
                                        "hipExtLaunchKernel",        "hipModuleLaunchKernel",
                                        "hipExtModuleLaunchKernel",  "hipGraphLaunch"};
constexpr std::string_view kMemcpy[] = {"cudaMemcpy", "cuMemcpy", "hipMemcpy"};
constexpr std::string_view kMemset[] = {"cudaMemset", "cuMemset", "hipMemset"};
constexpr std::string_view kAlloc[] = {"cudaMalloc", "cuMemAlloc"};
constexpr std::string_view kFree[] = {"cudaFree", "cuMemFree"};
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

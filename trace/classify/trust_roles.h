// Names that say whether a trace shows the steady state it is analysed as: one-time CUDA work of
// a cold start, CUDA-graph launches, markers a profiler writes when it lost events, and host
// ranges that mark one iteration when there is no ProfilerStep. The one place these names are
// matched (analyzers/integrity/ and analyzers/context/iterations.cc ask for the role).
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

// One-time work a first call does and a warmed-up step does not (or does far less of).
enum class ColdStartRole : uint8_t {
  kNone,
  kModuleLoad,     // cuModuleLoad*, cuLibraryLoad*, cuModuleGetFunction, cuLibraryGetKernel, hipModuleLoad*
  kHandleOrPlan,   // cuDNN/cuBLAS handle and plan creation (cudnnCreate, cublasCreate, cublasLtCreate,
                   // cudnnBackendFinalize) and what their heuristics call while choosing a kernel:
                   // cudaFuncGetAttributes, cudaFuncSetAttribute, cudaOccupancy*, cudaStreamCreate*
  kContextSetup,   // cuInit, cuDevicePrimaryCtxRetain, cuCtxCreate, cudaGetDeviceProperties,
                   // cudaDeviceGetStreamPriorityRange (PyTorch's stream pools; the first CUDA call
                   // of a process also creates its context)
  kPinnedHostAlloc,  // cudaHostAlloc, cudaMallocHost, cuMemHostAlloc, hipHostMalloc (staging buffers)
  kCount
};
// "module_load" | "handle_or_plan" | "context_setup" | "pinned_host_alloc" | "none"
const char* ColdStartRoleName(ColdStartRole r);
ColdStartRole ClassifyColdStartApi(std::string_view api_name);

// cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch (and their _v2/_ptsz forms).
bool IsGraphLaunchApi(std::string_view api_name);

// A range or instant a profiler writes when it lost events: a name that starts with "Overflow",
// "Buffer overflow", "Activity buffer ...", or with "CUPTI"/"Kineto"/"Profiler" and says "overflow"
// or "dropped" (whatever the case). Training code's own overflow checks (apex, DeepSpeed) do not.
bool IsProfilerLossMarker(std::string_view name);

// A host range that runs one forward pass of a model: "DistributedDataParallel.forward",
// "DataParallel.forward", "nn.Module: ResNet", "model.forward", "## forward ##",
// "[param|...|forward]": "forward" as a word (not "backward", not an aten/autograd op).
bool IsForwardRangeName(std::string_view name);

}  // namespace ampscope

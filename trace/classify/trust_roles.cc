#include "trace/classify/trust_roles.h"

#include <cctype>

#include "base/strings.h"

namespace ampscope {

namespace {

constexpr std::string_view kModuleLoad[] = {"cuModuleLoad", "cuLibraryLoad", "cuModuleGetFunction",
                                            "cuLibraryGetKernel", "hipModuleLoad"};
constexpr std::string_view kHandleOrPlan[] = {
    "cudnnCreate", "cublasCreate", "cublasLtCreate", "cudnnBackendFinalize", "cudaFuncGetAttributes",
    "cudaFuncSetAttribute", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaStreamCreate",
    "cuStreamCreate", "hipStreamCreate", "hipFuncGetAttributes", "cuFuncGetAttribute", "cuFuncSetAttribute",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor"};
constexpr std::string_view kContextSetup[] = {"cuInit", "cuDevicePrimaryCtxRetain", "cuCtxCreate",
                                              "cudaGetDeviceProperties", "cudaDeviceGetStreamPriorityRange",
                                              "hipGetDeviceProperties", "hipDeviceGetStreamPriorityRange"};
constexpr std::string_view kPinnedHostAlloc[] = {"cudaHostAlloc", "cudaMallocHost", "cuMemHostAlloc",
                                                 "cuMemAllocHost", "hipHostMalloc", "hipHostAlloc"};
constexpr std::string_view kGraphLaunch[] = {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"};

template <size_t N>
bool AnyPrefix(std::string_view name, const std::string_view (&prefixes)[N]) {
  for (std::string_view p : prefixes)
    if (StartsWith(name, p)) return true;
  return false;
}

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// `word` (lower case) in `name` with no letter on either side, whatever the case of `name`.
bool HasWord(std::string_view name, std::string_view word) {
  if (name.size() < word.size()) return false;
  for (size_t i = 0; i + word.size() <= name.size(); ++i) {
    bool same = true;
    for (size_t k = 0; k < word.size() && same; ++k)
      same = std::tolower(static_cast<unsigned char>(name[i + k])) == word[k];
    if (!same) continue;
    const bool left = i == 0 || !IsLetter(name[i - 1]);
    const bool right = i + word.size() == name.size() || !IsLetter(name[i + word.size()]);
    if (left && right) return true;
  }
  return false;
}

bool ContainsNoCase(std::string_view name, std::string_view lower) {
  if (name.size() < lower.size()) return false;
  for (size_t i = 0; i + lower.size() <= name.size(); ++i) {
    bool same = true;
    for (size_t k = 0; k < lower.size() && same; ++k)
      same = std::tolower(static_cast<unsigned char>(name[i + k])) == lower[k];
    if (same) return true;
  }
  return false;
}

}  // namespace

const char* ColdStartRoleName(ColdStartRole r) {
  switch (r) {
    case ColdStartRole::kModuleLoad: return "module_load";
    case ColdStartRole::kHandleOrPlan: return "handle_or_plan";
    case ColdStartRole::kContextSetup: return "context_setup";
    case ColdStartRole::kPinnedHostAlloc: return "pinned_host_alloc";
    case ColdStartRole::kNone:
    case ColdStartRole::kCount: break;
  }
  return "none";
}

ColdStartRole ClassifyColdStartApi(std::string_view name) {
  if (AnyPrefix(name, kModuleLoad)) return ColdStartRole::kModuleLoad;
  if (AnyPrefix(name, kHandleOrPlan)) return ColdStartRole::kHandleOrPlan;
  if (AnyPrefix(name, kContextSetup)) return ColdStartRole::kContextSetup;
  if (AnyPrefix(name, kPinnedHostAlloc)) return ColdStartRole::kPinnedHostAlloc;
  return ColdStartRole::kNone;
}

bool IsGraphLaunchApi(std::string_view name) { return AnyPrefix(name, kGraphLaunch); }

bool IsProfilerLossMarker(std::string_view name) {
  // Training code has its own "overflow" names (apex/DeepSpeed's fp16 overflow checks): only a
  // name that is the marker, or that a profiler component owns, counts.
  if (!ContainsNoCase(name, "overflow") && !HasWord(name, "dropped")) return false;
  for (std::string_view owner : {"cupti", "kineto", "profiler", "activity buffer", "buffer overflow", "overflow"})
    if (name.size() >= owner.size() && ContainsNoCase(name.substr(0, owner.size()), owner)) return true;
  return false;
}

bool IsForwardRangeName(std::string_view name) {
  if (StartsWith(name, "aten::") || StartsWith(name, "autograd::") || StartsWith(name, "torch::autograd")) return false;
  if (ContainsNoCase(name, "backward")) return false;
  if (StartsWith(name, "nn.Module: ")) return true;
  return HasWord(name, "forward");
}

}  // namespace ampscope

#include "collector/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace ampscope::collector {

bool CuptiApi::HasPmSampling() const {
  return ProfilerInitialize && DeviceGetChipName && PmSamplingGetCounterAvailability && PmSamplingEnable &&
         PmSamplingDisable && PmSamplingSetConfig && PmSamplingStart && PmSamplingStop && PmSamplingDecodeData &&
         PmSamplingGetCounterDataSize && PmSamplingCounterDataImageInitialize && PmSamplingGetCounterDataInfo &&
         PmSamplingCounterDataGetSampleInfo && ProfilerHostInitialize && ProfilerHostDeinitialize &&
         ProfilerHostConfigAddMetrics && ProfilerHostGetConfigImageSize && ProfilerHostGetConfigImage &&
         ProfilerHostEvaluateToGpuValues;
}

std::string CuptiApi::ResultName(CUptiResult r) const {
  const char* s = nullptr;
  if (GetResultString != nullptr && GetResultString(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

namespace {

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(handle, name));
  return *out != nullptr;
}

bool BindAll(void* handle, CuptiApi* api, std::string* missing) {
  bool ok = true;
  auto req = [&](const char* name, auto* fn) {
    if (!Bind(handle, name, fn)) {
      ok = false;
      if (missing->empty()) *missing = name;
    }
  };
  req("cuptiGetVersion", &api->GetVersion);
  req("cuptiGetResultString", &api->GetResultString);
  req("cuptiGetTimestamp", &api->GetTimestamp);
  req("cuptiGetCallbackName", &api->GetCallbackName);
  req("cuptiSubscribe", &api->Subscribe);
  req("cuptiUnsubscribe", &api->Unsubscribe);
  req("cuptiEnableCallback", &api->EnableCallback);
  req("cuptiActivityEnable", &api->ActivityEnable);
  req("cuptiActivityDisable", &api->ActivityDisable);
  req("cuptiActivityRegisterCallbacks", &api->ActivityRegisterCallbacks);
  req("cuptiActivityGetNextRecord", &api->ActivityGetNextRecord);
  req("cuptiActivityGetNumDroppedRecords", &api->ActivityGetNumDroppedRecords);
  req("cuptiActivityFlushAll", &api->ActivityFlushAll);
  Bind(handle, "cuptiActivityEnableRuntimeApi", &api->ActivityEnableRuntimeApi);
  Bind(handle, "cuptiActivityEnableDriverApi", &api->ActivityEnableDriverApi);
  Bind(handle, "cuptiFinalize", &api->Finalize);
  Bind(handle, "cuptiGetDeviceId", &api->GetDeviceId);
  Bind(handle, "cuptiProfilerInitialize", &api->ProfilerInitialize);
  Bind(handle, "cuptiProfilerDeInitialize", &api->ProfilerDeInitialize);
  Bind(handle, "cuptiDeviceGetChipName", &api->DeviceGetChipName);
  Bind(handle, "cuptiPmSamplingGetCounterAvailability", &api->PmSamplingGetCounterAvailability);
  Bind(handle, "cuptiPmSamplingEnable", &api->PmSamplingEnable);
  Bind(handle, "cuptiPmSamplingDisable", &api->PmSamplingDisable);
  Bind(handle, "cuptiPmSamplingSetConfig", &api->PmSamplingSetConfig);
  Bind(handle, "cuptiPmSamplingStart", &api->PmSamplingStart);
  Bind(handle, "cuptiPmSamplingStop", &api->PmSamplingStop);
  Bind(handle, "cuptiPmSamplingDecodeData", &api->PmSamplingDecodeData);
  Bind(handle, "cuptiPmSamplingGetCounterDataSize", &api->PmSamplingGetCounterDataSize);
  Bind(handle, "cuptiPmSamplingCounterDataImageInitialize", &api->PmSamplingCounterDataImageInitialize);
  Bind(handle, "cuptiPmSamplingGetCounterDataInfo", &api->PmSamplingGetCounterDataInfo);
  Bind(handle, "cuptiPmSamplingCounterDataGetSampleInfo", &api->PmSamplingCounterDataGetSampleInfo);
  Bind(handle, "cuptiProfilerHostInitialize", &api->ProfilerHostInitialize);
  Bind(handle, "cuptiProfilerHostDeinitialize", &api->ProfilerHostDeinitialize);
  Bind(handle, "cuptiProfilerHostConfigAddMetrics", &api->ProfilerHostConfigAddMetrics);
  Bind(handle, "cuptiProfilerHostGetConfigImageSize", &api->ProfilerHostGetConfigImageSize);
  Bind(handle, "cuptiProfilerHostGetConfigImage", &api->ProfilerHostGetConfigImage);
  Bind(handle, "cuptiProfilerHostEvaluateToGpuValues", &api->ProfilerHostEvaluateToGpuValues);
  return ok;
}

}  // namespace

CuptiLoadResult LoadCupti(CuptiApi* api) {
  CuptiLoadResult result;
  // A copy PyTorch (or anyone) already loaded must be reused: two copies of libcupti in one
  // process break each other.
  for (const char* soname : {"libcupti.so.13", "libcupti.so"}) {
    void* h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (h == nullptr) continue;
    std::string missing;
    if (BindAll(h, api, &missing)) {
      result.ok = true;
      result.reused = true;
      result.path = std::string("(already loaded) ") + soname;
      return result;
    }
    result.error = std::string("the loaded ") + soname + " lacks " + missing;
    return result;  // never load a second copy next to an unusable first one
  }
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("AMPSCOPE_CUPTI_PATH"); env != nullptr && *env != '\0') candidates.push_back(env);
#ifdef AMPSCOPE_CUPTI_DEFAULT_PATH
  candidates.push_back(AMPSCOPE_CUPTI_DEFAULT_PATH);
#endif
  candidates.push_back("/usr/local/cuda/lib64/libcupti.so.13");
  candidates.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  candidates.push_back("libcupti.so.13");  // the loader's search path (LD_LIBRARY_PATH, ldconfig)
  std::string errors;
  for (const std::string& path : candidates) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      if (errors.empty() && e != nullptr) errors = e;
      continue;
    }
    std::string missing;
    if (BindAll(h, api, &missing)) {
      result.ok = true;
      result.path = path;
      return result;
    }
    errors = path + " lacks " + missing;
  }
  result.error = "cannot load libcupti.so.13 (set AMPSCOPE_CUPTI_PATH): " + errors;
  return result;
}

}  // namespace ampscope::collector

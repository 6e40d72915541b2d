// The CUPTI functions the collector calls, behind a table of function pointers.
//
// The real table is bound with dlopen/dlsym (LoadCupti), so libampscope_inject.so has no
// link-time dependency on libcupti and can reuse the copy a framework already loaded. Tests
// fill the table with fakes (tests/collector/fake_cupti.h) and drive the session logic on a
// machine without a GPU.
#pragma once

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <string>

namespace ampscope::collector {

struct CuptiApi {
  // Core (required: LoadCupti fails without them).
  CUptiResult (*GetVersion)(uint32_t*) = nullptr;
  CUptiResult (*GetResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*GetTimestamp)(uint64_t*) = nullptr;
  CUptiResult (*GetCallbackName)(CUpti_CallbackDomain, uint32_t, const char**) = nullptr;
  CUptiResult (*Subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*ActivityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*ActivityFlushAll)(uint32_t) = nullptr;
  // Optional (null when the library lacks them; the collector then does without).
  CUptiResult (*ActivityEnableRuntimeApi)(CUpti_CallbackId, uint8_t) = nullptr;
  CUptiResult (*ActivityEnableDriverApi)(CUpti_CallbackId, uint8_t) = nullptr;
  CUptiResult (*Finalize)() = nullptr;
  CUptiResult (*GetDeviceId)(CUcontext, uint32_t*) = nullptr;
  // PM sampling (--tensor-metrics); all optional.
  CUptiResult (*ProfilerInitialize)(CUpti_Profiler_Initialize_Params*) = nullptr;
  CUptiResult (*ProfilerDeInitialize)(CUpti_Profiler_DeInitialize_Params*) = nullptr;
  CUptiResult (*DeviceGetChipName)(CUpti_Device_GetChipName_Params*) = nullptr;
  CUptiResult (*PmSamplingGetCounterAvailability)(CUpti_PmSampling_GetCounterAvailability_Params*) = nullptr;
  CUptiResult (*PmSamplingEnable)(CUpti_PmSampling_Enable_Params*) = nullptr;
  CUptiResult (*PmSamplingDisable)(CUpti_PmSampling_Disable_Params*) = nullptr;
  CUptiResult (*PmSamplingSetConfig)(CUpti_PmSampling_SetConfig_Params*) = nullptr;
  CUptiResult (*PmSamplingStart)(CUpti_PmSampling_Start_Params*) = nullptr;
  CUptiResult (*PmSamplingStop)(CUpti_PmSampling_Stop_Params*) = nullptr;
  CUptiResult (*PmSamplingDecodeData)(CUpti_PmSampling_DecodeData_Params*) = nullptr;
  CUptiResult (*PmSamplingGetCounterDataSize)(CUpti_PmSampling_GetCounterDataSize_Params*) = nullptr;
  CUptiResult (*PmSamplingCounterDataImageInitialize)(CUpti_PmSampling_CounterDataImage_Initialize_Params*) = nullptr;
  CUptiResult (*PmSamplingGetCounterDataInfo)(CUpti_PmSampling_GetCounterDataInfo_Params*) = nullptr;
  CUptiResult (*PmSamplingCounterDataGetSampleInfo)(CUpti_PmSampling_CounterData_GetSampleInfo_Params*) = nullptr;
  CUptiResult (*ProfilerHostInitialize)(CUpti_Profiler_Host_Initialize_Params*) = nullptr;
  CUptiResult (*ProfilerHostDeinitialize)(CUpti_Profiler_Host_Deinitialize_Params*) = nullptr;
  CUptiResult (*ProfilerHostConfigAddMetrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*) = nullptr;
  CUptiResult (*ProfilerHostGetConfigImageSize)(CUpti_Profiler_Host_GetConfigImageSize_Params*) = nullptr;
  CUptiResult (*ProfilerHostGetConfigImage)(CUpti_Profiler_Host_GetConfigImage_Params*) = nullptr;
  CUptiResult (*ProfilerHostEvaluateToGpuValues)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*) = nullptr;

  bool HasPmSampling() const;
  // "CUPTI_ERROR_UNKNOWN" and the like; never null.
  std::string ResultName(CUptiResult r) const;
};

struct CuptiLoadResult {
  bool ok = false;
  std::string path;    // the library that was bound ("(already loaded) libcupti.so.13" when reused)
  bool reused = false; // true when a copy already in the process was bound
  std::string error;   // why it failed, for the one warning line
};

// Binds `api` to libcupti. Order: a copy already loaded into the process (RTLD_NOLOAD on
// libcupti.so.13 then libcupti.so), then $AMPSCOPE_CUPTI_PATH, then the toolkit's
// lib64/libcupti.so.13 (AMPSCOPE_CUPTI_DEFAULT_PATH at build time, then /usr/local/cuda).
// The handle is never closed: CUPTI callbacks may fire until the process ends.
CuptiLoadResult LoadCupti(CuptiApi* api);

}  // namespace ampscope::collector

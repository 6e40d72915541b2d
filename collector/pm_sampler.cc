#include "collector/pm_sampler.h"

#include <dlfcn.h>

#include <chrono>
#include <vector>

#include "collector/cupti_advice.h"
#include "collector/session.h"

namespace ampscope::collector {

namespace {

// The decode loop period: the hardware buffer holds far more than this, and 10 ms keeps the
// sampler thread's CPU use negligible (cupti_notes.md).
constexpr auto kDecodePeriod = std::chrono::milliseconds(10);
constexpr size_t kHardwareBufferBytes = 256u << 20;
constexpr uint32_t kMaxSamplesPerImage = 4096;

template <typename P>
P Params(size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  p.pPriv = nullptr;
  return p;
}

}  // namespace

PmSampler::PmSampler(const CuptiApi& api, Session& session, CUcontext context, uint32_t interval_ns)
    : api_(api), session_(session), context_(context), interval_ns_(interval_ns) {}

PmSampler::~PmSampler() { Stop(); }

void PmSampler::Start() {
  if (!api_.HasPmSampling()) {
    session_.Warn("tensor_metrics_unavailable",
                  "--tensor-metrics: this libcupti has no PM sampling API; Tensor Core activity is estimated", true);
    return;
  }
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (...) {
    session_.Warn("tensor_metrics_unavailable", "--tensor-metrics: cannot start the sampling thread", true);
  }
}

void PmSampler::Stop() {
  stop_.store(true);
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool PmSampler::Check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const std::string why = CuptiErrorWithFix(r, api_.ResultName(r));
  session_.Warn("tensor_metrics_unavailable",
                std::string("--tensor-metrics: ") + what + " failed with " + why +
                    "; Tensor Core activity is estimated from kernel names",
                true);
  return false;
}

bool PmSampler::ConfigImage(CUpti_Profiler_Host_Object* host_object, const char** metrics, std::vector<uint8_t>* config) {
  auto add = Params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host_object;
  add.ppMetricNames = metrics;
  add.numMetrics = 1;
  if (!Check(api_.ProfilerHostConfigAddMetrics(&add), "adding the Tensor Active metric")) return false;
  auto size = Params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host_object;
  if (!Check(api_.ProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize")) return false;
  config->assign(size.configImageSize, 0);
  auto image = Params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host_object;
  image.configImageSize = config->size();
  image.pConfigImage = config->data();
  return Check(api_.ProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");
}

void PmSampler::Run() {
  // Profiling calls act on the current context; make the application's context current on
  // this thread through the driver the application already loaded.
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    using SetCurrent = int (*)(CUcontext);
    if (auto set = reinterpret_cast<SetCurrent>(dlsym(cuda, "cuCtxSetCurrent"))) set(context_);
  }
  uint32_t device = 0;
  if (api_.GetDeviceId != nullptr) api_.GetDeviceId(context_, &device);

  auto init = Params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (!Check(api_.ProfilerInitialize(&init), "cuptiProfilerInitialize")) return;

  auto chip = Params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = device;
  if (!Check(api_.DeviceGetChipName(&chip), "cuptiDeviceGetChipName")) return;

  auto avail = Params<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.deviceIndex = device;
  if (!Check(api_.PmSamplingGetCounterAvailability(&avail), "cuptiPmSamplingGetCounterAvailability")) return;
  std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (!Check(api_.PmSamplingGetCounterAvailability(&avail), "cuptiPmSamplingGetCounterAvailability")) return;

  auto host = Params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = availability.data();
  if (!Check(api_.ProfilerHostInitialize(&host), "cuptiProfilerHostInitialize")) return;
  CUpti_Profiler_Host_Object* host_object = host.pHostObject;
  auto deinit_host = [&] {
    auto d = Params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    d.pHostObject = host_object;
    api_.ProfilerHostDeinitialize(&d);
  };

  const char* metrics[] = {kTensorActiveMetric};
  std::vector<uint8_t> config;
  if (!ConfigImage(host_object, metrics, &config)) return deinit_host();

  auto enable = Params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  enable.deviceIndex = device;
  if (!Check(api_.PmSamplingEnable(&enable), "cuptiPmSamplingEnable")) return deinit_host();
  CUpti_PmSampling_Object* sampler = enable.pPmSamplingObject;
  auto disable = [&] {
    auto d = Params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
    d.pPmSamplingObject = sampler;
    api_.PmSamplingDisable(&d);
    deinit_host();
  };

  auto set = Params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  set.pPmSamplingObject = sampler;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.hardwareBufferSize = kHardwareBufferBytes;
  set.samplingInterval = interval_ns_;
  set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
  if (api_.PmSamplingSetConfig(&set) != CUPTI_SUCCESS) {
    // GA100 (and Turing) only trigger on SYSCLK; its interval is in clock cycles, so ~1 GHz
    // makes the interval roughly the requested number of nanoseconds.
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
    if (!Check(api_.PmSamplingSetConfig(&set), "cuptiPmSamplingSetConfig")) return disable();
  }

  auto data_size = Params<CUpti_PmSampling_GetCounterDataSize_Params>(
      CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  data_size.pPmSamplingObject = sampler;
  data_size.pMetricNames = metrics;
  data_size.numMetrics = 1;
  data_size.maxSamples = kMaxSamplesPerImage;
  if (!Check(api_.PmSamplingGetCounterDataSize(&data_size), "cuptiPmSamplingGetCounterDataSize")) return disable();
  std::vector<uint8_t> counter_data(data_size.counterDataSize);
  auto init_image = [&] {
    auto p = Params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    p.pPmSamplingObject = sampler;
    p.counterDataSize = counter_data.size();
    p.pCounterData = counter_data.data();
    return api_.PmSamplingCounterDataImageInitialize(&p);
  };
  if (!Check(init_image(), "cuptiPmSamplingCounterDataImageInitialize")) return disable();

  auto start = Params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  start.pPmSamplingObject = sampler;
  if (!Check(api_.PmSamplingStart(&start), "cuptiPmSamplingStart")) return disable();

  size_t processed = 0;
  bool warned_overflow = false;
  auto decode = [&]() -> bool {
    auto d = Params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    d.pPmSamplingObject = sampler;
    d.pCounterDataImage = counter_data.data();
    d.counterDataImageSize = counter_data.size();
    if (!Check(api_.PmSamplingDecodeData(&d), "cuptiPmSamplingDecodeData")) return false;
    if (d.overflow && !warned_overflow) {
      warned_overflow = true;
      session_.Warn("tensor_metrics_overflow",
                    "--tensor-metrics: the PM sampling hardware buffer overflowed; some samples are missing", false);
    }
    auto info = Params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    if (!Check(api_.PmSamplingGetCounterDataInfo(&info), "cuptiPmSamplingGetCounterDataInfo")) return false;
    for (; processed < info.numCompletedSamples; ++processed) {
      auto sample = Params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
          CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
      sample.pPmSamplingObject = sampler;
      sample.pCounterDataImage = counter_data.data();
      sample.counterDataImageSize = counter_data.size();
      sample.sampleIndex = processed;
      if (api_.PmSamplingCounterDataGetSampleInfo(&sample) != CUPTI_SUCCESS) continue;
      double value = 0;
      auto eval = Params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
          CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
      eval.pHostObject = host_object;
      eval.pCounterDataImage = counter_data.data();
      eval.counterDataImageSize = counter_data.size();
      eval.rangeIndex = processed;
      eval.ppMetricNames = metrics;
      eval.numMetrics = 1;
      eval.pMetricValues = &value;
      if (api_.ProfilerHostEvaluateToGpuValues(&eval) != CUPTI_SUCCESS) continue;
      const int64_t mid = static_cast<int64_t>(sample.startTimestamp / 2 + sample.endTimestamp / 2);
      session_.AddCounter(kTensorActiveCounter, static_cast<int32_t>(device), mid, value);
    }
    if (d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
      if (init_image() != CUPTI_SUCCESS) return false;
      processed = 0;
    }
    return true;
  };
  while (!stop_.load()) {
    std::this_thread::sleep_for(kDecodePeriod);
    if (!decode()) break;
  }
  auto stop = Params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  stop.pPmSamplingObject = sampler;
  api_.PmSamplingStop(&stop);
  decode();  // what the hardware buffered before Stop
  disable();
}

}  // namespace ampscope::collector

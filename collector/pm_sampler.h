// Tensor Core activity through CUPTI PM sampling (--tensor-metrics).
//
// Samples sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed (Nsight
// Systems' "Tensor Active") for the device of the first CUDA context, on its own thread, and
// stores each sample as the counter "tensor_active_pct" (time = sample midpoint, CUPTI clock).
// Hardware counters are exclusive and often restricted: any failure is a warning that says
// why, and the recording goes on without them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "collector/cupti_api.h"

namespace ampscope::collector {

class Session;

inline constexpr const char* kTensorActiveMetric = "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kTensorActiveCounter = "tensor_active_pct";

class PmSampler {
 public:
  PmSampler(const CuptiApi& api, Session& session, CUcontext context, uint32_t interval_ns);
  ~PmSampler();
  void Start();
  void Stop();  // idempotent; joins the thread

 private:
  void Run();
  bool Check(CUptiResult r, const char* what);
  // The configuration image of the Tensor Active metric (`metrics`) for the host object; false
  // (after a warning) when CUPTI refuses a step.
  bool ConfigImage(CUpti_Profiler_Host_Object* host_object, const char** metrics, std::vector<uint8_t>* config);

  const CuptiApi& api_;
  Session& session_;
  CUcontext context_;
  uint32_t interval_ns_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace ampscope::collector

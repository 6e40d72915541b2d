#include "collector/cupti_advice.h"

namespace ampscope::collector {

std::string CuptiErrorFix(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "GPU performance counters are restricted to admin users: run as root, or load the NVIDIA driver with "
             "NVreg_RestrictProfilingToAdminUsers=0 (a line 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' "
             "in /etc/modprobe.d/, then reboot); in a container also add --cap-add=SYS_ADMIN";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another profiler owns CUPTI in this process (torch.profiler, Nsight Systems, a CUPTI-based tracer): "
             "stop it for this run, or use its trace with 'ampscope analyze'";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return "another tool holds the GPU's performance counters (nsys --gpu-metrics, ncu, DCGM profiling): stop it "
             "for this run";
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_UNKNOWN:
    case CUPTI_ERROR_INVALID_DEVICE:
      return "no usable NVIDIA driver or GPU in this process: check that nvidia-smi works and CUDA_VISIBLE_DEVICES "
             "names a GPU ('ampscope doctor' checks the setup)";
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE:
      return "this libcupti does not match the driver or CUDA runtime: use the CUPTI of the CUDA the program uses "
             "(set AMPSCOPE_CUPTI_PATH to it)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return "this GPU or driver does not support this kind of profiling with this libcupti: update the driver, or "
             "use a CUPTI that supports the GPU (AMPSCOPE_CUPTI_PATH)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "CUPTI does not support this virtual GPU (vGPU) profile: profile on a bare-metal or passthrough GPU";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "CUPTI does not support this on a MIG slice: profile on a whole GPU";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "profiling is disabled on a GPU in confidential-computing mode";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "CUPTI does not support NVIDIA CMP (mining) GPUs";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return "CUPTI does not support this under WSL: profile on native Linux";
    case CUPTI_ERROR_OUT_OF_MEMORY:
      return "out of host memory: lower AMPSCOPE_BUFFER_MB or AMPSCOPE_MAX_BUFFERS";
    default:
      return "";
  }
}

std::string CuptiErrorWithFix(CUptiResult r, const std::string& name) {
  std::string fix = CuptiErrorFix(r);
  return fix.empty() ? name : name + " (" + fix + ")";
}

}  // namespace ampscope::collector

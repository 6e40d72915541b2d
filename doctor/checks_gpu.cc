// The NVIDIA side: driver, CUDA driver API and GPUs, runtime, toolkit, CUPTI, counters.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/tensor_cores.h"
#include "doctor/checks.h"

namespace ampscope::doctor {

namespace {

// C ABI of the few driver, runtime and CUPTI entry points used (cuda.h, cuda_runtime_api.h,
// cupti.h): results are enums that are 0 on success; CUdevice is an int.
using CuInitFn = int (*)(unsigned int);
using CuDriverGetVersionFn = int (*)(int*);
using CuDeviceGetCountFn = int (*)(int*);
using CuDeviceGetFn = int (*)(int*, int);
using CuDeviceGetNameFn = int (*)(char*, int, int);
using CuDeviceGetAttributeFn = int (*)(int*, int, int);
using CudaRuntimeGetVersionFn = int (*)(int*);
using CuptiGetVersionFn = int (*)(uint32_t*);
constexpr int kCuDeviceAttributeComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kCuDeviceAttributeComputeCapabilityMinor = 76;
constexpr int kCudaErrorNoDevice = 100;  // CUDA_ERROR_NO_DEVICE

template <typename Fn>
Fn Symbol(const DoctorEnvironment& env, void* handle, const char* name) {
  return handle == nullptr ? nullptr : reinterpret_cast<Fn>(env.find_symbol(handle, name));
}

// "12040" -> "12.4" (CUDA's encoding: 1000 * major + 10 * minor).
std::string CudaVersionText(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

std::string ParseDriverVersion(const std::string& text) {
  std::istringstream in(text.substr(0, text.find('\n')));
  std::string token;
  bool after_module = false;
  while (in >> token) {
    if (token == "Module") after_module = true;
    if (!after_module) continue;
    // The first token that looks like 550.54.15 or 535.104.05 (digits and dots, a dot inside).
    if (token.find('.') != std::string::npos && token.find_first_not_of("0123456789.") == std::string::npos &&
        token.front() != '.' && token.back() != '.')
      return token;
  }
  return "";
}

std::vector<std::string> TensorCorePrecisions(int major, int minor) {
  const int cc = major * 10 + minor;
  std::vector<std::string> p;
  if (cc >= 70) p.push_back("fp16");
  if (HasBf16TensorCores(major)) {
    p.push_back("bf16");
    p.push_back("tf32");
  }
  if (cc >= 89) p.push_back("fp8");
  return p;
}

void CheckDriver(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out) {
  std::string text;
  if (!ReadText(env, "/proc/driver/nvidia/version", &text)) {
    out.push_back({"driver", CheckStatus::kWarn, "no NVIDIA driver loaded (/proc/driver/nvidia/version is missing)",
                   "install the NVIDIA driver and check nvidia-smi; without it 'ampscope record' records NVTX only, "
                   "'ampscope analyze' works on traces from elsewhere"});
    return;
  }
  facts.driver_version = ParseDriverVersion(text);
  if (facts.driver_version.empty()) {
    out.push_back({"driver", CheckStatus::kWarn, "unreadable /proc/driver/nvidia/version: " + text.substr(0, 80),
                   "check the driver with nvidia-smi"});
    return;
  }
  out.push_back({"driver", CheckStatus::kPass, facts.driver_version, ""});
}

void CheckGpus(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out) {
  void* cuda = env.open_library("libcuda.so.1");
  auto init = Symbol<CuInitFn>(env, cuda, "cuInit");
  auto count_fn = Symbol<CuDeviceGetCountFn>(env, cuda, "cuDeviceGetCount");
  if (init == nullptr || count_fn == nullptr) {
    out.push_back({"cuda_driver_api", CheckStatus::kWarn, "libcuda.so.1 not found: no GPU is usable here",
                   "install the NVIDIA driver (it provides libcuda.so.1); in a container, run it with the NVIDIA "
                   "container toolkit (--gpus all)"});
    return;
  }
  int version = 0;
  if (auto v = Symbol<CuDriverGetVersionFn>(env, cuda, "cuDriverGetVersion"); v != nullptr && v(&version) == 0)
    facts.driver_cuda_version = CudaVersionText(version);
  const int rc = init(0);
  int count = 0;
  if (rc != 0 || count_fn(&count) != 0) {
    out.push_back({"cuda_driver_api", CheckStatus::kWarn,
                   "cuInit failed with CUDA error " + std::to_string(rc) +
                       (rc == kCudaErrorNoDevice ? " (no CUDA-capable device)" : ""),
                   "check nvidia-smi and CUDA_VISIBLE_DEVICES (it may hide every GPU)"});
    return;
  }
  out.push_back({"cuda_driver_api", CheckStatus::kPass,
                 "CUDA " + (facts.driver_cuda_version.empty() ? std::string("?") : facts.driver_cuda_version) +
                     " driver API (" + (version ? std::to_string(version) : std::string("?")) + "), " +
                     std::to_string(count) + " GPU(s)",
                 ""});
  auto get = Symbol<CuDeviceGetFn>(env, cuda, "cuDeviceGet");
  auto name_fn = Symbol<CuDeviceGetNameFn>(env, cuda, "cuDeviceGetName");
  auto attr = Symbol<CuDeviceGetAttributeFn>(env, cuda, "cuDeviceGetAttribute");
  for (int i = 0; i < count && i < 64; ++i) {
    int dev = 0, major = 0, minor = 0;
    char name[256] = "unknown GPU";
    if (get == nullptr || get(&dev, i) != 0) continue;
    if (name_fn != nullptr) name_fn(name, sizeof(name), dev);
    name[sizeof(name) - 1] = '\0';
    if (attr != nullptr) {
      attr(&major, kCuDeviceAttributeComputeCapabilityMajor, dev);
      attr(&minor, kCuDeviceAttributeComputeCapabilityMinor, dev);
    }
    facts.gpu_cc.push_back(major * 10 + minor);
    const std::vector<std::string> tc = TensorCorePrecisions(major, minor);
    std::string value = std::string(name) + ", sm" + std::to_string(major) + std::to_string(minor) + ", Tensor Cores: ";
    for (size_t k = 0; k < tc.size(); ++k) value += (k ? " " : "") + tc[k];
    if (tc.empty()) value += "none";
    if (tc.empty())
      out.push_back({"gpu." + std::to_string(i), CheckStatus::kWarn, value,
                     "this GPU has no Tensor Cores (before sm70): mixed precision saves memory but not math time"});
    else
      out.push_back({"gpu." + std::to_string(i), CheckStatus::kPass, value, ""});
  }
}

void CheckCudaRuntime(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  for (const std::string& lib : {std::string("libcudart.so.13"), std::string("libcudart.so.12"),
                                 std::string("libcudart.so.11.0"), std::string("libcudart.so"),
                                 env.root + "/usr/local/cuda/lib64/libcudart.so"}) {
    void* h = env.open_library(lib);
    auto v = Symbol<CudaRuntimeGetVersionFn>(env, h, "cudaRuntimeGetVersion");
    int version = 0;
    if (v != nullptr && v(&version) == 0) {
      out.push_back({"cuda_runtime", CheckStatus::kPass, CudaVersionText(version) + " (" + lib + ")", ""});
      return;
    }
  }
  out.push_back({"cuda_runtime", CheckStatus::kWarn, "no libcudart on the loader's path",
                 "fine for PyTorch wheels, which bring their own; for C++ programs install the CUDA toolkit or add "
                 "its lib64/ to LD_LIBRARY_PATH"});
}

void CheckCudaToolkit(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  std::string home = env.getenv("CUDA_HOME");
  for (const std::string& dir : {home, std::string("/usr/local/cuda")}) {
    if (dir.empty()) continue;
    std::string text;
    if (!ReadText(env, dir + "/version.json", &text)) continue;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const nlohmann::json* v = j.is_object() && j.contains("cuda") && j["cuda"].is_object() && j["cuda"].contains("version")
                                  ? &j["cuda"]["version"]
                                  : nullptr;
    if (v != nullptr && v->is_string()) {
      out.push_back({"cuda_toolkit", CheckStatus::kPass, v->get<std::string>() + " at " + dir, ""});
      return;
    }
  }
  // Toolkits assembled from NVIDIA's wheels have no version.json; cuda.h always says its version.
  for (const std::string& dir : {home, std::string("/usr/local/cuda")}) {
    std::string header;
    if (dir.empty() || !ReadText(env, dir + "/include/cuda.h", &header)) continue;
    const size_t at = header.find("#define CUDA_VERSION ");
    if (at == std::string::npos) continue;
    const int version = std::atoi(header.c_str() + at + sizeof("#define CUDA_VERSION ") - 1);
    if (version <= 0) continue;
    out.push_back({"cuda_toolkit", CheckStatus::kPass, CudaVersionText(version) + " at " + dir + " (include/cuda.h)", ""});
    return;
  }
  out.push_back({"cuda_toolkit", CheckStatus::kWarn, "no CUDA toolkit at $CUDA_HOME or /usr/local/cuda",
                 "needed to build ampscope's collector (CUPTI headers); install the CUDA 13 toolkit, or set CUDA_HOME"});
}

void CheckCupti(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  std::vector<std::string> candidates;
  if (std::string p = env.getenv("AMPSCOPE_CUPTI_PATH"); !p.empty()) candidates.push_back(p);
  candidates.push_back("libcupti.so.13");
  candidates.push_back(env.root + "/usr/local/cuda/lib64/libcupti.so.13");
  candidates.push_back(env.root + "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  for (const std::string& lib : candidates) {
    void* h = env.open_library(lib);
    auto v = Symbol<CuptiGetVersionFn>(env, h, "cuptiGetVersion");
    uint32_t version = 0;
    if (v == nullptr || v(&version) != 0) continue;
    // The collector reads CUDA 13's record structs: CUPTI API 13.x (130001 = 13.0, patch 1).
    if (version / 10000 != 13) {
      out.push_back({"cupti", CheckStatus::kFail, "API version " + std::to_string(version) + " (" + lib + ")",
                     "the collector needs CUPTI 13 (CUDA 13): set AMPSCOPE_CUPTI_PATH to a CUDA 13 libcupti.so.13"});
      return;
    }
    out.push_back({"cupti", CheckStatus::kPass, "API version " + std::to_string(version) + " (" + lib + ")", ""});
    return;
  }
  out.push_back({"cupti", CheckStatus::kWarn, "libcupti.so.13 not found",
                 "install the CUDA 13 toolkit, or point AMPSCOPE_CUPTI_PATH at the PyTorch wheel's "
                 "nvidia/cuda_cupti/lib/libcupti.so.13"});
}

void CheckProfilingCounters(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  std::string text;
  if (!ReadText(env, "/proc/driver/nvidia/params", &text)) {
    out.push_back({"profiling_counters", CheckStatus::kWarn, "unknown: no /proc/driver/nvidia/params (no driver)",
                   "with a driver, GPU counters (--tensor-metrics) may need NVreg_RestrictProfilingToAdminUsers=0"});
    return;
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("RmProfilingAdminOnly:", 0) != 0) continue;
    const bool admin_only = line.find('1', sizeof("RmProfilingAdminOnly:") - 1) != std::string::npos;
    if (!admin_only) {
      out.push_back({"profiling_counters", CheckStatus::kPass, "open to all users (RmProfilingAdminOnly: 0)", ""});
    } else if (env.is_root) {
      out.push_back({"profiling_counters", CheckStatus::kPass, "admin only (RmProfilingAdminOnly: 1), running as root", ""});
    } else {
      out.push_back({"profiling_counters", CheckStatus::kWarn, "admin only (RmProfilingAdminOnly: 1)",
                     "--tensor-metrics needs GPU counters: run as root, or load the driver with "
                     "NVreg_RestrictProfilingToAdminUsers=0 ('options nvidia NVreg_RestrictProfilingToAdminUsers=0' "
                     "in /etc/modprobe.d/, then reboot)"});
    }
    return;
  }
  out.push_back({"profiling_counters", CheckStatus::kWarn, "unknown: RmProfilingAdminOnly not in /proc/driver/nvidia/params",
                 "if --tensor-metrics reports CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, set NVreg_RestrictProfilingToAdminUsers=0"});
}

}  // namespace ampscope::doctor

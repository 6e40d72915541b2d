// ampscope doctor's checks through an injected environment: a temporary root with a fake
// /proc/driver/nvidia/version and params, fake driver/runtime/CUPTI entry points (CUPTI's is the
// collector tests' fake CUPTI when it is built), and a fake command runner for python3 and the
// self-test children. Expected values: the driver string is the real first line of a 550.54.15
// driver's /proc file; compute capabilities and Tensor Core precisions per NVIDIA's CUDA C++
// Programming Guide (sm70 fp16, sm80 bf16/tf32, sm89 fp8); cuDriverGetVersion 12040 = CUDA 12.4.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <map>

#include "doctor/doctor.h"
#include "support/test_support.h"
#if AMPSCOPE_TEST_HAVE_FAKE_CUPTI
#include "collector/fake_cupti.h"
#endif

namespace ampscope {
namespace doctor_test {
namespace {

using doctor::CheckStatus;
using doctor::DoctorCheck;

constexpr const char* kProcVersion =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

void Write(const std::string& path, const std::string& text) {
  std::string dir = path.substr(0, path.rfind('/'));
  for (size_t pos = 1; (pos = dir.find('/', pos)) != std::string::npos; ++pos) mkdir(dir.substr(0, pos).c_str(), 0755);
  mkdir(dir.c_str(), 0755);
  testing::WriteFile(path, text);
}

// Two GPUs: an H100 (sm90) and a V100 (sm70).
int FakeCuInit(unsigned int) { return 0; }
int FakeDriverVersion(int* v) { *v = 12040; return 0; }
int FakeDeviceCount(int* n) { *n = 2; return 0; }
int FakeDeviceGet(int* d, int ordinal) { *d = ordinal; return 0; }
int FakeDeviceName(char* name, int len, int dev) {
  std::snprintf(name, static_cast<size_t>(len), "%s", dev == 0 ? "NVIDIA H100 80GB HBM3" : "Tesla V100-SXM2-32GB");
  return 0;
}
int FakeDeviceAttribute(int* v, int attr, int dev) {
  *v = attr == 75 ? (dev == 0 ? 9 : 7) : 0;
  return 0;
}
int FakeRuntimeVersion(int* v) { *v = 13000; return 0; }
int FakeNoDevice(unsigned int) { return 100; }  // CUDA_ERROR_NO_DEVICE
#if AMPSCOPE_TEST_HAVE_FAKE_CUPTI
// cuptiGetVersion with the C ABI the doctor calls (int result), answered by the fake CUPTI.
const collector::CuptiApi* g_fake_cupti = nullptr;
int FakeCuptiVersion(uint32_t* v) { return static_cast<int>(g_fake_cupti->GetVersion(v)); }
#else
int FakeCuptiVersion(uint32_t* v) { *v = 130001; return 0; }
#endif

struct Fake {
  std::string root = testing::MakeTempDir("doctor");
  std::map<std::string, std::map<std::string, void*>> libraries;  // name -> symbols
  std::string python_answer;  // first stdout line of the torch probe; "" = python3 missing
  bool nvtx_records = true;
#if AMPSCOPE_TEST_HAVE_FAKE_CUPTI
  testing::FakeCupti cupti;
#endif

  Fake() {
    libraries["libcuda.so.1"] = {{"cuInit", reinterpret_cast<void*>(&FakeCuInit)},
                                 {"cuDriverGetVersion", reinterpret_cast<void*>(&FakeDriverVersion)},
                                 {"cuDeviceGetCount", reinterpret_cast<void*>(&FakeDeviceCount)},
                                 {"cuDeviceGet", reinterpret_cast<void*>(&FakeDeviceGet)},
                                 {"cuDeviceGetName", reinterpret_cast<void*>(&FakeDeviceName)},
                                 {"cuDeviceGetAttribute", reinterpret_cast<void*>(&FakeDeviceAttribute)}};
    libraries["libcudart.so.13"] = {{"cudaRuntimeGetVersion", reinterpret_cast<void*>(&FakeRuntimeVersion)}};
#if AMPSCOPE_TEST_HAVE_FAKE_CUPTI
    g_fake_cupti = &cupti.api;
#endif
    libraries["libcupti.so.13"] = {{"cuptiGetVersion", reinterpret_cast<void*>(&FakeCuptiVersion)}};
    Write(root + "/proc/driver/nvidia/version", kProcVersion);
    Write(root + "/proc/driver/nvidia/params", "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n");
    Write(root + "/usr/local/cuda/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "13.0.88"}})");
    python_answer = R"({"version": "2.5.1+cu124", "cuda": "12.4", "cudnn": 90100, "matmul_tf32": false,)"
                    R"( "cudnn_tf32": true, "available": true})";
  }

  doctor::DoctorEnvironment Env() {
    doctor::DoctorEnvironment env;
    env.root = root;
    env.open_library = [this](const std::string& name) -> void* {
      auto it = libraries.find(name);
      return it == libraries.end() ? nullptr : &it->second;
    };
    env.find_symbol = [](void* handle, const char* symbol) -> void* {
      auto* symbols = static_cast<std::map<std::string, void*>*>(handle);
      auto it = symbols->find(symbol);
      return it == symbols->end() ? nullptr : it->second;
    };
    env.run = [this](const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& vars,
                     int) {
      doctor::CommandOutput r;
      if (argv[0] == "python3") {
        r.started = !python_answer.empty();
        r.exit_code = 0;
        r.out = python_answer + "\n";
      } else if (argv.size() >= 3 && argv[2] == "--self-test=load") {
        r.started = true;
        r.exit_code = 0;
      } else if (argv.size() >= 3 && argv[2] == "--self-test=nvtx") {
        r.started = true;
        r.exit_code = 0;
        // What the collector writes: an .amptrace whose strings hold the range name.
        for (const auto& [name, value] : vars)
          if (name == "AMPSCOPE_OUTPUT_DIR" && nvtx_records)
            testing::WriteFile(value + "/host.1.amptrace", std::string("AMPTRACE....") + doctor::kSelfTestRange);
      }
      return r;
    };
    env.getenv = [](const char*) { return std::string(); };
    env.self_exe = "/opt/ampscope/bin/ampscope";
    env.inject_library = "/opt/ampscope/lib/libampscope_inject.so";
    env.temp_dir = root;
    return env;
  }
};

const DoctorCheck& Get(const std::vector<DoctorCheck>& checks, const std::string& id) {
  for (const DoctorCheck& c : checks)
    if (c.id == id) return c;
  static const DoctorCheck missing{"missing", CheckStatus::kFail, "no such check", ""};
  ADD_FAILURE() << "no check " << id;
  return missing;
}

TEST(DoctorTest, AGpuMachineWithEverything) {
  Fake fake;
  auto checks = doctor::RunDoctor(fake.Env());
  EXPECT_EQ(Get(checks, "driver").value, "550.54.15");  // not the API number 12040
  EXPECT_EQ(Get(checks, "driver").status, CheckStatus::kPass);
  EXPECT_NE(Get(checks, "cuda_driver_api").value.find("CUDA 12.4 driver API (12040), 2 GPU(s)"), std::string::npos);
  EXPECT_EQ(Get(checks, "gpu.0").value, "NVIDIA H100 80GB HBM3, sm90, Tensor Cores: fp16 bf16 tf32 fp8");
  EXPECT_EQ(Get(checks, "gpu.1").value, "Tesla V100-SXM2-32GB, sm70, Tensor Cores: fp16");
  EXPECT_EQ(Get(checks, "cuda_runtime").value, "13.0 (libcudart.so.13)");
  EXPECT_EQ(Get(checks, "cuda_toolkit").value, "13.0.88 at /usr/local/cuda");
#if AMPSCOPE_TEST_HAVE_FAKE_CUPTI
  EXPECT_EQ(Get(checks, "cupti").value, "API version " + std::to_string(CUPTI_API_VERSION) + " (libcupti.so.13)");
#endif
  EXPECT_EQ(Get(checks, "cupti").status, CheckStatus::kPass);
  const DoctorCheck& counters = Get(checks, "profiling_counters");
  EXPECT_EQ(counters.status, CheckStatus::kWarn);
  EXPECT_NE(counters.fix.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_EQ(Get(checks, "injection_library").status, CheckStatus::kPass);
  EXPECT_EQ(Get(checks, "nvtx_injection").status, CheckStatus::kPass);
  EXPECT_EQ(Get(checks, "pytorch").value, "2.5.1+cu124 in python3, CUDA 12.4, cuDNN 90100, GPU available");
  const DoctorCheck& tf32 = Get(checks, "tf32");
  EXPECT_EQ(tf32.status, CheckStatus::kWarn);  // an sm90 GPU and allow_tf32 False
  EXPECT_NE(tf32.fix.find("set_float32_matmul_precision('high')"), std::string::npos);
  EXPECT_EQ(doctor::DoctorExitCode(checks), 0);
}

TEST(DoctorTest, RootMayReadCountersAndTf32OnPasses) {
  Fake fake;
  fake.python_answer = R"({"version": "2.5.1", "cuda": "12.4", "cudnn": null, "matmul_tf32": true, "cudnn_tf32": true, "available": true})";
  auto env = fake.Env();
  env.is_root = true;
  auto checks = doctor::RunDoctor(env);
  EXPECT_EQ(Get(checks, "profiling_counters").status, CheckStatus::kPass);
  EXPECT_EQ(Get(checks, "tf32").status, CheckStatus::kPass);
}

TEST(DoctorTest, AMachineWithoutDriverOrGpuWarnsAndExitsZero) {
  Fake fake;
  fake.libraries.clear();
  std::remove((fake.root + "/proc/driver/nvidia/version").c_str());
  std::remove((fake.root + "/proc/driver/nvidia/params").c_str());
  fake.python_answer = R"({"error": "ModuleNotFoundError: No module named 'torch'"})";
  auto checks = doctor::RunDoctor(fake.Env());
  for (const char* id : {"driver", "cuda_driver_api", "cuda_runtime", "cupti", "profiling_counters", "pytorch", "tf32"})
    EXPECT_EQ(Get(checks, id).status, CheckStatus::kWarn) << id;
  EXPECT_NE(Get(checks, "driver").value.find("no NVIDIA driver"), std::string::npos);
  EXPECT_EQ(doctor::DoctorExitCode(checks), 0);
  for (const DoctorCheck& c : checks) EXPECT_EQ(c.id.rfind("gpu.", 0), std::string::npos) << "no GPU was visible";
}

TEST(DoctorTest, AToolkitWithoutVersionJsonIsReadFromCudaH) {
  Fake fake;
  std::remove((fake.root + "/usr/local/cuda/version.json").c_str());
  Write(fake.root + "/usr/local/cuda/include/cuda.h", "#pragma once\n#define CUDA_VERSION 13000\n");
  EXPECT_EQ(Get(doctor::RunDoctor(fake.Env()), "cuda_toolkit").value, "13.0 at /usr/local/cuda (include/cuda.h)");
}

TEST(DoctorTest, CuInitFailingIsAWarningNamingTheError) {
  Fake fake;
  fake.libraries["libcuda.so.1"]["cuInit"] = reinterpret_cast<void*>(&FakeNoDevice);
  auto checks = doctor::RunDoctor(fake.Env());
  EXPECT_EQ(Get(checks, "cuda_driver_api").status, CheckStatus::kWarn);
  EXPECT_NE(Get(checks, "cuda_driver_api").value.find("no CUDA-capable device"), std::string::npos);
}

TEST(DoctorTest, ABrokenInjectionLibraryFails) {
  Fake fake;
  auto env = fake.Env();
  env.run = [](const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>&, int) {
    doctor::CommandOutput r;
    r.started = true;
    r.exit_code = argv.size() >= 3 && argv[2] == "--self-test=load" ? 1 : 0;
    r.out = "libampscope_inject.so: undefined symbol: __asan_init\n";
    return r;
  };
  auto checks = doctor::RunDoctor(env);
  EXPECT_EQ(Get(checks, "injection_library").status, CheckStatus::kFail);
  EXPECT_NE(Get(checks, "injection_library").value.find("undefined symbol"), std::string::npos);
  EXPECT_EQ(doctor::DoctorExitCode(checks), 1);
}

TEST(DoctorTest, NvtxInjectionThatRecordsNothingFails) {
  Fake fake;
  fake.nvtx_records = false;
  auto checks = doctor::RunDoctor(fake.Env());
  EXPECT_EQ(Get(checks, "nvtx_injection").status, CheckStatus::kFail);
}

TEST(DoctorTest, JsonHasTheContractFields) {
  Fake fake;
  auto json = doctor::DoctorToJson(doctor::RunDoctor(fake.Env()));
  ASSERT_TRUE(json["checks"].is_array());
  for (const auto& c : json["checks"]) {
    for (const char* key : {"id", "status", "value", "fix"}) EXPECT_TRUE(c[key].is_string()) << key;
    const std::string s = c["status"];
    EXPECT_TRUE(s == "pass" || s == "warn" || s == "fail") << s;
  }
}

TEST(DoctorTest, DriverVersionFromBothKernelModuleFlavours) {
  EXPECT_EQ(doctor::ParseDriverVersion(kProcVersion), "550.54.15");
  // The open kernel module's first line (r535 and later).
  EXPECT_EQ(doctor::ParseDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  "
                                       "Release Build  (dvs-builder@U16-T02-35-3)  Sat Aug 19 01:13:41 UTC 2023"),
            "535.104.05");
  EXPECT_EQ(doctor::ParseDriverVersion("garbage"), "");
}

TEST(DoctorTest, TensorCorePrecisionsByArchitecture) {
  EXPECT_TRUE(doctor::TensorCorePrecisions(6, 1).empty());                                        // Pascal
  EXPECT_EQ(doctor::TensorCorePrecisions(7, 5), (std::vector<std::string>{"fp16"}));             // Turing
  EXPECT_EQ(doctor::TensorCorePrecisions(8, 6), (std::vector<std::string>{"fp16", "bf16", "tf32"}));  // Ampere
  EXPECT_EQ(doctor::TensorCorePrecisions(8, 9), (std::vector<std::string>{"fp16", "bf16", "tf32", "fp8"}));  // Ada
  EXPECT_EQ(doctor::TensorCorePrecisions(10, 0), (std::vector<std::string>{"fp16", "bf16", "tf32", "fp8"}));  // Blackwell
}

}  // namespace
}  // namespace doctor_test
}  // namespace ampscope

namespace ampscope {
namespace doctor_test {
namespace {

// Issue 36: `record` cannot run without the injection library, so its absence fails the doctor
// (exit 1); and the text fits the terminal: no line wider than it, however long the paths.
TEST(DoctorTest, AMissingInjectionLibraryIsAFailedCheck) {
  Fake fake;
  auto env = fake.Env();
  env.inject_library.clear();
  env.inject_searched = "/very/long/prefix/that/a/build/tree/has/bin/libampscope_inject.so, "
                        "/very/long/prefix/that/a/build/tree/has/bin/../collector/libampscope_inject.so, "
                        "/very/long/prefix/that/a/build/tree/has/bin/../lib/ampscope/libampscope_inject.so";
  const auto checks = doctor::RunDoctor(env);
  EXPECT_EQ(Get(checks, "injection_library").status, CheckStatus::kFail);
  EXPECT_EQ(doctor::DoctorExitCode(checks), 1);
  for (size_t width : {60u, 80u, 120u}) {
    const std::string text = doctor::FormatDoctorText(checks, width);
    size_t start = 0, longest = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; start = nl + 1, nl = text.find('\n', start))
      longest = std::max(longest, nl - start);
    EXPECT_LE(longest, width) << text;
    // Every word of the value is still there (wrapped, not cut): the last path's end.
    EXPECT_NE(text.find("libampscope_inject.so"), std::string::npos);
    EXPECT_NE(text.find("fail  injection_library"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace doctor_test
}  // namespace ampscope

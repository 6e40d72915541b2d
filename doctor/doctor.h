// `ampscope doctor`: is this machine ready to record and analyse AMP training? One check per
// line (driver, CUDA runtime and toolkit, CUPTI, each GPU and its Tensor Core precisions,
// profiling-counter permission, the injection library and NVTX injection, PyTorch / LibTorch and
// their CUDA, the TF32 setting), each pass / warn / fail with the value found and the fix.
//
// Everything the checks look at goes through DoctorEnvironment: the filesystem root (for /proc,
// /usr/local/cuda ...), a dlopen/dlsym table, a command runner and the environment. Tests point
// them at a temporary directory with a fake /proc/driver/nvidia/version and fake libraries, so
// the GPU paths are covered on a machine without a GPU. No CUDA or CUPTI header is included:
// the few entry points are declared here with their C ABI (int results, 0 = success).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::doctor {

enum class CheckStatus { kPass, kWarn, kFail };
const char* CheckStatusName(CheckStatus s);  // "pass" | "warn" | "fail"

struct DoctorCheck {
  std::string id;     // stable: "driver", "cuda_runtime", "gpu.0", "cupti", ...
  CheckStatus status = CheckStatus::kPass;
  std::string value;  // what was found, e.g. "550.54.15"
  std::string fix;    // what to do about a warn/fail (empty on pass)
};

struct CommandOutput {
  bool started = false;   // false: the program could not be run
  bool timed_out = false;
  int exit_code = -1;
  std::string out;        // stdout (stderr is discarded)
};

struct DoctorEnvironment {
  // Prefix for every absolute path a check reads ("" = this machine).
  std::string root;
  // dlopen / dlsym / dlerror. Library names are passed as given ("libcuda.so.1") or as
  // absolute paths under `root`.
  std::function<void*(const std::string& name)> open_library;
  std::function<void*(void* handle, const char* symbol)> find_symbol;
  // Runs argv (no shell) with extra environment variables, killing it after timeout_ms.
  std::function<CommandOutput(const std::vector<std::string>& argv,
                              const std::vector<std::pair<std::string, std::string>>& env, int timeout_ms)>
      run;
  std::function<std::string(const char* name)> getenv;  // "" when unset
  bool is_root = false;           // profiling counters are always allowed for root
  std::string self_exe;           // this ampscope binary: runs the self-test children
  std::string inject_library;     // libampscope_inject.so, "" when not found
  std::string inject_searched;    // where it was looked for
  std::string temp_dir;           // where the NVTX self-test may write (created and removed)
};

// The environment of this process: the real filesystem, dlopen, fork/exec.
DoctorEnvironment RealEnvironment();

// All checks, in a fixed order.
std::vector<DoctorCheck> RunDoctor(const DoctorEnvironment& env);

// {"checks": [{"id", "status", "value", "fix"}], "summary": {"pass": n, "warn": n, "fail": n}}
nlohmann::json DoctorToJson(const std::vector<DoctorCheck>& checks);
// One line per check, plus its fix on the next line when there is one; every line at most
// `width` columns (values and fixes wrap under their column; a path longer than the line is
// broken after a '/').
std::string FormatDoctorText(const std::vector<DoctorCheck>& checks, size_t width = 100);
// 0 when no check failed, 1 when one did.
int DoctorExitCode(const std::vector<DoctorCheck>& checks);

// The self-test children (`ampscope doctor --self-test=...` runs them in a child process):
// load the injection library and look up its two entry points; open and close an NVTX range
// named kSelfTestRange. Return the child's exit code (0 ok).
inline constexpr const char* kSelfTestRange = "ampscope_doctor_self_test";
int SelfTestLoadLibrary(const std::string& path);
int SelfTestNvtxRange();

// Tensor Core precisions of compute capability major.minor: "fp16" from sm70, "bf16" and
// "tf32" from sm80, "fp8" from sm89 (NVIDIA's CUDA C++ Programming Guide, "Warp Matrix
// Functions" and the Ada/Hopper tuning guides).
std::vector<std::string> TensorCorePrecisions(int major, int minor);

// The driver version in /proc/driver/nvidia/version's first line ("... Kernel Module  550.54.15
// ..."), or "" when it has none.
std::string ParseDriverVersion(const std::string& proc_version_text);

}  // namespace ampscope::doctor

// The host side: the injection library and NVTX injection (self-tests in child processes),
// PyTorch and LibTorch with their CUDA, and the TF32 hint.
#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/tensor_cores.h"
#include "doctor/checks.h"

namespace ampscope::doctor {

namespace {

constexpr int kSelfTestTimeoutMs = 20000;
constexpr int kPythonTimeoutMs = 60000;  // importing torch can take many seconds on a cold disk

// Prints one JSON line about the torch in this interpreter.
constexpr const char* kTorchProbe = R"(import json, sys
try:
    import torch
except Exception as e:
    print(json.dumps({"error": type(e).__name__ + ": " + str(e)}))
    sys.exit(0)
d = {"version": torch.__version__, "cuda": torch.version.cuda, "cudnn": None,
     "matmul_tf32": None, "cudnn_tf32": None, "available": False}
try:
    d["cudnn"] = torch.backends.cudnn.version()
    d["matmul_tf32"] = bool(torch.backends.cuda.matmul.allow_tf32)
    d["cudnn_tf32"] = bool(torch.backends.cudnn.allow_tf32)
    d["available"] = bool(torch.cuda.is_available())
except Exception:
    pass
print(json.dumps(d))
)";

// The .amptrace files in `dir`, removing them (and `dir`) afterwards is the caller's job.
std::vector<std::string> AmptraceFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 9 && n.compare(n.size() - 9, 9, ".amptrace") == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

bool ReadText(const DoctorEnvironment& env, const std::string& path, std::string* text) {
  std::ifstream in(env.root + path, std::ios::binary);
  if (!in) return false;
  text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

void CheckInjection(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  if (env.inject_library.empty()) {
    // A failure, not a warning: `record` cannot run without it.
    out.push_back({"injection_library", CheckStatus::kFail, "libampscope_inject.so not found (looked at " +
                                                              env.inject_searched + ")",
                   "build ampscope with the CUDA 13 toolkit installed (the collector needs CUPTI's headers), or set "
                   "AMPSCOPE_INJECT_PATH; 'ampscope record' needs it"});
    out.push_back({"nvtx_injection", CheckStatus::kWarn, "not tested: no injection library", ""});
    return;
  }
  CommandOutput load = env.run({env.self_exe, "doctor", "--self-test=load", env.inject_library}, {}, kSelfTestTimeoutMs);
  if (!load.started || load.timed_out || load.exit_code != 0) {
    out.push_back({"injection_library", CheckStatus::kFail,
                   env.inject_library + " does not load: " +
                       (load.timed_out ? std::string("timed out") : FirstLine(load.out)),
                   "rebuild it for this machine (same libc), or point AMPSCOPE_INJECT_PATH at a working copy"});
    out.push_back({"nvtx_injection", CheckStatus::kFail, "not tested: the injection library does not load", ""});
    return;
  }
  out.push_back({"injection_library", CheckStatus::kPass, env.inject_library, ""});

  // NVTX injection: a child opens one NVTX range with NVTX_INJECTION64_PATH set, as a training
  // program under `ampscope record` would; the collector must write it into an .amptrace file.
  std::string tmpl = (env.temp_dir.empty() ? std::string("/tmp") : env.temp_dir) + "/ampscope-doctor.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    out.push_back({"nvtx_injection", CheckStatus::kWarn, "not tested: cannot create a temporary directory", ""});
    return;
  }
  const std::string dir = tmpl;
  CommandOutput nvtx = env.run({env.self_exe, "doctor", "--self-test=nvtx"},
                               {{"NVTX_INJECTION64_PATH", env.inject_library},
                                {"AMPSCOPE_OUTPUT_DIR", dir},
                                {"AMPSCOPE_PRINT_WARNINGS", "0"}},
                               kSelfTestTimeoutMs);
  bool recorded = false;
  for (const std::string& f : AmptraceFiles(dir)) {
    const std::string bytes = Slurp(f);
    recorded |= bytes.rfind("AMPTRACE", 0) == 0 && bytes.find(kSelfTestRange) != std::string::npos;
    unlink(f.c_str());
  }
  rmdir(dir.c_str());
  if (nvtx.started && nvtx.exit_code == 3) {
    out.push_back({"nvtx_injection", CheckStatus::kWarn, "not tested: this ampscope was built without NVTX headers",
                   "build with the CUDA toolkit (it brings nvtx3) to run this self-test"});
  } else if (recorded) {
    out.push_back({"nvtx_injection", CheckStatus::kPass, "an NVTX range reached the collector and its .amptrace file", ""});
  } else {
    out.push_back({"nvtx_injection", CheckStatus::kFail,
                   "the test range was not recorded" +
                       (nvtx.timed_out ? std::string(" (timed out)") : " (child exit " + std::to_string(nvtx.exit_code) + ")"),
                   "check that AMPSCOPE_DISABLE is unset and the output directory is writable; run the self-test "
                   "by hand: NVTX_INJECTION64_PATH=" + env.inject_library + " ampscope doctor --self-test=nvtx"});
  }
}

void CheckPyTorch(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out) {
  std::string python = env.getenv("AMPSCOPE_PYTHON");
  if (python.empty()) python = "python3";
  CommandOutput r = env.run({python, "-c", kTorchProbe}, {}, kPythonTimeoutMs);
  if (!r.started) {
    out.push_back({"pytorch", CheckStatus::kWarn, python + " not found", "set AMPSCOPE_PYTHON to the interpreter that trains"});
    return;
  }
  if (r.timed_out) {
    out.push_back({"pytorch", CheckStatus::kWarn, "'import torch' took over 60 s in " + python, "run the check again"});
    return;
  }
  nlohmann::json j = nlohmann::json::parse(FirstLine(r.out), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    out.push_back({"pytorch", CheckStatus::kWarn, python + " gave no answer (exit " + std::to_string(r.exit_code) + ")",
                   "check that " + python + " runs"});
    return;
  }
  if (j.contains("error")) {
    out.push_back({"pytorch", CheckStatus::kWarn, "not installed in " + python + " (" + j.value("error", "") + ")",
                   "pip install torch (a CUDA build) in the training environment, or set AMPSCOPE_PYTHON to it"});
    return;
  }
  facts.torch_found = true;
  const std::string version = j.value("version", "?");
  facts.torch_cuda = j["cuda"].is_string() ? j["cuda"].get<std::string>() : "";
  if (j["matmul_tf32"].is_boolean()) facts.torch_matmul_tf32 = j["matmul_tf32"].get<bool>() ? 1 : 0;
  if (j["cudnn_tf32"].is_boolean()) facts.torch_cudnn_tf32 = j["cudnn_tf32"].get<bool>() ? 1 : 0;
  std::string value = version + " in " + python;
  if (facts.torch_cuda.empty()) {
    out.push_back({"pytorch", CheckStatus::kWarn, value + ", CPU-only build (torch.version.cuda is None)",
                   "install a CUDA build of PyTorch (pip install torch --index-url https://download.pytorch.org/whl/cu124)"});
    return;
  }
  value += ", CUDA " + facts.torch_cuda;
  if (j["cudnn"].is_number_integer()) value += ", cuDNN " + std::to_string(j["cudnn"].get<int64_t>());
  const bool available = j.value("available", false);
  value += available ? ", GPU available" : ", torch.cuda.is_available() is False";
  out.push_back({"pytorch", available ? CheckStatus::kPass : CheckStatus::kWarn, value,
                 available ? "" : "torch sees no GPU: check the driver (above) and CUDA_VISIBLE_DEVICES"});
}

void CheckLibTorch(const DoctorEnvironment& env, std::vector<DoctorCheck>& out) {
  // Debian's libtorch-dev, and a LibTorch named by Torch_DIR (the PyTorch wheel's, for example).
  std::vector<std::string> dirs;
  if (std::string d = env.getenv("Torch_DIR"); !d.empty()) dirs.push_back(d);
  dirs.push_back("/usr/lib/x86_64-linux-gnu/cmake/Torch");
  for (const std::string& dir : dirs) {
    std::string text;
    if (!ReadText(env, dir + "/TorchConfigVersion.cmake", &text)) continue;
    const size_t at = text.find("set(PACKAGE_VERSION \"");
    if (at == std::string::npos) continue;
    const size_t start = at + sizeof("set(PACKAGE_VERSION \"") - 1;
    const std::string version = text.substr(start, text.find('"', start) - start);
    // libtorch_cuda.so sits next to libtorch.so in a CUDA build (lib dir = cmake dir / ../..).
    std::string lib_dir = dir.substr(0, dir.rfind("/cmake/"));
    if (lib_dir == dir) lib_dir = dir + "/../../../lib";
    std::string ignored;
    const bool cuda = ReadText(env, lib_dir + "/libtorch_cuda.so", &ignored);
    if (cuda)
      out.push_back({"libtorch", CheckStatus::kPass, version + " with CUDA (" + dir + ")", ""});
    else
      out.push_back({"libtorch", CheckStatus::kWarn, version + ", CPU only (" + dir + ")",
                     "fine for the CPU example and tests; for GPU training point Torch_DIR at the PyTorch wheel's "
                     "LibTorch (python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"});
    return;
  }
  out.push_back({"libtorch", CheckStatus::kWarn, "not found (no TorchConfigVersion.cmake)",
                 "only needed for the C++ example: apt-get install libtorch-dev, or set Torch_DIR"});
}

void CheckTf32(const DoctorFacts& facts, std::vector<DoctorCheck>& out) {
  bool ampere = false;
  for (int cc : facts.gpu_cc) ampere |= HasTf32TensorCores(cc / 10);
  if (!ampere) {
    out.push_back({"tf32", CheckStatus::kWarn, "unknown: no GPU with TF32 Tensor Cores (sm80+) is visible",
                   "on sm80+ GPUs FP32 matmuls can run on Tensor Cores as TF32: torch.set_float32_matmul_precision('high')"});
    return;
  }
  if (!facts.torch_found || facts.torch_matmul_tf32 < 0) {
    out.push_back({"tf32", CheckStatus::kWarn, "unknown: PyTorch's setting could not be read",
                   "FP32 matmuls outside autocast use TF32 only after torch.set_float32_matmul_precision('high')"});
    return;
  }
  if (facts.torch_matmul_tf32 == 1) {
    out.push_back({"tf32", CheckStatus::kPass, "TF32 on for matmuls (torch.backends.cuda.matmul.allow_tf32 = True)", ""});
    return;
  }
  // PyTorch >= 1.12 defaults matmul TF32 to off; cuDNN convolutions default to on.
  out.push_back({"tf32", CheckStatus::kWarn,
                 std::string("TF32 off for matmuls (allow_tf32 = False)") +
                     (facts.torch_cudnn_tf32 == 1 ? ", on for cuDNN convolutions" : ""),
                 "FP32 matmuls left outside autocast run on SIMT cores: torch.set_float32_matmul_precision('high') "
                 "(or torch.backends.cuda.matmul.allow_tf32 = True) uses TF32 Tensor Cores"});
}

}  // namespace ampscope::doctor

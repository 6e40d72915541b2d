#include "support/test_support.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ampscope::testing {

std::string SharedPath(const std::string& relative) { return std::string(AMPSCOPE_SHARED_DIR) + "/" + relative; }

const std::vector<std::string>& SharedKinetoTraceKinds() {
  static const std::vector<std::string> traces = {
      "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz",
      "traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz",
      "traces/kineto/tb_plugin/gpu_metrics_input.json",
      "traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
      "traces/kineto/hta/nccl_data.json.gz",
      "traces/kineto/hta/a100_16rank_recsys_rank0.json.gz",
      "traces/kineto/hta/sampled_rank-0.json.gz",
      "traces/kineto/hta/benchmark_result_493459_1694039959_trace.json.gz",
      "traces/kineto/hta/event_sync_trace.json.gz",
      "traces/kineto/hta/triton_example.json.gz",
      "traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
      "traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz",
      "traces/kineto/deepseek/train.json.gz",
      "traces/kineto/tracelens_mi210/gpu_only_trace.json.gz",
      "traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
  };
  return traces;
}

bool HaveShared() {
  struct stat st;
  return stat(SharedPath("traces/kineto").c_str(), &st) == 0;
}

bool InputsRequired() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string v = ci;
  return !v.empty() && v != "0" && v != "false";
}

std::string SourcePath(const std::string& relative) { return std::string(AMPSCOPE_SOURCE_DIR) + "/" + relative; }
std::string BinaryPath(const std::string& relative) { return std::string(AMPSCOPE_BINARY_DIR) + "/" + relative; }

std::string MakeTempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + prefix + ".XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return tmpl;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << contents;
}

}  // namespace ampscope::testing

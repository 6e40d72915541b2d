// `ampscope doctor` on this machine as it is: it must say that there is no driver or GPU (the
// development and CI machines have none, see shared/reference/cupti_notes.md), exit 0 with
// warnings, and still run the real injection self-tests: the library it finds must load and
// an NVTX range in a child must reach the collector.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "test_subprocess.h"
#include "support/test_support.h"

namespace ampscope {
namespace doctor_cli_test {
namespace {

using testing::BinaryPath;
using testing::RunProcess;

nlohmann::json Check(const nlohmann::json& report, const std::string& id) {
  for (const auto& c : report["checks"])
    if (c["id"] == id) return c;
  ADD_FAILURE() << "no check " << id << " in " << report.dump(2);
  return nlohmann::json::object();
}

TEST(DoctorCliTest, ThisMachineHasNoDriverButTheCollectorWorks) {
  auto r = RunProcess({BinaryPath("cli/ampscope"), "doctor", "--json"},
                      {{"AMPSCOPE_INJECT_PATH", BinaryPath("collector/libampscope_inject.so")}},
                      {"NVTX_INJECTION64_PATH", "CUDA_INJECTION64_PATH", "AMPSCOPE_DISABLE"});
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  auto report = nlohmann::json::parse(r.out);
  struct stat st;
  if (stat("/proc/driver/nvidia/version", &st) != 0) {
    EXPECT_EQ(Check(report, "driver")["status"], "warn");
    EXPECT_NE(Check(report, "driver")["value"].get<std::string>().find("no NVIDIA driver"), std::string::npos);
  }
  EXPECT_EQ(Check(report, "injection_library")["status"], "pass") << report.dump(2);
  EXPECT_EQ(Check(report, "nvtx_injection")["status"], "pass") << report.dump(2);
  EXPECT_GT(report["summary"]["warn"].get<int>() + report["summary"]["pass"].get<int>(), 5);
  // The text form says the same, one line per check.
  auto text = RunProcess({BinaryPath("cli/ampscope"), "doctor"},
                         {{"AMPSCOPE_INJECT_PATH", BinaryPath("collector/libampscope_inject.so")}});
  EXPECT_EQ(text.exit_code(), 0);
  EXPECT_NE(text.out.find("pass  nvtx_injection"), std::string::npos) << text.out;
}

TEST(DoctorCliTest, UnknownArgumentsAreAUsageError) {
  auto r = RunProcess({BinaryPath("cli/ampscope"), "doctor", "extra"});
  EXPECT_EQ(r.exit_code(), 2) << r.err;
}

}  // namespace
}  // namespace doctor_cli_test
}  // namespace ampscope

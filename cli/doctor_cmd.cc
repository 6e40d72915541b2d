// ampscope doctor [--json]: is this machine ready to record and analyse AMP training?
// The checks live in doctor/; this file parses arguments and prints.
// Exit codes: 0 no check failed (warnings allowed: a machine without a GPU still analyses
// traces), 1 a check failed, 2 usage error.
#include <unistd.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/launcher.h"
#include "cli/stdout_check.h"
#include "doctor/doctor.h"
#include "render/terminal.h"

namespace ampscope::cli {

namespace {

int RunDoctorCommand(int argc, char** argv) {
  CLI::App app{"Check this machine for ampscope: NVIDIA driver, CUDA runtime and toolkit, CUPTI, each GPU and\n"
               "its Tensor Core precisions, profiling-counter permission, the injection library and NVTX\n"
               "injection, PyTorch / LibTorch and their CUDA, and TF32. Each check is pass, warn or fail, with\n"
               "the fix. Exit codes: 0 nothing failed, 1 a check failed, 2 usage error.",
               "ampscope doctor"};
  bool as_json = false;
  std::string self_test;
  std::vector<std::string> self_test_args;
  app.add_flag("--json", as_json, "print {\"checks\": [{\"id\", \"status\", \"value\", \"fix\"}]}");
  // The children the injection checks run (ampscope doctor --self-test=load LIB | nvtx).
  app.add_option("--self-test", self_test)->group("");
  app.add_option("args", self_test_args)->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (self_test == "load" && self_test_args.size() == 1) return doctor::SelfTestLoadLibrary(self_test_args[0]);
  if (self_test == "nvtx" && self_test_args.empty()) return doctor::SelfTestNvtxRange();
  if (!self_test.empty() || !self_test_args.empty()) {
    std::fprintf(stderr, "ampscope doctor: unexpected arguments (try 'ampscope doctor --help')\n");
    return 2;
  }

  doctor::DoctorEnvironment env = doctor::RealEnvironment();
  env.inject_library = FindInjectionLibrary(&env.inject_searched);
  const std::vector<doctor::DoctorCheck> checks = doctor::RunDoctor(env);
  if (as_json) {
    std::fputs((doctor::DoctorToJson(checks).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(),
               stdout);
  } else {
    std::fputs(doctor::FormatDoctorText(checks, render::TerminalWidth(STDOUT_FILENO)).c_str(), stdout);
  }
  return FinishStdout("doctor", doctor::DoctorExitCode(checks));
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("doctor", "check the machine: driver, CUDA, CUPTI, GPUs, permissions, PyTorch", RunDoctorCommand);

}  // namespace ampscope::cli

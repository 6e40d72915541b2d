// `ampscope diff A B`: two JSON reports side by side, plus kernel-level changes.
// Exit codes: 0 ok, 2 usage or input error.
#include <unistd.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/stdout_check.h"
#include "gate/report_diff.h"
#include "gate/report_io.h"
#include "render/terminal.h"

namespace {

constexpr int kExitUsage = 2;

int RunDiffCommand(int argc, char** argv) {
  CLI::App app{"Compare two ampscope JSON reports: metrics side by side, checklist statuses, and kernels added,\n"
               "removed, slower and faster (from kernels.top).",
               "ampscope diff"};
  std::string a_path, b_path;
  int top = 10;
  bool as_json = false;
  app.add_option("A", a_path, "first (older) report")->required();
  app.add_option("B", b_path, "second (newer) report")->required();
  app.add_option("--top", top, "how many slower/faster kernels to list")->check(CLI::NonNegativeNumber);
  app.add_flag("--json", as_json, "print the diff as JSON (schema ampscope.diff/1) instead of tables");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  auto a = ampscope::gate::LoadReport(a_path, ampscope::gate::ReportUse::kDiff);
  if (!a.ok()) {
    std::fprintf(stderr, "ampscope diff: %s\n", a.status().message().c_str());
    return kExitUsage;
  }
  auto b = ampscope::gate::LoadReport(b_path, ampscope::gate::ReportUse::kDiff);
  if (!b.ok()) {
    std::fprintf(stderr, "ampscope diff: %s\n", b.status().message().c_str());
    return kExitUsage;
  }
  ampscope::gate::DiffOptions options;
  options.top = top;
  options.a_name = a_path;
  options.b_name = b_path;
  const ampscope::gate::ReportDiff diff = ampscope::gate::DiffReports(*a, *b, options);
  if (as_json) {
    std::string text =
        ampscope::gate::DiffToJson(diff).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fputs(text.c_str(), stdout);
  } else {
    std::fputs(ampscope::gate::FormatDiffText(diff, ampscope::render::TerminalWidth(STDOUT_FILENO)).c_str(), stdout);
  }
  return ampscope::cli::FinishStdout("diff", 0);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("diff", "compare two reports: metrics side by side, kernels added/removed/changed", RunDiffCommand);

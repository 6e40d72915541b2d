// `ampscope diff A B`: two JSON reports side by side, plus kernel-level changes.
// Exit codes: 0 ok, 2 usage or input error.
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "gate/report_diff.h"
#include "reports/contract/report_reader.h"
#include "render/terminal.h"

namespace {

using ampscope::cli::kExitUsage;

int RunDiffCommand(int argc, char** argv) {
  CLI::App app{"Compare two ampscope JSON reports: metrics side by side, checklist statuses, and kernels added,\n"
               "removed, slower and faster (from kernels.top).",
               "diff"};
  ampscope::cli::StyleApp(app, "diff");
  app.footer("Exit codes: 0 compared, 2 usage or input error.");
  std::string a_path, b_path, top_text;
  int64_t top = 10;
  bool as_json = false;
  app.add_option("A", a_path, "first (older) report")->required();
  app.add_option("B", b_path, "second (newer) report")->required();
  app.add_option("--top", top_text, "how many slower/faster kernels to list (default 10; 0 lists none)")->type_name("N");
  app.add_flag("--json", as_json, "print the diff as JSON (schema ampscope.diff/1) instead of tables");
  if (std::optional<int> done = ampscope::cli::ParseArgs(app, "diff", argc, argv)) return *done;
  // Bounded so that the count fits DiffOptions::top (an int) on every platform.
  if (!top_text.empty() &&
      !ampscope::cli::ParseIntOption("diff", top_text, "--top", 0, std::numeric_limits<int>::max(), &top))
    return kExitUsage;

  auto a = ampscope::reports::LoadReport(a_path, ampscope::reports::ReportUse::kDiff);
  if (!a.ok()) {
    std::fprintf(stderr, "ampscope diff: %s\n", a.status().message().c_str());
    return kExitUsage;
  }
  auto b = ampscope::reports::LoadReport(b_path, ampscope::reports::ReportUse::kDiff);
  if (!b.ok()) {
    std::fprintf(stderr, "ampscope diff: %s\n", b.status().message().c_str());
    return kExitUsage;
  }
  ampscope::gate::DiffOptions options;
  options.top = static_cast<int>(top);
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

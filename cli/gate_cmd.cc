// `ampscope gate`: compare a current report with a baseline and fail CI on a real regression.
// Exit codes: 0 pass (warnings allowed), 1 regression, 2 usage/input error or environment mismatch.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/atomic_write.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "gate/gate.h"
#include "gate/gate_config.h"
#include "gate/gate_output.h"
#include "reports/contract/report_reader.h"
#include "render/terminal.h"

namespace {

using ampscope::gate::GateConfig;

int Fail(const std::string& message) { return ampscope::cli::UsageError("gate", message); }

std::string DumpJson(const nlohmann::json& j) {
  // Kernel names from traces are not guaranteed to be valid UTF-8; never throw on them.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int RunGateCommand(int argc, char** argv) {
  CLI::App app{"Compare a run's JSON report with a baseline report; exit 1 on a regression.", "gate"};
  ampscope::cli::StyleApp(app, "gate");
  app.footer("Exit codes: 0 pass (warnings allowed), 1 regression, 2 usage/input error or environment mismatch.");
  std::string baseline_path, current_path, config_path, junit_path, markdown_path, json_path;
  bool allow_env_mismatch = false, quiet = false, print_config = false;
  // Not CLI11-required: --print-config runs without them. Their own group says they are.
  constexpr const char* kRequired = "Required (except with --print-config)";
  app.add_option("--baseline", baseline_path, "baseline report (ampscope analyze -o ...)")->group(kRequired);
  app.add_option("--current", current_path, "current report")->group(kRequired);
  app.add_option("--config", config_path, "gate rules (JSON, see docs/ci.md); defaults apply to every key left out");
  app.add_option("--junit", junit_path, "write JUnit XML (one testcase per gated metric)");
  app.add_option("--markdown", markdown_path, "write a Markdown summary (for $GITHUB_STEP_SUMMARY)");
  app.add_option("--json", json_path, "write the verdicts as JSON");
  app.add_flag("--allow-env-mismatch", allow_env_mismatch,
               "compare even if GPU/driver/CUDA/framework differ (the mismatch becomes a warning)");
  app.add_flag("-q,--quiet", quiet, "do not print the table on stdout");
  app.add_flag("--print-config", print_config, "print the effective config (defaults merged with --config) and exit");
  if (std::optional<int> done = ampscope::cli::ParseArgs(app, "gate", argc, argv)) return *done;
  if (std::optional<int> empty = ampscope::cli::RefuseEmptyPaths(
          app, "gate", {"--baseline", "--current", "--config", "--junit", "--markdown", "--json"}))
    return *empty;

  // Before reading anything: no output may overwrite an input or another output.
  if (ampscope::Status paths = ampscope::CheckOutputPaths({baseline_path, current_path, config_path},
                                                          {junit_path, markdown_path, json_path});
      !paths.ok())
    return Fail(paths.message());
  GateConfig config = ampscope::gate::DefaultGateConfig();
  if (!config_path.empty()) {
    auto loaded = ampscope::gate::LoadGateConfig(config_path);
    if (!loaded.ok()) return Fail(loaded.status().message());
    config = std::move(loaded.value());
  }
  if (print_config) {
    std::fputs(DumpJson(ampscope::gate::GateConfigToJson(config)).c_str(), stdout);
    return ampscope::cli::FinishStdout("gate", 0);
  }
  if (baseline_path.empty() || current_path.empty())
    return Fail("--baseline and --current are required (see 'ampscope gate --help')");

  auto baseline = ampscope::reports::LoadReport(baseline_path, ampscope::reports::ReportUse::kGate);
  if (!baseline.ok()) return Fail(baseline.status().message());
  auto current = ampscope::reports::LoadReport(current_path, ampscope::reports::ReportUse::kGate);
  if (!current.ok()) return Fail(current.status().message());

  ampscope::gate::GateOptions options;
  options.allow_env_mismatch = allow_env_mismatch;
  options.baseline_name = baseline_path;
  options.current_name = current_path;
  const ampscope::gate::GateResult result = ampscope::gate::RunGate(*baseline, *current, config, options);

  if (result.environment_blocked) {
    std::vector<std::string> parts;
    for (const auto& d : result.environment_differences)
      parts.push_back(fmt::format("{} '{}' vs '{}'", d.field, d.baseline, d.current));
    return Fail(fmt::format("environment mismatch between {} and {}: {} (pass --allow-env-mismatch to compare anyway)",
                            baseline_path, current_path, fmt::join(parts, ", ")));
  }

  std::vector<ampscope::OutputSpec> outputs;
  if (!junit_path.empty()) outputs.push_back(ampscope::TextOutput(junit_path, ampscope::gate::FormatGateJUnit(result)));
  if (!markdown_path.empty())
    outputs.push_back(ampscope::TextOutput(markdown_path, ampscope::gate::FormatGateMarkdown(result)));
  if (!json_path.empty())
    outputs.push_back(ampscope::TextOutput(json_path, DumpJson(ampscope::gate::GateResultToJson(result))));
  ampscope::Status written = ampscope::WriteOutputs(outputs);
  if (!written.ok()) return Fail(written.message());

  if (!quiet) std::fputs(ampscope::gate::FormatGateTable(result, ampscope::render::TerminalWidth(STDOUT_FILENO)).c_str(), stdout);
  const char* github = std::getenv("GITHUB_ACTIONS");
  if (github != nullptr && *github != '\0') std::fputs(ampscope::gate::FormatGithubAnnotations(result).c_str(), stdout);
  return ampscope::cli::FinishStdout("gate", result.ExitCode());
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("gate", "compare a report with a baseline; exit 1 on a regression (CI)", RunGateCommand);

// ampscope kernels TRACE [--top N] [--json] [--explain] [--in-steps] [--wide]:
// every distinct kernel with its count, total and mean time, share of kernel time, and how the
// classifier sees it (category, precision, Tensor Core use), so a user can check why each kernel
// is counted as it is.
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzers/analyze.h"
#include "analyzers/precision/precision.h"
#include "base/strings.h"
#include "base/units.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "render/format.h"
#include "render/kernel_table.h"
#include "trace/reader.h"

namespace ampscope::cli {

namespace {

constexpr size_t kDefaultTableRows = 50;  // table rows when --top is not given (--json: all)

int RunKernels(int argc, char** argv) {
  CLI::App app{"List the kernels of a trace with how ampscope classifies them (category, precision, Tensor Cores)."};
  StyleApp(app, "kernels");
  app.footer("Exit codes: 0 listed, 2 usage or input error.");
  std::string path, top_text;
  int64_t top = -1;
  bool as_json = false, explain = false, in_steps = false, wide = false;
  app.add_option("trace", path, "Trace file (.json, .json.gz, .amptrace, nsys export .sqlite; - is stdin)")->required();
  app.add_option("--top", top_text, "Show the N kernels with the most time (default: 50 in the table, all with --json)")->type_name("N");
  app.add_flag("--json", as_json, "Print a JSON array instead of a table");
  app.add_flag("--explain", explain, "Show the classifier rule that matched each kernel");
  app.add_flag("--in-steps", in_steps, "Count only kernels that start inside the detected steps (as 'analyze' does)");
  app.add_flag("--wide", wide, "Full kernel names in the table (wrapped to the terminal), not short names");
  if (std::optional<int> done = ParseArgs(app, "kernels", argc, argv)) return *done;
  if (!top_text.empty() && !ParseIntOption("kernels", top_text, "--top", 1, std::numeric_limits<int64_t>::max(), &top))
    return kExitUsage;

  StatusOr<Trace> trace = ReadTrace(path);
  if (!trace.ok()) {
    std::fprintf(stderr, "ampscope kernels: %s\n", trace.status().message().c_str());
    return 2;
  }

  StepAnalysis steps;  // empty = the whole trace
  if (in_steps) {
    LaunchIndex launches(*trace);
    steps = DetectSteps(*trace, AnalysisOptions{}, launches);
  }
  std::vector<KernelSummary> kernels = SummarizeKernels(*trace, steps);
  TimeNs total_ns = 0;
  uint64_t total_count = 0;
  for (const KernelSummary& k : kernels) {
    total_ns += k.total_ns;
    total_count += k.count;
  }
  size_t limit = top > 0 ? static_cast<size_t>(top) : (as_json ? kernels.size() : kDefaultTableRows);
  if (limit > kernels.size()) limit = kernels.size();

  // The same rows for --json and for the table (the table renders them, render/kernel_table.h).
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < limit; ++i) {
    const KernelSummary& k = kernels[i];
    nlohmann::json o = {
        {"name", SanitizeUtf8(k.name_str)},  // kernel names need not be UTF-8; JSON must be
        {"count", k.count},
        {"total_us", NsToUs(k.total_ns)},
        {"mean_us", k.count ? NsToUs(k.total_ns) / static_cast<double>(k.count) : 0.0},
        {"min_us", NsToUs(k.min_ns)},
        {"max_us", NsToUs(k.max_ns)},
        {"share_pct", total_ns > 0 ? 100.0 * static_cast<double>(k.total_ns) / static_cast<double>(total_ns) : 0.0},
        {"category", KernelCategoryName(k.cls.category)},
        {"precision", PrecisionName(k.cls.precision)},
        {"tensor_core", k.cls.tensor_core == TensorCoreUse::kYes},
        {"tensor_core_known", k.cls.tensor_core != TensorCoreUse::kUnknown},
        {"fp32_simt_gemm", k.cls.fp32_simt_gemm}};
    if (k.cls.fused_cast) o["fused_cast"] = true;
    if (k.cls.rocm) o["rocm"] = true;
    if (explain) o["rule"] = DescribeKernelRule(k.cls.rule);
    out.push_back(std::move(o));
  }
  if (as_json) {
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return FinishStdout("kernels", 0);
  }

  render::KernelTableOptions table;
  table.width = render::TerminalWidth(STDOUT_FILENO);
  table.wide = wide;
  table.explain = explain;
  table.more = kernels.size() - limit;
  table.title = fmt::format("{}: {} kernels, {} distinct, {} kernel time ({})", path, total_count, kernels.size(),
                            render::DurationUs(NsToUs(total_ns)),
                            in_steps ? (steps.steps.empty() ? "no steps detected: whole trace" : "inside the steps")
                                     : "whole trace");
  std::fputs(render::RenderKernelTable(out, table).c_str(), stdout);
  return FinishStdout("kernels", 0);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("kernels", "list kernels with their category, precision and Tensor Core use", RunKernels);

}  // namespace ampscope::cli

// `ampscope analyze`, `kernels`, `diff`, `doctor` and `gate` in a real terminal of 80 and 120 columns
// (tmux, Debian package tmux): no line of what they print is wider than the window. The window
// size reaches the program only through the terminal (TIOCGWINSZ): COLUMNS is unset for it.
// capture-pane -J joins lines the terminal wrapped, so a line that was too wide shows at its
// full length.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "base/strings.h"
#include "support/test_support.h"

namespace terminal_width_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::HaveShared;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;

int Shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Terminal columns of a line as tmux printed it (base/'s one DisplayWidth).
size_t Columns(const std::string& line) { return ampscope::DisplayWidth(line); }

class TerminalWidth : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    have_tmux_ = Shell("command -v tmux >/dev/null 2>&1") == 0;
    if (!have_tmux_ || !HaveShared()) return;
    dir_ = MakeTempDir("ampscope_tmux");
    // tmux on a socket of its own, keeping the whole output as history.
    WriteFile(dir_ + "/tmux.conf", "set -g history-limit 50000\nset -g remain-on-exit on\n");
    // Reports for diff and gate, from the shared traces.
    const std::string bin = BinaryPath("cli/ampscope");
    for (const auto& [name, trace] : std::vector<std::pair<std::string, std::string>>{
             {"tb0", "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"},
             {"tb1", "traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz"},
             {"nccl", "traces/kineto/hta/nccl_data.json.gz"}})
      reports_ok_ &= Shell(bin + " analyze -q " + SharedPath(trace) + " -o " + dir_ + "/" + name + ".json") == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    AMPSCOPE_REQUIRE_INPUT(have_tmux_, "tmux is not installed (Debian package tmux; scripts/setup.sh installs it)");
    AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
    ASSERT_TRUE(reports_ok_) << "ampscope analyze failed on a shared trace";
  }

  // Runs `args` in a tmux window `columns` wide; returns the lines it printed.
  static std::vector<std::string> RunInTerminal(const std::string& args, int columns) {
    static int n = 0;
    const std::string socket = "ampscope_test_" + std::to_string(getpid()) + "_" + std::to_string(n++);
    const std::string tmux = "tmux -L " + socket + " -f " + dir_ + "/tmux.conf";
    const std::string script = dir_ + "/" + socket + ".sh";
    WriteFile(script, "unset COLUMNS LINES\n" + BinaryPath("cli/ampscope") + " " + args + "\necho \"[exit $?]\"\n" +
                          tmux + " wait-for -S done\nsleep 30\n");
    const std::string out = dir_ + "/" + socket + ".txt";
    Shell(tmux + " new-session -d -s s -x " + std::to_string(columns) + " -y 50 'sh " + script + "'");
    Shell("timeout 120 " + tmux + " wait-for done");
    Shell(tmux + " capture-pane -p -J -S - -t s > " + out);
    Shell(tmux + " kill-server 2>/dev/null");
    std::vector<std::string> lines;
    std::istringstream in(ReadFile(out));
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && line.back() == ' ') line.pop_back();  // the pane pads with spaces
      lines.push_back(line);
    }
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    return lines;
  }

  void CheckFits(const std::string& args, const std::string& marker, const std::set<std::string>& exits = {"[exit 0]"}) {
    size_t widest_at_120 = 0;
    for (int columns : {80, 120}) {
      std::vector<std::string> lines = RunInTerminal(args, columns);
      ASSERT_FALSE(lines.empty()) << args;
      EXPECT_EQ(exits.count(lines.back()), 1u) << args << " at " << columns << ": " << lines.back();
      bool found = false;
      for (const std::string& line : lines) {
        EXPECT_LE(Columns(line), static_cast<size_t>(columns)) << args << " at " << columns << ": " << line;
        found |= line.find(marker) != std::string::npos;
        if (columns == 120) widest_at_120 = std::max(widest_at_120, Columns(line));
      }
      EXPECT_TRUE(found) << args << ": no '" << marker << "' in the output";
      EXPECT_GT(lines.size(), 10u) << args;
    }
    // The wider window was used (the width came from the terminal, not a fixed 80).
    EXPECT_GT(widest_at_120, 80u) << args;
  }

  static bool have_tmux_;
  static bool reports_ok_;
  static std::string dir_;
};
bool TerminalWidth::have_tmux_ = false;
bool TerminalWidth::reports_ok_ = true;
std::string TerminalWidth::dir_;

TEST_F(TerminalWidth, AnalyzeResNet50) {
  CheckFits("analyze " + SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"), "Optimization checklist");
}

TEST_F(TerminalWidth, AnalyzeDdpWithNccl) {
  CheckFits("analyze " + SharedPath("traces/kineto/hta/nccl_data.json.gz"), "Findings (");
}

TEST_F(TerminalWidth, Kernels) {
  CheckFits("kernels " + SharedPath("traces/kineto/hta/nccl_data.json.gz"), "ncclKernel_AllReduce");
  CheckFits("kernels --wide --explain " + SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"), "rule: ");
}

TEST_F(TerminalWidth, Diff) { CheckFits("diff " + dir_ + "/tb0.json " + dir_ + "/nccl.json", "kernels added in B"); }

// Issue 36: at 100 columns and wider the diff's numbers landed on the kernel's category sub-line
// ("  conv fp32     11.1 ms ..."). Each kernel row's numbers are on its name's line, the sub-line
// holds only the class, and kernels with one short name (ResNet50's cuDNN engines and
// implicit_convolve_sgemm instances) are told apart within each table.
TEST_F(TerminalWidth, DiffKernelRowsKeepTheirColumns) {
  const std::regex number(R"([0-9.]+ (µs|ms|s)\b)");
  const std::regex sub_line(R"(^  [a-z_]+ [a-z0-9_]+$)");  // "  conv fp32", "  normalization fp32"
  for (int columns : {80, 100, 120}) {
    const std::vector<std::string> lines = RunInTerminal("diff " + dir_ + "/tb0.json " + dir_ + "/tb1.json", columns);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "[exit 0]");
    bool in_kernels = false;
    size_t sub_lines = 0;
    std::set<std::string> names;
    std::string name;  // the row's name so far (a name wider than its column wraps)
    auto end_row = [&]() {
      if (!name.empty()) {
        EXPECT_TRUE(names.insert(name).second) << "at " << columns << ", two rows named " << name;
      }
      name.clear();
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      EXPECT_LE(Columns(line), static_cast<size_t>(columns)) << line;
      if (line.rfind("kernels ", 0) == 0 && line.find(" in B") != std::string::npos) {
        end_row();
        in_kernels = line.find("A/step") != std::string::npos || line.find("A total") != std::string::npos;
        names.clear();
        continue;
      }
      if (!in_kernels || line.empty() || line[0] == '-') continue;
      if (line.rfind("  ", 0) == 0) {
        end_row();
        if (line.find("more (see --json)") != std::string::npos) continue;
        EXPECT_TRUE(std::regex_match(line, sub_line)) << "at " << columns << ", a sub-line with more than the class: " << line;
        EXPECT_FALSE(std::regex_search(line, number)) << "at " << columns << ": " << line;
        ++sub_lines;
      } else if (std::regex_search(line, number)) {
        // The name is what comes before the numbers (and its wrapped rest on the lines below,
        // up to the class sub-line); within one table no two are the same.
        end_row();
        name = line.substr(0, line.find("  "));
      } else {
        name += line;
      }
    }
    EXPECT_GE(sub_lines, 10u) << "at " << columns << ": no kernel table found";
  }
}

// No line wider than the terminal (before: up to 195 at 80 columns). The machine may lack a GPU
// or the injection library, so exit 1 (a failed check) is a correct outcome too.
TEST_F(TerminalWidth, Doctor) { CheckFits("doctor", "injection_library", {"[exit 0]", "[exit 1]"}); }

// At 80 columns the name column is narrow: every elementwise kernel was cut to
// "vectorized_elementwise_kern…". The part that differs is kept, so no two rows read the same.
TEST_F(TerminalWidth, KernelsAt80KeepWhatDiffers) {
  const std::vector<std::string> lines =
      RunInTerminal("kernels --top 40 " + SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"), 80);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "[exit 0]");
  size_t column = std::string::npos;
  std::set<std::string> names;
  size_t rows = 0;
  for (const std::string& line : lines) {
    EXPECT_LE(Columns(line), 80u) << line;
    if (column == std::string::npos) {
      column = line.find("KERNEL");
      continue;
    }
    if (line.find('%') == std::string::npos || line.size() <= column) continue;  // wrapped class lines
    const std::string name = line.substr(column);
    ++rows;
    EXPECT_TRUE(names.insert(name).second) << "two rows read " << name;
  }
  EXPECT_GE(rows, 30u);
}

// --help wraps option descriptions to the window (cli/cli_style.h), like every other output.
TEST_F(TerminalWidth, Help) {
  CheckFits("help analyze", "Usage: ampscope analyze");
  CheckFits("gate --help", "Required (except with --print-config)");
}

TEST_F(TerminalWidth, Gate) {
  CheckFits("gate --baseline " + dir_ + "/tb0.json --current " + dir_ + "/tb1.json", "ampscope gate: ");
}

}  // namespace
}  // namespace terminal_width_cli_test

// The job views of a several-rank report, number by number across every output: terminal,
// Markdown, HTML, JSON and SQLite on the shared 8-rank DLRM job (param's dlrm_kineto, one host,
// one ProfilerStep #10 per rank). Each job-level number is defined once in the report
// (job.definitions, docs/report_schema.md), says what it is (mean over ranks, rank N), and reads
// the same everywhere; the per-rank views do not depend on which other outputs are written.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace ampscope {
namespace job_views_cli_test {
namespace {

using nlohmann::json;
using testing::BinaryPath;
using testing::HaveShared;
using testing::MakeTempDir;
using testing::ReadFile;
using testing::SharedPath;

struct CliRun {
  int exit_code;
  std::string out;
};

CliRun Ampscope(const std::string& args) {
  std::string cmd = "COLUMNS=160 " + BinaryPath("cli/ampscope") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

std::string DlrmFiles() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks")))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::string all;
  for (const std::string& p : paths) all += " " + p;
  return all;
}

// One row of a query, as text per column (NULL: "NULL").
std::vector<std::string> QueryRow(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> row;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return row;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const unsigned char* t = sqlite3_column_text(st, c);
      row.push_back(t == nullptr ? "NULL" : reinterpret_cast<const char*>(t));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return row;
}

class JobViews : public ::testing::Test {
 protected:
  void SetUp() override {
    AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/param_dlrm_8ranks)");
    dir_ = MakeTempDir("ampscope_job_views");
    const std::string files = DlrmFiles();
    CliRun all = Ampscope("analyze" + files + " --no-color -j 1 -o " + dir_ + "/r.json --markdown " + dir_ +
                       "/r.md --html " + dir_ + "/r.html --sqlite " + dir_ + "/r.db");
    ASSERT_EQ(all.exit_code, 0) << all.out;
    terminal_ = all.out;
    // Without --html: the terminal and Markdown must be the same (issue: the per-rank views
    // depended on --html).
    CliRun no_html = Ampscope("analyze" + files + " --no-color -j 1 --markdown " + dir_ + "/plain.md");
    ASSERT_EQ(no_html.exit_code, 0) << no_html.out;
    terminal_without_html_ = no_html.out;
    report_ = json::parse(ReadFile(dir_ + "/r.json"));
    markdown_ = ReadFile(dir_ + "/r.md");
    markdown_without_html_ = ReadFile(dir_ + "/plain.md");
    html_ = ReadFile(dir_ + "/r.html");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  const json& Rank(int64_t rank) const {
    for (const json& r : report_["ranks"])
      if (r["rank"] == rank) return r;
    static const json kNone;
    return kNone;
  }

  std::string dir_, terminal_, terminal_without_html_, markdown_, markdown_without_html_, html_;
  json report_;
  std::map<int64_t, json> rank_reports_;
};

TEST_F(JobViews, PerRankViewsDoNotDependOnOtherOutputs) {
  EXPECT_EQ(terminal_, terminal_without_html_);
  EXPECT_EQ(markdown_, markdown_without_html_);
  for (const std::string& text : {terminal_, markdown_}) {
    EXPECT_NE(text.find("Imbalance (max"), std::string::npos) << text;
    EXPECT_EQ(text.find("No roofline: computed per rank"), std::string::npos) << text;
  }
  EXPECT_NE(terminal_.find("Ranks (8)"), std::string::npos) << terminal_;
  // Every rank's GPU busy in the terminal's and Markdown's per-rank tables is its JSON value.
  ASSERT_EQ(report_["ranks"].size(), 8u);
  for (const json& r : report_["ranks"]) {
    const std::string busy = fmt::format("{:.1f}%", r["gpu"]["busy_pct"].get<double>());
    EXPECT_NE(terminal_.find(busy), std::string::npos) << "rank " << r["rank"] << " " << busy;
    EXPECT_NE(markdown_.find(fmt::format("| {} | ", r["rank"].get<int64_t>())), std::string::npos) << r["rank"];
    EXPECT_NE(markdown_.find(busy), std::string::npos) << "rank " << r["rank"] << " " << busy;
  }
}

// `merge` (the README's many-ranks command) shows the per-rank views too, without --html.
TEST_F(JobViews, MergeShowsThePerRankViewsWithoutHtml) {
  std::string summaries;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks"))) {
    const std::string out = dir_ + "/" + e.path().filename().string() + ".summary.json";
    ASSERT_EQ(Ampscope("analyze -q -j 1 " + e.path().string() + " --summary-out " + out).exit_code, 0);
    summaries += " " + out;
  }
  CliRun merged = Ampscope("merge --no-color" + summaries + " --markdown " + dir_ + "/merged.md");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  const std::string merged_md = ReadFile(dir_ + "/merged.md");
  for (const std::string& text : {merged.out, merged_md}) {
    EXPECT_NE(text.find("Imbalance (max"), std::string::npos) << text;
    EXPECT_EQ(text.find("No roofline: computed per rank"), std::string::npos) << text;
  }
  EXPECT_NE(merged.out.find("Ranks (8)"), std::string::npos) << merged.out;
}

// The header's GPU busy is the window-weighted mean over ranks (job.definitions.gpu: the ranks'
// summed busy time over their summed window), and says so everywhere. (Its plain mean over the
// ranks' shares would be 41.8%, not the 43.7% shown: the definition matters.)
TEST_F(JobViews, GpuBusyIsTheWindowWeightedMeanInEveryOutput) {
  ASSERT_EQ(report_["job"]["definitions"]["gpu"], "window-weighted mean over ranks");
  double busy_us = 0, window_us = 0;
  for (const json& r : report_["ranks"]) {
    const double w = r["gpu"]["window_us"].get<double>();
    busy_us += r["gpu"]["busy_pct"].get<double>() / 100 * w;
    window_us += w;
  }
  const double job_busy = report_["gpu"]["busy_pct"].get<double>();
  EXPECT_NEAR(job_busy, 100 * busy_us / window_us, 0.05);
  const std::string shown = fmt::format("{:.1f}%", job_busy);
  EXPECT_NE(terminal_.find("GPU time (share of the analysed steps; window-weighted mean over ranks)"), std::string::npos)
      << terminal_;
  EXPECT_TRUE(std::regex_search(terminal_, std::regex("GPU busy +" + std::regex_replace(shown, std::regex("[.%]"), "\\$&"))))
      << terminal_;
  EXPECT_NE(markdown_.find("| GPU busy (window-weighted mean over ranks) | **" + shown + "** |"), std::string::npos)
      << markdown_;
  EXPECT_NE(html_.find("GPU busy (window-weighted mean over ranks)"), std::string::npos);
  EXPECT_NE(html_.find(shown), std::string::npos);
}

// A matrix dimension of the job is the worst rank's: its value is that rank's and every output
// names the rank, the SQLite job rows included.
TEST_F(JobViews, MatrixValuesNameTheirRankInEveryOutput) {
  const json& d = report_["matrix"]["task_parallelism"];
  ASSERT_TRUE(d["metrics"].contains("numbers_of_rank")) << d;
  const int64_t rank = d["metrics"]["numbers_of_rank"].get<int64_t>();
  const double value = d["headline"]["value"].get<double>();
  // The headline is GPU busy: the named rank's own GPU busy (ranks[].gpu), not the job's mean.
  EXPECT_EQ(d["headline"]["name"], "gpu_busy_pct");
  EXPECT_NEAR(value, Rank(rank)["gpu"]["busy_pct"].get<double>(), 0.01);
  const std::string shown = fmt::format("{:.1f}% (rank {})", value, rank);
  EXPECT_NE(terminal_.find(shown), std::string::npos) << shown << "\n" << terminal_;
  EXPECT_NE(markdown_.find("**" + shown + "**"), std::string::npos) << shown;
  EXPECT_NE(html_.find(shown), std::string::npos) << shown;
  const std::vector<std::string> row = QueryRow(
      dir_ + "/r.db", "SELECT value, numbers_of_rank, status FROM matrix WHERE rank IS NULL AND id = 'task_parallelism'");
  ASSERT_EQ(row.size(), 3u);
  EXPECT_NEAR(std::stod(row[0]), value, 1e-9);
  EXPECT_EQ(row[1], std::to_string(rank));
  EXPECT_EQ(row[2], d["status"].get<std::string>());
  // Each rank's own rows carry no numbers_of_rank: they are the rank's.
  EXPECT_EQ(QueryRow(dir_ + "/r.db", "SELECT COUNT(*) FROM matrix WHERE rank IS NOT NULL AND numbers_of_rank IS NOT NULL"),
            std::vector<std::string>{"0"});
}

// A checklist item of the job is the worst rank's (the first of the worst status): its value is
// that rank's own, and every output names the rank beside it.
TEST_F(JobViews, ChecklistValuesNameTheirRankInEveryOutput) {
  size_t checked = 0;
  for (const json& item : report_["checklist"]) {
    if (item["value"].is_null()) continue;
    ASSERT_TRUE(item.contains("numbers_of_rank")) << item;
    const int64_t rank = item["numbers_of_rank"].get<int64_t>();
    const std::string id = item["id"].get<std::string>();
    // That rank's own report has the same value.
    std::string file;
    for (const json& in : report_["inputs"])
      if (in["path"].get<std::string>().find("worker" + std::to_string(rank) + "_") != std::string::npos)
        file = in["path"].get<std::string>();
    ASSERT_FALSE(file.empty()) << rank;
    if (!rank_reports_.count(rank)) {
      ASSERT_EQ(Ampscope("analyze " + file + " -q -j 1 -o " + dir_ + "/one.json").exit_code, 0);
      rank_reports_[rank] = json::parse(ReadFile(dir_ + "/one.json"));
    }
    for (const json& own : rank_reports_[rank]["checklist"])
      if (own["id"] == id) {
        EXPECT_EQ(own["status"], item["status"]) << id;
        EXPECT_NEAR(own["value"].get<double>(), item["value"].get<double>(), 1e-9) << id;
        EXPECT_FALSE(own.contains("numbers_of_rank")) << id;  // a rank's own item is its own
      }
    // " (rank N)" after the value in the Markdown row, the terminal and the HTML; the SQLite job row.
    const std::string of_rank = " (rank " + std::to_string(rank) + ")";
    const std::regex md_row("\\| [^|\n]+ \\| [^|\n]+ \\| [^|\n]+" + std::regex_replace(of_rank, std::regex("[()]"), "\\$&") + " \\|");
    EXPECT_TRUE(std::regex_search(markdown_, md_row)) << id;
    EXPECT_NE(terminal_.find(of_rank), std::string::npos) << id;
    EXPECT_NE(html_.find(of_rank + "</td>"), std::string::npos) << id;
    EXPECT_EQ(QueryRow(dir_ + "/r.db", "SELECT numbers_of_rank FROM checklist WHERE rank IS NULL AND id = '" + id + "'"),
              std::vector<std::string>{std::to_string(rank)})
        << id;
    ++checked;
  }
  EXPECT_GE(checked, 5u);  // the DLRM job: every item but GradScaler (not applicable) has a value
  EXPECT_EQ(QueryRow(dir_ + "/r.db", "SELECT COUNT(*) FROM checklist WHERE rank IS NOT NULL AND numbers_of_rank IS NOT NULL"),
            std::vector<std::string>{"0"});
}

// A job finding's numbers are one rank's (the largest saving); it names that rank, and its times
// are said against that rank's own step (each rank's clock: the step starts differ by ms here).
TEST_F(JobViews, FindingsNameTheirRankAndUseItsSteps) {
  size_t checked = 0;
  for (const json& f : report_["findings"]) {
    if (!f["evidence"].contains("numbers_of_rank")) continue;
    const int64_t rank = f["evidence"]["numbers_of_rank"].get<int64_t>();
    const json& own = Rank(rank);
    ASSERT_TRUE(own.is_object()) << rank;
    const json& windows = own["steps"]["windows"];
    ASSERT_EQ(windows.size(), 1u);  // one ProfilerStep (#10) per rank
    const double start = windows[0]["start_us"].get<double>(), end = windows[0]["end_us"].get<double>();
    // Every time range of the finding lies in its own rank's step: "step 10 +...", never
    // "before step 10" (as when they were said against rank 0's step).
    for (const json& range : f["time_ranges_us"]) {
      EXPECT_GE(range[0].get<double>(), start - 1) << f["id"];
      EXPECT_LE(range[1].get<double>(), end + 1) << f["id"];
    }
    ++checked;
  }
  EXPECT_GE(checked, 5u);
  // No rank's finding is said "before step 10". Only the straggler may be: its range is the worst
  // collective's, from the first rank's start to the last's, on the job's one clock, and here the
  // first rank began that collective 2.37 ms before rank 0 began its step (ranks start step 10 up
  // to 7.5 ms apart: steps.windows of each rank).
  for (size_t at = markdown_.find("before step 10"); at != std::string::npos; at = markdown_.find("before step 10", at + 1)) {
    const size_t mark = markdown_.rfind("** `", at);  // the finding's header: "5. ... **warning** `id` title"
    ASSERT_NE(mark, std::string::npos);
    const size_t begin = markdown_.rfind('\n', mark) + 1;
    const std::string header = markdown_.substr(begin, markdown_.find('\n', mark) - begin);
    EXPECT_NE(header.find("`straggler`"), std::string::npos) << header;
  }
  EXPECT_EQ(terminal_.find("after step 10"), std::string::npos) << terminal_;
  EXPECT_NE(markdown_.find("Numbers of rank: "), std::string::npos);
}

}  // namespace
}  // namespace job_views_cli_test
}  // namespace ampscope

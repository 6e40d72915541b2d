// Rank summaries: merge(summaries) builds the same report as analysing the files together,
// field by field, and a bad summary is refused with its path.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"
#include "support/test_support.h"
#include "trace/reader.h"

namespace ampscope {
namespace summary_json_test {
namespace {

using nlohmann::json;
using ampscope::testing::HaveShared;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;

// Every difference between two JSON values, as "path: a != b" lines.
void Diff(const json& a, const json& b, const std::string& path, std::vector<std::string>& out) {
  if (a.type() != b.type()) {
    out.push_back(path + ": " + a.dump() + " != " + b.dump());
    return;
  }
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) out.push_back(path + "/" + it.key() + ": missing from the merged report");
      else Diff(it.value(), b[it.key()], path + "/" + it.key(), out);
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) out.push_back(path + "/" + it.key() + ": only in the merged report");
  } else if (a.is_array()) {
    if (a.size() != b.size()) out.push_back(path + ": " + std::to_string(a.size()) + " != " + std::to_string(b.size()) + " items");
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) Diff(a[i], b[i], path + "/" + std::to_string(i), out);
  } else if (a != b) {
    out.push_back(path + ": " + a.dump() + " != " + b.dump());
  }
}

std::vector<Trace> ReadAll(const std::vector<std::string>& paths) {
  std::vector<Trace> traces;
  for (const std::string& p : paths) {
    StatusOr<Trace> t = ReadTrace(p);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) traces.push_back(std::move(t).value());
  }
  return traces;
}

// The job report of `paths` analysed together, and the one merged from their summaries (each
// rank written as text and read back, as `analyze --summary-out` and `merge` do).
std::pair<json, json> AnalyzedAndMerged(const std::vector<std::string>& paths, const AnalysisOptions& options) {
  std::vector<Trace> traces = ReadAll(paths);
  const JobAnalysis together = AnalyzeJob(traces, options);
  std::vector<RankAnalysis> read_back;
  for (const Trace& t : traces) {
    StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
    EXPECT_TRUE(ra.ok());
    const std::string text = RankSummaryText(*ra, options);
    StatusOr<RankSummary> s = ParseRankSummary(text, t.metadata.path + ".summary.json");
    EXPECT_TRUE(s.ok()) << s.status().message();
    read_back.push_back(std::move(s->rank));
  }
  const JobAnalysis merged = BuildJob(std::move(read_back));
  return {BuildJsonReport(together, options), BuildJsonReport(merged, options)};
}

std::vector<std::string> DlrmRanks() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks")))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The shared 8-rank DLRM job (shared/traces/README.md): the merged report equals the report of
// analysing the 8 files together, in every field.
TEST(RankSummary, MergeEqualsAnalyzeOnTheDlrm8RankJob) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/param_dlrm_8ranks)");
  const std::vector<std::string> paths = DlrmRanks();
  ASSERT_EQ(paths.size(), 8u);
  const auto [analyzed, merged] = AnalyzedAndMerged(paths, AnalysisOptions{});
  std::vector<std::string> diffs;
  Diff(analyzed, merged, "", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs.front();
  EXPECT_EQ(merged["ranks"].size(), 8u);
}

// One rank with shapes (its roofline, precision and op tables travel in the summary) and a
// --steps selection (stated in the report's analysis_options).
TEST(RankSummary, MergeEqualsAnalyzeOnOneRankWithSteps) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/tb_plugin)");
  AnalysisOptions options;
  options.first_step = 1;
  options.last_step = 4;
  const auto [analyzed, merged] =
      AnalyzedAndMerged({SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz")}, options);
  std::vector<std::string> diffs;
  Diff(analyzed, merged, "", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs.front();
  EXPECT_TRUE(merged["roofline"].is_object());
}

// A summary is small: at most 1% of its trace (issue 13). Plain JSON meets it from traces of
// ~10 MB up (the sections the report repeats per rank are ~60-190 kB whatever the trace's size);
// gzip'd (`--summary-out r.summary.json.gz`) from ~2 MB up. Sizes of the traces as inflated
// (`zcat F | wc -c`): HTA rank-0 15,377,659 B, HTA recsys rank 0 25,762,803 B, DeepSeek
// 3,132,978 B. The recsys rank was 1.17% before a fusion chain's evidence named at most 12 of
// its kernels (one chain holds 341).
TEST(RankSummary, SummaryIsAtMostOnePercentOfItsTrace) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto)");
  struct Case {
    const char* path;
    uint64_t inflated_bytes;
    bool plain_within;  // the plain summary too, not only the gzip'd one
  };
  for (const Case& c : {Case{"traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 15377659, true},
                        Case{"traces/kineto/hta/a100_16rank_recsys_rank0.json.gz", 25762803, true},
                        Case{"traces/kineto/deepseek/train.json.gz", 3132978, false}}) {
    SCOPED_TRACE(c.path);
    StatusOr<Trace> t = ReadTrace(SharedPath(c.path));
    ASSERT_TRUE(t.ok()) << t.status().message();
    StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, AnalysisOptions{});
    ASSERT_TRUE(ra.ok());
    EXPECT_EQ(ra->input.bytes, c.inflated_bytes);
    const std::string plain = RankSummaryBytes(*ra, AnalysisOptions{}, "r.summary.json").value();
    const std::string gz = RankSummaryBytes(*ra, AnalysisOptions{}, "r.summary.json.gz").value();
    EXPECT_EQ(plain, RankSummaryText(*ra, AnalysisOptions{}));
    EXPECT_LE(gz.size() * 100, c.inflated_bytes) << gz.size() << " bytes gzip'd";
    if (c.plain_within) {
      EXPECT_LE(plain.size() * 100, c.inflated_bytes) << plain.size() << " bytes";
    }
  }
}

// `--summary-out r.summary.json.gz` writes gzip, which ReadRankSummary inflates (told by its
// magic bytes): the job built from the gzip'd summaries is the one built from the plain ones.
TEST(RankSummary, GzipSummariesReadBackAsThePlainOnes) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/param_dlrm_8ranks)");
  const std::string dir = ::testing::TempDir() + "/gz_summaries";
  std::filesystem::create_directories(dir);
  std::vector<RankAnalysis> plain, gz;
  for (const std::string& path : DlrmRanks()) {
    StatusOr<Trace> t = ReadTrace(path);
    ASSERT_TRUE(t.ok()) << t.status().message();
    StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, AnalysisOptions{});
    ASSERT_TRUE(ra.ok());
    const std::string base = dir + "/" + std::filesystem::path(path).filename().string();
    for (const char* ext : {".summary.json", ".summary.json.gz"}) {
      std::ofstream(base + ext, std::ios::binary) << RankSummaryBytes(*ra, AnalysisOptions{}, base + ext).value();
      StatusOr<RankSummary> back = ReadRankSummary(base + ext);
      ASSERT_TRUE(back.ok()) << back.status().message();
      (std::string(ext).back() == 'z' ? gz : plain).push_back(std::move(back->rank));
    }
    // Gzip's magic bytes, and about a seventh of the plain size (gzip -6 of a DLRM summary:
    // 16 kB of 118 kB).
    const std::string gz_bytes = ReadFile(base + ".summary.json.gz");
    ASSERT_GE(gz_bytes.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(gz_bytes[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(gz_bytes[1]), 0x8b);
    EXPECT_LT(gz_bytes.size() * 5, std::filesystem::file_size(base + ".summary.json"));
  }
  EXPECT_EQ(BuildJsonReport(BuildJob(std::move(gz)), AnalysisOptions{}),
            BuildJsonReport(BuildJob(std::move(plain)), AnalysisOptions{}));
  // A cut gzip'd summary is named with the byte where it ends.
  const std::string whole = dir + "/" + std::filesystem::path(DlrmRanks().front()).filename().string() + ".summary.json.gz";
  const std::string bytes = ReadFile(whole);
  std::ofstream(dir + "/cut.summary.json.gz", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  StatusOr<RankSummary> cut = ReadRankSummary(dir + "/cut.summary.json.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find(dir + "/cut.summary.json.gz: byte " + std::to_string(bytes.size() / 2)), std::string::npos)
      << cut.status().message();
  // A gzip bomb (1.2 MB that inflates to 257 MiB of spaces) is refused at the cap, not read whole.
  const std::string bomb = dir + "/bomb.summary.json.gz";
  gzFile f = gzopen(bomb.c_str(), "wb1");
  ASSERT_NE(f, nullptr);
  const std::string spaces(1 << 20, ' ');
  for (int i = 0; i < 257; ++i) {
    ASSERT_EQ(gzwrite(f, spaces.data(), static_cast<unsigned>(spaces.size())), static_cast<int>(spaces.size()));
  }
  ASSERT_EQ(gzclose(f), Z_OK);
  StatusOr<RankSummary> refused = ReadRankSummary(bomb);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), bomb + ": byte 268435456: over 256 MiB: not a rank summary ampscope wrote");
}

TEST(RankSummary, BadSummariesAreNamed) {
  StatusOr<RankSummary> not_json = ParseRankSummary("{\"schema\": ", "r3.summary.json");
  ASSERT_FALSE(not_json.ok());
  // Issue 38: every merge error names the byte offset. The text ends at byte 11, where a value
  // was expected.
  EXPECT_EQ(not_json.status().message(),
            "r3.summary.json: byte 11: not JSON (expected an ampscope rank summary): unexpected end of the summary");
  StatusOr<RankSummary> report = ParseRankSummary("{\"schema\": \"ampscope.report/1\"}", "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("r.json: byte 0: not an ampscope rank summary"), std::string::npos);
  json cut = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  cut["rank"].erase("steps");
  const std::string cut_text = cut.dump();
  StatusOr<RankSummary> missing = ParseRankSummary(cut_text, "r7.summary.json");
  ASSERT_FALSE(missing.ok());
  // Named where the "rank" object that lacks it ends (found in the text by hand, not by the reader).
  const size_t rank_end = cut_text.find("\"rank\":") + 7 + cut["rank"].dump().size();
  EXPECT_EQ(missing.status().message(),
            "r7.summary.json: byte " + std::to_string(rank_end) + ": bad rank summary: missing field 'steps'");
  // JSON, but not an object: not a summary (rather than "not JSON").
  StatusOr<RankSummary> array = ParseRankSummary("[1, 2]", "a.summary.json");
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find("a.summary.json: byte 0: not an ampscope rank summary"), std::string::npos);
  // A field of the wrong type is named with the byte where it starts in the summary's "rank".
  json wrong = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  wrong["rank"]["steps"] = 5;
  const std::string wrong_text = wrong.dump();
  StatusOr<RankSummary> typed = ParseRankSummary(wrong_text, "r8.summary.json");
  ASSERT_FALSE(typed.ok());
  ASSERT_EQ(wrong_text.find("\"steps\":5"), wrong_text.rfind("\"steps\":5"));
  const size_t five = wrong_text.find("\"steps\":5") + 8;  // the 5, in the whole file
  EXPECT_EQ(typed.status().message(),
            "r8.summary.json: byte " + std::to_string(five) + ": bad rank summary: an object expected");
  // A count no loop could replay (a hostile summary) is restored as the number it is.
  json counted = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  counted["rank"]["input"]["diagnostics"] =
      json::array({json::array({"collector_said_so", {{"severity", 1}, {"count", 1000000000000000000ull},
                                                      {"first_offset", 7}, {"first_message", "m"}}})});
  StatusOr<RankSummary> restored = ParseRankSummary(counted.dump(), "r9.summary.json");
  ASSERT_TRUE(restored.ok()) << restored.status().message();
  EXPECT_EQ(restored->rank.input.diagnostics.Count("collector_said_so"), 1000000000000000000ull);
}

}  // namespace
}  // namespace summary_json_test
}  // namespace ampscope

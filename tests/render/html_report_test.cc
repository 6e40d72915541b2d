// The HTML report: static checks on the file (self-contained, escaped, capped) and a real
// headless Chromium run (no console errors, every chart drawn, no network, a screenshot
// that is not blank) for the tb_plugin ResNet50 trace and for scenario traces.
#include "render/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "analyzers/analyze.h"
#include "chromium_driver.h"
#include "report_json_fixture.h"
#include "reports/json_report.h"
#include "test_support.h"
#include "tests/scenario/scenario.h"
#include "trace/kineto_reader.h"

namespace ampscope::render {
namespace {

using nlohmann::json;

// The charts every report has (ids of <figure id="chart-...">).
const std::vector<std::string> kCharts = {"step-time", "busy-timeline", "idle-breakdown",
                                          "gpu-categories", "precision", "top-kernels"};

// Every src=, href=, action=... attribute of every tag, and url( / @import anywhere: only
// #fragments and data: URIs are allowed. (Escaped text such as "&lt;img src=x" is not a tag.)
std::vector<std::string> ExternalReferences(const std::string& html) {
  std::vector<std::string> bad;
  static const std::regex kTag(R"re(<[a-zA-Z][^<>]*>)re");
  static const std::regex kAttr(R"re(\s(?:src|href|action|poster|srcset|data|formaction)\s*=\s*["']?([^"'\s>]*))re",
                                std::regex::icase);
  for (auto t = std::sregex_iterator(html.begin(), html.end(), kTag); t != std::sregex_iterator(); ++t) {
    std::string tag = t->str();
    for (auto a = std::sregex_iterator(tag.begin(), tag.end(), kAttr); a != std::sregex_iterator(); ++a) {
      std::string target = (*a)[1];
      if (target.rfind("#", 0) == 0 || target.rfind("data:", 0) == 0) continue;
      bad.push_back(tag.substr(0, 200));
    }
  }
  static const std::regex kCss(R"re((?:url\(|@import)\s*["']?([^"')\s]*))re", std::regex::icase);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), kCss); it != std::sregex_iterator(); ++it)
    if (std::string((*it)[1]).rfind("data:", 0) != 0) bad.push_back(it->str());
  if (html.find("<link") != std::string::npos) bad.push_back("<link>");
  return bad;
}

std::string EmbeddedBlob(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"ampscope-data\">";
  size_t a = html.find(open);
  if (a == std::string::npos) return "";
  a += open.size();
  return html.substr(a, html.find("</script>", a) - a);
}

TEST(HtmlReport, TheReferenceScanCatchesExternalUrls) {
  // Negative controls for the scan used below.
  EXPECT_EQ(ExternalReferences("<img src=\"http://cdn.example/a.png\">").size(), 1u);
  EXPECT_EQ(ExternalReferences("<script src=//cdn.example/x.js></script>").size(), 1u);
  EXPECT_EQ(ExternalReferences("<a href='https://example.org'>x</a>").size(), 1u);
  EXPECT_EQ(ExternalReferences("<style>body{background:url(https://x/y.png)}</style>").size(), 1u);
  EXPECT_EQ(ExternalReferences("<link rel=stylesheet href=a.css>").size(), 2u);
  EXPECT_TRUE(ExternalReferences("<a href=\"#finding-x\">x</a> &lt;img src=x&gt;").empty());
}

TEST(HtmlReport, IsSelfContainedWithEverySection) {
  std::string html = RenderHtml(testing::MakeReportJson());
  EXPECT_THAT(ExternalReferences(html), ::testing::IsEmpty());
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none';"), std::string::npos);
  for (const char* section : {"matrix", "checklist", "findings", "charts", "kernels", "diagnostics"})
    EXPECT_NE(html.find(std::string("<section id=\"") + section + "\""), std::string::npos) << section;
  for (const std::string& c : kCharts) {
    EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-" + c + "\""), std::string::npos) << c;
    EXPECT_NE(html.find("data-chart=\"" + c + "\""), std::string::npos) << c;
  }
  // Header numbers from the report (fixed by hand in report_fixtures.cc).
  EXPECT_NE(html.find("NVIDIA A100-SXM4-80GB (cc 8.0)"), std::string::npos);
  EXPECT_NE(html.find(">108.0 ms<"), std::string::npos);  // step time mean 108000 us
  EXPECT_NE(html.find(">61.2%<"), std::string::npos);     // GPU busy 61.25
  // One rank: no per-rank section or chart.
  EXPECT_EQ(html.find("id=\"ranks\""), std::string::npos);
  EXPECT_EQ(html.find("chart-ranks"), std::string::npos);
  // The blob parses and carries the chart data.
  json blob = json::parse(EmbeddedBlob(html));
  EXPECT_EQ(blob["steps"]["duration_ms"].size(), 6u);
  EXPECT_EQ(blob["categories"][0][0], "conv");
  EXPECT_EQ(blob["precision"][0][0], "fp32");
}

TEST(HtmlReport, StatusesAreColourCodedAndFindingsRanked) {
  std::string html = RenderHtml(testing::MakeReportJson());
  // Matrix cards and checklist rows carry their status class (report_fixtures.cc statuses).
  EXPECT_NE(html.find("<div class=\"dim s-bad\" id=\"dim-compute_intensity\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-warn\" id=\"dim-memory_bandwidth\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-good\" id=\"dim-instruction_efficiency\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-unknown\" id=\"dim-data_locality\">"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"st-fail\"><td>Tensor Core utilization</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"st-pass\"><td>Distributed sync (NCCL)</td>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge s-not_applicable\">n/a</span>"), std::string::npos);
  // Ranked by est_saving_pct: 27.5 > 18.25 > 1.5.
  size_t a = html.find("id=\"finding-data_loader_bottleneck\""), b = html.find("id=\"finding-fp32_gemm_no_amp\""),
         c = html.find("id=\"finding-small_kernels\"");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(html.find("Wrap the forward pass and loss in torch.autocast(&quot;cuda&quot;, dtype=torch.bfloat16)."),
            std::string::npos);
  // The matrix links to its findings.
  EXPECT_NE(html.find("<a href=\"#finding-fp32_gemm_no_amp\">fp32_gemm_no_amp</a>"), std::string::npos);
}

TEST(HtmlReport, EscapesEveryString) {
  json r = testing::MakeReportJson();
  const std::string evil = "</script><img src=x onerror=alert(1)><!-- & \"'";
  r["findings"][0]["title"] = evil;
  r["findings"][0]["evidence"]["kernel"] = evil;
  r["findings"][0]["recommendation"] = evil;
  r["kernels"]["top"][0]["name"] = evil;
  r["checklist"][0]["evidence"] = evil;
  r["matrix"]["compute_intensity"]["headline"]["name"] = evil;
  r["inputs"][0]["path"] = "/tmp/" + evil;
  std::string html = RenderHtml(r);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("onerror=alert(1)>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&lt;!-- &amp; &quot;&#39;"), std::string::npos);
  // Exactly the two real script elements (blob + code); the evil string opened none.
  size_t scripts = 0;
  for (size_t p = html.find("<script"); p != std::string::npos; p = html.find("<script", p + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);
  std::string blob = EmbeddedBlob(html);
  EXPECT_EQ(blob.find('<'), std::string::npos);
  EXPECT_EQ(json::parse(blob)["top_kernels"][0][0], evil);  // the chart still shows the real name
  EXPECT_THAT(ExternalReferences(html), ::testing::IsEmpty());
}

TEST(HtmlReport, StaysSmallFor100RanksManyStepsAndKernels) {
  json r = testing::MakeReportJson(100, 20000);
  json top = json::array();
  for (int i = 0; i < 5000; ++i)  // a report that (wrongly) lists 5000 kernels: the page still caps
    top.push_back({{"name", "kernel_" + std::to_string(i)}, {"count", 200}, {"total_us", 1000.0 - i * 0.1},
                   {"mean_us", 5.0}, {"pct", 0.01}, {"category", "elementwise"}, {"precision", "fp16"},
                   {"tensor_core", false}});
  r["kernels"]["top"] = top;
  r["kernels"]["all_count"] = 1000000;
  std::string html = RenderHtml(r);
  EXPECT_LT(html.size(), 400u * 1024);
  json blob = json::parse(EmbeddedBlob(html));
  EXPECT_LE(blob["steps"]["duration_ms"].size(), html_report::kMaxChartSteps);
  EXPECT_EQ(blob["steps"]["bucket_size"], 84);  // ceil(20000 / 240)
  EXPECT_EQ(blob["steps"]["min_ms"].size(), blob["steps"]["duration_ms"].size());
  EXPECT_EQ(blob["top_kernels"].size(), html_report::kMaxChartKernels);
  EXPECT_EQ(blob["ranks"].size(), 100u);
  // Kernel table capped; rank table collapsed but complete.
  const std::string row = "<td class=\"name\">kernel_";
  size_t kernel_rows = 0;
  for (size_t p = html.find(row); p != std::string::npos; p = html.find(row, p + 1)) ++kernel_rows;
  EXPECT_EQ(kernel_rows, html_report::kMaxKernelRows);
  EXPECT_NE(html.find("<details><summary>Per-rank numbers (100 ranks)</summary>"), std::string::npos);
  EXPECT_NE(html.find("chart-ranks"), std::string::npos);
  EXPECT_NE(html.find("(of 1000000 distinct)"), std::string::npos);
}

TEST(HtmlReport, MissingValuesShowAsNotAvailable) {
  json r = testing::MakeReportJson();
  r["gpu"]["busy_pct"] = nullptr;
  r["steps"] = {{"count", 0}, {"source", "none"}, {"time_us", {{"mean", nullptr}, {"median", nullptr}, {"p90", nullptr}}},
                {"durations_us", json::array()}};
  std::string html = RenderHtml(r);
  EXPECT_NE(html.find("<div class=\"k\">GPU busy</div><div class=\"v\">n/a</div>"), std::string::npos);
  EXPECT_NE(html.find("no steps found"), std::string::npos);
  EXPECT_EQ(json::parse(EmbeddedBlob(html))["steps"], json::object());
}

// ---------------------------------------------------------------------------------------
// In the browser

constexpr int kWidth = 1280;
constexpr int kHeight = 2000;

const char* kProbe = R"js(JSON.stringify({
  render: document.body ? document.body.getAttribute('data-render') : null,
  charts: Array.prototype.map.call(document.querySelectorAll('[data-chart]'), function (c) {
    var s = c.querySelector('svg'), box = c.getBoundingClientRect();
    return { name: c.getAttribute('data-chart'), rendered: c.getAttribute('data-rendered'),
             marks: s ? Number(s.getAttribute('data-marks')) : -1,
             shapes: c.querySelectorAll('rect,line,path,circle').length,
             width: box.width, height: box.height };
  })
}))js";

class HtmlInBrowser : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    browser_ = testing::ChromiumDriver::FindBrowser();
    if (browser_.empty()) return;
    dir_ = testing::MakeTempDir("ampscope_html");
    driver_ = new testing::ChromiumDriver();
    if (!driver_->Start(browser_, dir_ + "/profile", dir_ + "/chromium.log", &start_error_)) {
      delete driver_;
      driver_ = nullptr;
    }
  }
  static void TearDownTestSuite() {
    delete driver_;
    driver_ = nullptr;
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    if (browser_.empty())
      GTEST_SKIP() << "chromium is not installed (Debian package chromium; scripts/setup.sh --browser installs it)";
    ASSERT_NE(driver_, nullptr) << "chromium did not start: " << start_error_ << "\n"
                                << testing::ReadFile(dir_ + "/chromium.log").substr(0, 4000);
  }

  // Writes the page, loads it, and checks everything the issue asks for.
  void CheckReportInBrowser(const json& report, const std::string& name, std::vector<std::string> charts) {
    std::string path = dir_ + "/" + name + ".html";
    testing::WriteFile(path, RenderHtml(report));
    testing::PageResult page = driver_->Load("file://" + path, kWidth, kHeight, kProbe);
    KeepArtifacts(name, path, page);
    ASSERT_TRUE(page.loaded) << page.error;
    EXPECT_THAT(page.console_errors, ::testing::IsEmpty());
    // The only request is the page itself.
    for (const std::string& url : page.requests) EXPECT_EQ(url.rfind("file://", 0), 0u) << "page requested " << url;
    EXPECT_THAT(ExternalReferences(page.dom), ::testing::IsEmpty());
    // Every chart present, drawn, with marks, and visible.
    ASSERT_TRUE(page.probe.is_object()) << "probe failed";
    EXPECT_EQ(page.probe["render"], "ok");
    std::set<std::string> seen;
    for (const json& c : page.probe["charts"]) {
      std::string chart = c["name"];
      seen.insert(chart);
      EXPECT_EQ(c["rendered"], "ok") << chart;
      EXPECT_GT(c["marks"].get<int>(), 0) << chart;
      EXPECT_GT(c["shapes"].get<int>(), 0) << chart;
      EXPECT_GT(c["height"].get<double>(), 20) << chart;
      EXPECT_GT(c["width"].get<double>(), 200) << chart;
    }
    for (const std::string& c : charts) EXPECT_TRUE(seen.count(c)) << "chart " << c << " missing";
    EXPECT_EQ(seen.size(), charts.size());
    // A screenshot that is not blank: many colours, and a good part not background.
    int w = 0, h = 0;
    std::vector<uint8_t> rgba;
    std::string png_error;
    ASSERT_TRUE(testing::DecodePng(page.screenshot_png, &w, &h, &rgba, &png_error)) << png_error;
    EXPECT_EQ(w, kWidth);
    EXPECT_EQ(h, kHeight);
    std::map<uint32_t, size_t> colours;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4)
      colours[(uint32_t(rgba[i]) << 16) | (uint32_t(rgba[i + 1]) << 8) | rgba[i + 2]]++;
    size_t background = 0;
    for (const auto& [c, n] : colours) background = std::max(background, n);
    double covered = 1.0 - double(background) / double(size_t(w) * size_t(h));
    EXPECT_GT(colours.size(), 50u) << "screenshot looks blank";
    EXPECT_GT(covered, 0.10) << "screenshot is mostly one colour";
  }

  static void KeepArtifacts(const std::string& name, const std::string& html_path, const testing::PageResult& page) {
    // Set AMPSCOPE_TEST_ARTIFACTS=<dir> to keep the pages and screenshots for a look.
    const char* keep = std::getenv("AMPSCOPE_TEST_ARTIFACTS");
    if (keep == nullptr || *keep == '\0') return;
    std::filesystem::create_directories(keep);
    std::filesystem::copy_file(html_path, std::string(keep) + "/" + name + ".html",
                               std::filesystem::copy_options::overwrite_existing);
    testing::WriteFile(std::string(keep) + "/" + name + ".png", page.screenshot_png);
  }

  static std::string browser_, dir_, start_error_;
  static testing::ChromiumDriver* driver_;
};
std::string HtmlInBrowser::browser_, HtmlInBrowser::dir_, HtmlInBrowser::start_error_;
testing::ChromiumDriver* HtmlInBrowser::driver_ = nullptr;

TEST_F(HtmlInBrowser, TheDriverSeesLeaksAndErrors) {
  // Negative control: the checks below only mean something if they catch a bad page.
  testing::PageResult page =
      driver_->Load("file://" + testing::SourcePath("tests/render/browser/leak_probe.html"), 800, 600, "");
  ASSERT_TRUE(page.loaded) << page.error;
  bool leaked = false;
  for (const std::string& url : page.requests) leaked |= url.find("example.invalid") != std::string::npos;
  EXPECT_TRUE(leaked) << ::testing::PrintToString(page.requests);
  EXPECT_FALSE(page.console_errors.empty());
}

TEST_F(HtmlInBrowser, ResNet50TbPluginTrace) {
  if (!testing::HaveShared()) GTEST_SKIP() << "shared/ traces not available";
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  traces.push_back(std::move(t).value());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  json report = BuildJsonReport(job, traces, AnalysisOptions{});
  CheckReportInBrowser(report, "resnet50", kCharts);
}

TEST_F(HtmlInBrowser, ScenarioTraceWithTwoRanks) {
  // Two ranks of a DDP job with host syncs planted (tests/scenario), through the real pipeline.
  std::vector<Trace> traces;
  for (int rank = 0; rank < 2; ++rank) {
    scenario::ScenarioOptions o;
    o.problem = scenario::Problem::kHostSync;
    o.steps = 6;
    o.rank = rank;
    o.world_size = 2;
    o.seed = 7 + rank;
    StatusOr<Trace> t = ReadKinetoTraceFromString(scenario::GenerateKinetoJson(o), "scenario_rank" + std::to_string(rank));
    ASSERT_TRUE(t.ok()) << t.status().message();
    traces.push_back(std::move(t).value());
  }
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  json report = BuildJsonReport(job, traces, AnalysisOptions{});
  ASSERT_EQ(report["ranks"].size(), 2u);
  std::vector<std::string> charts = kCharts;
  charts.push_back("ranks");
  CheckReportInBrowser(report, "scenario_2ranks", charts);
}

TEST_F(HtmlInBrowser, HundredRanksManySteps) {
  std::vector<std::string> charts = kCharts;
  charts.push_back("ranks");
  CheckReportInBrowser(testing::MakeReportJson(100, 5000), "hundred_ranks", charts);
}

}  // namespace
}  // namespace ampscope::render

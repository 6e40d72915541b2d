// The HTML report: static checks on the file (self-contained, escaped, capped) and a real
// headless Chromium run (no console errors, every chart drawn, no network, a screenshot
// that is not blank) for the tb_plugin ResNet50 trace and for scenario traces.
#include "render/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <cctype>
#include <regex>
#include <set>

#include "analyzers/analyze.h"
#include "analyzers/memory/memory_snapshot.h"
#include "chromium_driver.h"
#include "pipeline/job.h"
#include "report_json_fixture.h"
#include "reports/json_report.h"
#include "support/test_support.h"
#include "tools/scenario/scenario.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope::render {
namespace html_report_test {
namespace {

using nlohmann::json;

// The charts every report has (ids of <figure id="chart-...">).
const std::vector<std::string> kCharts = {"step-time", "busy-timeline", "idle-breakdown",
                                          "gpu-categories", "precision", "top-kernels"};

// Every src=, href=, action=... attribute of every tag, and url( / @import anywhere: only
// #fragments and data: URIs are allowed. (Escaped text such as "&lt;img src=x" is not a tag.)
std::vector<std::string> ExternalReferences(const std::string& html) {
  std::vector<std::string> bad;
  // Scanned by hand, not with std::regex: libstdc++'s regex recurses once per character, and a
  // chart's <polyline points="..."> of thousands of characters overflows the stack (sanitizer tree).
  static const std::regex kUrlAttr(R"re(^(?:src|href|action|poster|srcset|data|formaction)$)re", std::regex::icase);
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  for (size_t lt = html.find('<'); lt != std::string::npos; lt = html.find('<', lt + 1)) {
    if (lt + 1 >= html.size() || !std::isalpha(static_cast<unsigned char>(html[lt + 1]))) continue;
    const size_t gt = html.find_first_of("<>", lt + 1);
    if (gt == std::string::npos || html[gt] != '>') continue;
    const std::string tag = html.substr(lt, gt - lt + 1);
    size_t p = tag.find_first_of(" \t\n/>", 1);
    // Attributes one by one, so text inside a quoted value (an escaped kernel name in a title)
    // is not mistaken for an attribute.
    while (p != std::string::npos && p < tag.size()) {
      while (p < tag.size() && !name_char(tag[p])) ++p;
      const size_t ns = p;
      while (p < tag.size() && name_char(tag[p])) ++p;
      if (p == ns) break;
      const std::string name = tag.substr(ns, p - ns);
      while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
      std::string target;
      if (p < tag.size() && tag[p] == '=') {
        ++p;
        while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
        if (p < tag.size() && (tag[p] == '"' || tag[p] == '\'')) {
          const size_t close = tag.find(tag[p], p + 1);
          target = tag.substr(p + 1, (close == std::string::npos ? tag.size() : close) - p - 1);
          p = close == std::string::npos ? tag.size() : close + 1;
        } else {
          const size_t end = tag.find_first_of(" \t\n\"'=<>`", p);
          target = tag.substr(p, (end == std::string::npos ? tag.size() : end) - p);
          p = end;
        }
      }
      if (!std::regex_match(name, kUrlAttr)) continue;
      if (target.rfind("#", 0) == 0 || target.rfind("data:", 0) == 0) continue;
      bad.push_back(tag.substr(0, 200));
    }
  }
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string key : {"url(", "@import"}) {
    for (size_t at = lower.find(key); at != std::string::npos; at = lower.find(key, at + 1)) {
      size_t p = at + key.size();
      while (p < html.size() && std::isspace(static_cast<unsigned char>(html[p]))) ++p;
      if (p < html.size() && (html[p] == '"' || html[p] == '\'')) ++p;
      const size_t end = html.find_first_of("\"')\t\n\r ", p);
      const std::string target = html.substr(p, (end == std::string::npos ? html.size() : end) - p);
      if (target.rfind("data:", 0) != 0) bad.push_back(html.substr(at, std::min<size_t>(200, target.size() + (p - at))));
    }
  }
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
  EXPECT_TRUE(ExternalReferences("<td title=\"&lt;img src=x onerror=alert(1)&gt;\">k</td>").empty());
  EXPECT_EQ(ExternalReferences("<td title=\"a\" src=\"http://x/y\">k</td>").size(), 1u);
}

TEST(HtmlReport, IsSelfContainedWithEverySection) {
  std::string html = RenderHtml(testing::MakeReportJson());
  EXPECT_THAT(ExternalReferences(html), ::testing::IsEmpty());
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none';"), std::string::npos);
  for (const char* section : {"matrix", "checklist", "findings", "critical-path", "charts", "kernels", "diagnostics"})
    EXPECT_NE(html.find(std::string("<section id=\"") + section + "\""), std::string::npos) << section;
  for (const std::string& c : kCharts) {
    EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-" + c + "\""), std::string::npos) << c;
    EXPECT_NE(html.find("data-chart=\"" + c + "\""), std::string::npos) << c;
  }
  // Header numbers from the report (fixed by hand in report_json_fixture.cc).
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

// The critical path's rows and bars from the report's critical_path section (the fixture's).
TEST(HtmlReport, CriticalPathShowsEachCategoryWithItsShare) {
  std::string html = RenderHtml(testing::MakeReportJson());
  const size_t at = html.find("<section id=\"critical-path\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<td class=\"num\">55.0%</td><td class=\"num\">356.4 ms</td><td>GPU compute</td>"), std::string::npos) << section;
  EXPECT_NE(section.find("width:30.0%"), std::string::npos) << section;  // host-bound's bar
  EXPECT_EQ(section.find("Communication"), std::string::npos);          // 0%: not listed
  EXPECT_NE(section.find("within 0.40% (worst: step 7)"), std::string::npos) << section;
  json none = testing::MakeReportJson();
  none["critical_path"] = {{"available", false}, {"reason", "no analysed window"}};
  EXPECT_NE(RenderHtml(none).find("No critical path: no analysed window"), std::string::npos);
}

TEST(HtmlReport, StatusesAreColourCodedAndFindingsRanked) {
  std::string html = RenderHtml(testing::MakeReportJson());
  // Matrix cards and checklist rows carry their status class (report_json_fixture.cc statuses).
  EXPECT_NE(html.find("<div class=\"dim s-bad\" id=\"dim-compute_intensity\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-warn\" id=\"dim-memory_bandwidth\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-good\" id=\"dim-instruction_efficiency\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dim s-unknown\" id=\"dim-data_locality\">"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"st-fail\"><td>Tensor Core utilization</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"st-pass\"><td>Distributed sync</td>"), std::string::npos);
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
  EXPECT_EQ(json::parse(blob)["top_kernels"][0][5], evil);  // the chart's tooltip still has the real name
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
  const std::string row = "<td class=\"name\" title=\"kernel_";
  size_t kernel_rows = 0;
  for (size_t p = html.find(row); p != std::string::npos; p = html.find(row, p + 1)) ++kernel_rows;
  EXPECT_EQ(kernel_rows, html_report::kMaxKernelRows);
  EXPECT_NE(html.find("<details><summary>Per-rank numbers (100 ranks)</summary>"), std::string::npos);
  EXPECT_NE(html.find("chart-ranks"), std::string::npos);
  EXPECT_NE(html.find("(of 1,000,000 distinct)"), std::string::npos);
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

TEST(HtmlReport, RooflinePointsAndRoofsLandWhereTheNumbersSay) {
  const std::string html = RenderHtml(testing::WithHandRoofline(testing::MakeReportJson()));
  // By hand (render/roofline_html.cc's frame: x from 70 to 570, y from 374 up to 14, whole
  // decades): x spans 10^2..10^3 FLOP/B (the ops' 100 and 1000; the bf16 ridge 1000/2 = 500
  // is inside), y spans 10^1..10^4 TFLOP/s (the lowest op, 10, to 1.5 x the top roof, 1500).
  //   mm:  x(100) = 70, y(100) = 374 - 360 x 1/3 = 254; radius 3 + 11 x sqrt(400/400) = 14.
  //   bmm: x(1000) = 570, y(10) = 374; radius 3 + 11 x sqrt(100/400) = 8.5.
  EXPECT_NE(html.find("data-dtype=\"bf16\" cx=\"70.0\" cy=\"254.0\" r=\"14.0\""), std::string::npos);
  EXPECT_NE(html.find("data-dtype=\"fp32\" cx=\"570.0\" cy=\"374.0\" r=\"8.5\""), std::string::npos);
  // The memory-only add (0 FLOPs) has no place on a log axis: table only.
  EXPECT_EQ(html.find("aten::add [[1024]] ("), std::string::npos);
  EXPECT_NE(html.find("<td class=\"name\">aten::add</td>"), std::string::npos);
  // bf16 roof: bandwidth 2 TB/s from x = 100 (y = 200: 374 - 120 x log10(20) = 217.9) to the
  // ridge at 500 FLOP/B (x = 70 + 500 x log10(5) = 419.5, y(1000) = 134), then flat.
  EXPECT_NE(html.find("data-precision=\"bf16\" data-unit=\"matrix\" points=\"70.0,217.9 419.5,134.0 570.0,134.0\""),
            std::string::npos);
  // fp32 vector roof: its ridge (30 FLOP/B) is left of the frame, so it is flat at
  // y(60) = 374 - 120 x log10(6) = 280.6.
  EXPECT_NE(html.find("data-precision=\"fp32\" data-unit=\"vector\" points=\"70.0,280.6 570.0,280.6\""),
            std::string::npos);
  // Axis labels without exponent notation.
  EXPECT_NE(html.find(">10⁴</text>"), std::string::npos);
  EXPECT_NE(html.find(">1000</text>"), std::string::npos);
  // Cards and the per-step MFU.
  EXPECT_NE(html.find("<div class=\"k\">MFU</div><div class=\"v\">5.0%</div>"), std::string::npos);
  EXPECT_NE(html.find("1235 GFLOP"), std::string::npos);
}

TEST(HtmlReport, UnavailableRooflineSaysWhy) {
  json r = testing::MakeReportJson();
  r["roofline"] = {{"available", false}, {"reason", "no op recorded its input shapes (record_shapes=False)"}};
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find("No roofline: no op recorded its input shapes (record_shapes=False)"), std::string::npos);
  EXPECT_EQ(html.find("id=\"chart-roofline\""), std::string::npos);
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
  }),
  // What a reader sees (innerText: rendered text only, not attributes or the data blob).
  text: document.body ? document.body.innerText : '',
  // The top-kernels chart: every bar and every legend entry with the colour it is drawn in.
  bars: Array.prototype.map.call(document.querySelectorAll('#chart-top-kernels rect[data-class]'), function (r) {
    return { cls: r.getAttribute('data-class'), tc: r.getAttribute('data-tc'), fill: r.getAttribute('fill') };
  }),
  legend: Array.prototype.map.call(document.querySelectorAll('#chart-top-kernels .legend span'), function (l) {
    var sw = l.querySelector('i');
    return { cls: l.getAttribute('data-class'), tc: l.getAttribute('data-tc'), label: l.textContent,
             colour: sw ? sw.getAttribute('data-colour') : null,
             drawn: sw ? getComputedStyle(sw).backgroundColor : null };
  }),
  // The roofline chart: each op point with its precision and the colour it is drawn in, where
  // it lands on screen, and the legend's swatches.
  roofline_points: Array.prototype.map.call(document.querySelectorAll('#chart-roofline circle.op'), function (c) {
    var b = c.getBoundingClientRect();
    return { dtype: c.getAttribute('data-dtype'), fill: getComputedStyle(c).fill, w: b.width, h: b.height };
  }),
  roofline_roofs: document.querySelectorAll('#chart-roofline polyline.roof').length,
  roofline_legend: Array.prototype.map.call(document.querySelectorAll('#chart-roofline .legend-item[data-dtype]'), function (l) {
    var c = l.querySelector('circle');
    return { dtype: l.getAttribute('data-dtype'), fill: c ? getComputedStyle(c).fill : null };
  })
}))js";

// "#1e8e3e" -> "rgb(30, 142, 62)": how getComputedStyle reports a colour.
std::string Rgb(const std::string& hex) {
  if (hex.size() != 7 || hex[0] != '#') return hex;
  int v[3];
  for (int i = 0; i < 3; ++i) v[i] = std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16);
  return "rgb(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

#define RequireShared()                                                                                  \
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with "                  \
                                                "-DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)")

json ReportOf(const std::string& shared_trace) {
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(shared_trace));
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!t.ok()) return json();
  traces.push_back(std::move(t).value());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  return BuildJsonReport(job, AnalysisOptions{});
}

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
    AMPSCOPE_REQUIRE_INPUT(!browser_.empty(),
                           "chromium is not installed (Debian package chromium; scripts/setup.sh --browser installs it)");
    ASSERT_NE(driver_, nullptr) << "chromium did not start: " << start_error_ << "\n"
                                << testing::ReadFile(dir_ + "/chromium.log").substr(0, 4000);
  }

  // Writes the page, loads it, and checks everything the issue asks for.
  // `out`, when given, gets what the page did for further checks.
  void CheckReportInBrowser(const json& report, const std::string& name, std::vector<std::string> charts,
                            testing::PageResult* out = nullptr) {
    std::string path = dir_ + "/" + name + ".html";
    testing::WriteFile(path, RenderHtml(report));
    testing::PageResult local;
    testing::PageResult& page = out ? *out : local;
    page = driver_->Load("file://" + path, kWidth, kHeight, kProbe);
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
    CheckReadable(page);
  }

  // What issue 17 asks of the page a reader sees.
  static void CheckReadable(const testing::PageResult& page) {
    const std::string text = page.probe.value("text", "");
    ASSERT_FALSE(text.empty());
    // No number with an exponent ("1.62e+15") anywhere in the visible text.
    static const std::regex kExponent(R"(\b\d+(\.\d+)?[eE][+-]?\d+\b)");
    std::smatch m;
    EXPECT_FALSE(std::regex_search(text, m, kExponent)) << "raw exponent: " << m.str();
    // No evidence dumped as JSON (arrays of strings or objects).
    EXPECT_EQ(text.find("[\""), std::string::npos) << "raw JSON array in the page";
    EXPECT_EQ(text.find("[{"), std::string::npos) << "raw JSON array in the page";
    // No absolute trace time (10+ digits with a time unit).
    static const std::regex kEpoch(R"(\d{10,}(\.\d+)? ?(ms|us|µs)\b)");
    EXPECT_FALSE(std::regex_search(text, m, kEpoch)) << "absolute time: " << m.str();
    // Matrix headlines by name, not id.
    for (const char* id : {"tensor_core_utilization_pct", "memory_bound_kernel_time_pct", "gpu_busy_pct"})
      EXPECT_EQ(text.find(id), std::string::npos) << id;
    // Legend colours mean what the legend says: each bar's colour is its class's legend colour;
    // Tensor Core bars only in "Tensor Cores" colours, every other bar never in one.
    std::map<std::string, json> legend;
    std::set<std::string> tc_colours;
    for (const json& l : page.probe["legend"]) {
      legend[l["cls"].get<std::string>()] = l;
      const bool tc = l["tc"] == "1";
      EXPECT_EQ(l["label"].get<std::string>().rfind(tc ? "Tensor Cores" : "no Tensor Cores", 0), 0u) << l.dump();
      EXPECT_EQ(l["drawn"].get<std::string>(), Rgb(l["colour"].get<std::string>())) << l.dump();  // the swatch shows it
      if (tc) tc_colours.insert(l["colour"].get<std::string>());
    }
    for (const json& b : page.probe["bars"]) {
      const std::string cls = b["cls"];
      ASSERT_TRUE(legend.count(cls)) << "bar class without a legend entry: " << b.dump();
      EXPECT_EQ(b["fill"], legend[cls]["colour"]) << b.dump();
      EXPECT_EQ(b["tc"], legend[cls]["tc"]) << b.dump();
      if (b["tc"] == "0") {
        EXPECT_FALSE(tc_colours.count(b["fill"].get<std::string>())) << b.dump();
      }
    }
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
  RequireShared();
  json report = ReportOf("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  testing::PageResult page;
  CheckReportInBrowser(report, "resnet50", kCharts, &page);
  ASSERT_TRUE(page.probe.is_object());
  // An FP32 run on a V100 (shared/traces/README.md: "Kernel time using Tensor Cores: 0.0%"):
  // no bar may look like a Tensor Core kernel.
  ASSERT_FALSE(page.probe["bars"].empty());
  for (const json& b : page.probe["bars"]) EXPECT_EQ(b["tc"], "0") << b.dump();
  const std::string text = page.probe["text"];
  // Evidence as named values with units (dataloader_bottleneck's exposed time, 33.37% of the
  // step per the TensorBoard plugin) and kernel names short, as in the issue.
  EXPECT_NE(text.find("33.4% of step"), std::string::npos);
  EXPECT_NE(text.find("vectorized_elementwise_kernel<FillFunctor<float>>"), std::string::npos);
  EXPECT_NE(text.find("Tensor Core utilization"), std::string::npos);
}

TEST_F(HtmlInBrowser, TensorCoreAndFp32KernelsInOneChart) {
  RequireShared();
  // HTA's nccl trace: TF32 Tensor Core GEMMs (cutlass_80_tensorop_s1688gemm*) next to fp32
  // SIMT kernels (shared/traces/README.md), so both kinds of bars and legend entries appear.
  testing::PageResult page;
  CheckReportInBrowser(ReportOf("traces/kineto/hta/nccl_data.json.gz"), "nccl", kCharts, &page);
  ASSERT_TRUE(page.probe.is_object());
  std::set<std::string> kinds;
  for (const json& b : page.probe["bars"]) kinds.insert(b["tc"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"0", "1"}));
  EXPECT_NE(page.probe["text"].get<std::string>().find("Tensor Cores, tf32"), std::string::npos);
}

TEST_F(HtmlInBrowser, ScenarioTraceWithTwoRanks) {
  // Two ranks of a DDP job with host syncs planted (tools/scenario), through the real pipeline.
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
  json report = BuildJsonReport(job, AnalysisOptions{});
  ASSERT_EQ(report["ranks"].size(), 2u);
  std::vector<std::string> charts = kCharts;
  charts.push_back("ranks");
  CheckReportInBrowser(report, "scenario_2ranks", charts);
}

TEST_F(HtmlInBrowser, RooflineOfTheMi300xQwenTrace) {
  RequireShared();
  // TraceLens's MI300X Qwen trace (bf16 GEMMs and SDPA with shapes recorded): the roofline has
  // points; each is drawn in its precision's legend colour and is visible.
  json report = ReportOf("traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  ASSERT_TRUE(report["roofline"].value("available", false)) << report["roofline"].dump().substr(0, 400);
  testing::PageResult page;
  std::vector<std::string> charts = kCharts;
  CheckReportInBrowser(report, "qwen_roofline", charts, &page);
  ASSERT_TRUE(page.probe.is_object());
  std::map<std::string, std::string> legend;
  for (const json& l : page.probe["roofline_legend"]) legend[l["dtype"]] = l["fill"];
  ASSERT_FALSE(page.probe["roofline_points"].empty());
  EXPECT_GT(page.probe["roofline_roofs"].get<int>(), 0);
  for (const json& p : page.probe["roofline_points"]) {
    ASSERT_TRUE(legend.count(p["dtype"])) << p.dump();
    EXPECT_EQ(p["fill"], legend[p["dtype"]]) << p.dump();
    EXPECT_GT(p["w"].get<double>(), 3) << p.dump();
  }
  EXPECT_NE(page.probe["text"].get<std::string>().find("Roofline and MFU"), std::string::npos);
}

TEST_F(HtmlInBrowser, HundredRanksManySteps) {
  std::vector<std::string> charts = kCharts;
  charts.push_back("ranks");
  CheckReportInBrowser(testing::MakeReportJson(100, 5000), "hundred_ranks", charts);
}

TEST_F(HtmlInBrowser, MemorySnapshotTimelineAndSegmentMap) {
  RequireShared();
  // The ResNet50 trace with the bf16 snapshot attached (a snapshot of another run: the page is
  // what is checked here): every chart as before, plus the memory section drawn in the browser.
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(t.ok());
  std::vector<Trace> traces;
  traces.push_back(std::move(t).value());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  StatusOr<MemorySnapshot> snap = ReadMemorySnapshot(testing::SharedPath("traces/memory/fwdbwd_bf16_autocast.pickle"));
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  auto result = std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(*snap));
  ApplyMemorySnapshot(result, job.ranks[0]);
  ApplyMemorySnapshot(result, job.job);
  const json report = BuildJsonReport(job, AnalysisOptions{});
  testing::PageResult page;
  CheckReportInBrowser(report, "memory_snapshot", kCharts, &page);
  ASSERT_TRUE(page.probe.is_object());
  const std::string text = page.probe["text"];
  EXPECT_NE(text.find("Memory snapshot"), std::string::npos);
  EXPECT_NE(text.find("total_reserved: 1.1GiB"), std::string::npos);  // segsum's totals line (1,205,862,400 B)
  EXPECT_NE(text.find("functional.py:407:einsum"), std::string::npos);  // the top site at the peak
  // The timeline: two polylines with one point per timeline entry (the report keeps <= 2048).
  const size_t points = result->timeline.size();
  ASSERT_GT(points, 100u);
  for (const char* cls : {"class=\"live\"", "class=\"reserved\""}) {
    const size_t at = page.dom.find(cls);
    ASSERT_NE(at, std::string::npos) << cls;
    const size_t from = page.dom.find("points=\"", at) + 8;
    const std::string pts = page.dom.substr(from, page.dom.find('"', from) - from);
    EXPECT_EQ(static_cast<size_t>(std::count(pts.begin(), pts.end(), ',')), points) << cls;
  }
}

}  // namespace
}  // namespace html_report_test
}  // namespace ampscope::render

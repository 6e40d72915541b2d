// Issue 32, "AMD wording": a report of AMD GPUs says Matrix Core (AMD's name for its MFMA units)
// wherever a label says Tensor Core on NVIDIA, in the terminal, Markdown and HTML alike; a report
// of NVIDIA GPUs (or of no known device) keeps Tensor Core.
#include <gtest/gtest.h>

#include <string>

#include "render/format.h"
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace vendor_words_test {
namespace {

using nlohmann::json;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> Outputs(const json& r) {
  TerminalOptions o;
  o.width = 120;
  return {RenderTerminalSummary(r, o), RenderMarkdown(r), RenderHtml(r)};
}

TEST(VendorWords, AmdReportsSayMatrixCoreEverywhere) {
  json amd = testing::MakeReportJson();
  for (json& d : amd["devices"]) d["vendor"] = "amd";
  ASSERT_TRUE(AmdOnlyReport(amd));
  const std::vector<std::string> nvidia_out = Outputs(testing::MakeReportJson());
  const std::vector<std::string> amd_out = Outputs(amd);
  for (size_t i = 0; i < amd_out.size(); ++i) {
    SCOPED_TRACE(i);
    const size_t tensor = Count(nvidia_out[i], "Tensor Core");
    EXPECT_GT(tensor, 0u);  // the fixture's report shows its Tensor Core share in every output
    EXPECT_EQ(Count(amd_out[i], "Tensor Core"), 0u);
    EXPECT_EQ(Count(amd_out[i], "Matrix Core"), tensor + Count(nvidia_out[i], "Matrix Core"));
    EXPECT_EQ(Count(amd_out[i], "\n"), Count(nvidia_out[i], "\n"));  // the same length of word: the same layout
  }
}

TEST(VendorWords, MixedOrUnknownDevicesKeepTensorCore) {
  json mixed = testing::MakeReportJson();
  mixed["devices"].push_back(mixed["devices"][0]);
  mixed["devices"][0]["vendor"] = "amd";
  EXPECT_FALSE(AmdOnlyReport(mixed));
  json none = testing::MakeReportJson();
  none["devices"] = json::array();
  EXPECT_FALSE(AmdOnlyReport(none));
  EXPECT_EQ(InVendorWords(none, "Tensor Cores"), "Tensor Cores");
  json amd = testing::MakeReportJson();
  for (json& d : amd["devices"]) d["vendor"] = "amd";
  EXPECT_EQ(InVendorWords(amd, "Tensor Cores, Tensor Core kernel"), "Matrix Cores, Matrix Core kernel");
}

}  // namespace
}  // namespace vendor_words_test
}  // namespace ampscope::render

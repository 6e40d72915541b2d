// An evidence table's rows lead with what each row is about (issue 32, point 3): records are JSON
// objects, whose keys come in alphabetical order, so without a lead column "By type" read
// "4 (calls ...)" and "Shapes" read "860.3 MB (batch ...)". Checked in the terminal summary, the
// Markdown summary and the HTML report, on a finding written here by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "render/evidence.h"
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace evidence_lead_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// exposed_communication's by_type record and eager_attention's shape record, as the analyzers
// write them (distributed_rules.cc TypesJson, attention_rules.cc), plus a record of no known
// label key whose one text column must lead.
json ReportWithRecords() {
  json r = testing::MakeReportJson();
  json& f = r["findings"][0];
  f["evidence"] = {
      {"by_type", json::array({{{"type", "all_to_all"}, {"calls", 4}, {"calls_per_step", 4.0}, {"time_us", 113030.0},
                                {"share_of_communication_pct", 100.0}, {"exposed_us", 2000.0}}})},
      {"shapes", json::array({{{"shape", "B 1 x H 16, N 5185, d 64"}, {"ops", "aten::bmm -> aten::softmax -> aten::bmm"},
                               {"attention_matrix_bytes", 860300000.0}, {"batch", 1}, {"heads", 16}, {"seq_q", 5185},
                               {"shape_basis", "aten::view input [1, 16, 5185, 64]"}, {"calls", 120}}})},
      {"streams", json::array({{{"bytes", 4096}, {"lane", "stream 7"}, {"calls", 3}}})},
  };
  return r;
}

TEST(EvidenceLead, RecordsLeadWithTheirLabelInEveryFormat) {
  const json r = ReportWithRecords();
  // The items themselves: the label column comes first.
  const std::vector<EvidenceItem> items = FindingEvidence(r, reports::ReadFinding(r["findings"][0]), StepClock(r));
  ASSERT_EQ(items.size(), 3u);
  for (const EvidenceItem& i : items) {
    ASSERT_FALSE(i.header.empty()) << i.key;
    ASSERT_FALSE(i.rows.empty()) << i.key;
  }
  EXPECT_EQ(items[0].header[0], "Type");
  EXPECT_EQ(items[0].rows[0][0], "all_to_all");
  EXPECT_EQ(items[1].header[0], "Shape");
  EXPECT_EQ(items[1].rows[0][0], "B 1 x H 16, N 5185, d 64");
  EXPECT_EQ(items[2].rows[0][0], "stream 7");

  TerminalOptions t;
  t.width = 400;  // one line per paragraph: the substrings stay whole
  const std::string term = RenderTerminalSummary(r, t);
  EXPECT_THAT(term, HasSubstr("By type: all_to_all (calls 4"));
  EXPECT_THAT(term, HasSubstr("Shapes: B 1 x H 16, N 5185, d 64 ("));
  EXPECT_THAT(term, HasSubstr("Streams: stream 7 ("));
  EXPECT_THAT(term, Not(HasSubstr("By type: 4")));
  EXPECT_THAT(term, Not(HasSubstr("Shapes: 860.3 MB")));

  const std::string md = RenderMarkdown(r);
  EXPECT_THAT(md, HasSubstr("By type: all\\_to\\_all (calls 4")) << md;
  EXPECT_THAT(md, HasSubstr("Shapes: B 1 x H 16, N 5185, d 64 ("));

  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("<thead><tr><th>Type</th>"));
  EXPECT_THAT(html, HasSubstr("<thead><tr><th>Shape</th>"));
}

}  // namespace
}  // namespace evidence_lead_test
}  // namespace ampscope::render

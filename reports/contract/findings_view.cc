#include "reports/contract/findings_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = findings_key;

namespace {

FindingTimeRange ReadRange(const json& range) {
  FindingTimeRange out;
  if (!range.is_array()) return out;
  if (range.size() > 0 && range[0].is_number()) out.start_us = range[0].get<double>();
  if (range.size() > 1 && range[1].is_number()) out.end_us = range[1].get<double>();
  return out;
}

}  // namespace

FindingView ReadFinding(const json& finding) {
  FindingView out;
  out.id = TextMember(finding, key::kId);
  out.severity = StringMember(finding, key::kSeverity);
  out.dimension = TextMember(finding, key::kDimension);
  out.checklist = TextMember(finding, key::kChecklist);
  out.title = TextMember(finding, key::kTitle);
  out.evidence = Member(finding, key::kEvidence);
  out.evidence_units = Member(finding, key::kEvidenceUnits);
  out.recommendation = TextMember(finding, key::kRecommendation);
  out.est_saving_pct = NumberMember(finding, key::kEstSavingPct);
  out.confidence = TextMember(finding, key::kConfidence);
  out.confidence_reason = StringMember(finding, key::kConfidenceReason);
  out.time_ranges_us = ListMember<FindingTimeRange>(finding, key::kTimeRangesUs, ReadRange);
  out.numbers_of_rank = NumberMember(out.evidence, key::kNumbersOfRank);
  return out;
}

std::vector<FindingView> ReadFindingsView(const json& report) {
  std::vector<FindingView> out;
  const json& findings = Member(report, key::kFindings);
  if (!findings.is_array()) return out;
  for (const json& f : findings)
    if (f.is_object()) out.push_back(ReadFinding(f));
  return out;
}

}  // namespace ampscope::reports

#include "reports/contract/checklist_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = checklist_key;

ReportValue ValueMember(const json& object, const char* key) {
  const json& v = Member(object, key);
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.get<double>();
  return std::monostate{};
}

namespace {

ChecklistItemView ReadItem(const json& item) {
  ChecklistItemView out;
  out.id = TextMember(item, key::kId);
  out.status = StringMember(item, key::kStatus);
  out.value = ValueMember(item, key::kValue);
  out.unit = TextMember(item, key::kUnit);
  out.threshold = StringMember(item, key::kThreshold);
  out.source = TextMember(item, key::kSource);
  out.evidence = TextMember(item, key::kEvidence);
  out.findings = StringListMember(item, key::kFindings);
  out.how_to_know = TextMember(item, key::kHowToKnow);
  out.numbers_of_rank = NumberMember(item, key::kNumbersOfRank);
  return out;
}

}  // namespace

std::vector<ChecklistItemView> ReadChecklistView(const json& report) {
  return ListMember<ChecklistItemView>(report, key::kChecklist, ReadItem);
}

}  // namespace ampscope::reports

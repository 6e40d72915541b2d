#include "reports/contract/matrix_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = matrix_key;

namespace {

DimensionView ReadDimension(const std::string& id, const json& d) {
  DimensionView out;
  out.id = id;
  out.status = StringMember(d, key::kStatus);
  const json& h = Member(d, key::kHeadline);
  out.headline = {TextMember(h, key::kName), ValueMember(h, key::kValue), TextMember(h, key::kUnit), TextMember(h, key::kSource)};
  out.metrics = Member(d, key::kMetrics);
  out.metrics_units = Member(d, key::kMetricsUnits);
  out.findings = StringListMember(d, key::kFindings);
  out.numbers_of_rank = NumberMember(out.metrics, key::kNumbersOfRank);
  return out;
}

}  // namespace

std::vector<DimensionView> ReadMatrixView(const json& report) {
  std::vector<DimensionView> out;
  const json& matrix = Member(report, key::kMatrix);
  if (!matrix.is_object()) return out;
  for (const auto& [id, d] : matrix.items()) out.push_back(ReadDimension(id, d));
  return out;
}

}  // namespace ampscope::reports

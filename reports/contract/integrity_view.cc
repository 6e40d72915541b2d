#include "reports/contract/integrity_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = integrity_key;

std::vector<TraceIntegrityCheck> ReadIntegrityView(const json& report) {
  std::vector<TraceIntegrityCheck> out;
  const json& checks = Member(report, key::kTraceIntegrity);
  if (!checks.is_array()) return out;
  for (const json& c : checks) {
    if (!c.is_object()) continue;
    TraceIntegrityCheck check{TextMember(c, key::kId), StringMember(c, key::kStatus), TextMember(c, key::kEvidence), {}};
    if (const json& affects = Member(c, key::kAffects); affects.is_array())
      for (const json& a : affects)
        if (a.is_string()) check.affects.push_back(a.get<std::string>());
    out.push_back(std::move(check));
  }
  return out;
}

}  // namespace ampscope::reports

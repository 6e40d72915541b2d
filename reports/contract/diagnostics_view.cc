#include "reports/contract/diagnostics_view.h"

#include <cmath>

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = diagnostics_key;

namespace {

DiagnosticMessage ReadMessage(const json& m) {
  return {TextMember(m, key::kCode),  TextMember(m, key::kSeverity),        TextMember(m, key::kDescription),
          NumberMember(m, key::kCount), TextMember(m, key::kFile), NumberMember(m, key::kFirstOffset),
          TextMember(m, key::kMessage)};
}

}  // namespace

DiagnosticsView ReadDiagnosticsView(const json& report) {
  DiagnosticsView v;
  const json& d = Member(report, key::kDiagnostics);
  v.messages = ListMember<DiagnosticMessage>(d, key::kMessages, ReadMessage);
  if (const json& counters = Member(d, key::kCounters); counters.is_object())
    for (auto it = counters.begin(); it != counters.end(); ++it)
      if (it->is_number() && std::isfinite(it->get<double>())) v.counters.emplace_back(it.key(), it->get<double>());
  return v;
}

}  // namespace ampscope::reports

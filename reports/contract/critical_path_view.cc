#include "reports/contract/critical_path_view.h"

#include <cmath>

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = critical_path_key;

namespace {

// The members of an object that are finite numbers, in its order.
std::vector<std::pair<std::string, double>> Numbers(const json& object) {
  std::vector<std::pair<std::string, double>> out;
  if (!object.is_object()) return out;
  for (auto it = object.begin(); it != object.end(); ++it)
    if (it->is_number() && std::isfinite(it->get<double>())) out.emplace_back(it.key(), it->get<double>());
  return out;
}

}  // namespace

CriticalPathSection ReadCriticalPathSection(const json& report) {
  CriticalPathSection s;
  const json& cp = Member(report, key::kCriticalPath);
  if (!cp.is_object()) return s;
  s.present = true;
  s.available = TrueMember(cp, key::kAvailable);
  s.reason = StringMember(cp, key::kReason);
  s.breakdown_pct = Numbers(Member(cp, key::kBreakdownPct));
  s.breakdown_us = Numbers(Member(cp, key::kBreakdownUs));
  s.gpu_gap_pct = NumberMember(cp, key::kGpuGapPct);
  if (const json& lengths = Member(cp, key::kLengthUs); lengths.is_array())
    for (const json& l : lengths)
      s.length_us.push_back(l.is_number() && std::isfinite(l.get<double>()) ? std::optional<double>(l.get<double>()) : std::nullopt);
  s.mean_length_us = NumberMember(cp, key::kMeanLengthUs);
  s.listed_count = NumberMember(Member(cp, key::kListed), key::kCount);
  s.replay_error_pct = NumberMember(cp, key::kReplayErrorPct);
  s.worst_step = NumberMember(cp, key::kWorstStep);
  s.hidden_waits = NumberMember(Member(cp, key::kGraph), key::kHiddenWaits);
  return s;
}

}  // namespace ampscope::reports

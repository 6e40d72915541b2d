#include "reports/contract/view_members.h"

#include <cmath>

namespace ampscope::reports::view {

using nlohmann::json;

const json& Member(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::optional<double> NumberMember(const json& object, std::string_view key) {
  const json& v = Member(object, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::string> StringMember(const json& object, std::string_view key) {
  const json& v = Member(object, key);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::string TextMember(const json& object, std::string_view key) { return StringMember(object, key).value_or(""); }

bool TrueMember(const json& object, std::string_view key) {
  const json& v = Member(object, key);
  return v.is_boolean() && v.get<bool>();
}

std::vector<std::string> StringListMember(const json& object, std::string_view key) {
  std::vector<std::string> out;
  if (const json& list = Member(object, key); list.is_array())
    for (const json& s : list)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace ampscope::reports::view

#include "reports/fields_json.h"

#include <type_traits>

namespace ampscope {

using nlohmann::json;

json ValueJson(const Value& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, std::vector<KernelTime>>) {
          json a = json::array();
          for (const KernelTime& k : x) a.push_back({{"name", k.name}, {"count", k.count}, {"time_us", k.time_us}});
          return a;
        } else if constexpr (std::is_same_v<T, std::vector<TimeSpan>>) {
          json a = json::array();
          for (const TimeSpan& s : x) a.push_back({{"start_us", s.start_us}, {"end_us", s.end_us}, {"dur_us", s.dur_us}});
          return a;
        } else if constexpr (std::is_same_v<T, FieldList>) {
          return FieldsJson(x);
        } else if constexpr (std::is_same_v<T, std::vector<FieldList>>) {
          json a = json::array();
          for (const FieldList& r : x) a.push_back(FieldsJson(r));
          return a;
        } else {
          return json(x);
        }
      },
      v);
}

json FieldsJson(const FieldList& fields) {
  json o = json::object();
  for (const Field& f : fields) o[f.key] = ValueJson(f.value);
  return o;
}

json FieldUnitsJson(const FieldList& fields) {
  json o = json::object();
  for (const Field& f : fields)
    if (f.unit != Unit::kNone) o[f.key] = UnitName(f.unit);
  return o;
}

}  // namespace ampscope

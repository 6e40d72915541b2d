// Lenient reads of one member of a JSON object: what the section views (reports/contract/*_view.cc)
// are built from. A missing member, a parent that is not an object or a member of another type
// gives nullopt / an empty list, never an exception, as render/ has always read the report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports::view {

// The member, or a null json when `object` is not an object or has no such member.
const nlohmann::json& Member(const nlohmann::json& object, std::string_view key);
// A finite number.
std::optional<double> NumberMember(const nlohmann::json& object, std::string_view key);
// A string (null and other types: nullopt).
std::optional<std::string> StringMember(const nlohmann::json& object, std::string_view key);
// A string, else "".
std::string TextMember(const nlohmann::json& object, std::string_view key);
// True only for a boolean true.
bool TrueMember(const nlohmann::json& object, std::string_view key);
// The string elements of an array member, in order (other elements left out); empty when the
// member is not an array.
std::vector<std::string> StringListMember(const nlohmann::json& object, std::string_view key);

// One `T` per element of the array member (`read` gets each element, whatever its type: a
// non-object element reads as all absent); empty when the member is not an array.
template <typename T, typename Read>
std::vector<T> ListMember(const nlohmann::json& object, std::string_view key, Read read) {
  std::vector<T> out;
  const nlohmann::json& list = Member(object, key);
  if (!list.is_array()) return out;
  out.reserve(list.size());
  for (const nlohmann::json& element : list) out.push_back(read(element));
  return out;
}

}  // namespace ampscope::reports::view

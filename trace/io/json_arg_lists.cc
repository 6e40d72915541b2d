#include "trace/io/json_arg_lists.h"

#include <nlohmann/json.hpp>

namespace ampscope {

using nlohmann::json;

bool ParseJsonShapeList(std::string_view text, const char* what, std::vector<std::vector<int64_t>>* out,
                        std::string* err) {
  if (text.empty()) return true;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    *err = std::string("\"") + what + "\" is not a JSON array";
    return false;
  }
  out->reserve(j.size());
  for (const json& e : j) {
    std::vector<int64_t> s;
    if (e.is_array()) {
      for (const json& d : e) {
        if (d.is_number_integer()) {
          s.push_back(d.get<int64_t>());
        } else if (d.is_array()) {
          s.clear();  // a TensorList: no single shape
          break;
        } else {
          *err = std::string("\"") + what + "\" holds a non-integer size";
          return false;
        }
      }
    }
    out->push_back(std::move(s));
  }
  return true;
}

bool ParseJsonTextList(std::string_view text, const char* what, std::vector<std::string>* out, std::string* err) {
  if (text.empty()) return true;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    *err = std::string("\"") + what + "\" is not a JSON array";
    return false;
  }
  out->reserve(j.size());
  for (const json& e : j) {
    if (e.is_string()) out->push_back(e.get<std::string>());
    else if (e.is_null()) out->emplace_back();
    else out->push_back(e.dump());
  }
  return true;
}

}  // namespace ampscope

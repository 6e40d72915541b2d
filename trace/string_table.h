// Interned strings. Ids are dense, stable for the life of the table, and 0 is the empty string.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ampscope {

using StringId = uint32_t;
inline constexpr StringId kNoString = 0;  // the empty string

class StringTable {
 public:
  StringTable() { Intern(std::string_view()); }
  StringTable(const StringTable& other) { *this = other; }
  StringTable& operator=(const StringTable& other) {
    if (this == &other) return *this;
    storage_.clear();
    index_.clear();
    for (const std::string& s : other.storage_) Intern(s);
    return *this;
  }
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId Intern(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    storage_.emplace_back(s);
    StringId id = static_cast<StringId>(storage_.size() - 1);
    index_.emplace(std::string_view(storage_.back()), id);
    return id;
  }
  // Returns kNoString's "" for an unknown id rather than crashing: ids come from files.
  std::string_view get(StringId id) const {
    return id < storage_.size() ? std::string_view(storage_[id]) : std::string_view();
  }
  // Looks up without inserting; returns false if absent.
  bool Find(std::string_view s, StringId* id) const {
    auto it = index_.find(s);
    if (it == index_.end()) return false;
    *id = it->second;
    return true;
  }
  size_t size() const { return storage_.size(); }

 private:
  std::deque<std::string> storage_;  // deque: element addresses are stable, views stay valid
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace ampscope

// Problems found while reading or analysing a trace. Bad data is counted here and shown
// in the report (diagnostics.counters / diagnostics.messages), never silently dropped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ampscope {

enum class Severity : uint8_t { kInfo, kDataLoss, kError };
const char* SeverityName(Severity s);  // "info" | "data_loss" | "error"

struct DiagnosticEntry {
  Severity severity = Severity::kInfo;
  uint64_t count = 0;
  int64_t first_offset = -1;  // byte offset (or record index for record-based formats) of the first occurrence
  std::string first_message;  // what the first occurrence looked like
};

class Diagnostics {
 public:
  // Counts one occurrence of `code` (a stable snake_case id such as "negative_duration").
  void Add(const std::string& code, Severity severity, int64_t offset, const std::string& message) {
    DiagnosticEntry& e = entries_[code];
    if (e.count == 0) {
      e.severity = severity;
      e.first_offset = offset;
      e.first_message = message;
    } else if (severity > e.severity) {
      e.severity = severity;
    }
    ++e.count;
  }
  void AddCount(const std::string& code, Severity severity, uint64_t n, int64_t offset, const std::string& message) {
    if (n == 0) return;
    Add(code, severity, offset, message);
    entries_[code].count += n - 1;
  }
  uint64_t Count(const std::string& code) const {
    auto it = entries_.find(code);
    return it == entries_.end() ? 0 : it->second.count;
  }
  const std::map<std::string, DiagnosticEntry>& entries() const { return entries_; }
  void Merge(const Diagnostics& other, const std::string& prefix = "") {
    for (const auto& [code, e] : other.entries_) {
      DiagnosticEntry& mine = entries_[prefix + code];
      if (mine.count == 0) {
        mine = e;
      } else {
        mine.count += e.count;
        if (e.severity > mine.severity) mine.severity = e.severity;
      }
    }
  }
  bool empty() const { return entries_.empty(); }

 private:
  std::map<std::string, DiagnosticEntry> entries_;
};

}  // namespace ampscope

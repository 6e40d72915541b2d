// Problems found while reading or analysing a trace. Bad data is counted here and shown in the
// report (diagnostics.counters / diagnostics.messages), never silently dropped.
//
// Every code is declared once, with its severity and description, in
// base/diagnostic_codes_table.h; call sites name it by its enum (DiagCode::kZeroDuration).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/diagnostic_codes_table.h"

namespace ampscope {

enum class Severity : uint8_t { kInfo, kDataLoss, kError };
const char* SeverityName(Severity s);  // "info" | "data_loss" | "error"

enum class DiagCode : uint16_t {
#define AMPSCOPE_DIAG_ENUM(name, id, severity, description) name,
  AMPSCOPE_DIAGNOSTIC_CODES(AMPSCOPE_DIAG_ENUM)
#undef AMPSCOPE_DIAG_ENUM
      kCount
};

struct DiagnosticInfo {
  DiagCode code;
  const char* id;           // stable snake_case id, e.g. "zero_duration"
  Severity severity;
  const char* description;  // one line for people, e.g. shown next to the count
};

const DiagnosticInfo& DiagnosticInfoOf(DiagCode code);
// The table entry with this id, or nullptr (codes read from a file written by another
// collector version need not be in the table).
const DiagnosticInfo* FindDiagnostic(std::string_view id);
// The description of `id`, or "" when the table does not know it.
const char* DescribeDiagnostic(std::string_view id);

struct DiagnosticEntry {
  Severity severity = Severity::kInfo;
  uint64_t count = 0;
  int64_t first_offset = -1;  // byte offset (or record index for record-based formats) of the first occurrence
  std::string first_message;  // what the first occurrence looked like
};

class Diagnostics {
 public:
  // Counts one occurrence of `code`, with the table's severity.
  void Add(DiagCode code, int64_t offset, const std::string& message) {
    const DiagnosticInfo& info = DiagnosticInfoOf(code);
    AddWithSeverity(info.id, info.severity, offset, message);
  }
  // Counts n occurrences (nothing when n == 0).
  void AddCount(DiagCode code, uint64_t n, int64_t offset, const std::string& message) {
    const DiagnosticInfo& info = DiagnosticInfoOf(code);
    AddCountWithSeverity(info.id, info.severity, n, offset, message);
  }
  // As AddCount, at `severity` when that is higher than the table's. For the codes whose table
  // comment says the severity depends on the input (nvtx_unclosed_range in a truncated file).
  void AddCountEscalated(DiagCode code, Severity severity, uint64_t n, int64_t offset, const std::string& message) {
    const DiagnosticInfo& info = DiagnosticInfoOf(code);
    AddCountWithSeverity(info.id, severity > info.severity ? severity : info.severity, n, offset, message);
  }
  // A problem the input itself reports, with the input's code and severity: the warnings a
  // collector wrote into a .amptrace file. The code need not be in the table.
  void AddFromInput(const std::string& code, Severity severity, int64_t offset, const std::string& message) {
    AddWithSeverity(code, severity, offset, message);
  }

  // Puts an entry back as it was counted (a rank summary read back); nothing for a count of 0.
  void Restore(const std::string& code, const DiagnosticEntry& entry) {
    if (entry.count > 0) entries_[code] = entry;
  }

  uint64_t Count(DiagCode code) const { return Count(DiagnosticInfoOf(code).id); }
  uint64_t Count(const std::string& code) const {
    auto it = entries_.find(code);
    return it == entries_.end() ? 0 : it->second.count;
  }
  // By id, in id order (the report's order).
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
  void AddWithSeverity(const std::string& code, Severity severity, int64_t offset, const std::string& message) {
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
  void AddCountWithSeverity(const std::string& code, Severity severity, uint64_t n, int64_t offset,
                            const std::string& message) {
    if (n == 0) return;
    AddWithSeverity(code, severity, offset, message);
    entries_[code].count += n - 1;
  }

  std::map<std::string, DiagnosticEntry> entries_;
};

}  // namespace ampscope

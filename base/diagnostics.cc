#include "base/diagnostics.h"

#include <cstddef>

namespace ampscope {

namespace {

constexpr DiagnosticInfo kDiagnostics[] = {
#define AMPSCOPE_DIAG_ROW(name, id, severity, description) {DiagCode::name, id, Severity::severity, description},
    AMPSCOPE_DIAGNOSTIC_CODES(AMPSCOPE_DIAG_ROW)
#undef AMPSCOPE_DIAG_ROW
};
static_assert(sizeof(kDiagnostics) / sizeof(kDiagnostics[0]) == static_cast<size_t>(DiagCode::kCount),
              "one table row per DiagCode");

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kDataLoss: return "data_loss";
    default: return "error";
  }
}

const DiagnosticInfo& DiagnosticInfoOf(DiagCode code) { return kDiagnostics[static_cast<size_t>(code)]; }

const DiagnosticInfo* FindDiagnostic(std::string_view id) {
  for (const DiagnosticInfo& d : kDiagnostics)
    if (id == d.id) return &d;
  return nullptr;
}

const char* DescribeDiagnostic(std::string_view id) {
  const DiagnosticInfo* d = FindDiagnostic(id);
  return d != nullptr ? d->description : "";
}

}  // namespace ampscope

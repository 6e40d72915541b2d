// The finding catalogue: every finding id with its dimension, checklist item, severity rule and
// the docs/findings.md section that describes it. A finding's saving is not catalogued: it is
// the replay of the fix its rule attaches (FindingSink::Fix, docs/whatif.md). One table (catalog_table.cc), one row per
// finding; the rules look their finding up by id, and the ranking breaks ties by table order.
#pragma once

#include <cstddef>
#include <string_view>

namespace ampscope::diagnosis {

// How a finding's severity follows from its estimated saving (diagnosis.h's thresholds). Any
// finding whose saving rounds to 0 is info (FindingSink::Add): warnings carry a saving, except
// a kProfileWarning's.
enum class SeverityRule : unsigned char {
  kBySaving,        // info < kWarningSavingPct <= warning < kCriticalSavingPct <= critical
  kAtLeastWarning,  // kBySaving, but never below warning (the rule fires only on a clear problem)
  kWarningWhen,     // kAtLeastWarning when the rule says the condition holds, else kBySaving
  kInfo,            // always info (advice, not a problem)
  // The profile itself misleads (cold_start_profiled): at least a warning although it carries no
  // saving (its fix is a better profile, not time), and ranked before every finding
  // (RankFindings): the savings beside it were measured on start-up.
  kProfileWarning,
};

// Which time a finding's fix gives back: the consistency check (consistency.cc) lets idle-time
// fixes explain low GPU busy and busy-time fixes explain kernel time off the Tensor Cores. It is
// not the saving's size: that is the replay of the fix (docs/whatif.md).
enum class SavingKind : unsigned char {
  kIdle,  // GPU idle time (syncs, input, launches, allocator)
  kBusy,  // GPU busy time (slower kernels than needed)
  kStep,  // whole steps (skipped by the GradScaler)
  kNone,  // no time (a risk, or advice)
};

struct CatalogEntry {
  std::string_view id;         // stable finding id (the JSON report's findings[].id)
  std::string_view dimension;  // matrix dimension it counts against ("" = none)
  std::string_view checklist;  // checklist item it counts against ("" = none)
  SeverityRule severity;
  SavingKind saving;
  std::string_view docs_anchor;  // docs/findings.md section
};

// The table, in order.
size_t CatalogSize();
const CatalogEntry& CatalogAt(size_t i);
// The row of `id`; CHECK-fails on an id that is not catalogued (a programming error).
const CatalogEntry& CatalogEntryOf(std::string_view id);
// Position of `id` in the table (ranking tie-break); the table size for unknown ids.
size_t CatalogOrder(std::string_view id);

}  // namespace ampscope::diagnosis

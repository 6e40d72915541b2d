// A finding's evidence as people read it: named values with their units, lists of records
// (top kernels, sync calls, fusion chains) as small tables with short kernel names, times
// relative to the steps. The terminal, Markdown and HTML renderers lay these items out; they
// all get the same words and numbers from here.
//
// Units come from the finding's "evidence_units" object ({key: unit}) when the report has one,
// else from the key's suffix (UnitOfKey in render/format.h: _us, _ms, _pct, _pct_of_step,
// _bytes, _gbs, _tflops, _per_step, count).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/report_view.h"
#include "reports/contract/findings_view.h"

namespace ampscope::render {

struct EvidenceItem {
  std::string key;    // the report's key ("exposed_per_step_us")
  std::string label;  // "Exposed"
  std::string text;   // one line: "59.3 ms/step", "cudnn::dgrad_engine<float> (162×, 80.8 ms), …"
  bool note = false;  // an explanation (how the estimate is made), not a measurement
  // A list of records, as a table (empty for a single value).
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row_full;  // each row's first cell in full (kernel names, for hover)
  size_t more = 0;                    // records left out of `rows`
};

inline constexpr size_t kEvidenceRows = 6;  // records shown per list

// `report` is the finding's report: without steps its labels speak of the window ("Kernel time
// per step: 1.70 ms/window" reads "Kernel time: 1.70 ms/window", "Fills per step" reads "Fills in
// the window").
std::vector<EvidenceItem> FindingEvidence(const nlohmann::json& report, const reports::FindingView& finding,
                                          const StepClock& clock, size_t max_rows = kEvidenceRows);

// The finding's time_ranges_us relative to the steps: "step 5 +0 µs to +69.1 ms; step 6 ...",
// the first `max` of them and "(and N more)". Empty when it has none.
std::string TimeRangesText(const reports::FindingView& finding, const StepClock& clock, size_t max = 3);

// One named value outside a finding (a matrix metric): its label ("Memory-bound kernel time")
// and its text with the unit ("33.3%"; a breakdown object as "data loader 33.1%, ..."): the
// unit from `units` (the dimension's metrics_units) when it has the key, else the key's suffix.
std::string MetricLabel(const std::string& key);
std::string MetricText(const std::string& key, const nlohmann::json& value,
                       const nlohmann::json& units = nlohmann::json());

// "Label: text; Label: text" of the items that are measurements (notes left out unless
// `with_notes`), lists in their one-line form.
std::string EvidenceLine(const std::vector<EvidenceItem>& items, bool with_notes = false);

}  // namespace ampscope::render

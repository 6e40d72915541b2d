// A hand-built report JSON for the renderer tests: it follows the contract of shared/DESIGN.md
// and docs/report_schema.md, with values fixed by hand (not computed by ampscope), chosen to
// exercise every status.
#pragma once

#include <nlohmann/json.hpp>

namespace ampscope::testing {

// A report with `ranks` entries in ranks[] and `steps` steps.
nlohmann::json MakeReportJson(int ranks = 1, int steps = 6);

}  // namespace ampscope::testing

// A hand-built report JSON for the renderer tests: it follows the contract of shared/DESIGN.md
// and docs/report_schema.md, with values fixed by hand (not computed by ampscope), chosen to
// exercise every status.
#pragma once

#include <nlohmann/json.hpp>

namespace ampscope::testing {

// A report with `ranks` entries in ranks[] and `steps` steps.
nlohmann::json MakeReportJson(int ranks = 1, int steps = 6);
// `report` with a `roofline` section whose numbers are small enough to place every chart mark
// by hand: a GPU with a 1000 TFLOP/s bf16 matrix roof, a 60 TFLOP/s fp32 vector roof and 2 TB/s
// of HBM; a bf16 mm at 100 FLOP/B and 100 TFLOP/s (400 µs), an fp32 bmm at 1000 FLOP/B and
// 10 TFLOP/s (100 µs), and a memory-only add (0 FLOPs, 1.5 TB/s); MFU 5%.
nlohmann::json WithHandRoofline(nlohmann::json report);

}  // namespace ampscope::testing

// The HTML report's roofline section: a log-log roofline chart drawn as static SVG (ops as
// points sized by kernel time and coloured by precision, the GPU's roofs as lines), MFU per
// step, and the top ops with their share of the attainable peak. It reads only the report's
// `roofline` object (docs/report_schema.md), through the contract's typed view
// (reports/contract/roofline_view.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ampscope::render {

// Appends <section id="roofline">; an unavailable roofline shows its reason.
void AppendRooflineSection(std::string& html, const nlohmann::json& report);

// Colour of a precision, the same palette as the precision-mix chart.
const char* PrecisionColour(const std::string& precision);

}  // namespace ampscope::render

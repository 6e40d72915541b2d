// The measured-kernel section (the report's `ncu` block, docs/ncu.md) in the terminal summary,
// the Markdown summary and the HTML report: the profiled launches with the most time, where each
// sits against the roofs, and the numbers the matrix's measured headlines come from. Reads only
// the report JSON, through the contract's typed view (reports/contract/ncu_view.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ampscope::render {

// What a finding's est_saving_pct is a share of: "of step time"; "of the window" for a report
// without steps; for an Nsight Compute CSV analysed alone, "of profiled kernel time".
std::string SavingBasis(const nlohmann::json& report);
// "ranked by estimated saving of step time" (of the window, of profiled kernel time): the
// findings heading.
std::string RankingWords(const nlohmann::json& report);

// "" when the report has no `ncu` block (or no kernels in it).
std::string NcuTerminalSection(const nlohmann::json& report, size_t width, bool color);
std::string NcuMarkdownSection(const nlohmann::json& report);
std::string NcuHtmlSection(const nlohmann::json& report);

}  // namespace ampscope::render

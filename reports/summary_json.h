// Rank summaries (`ampscope analyze FILE --summary-out rank.summary.json`, `ampscope merge`):
// one rank's typed analysis written as JSON, so that the job report can be built later, on
// another machine, from summaries alone. A summary holds everything BuildJob and the report need
// (the rank's InputInfo, steps, GPU time, findings, precision, roofline ...) and leaves out what
// only the exporters draw (idle gaps, the list of sync points) and the roofline op rows past
// those the report shows: about 115 kB for a DLRM rank, whatever the size of its trace; gzip'd
// (a path ending in ".gz", as torch.profiler's export_chrome_trace does) about 16 kB.
//
// The fields are listed once per struct (summary_json.cc, one line each); the writer and the
// reader both walk that list, so a new field of RankAnalysis is one line there. The reader is a
// pull parser straight into the structs (no JSON DOM): `merge` reads a thousand of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "base/status.h"

namespace ampscope {

inline constexpr const char* kSummarySchema = "ampscope.summary/1";

// A rank's analysis and the options it was analysed with (the merged report shows them).
struct RankSummary {
  RankAnalysis rank;
  AnalysisOptions options;
};

nlohmann::json RankSummaryJson(const RankAnalysis& rank, const AnalysisOptions& options);
std::string RankSummaryText(const RankAnalysis& rank, const AnalysisOptions& options);  // compact JSON + "\n"
// What `analyze --summary-out PATH` writes: the text, gzip'd when PATH ends in ".gz" (an error
// only when zlib cannot compress it).
StatusOr<std::string> RankSummaryBytes(const RankAnalysis& rank, const AnalysisOptions& options, std::string_view path);
// A summary is read whole; past this (inflated) size it is not one ampscope wrote.
inline constexpr uint64_t kMaxSummaryBytes = uint64_t{256} << 20;

// Reads a summary back; errors name `path` ("r.summary.json: not an ampscope rank summary ...").
StatusOr<RankSummary> ParseRankSummary(std::string_view text, const std::string& path);
// Reads a summary file, plain or gzip'd (told by its first bytes, not its name).
StatusOr<RankSummary> ReadRankSummary(const std::string& path);

}  // namespace ampscope

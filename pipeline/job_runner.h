// Analysing the ranks of a job in parallel, streaming: each worker reads one rank, analyses it,
// keeps its typed result and drops the trace before it takes the next one, so memory is bounded
// by the ranks in flight (`jobs`), not by the job. The reading itself is the caller's (a
// callback), so analyzers/ stay pure functions of the trace model.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "base/status.h"

namespace ampscope {

struct RankRunOptions {
  AnalysisOptions analysis;
  int jobs = 1;             // ranks read and analysed at once (>= 1)
  bool keep_going = false;  // a failing rank becomes a MissingInput instead of stopping the job
  // Reads input `index` (required).
  std::function<StatusOr<Trace>(size_t index)> read;
  // Checks a trace before it is analysed (e.g. --steps against its steps); an error fails that rank.
  std::function<Status(const Trace&)> check;
  // Whether to keep input `index`'s trace after its analysis (exporters that draw events). The
  // analysis has the trace's own rank (-1 when it names none; BuildJob numbers those by position).
  std::function<bool(size_t index, const RankAnalysis& analysis)> keep_trace;
  // Test hooks: called after input `index` was read, and after its trace was released.
  std::function<void(size_t index)> on_read;
  std::function<void(size_t index)> on_release;
};

struct KeptTrace {
  size_t index = 0;  // input position
  Trace trace;
};

struct RankRunResult {
  // In input order: the ranks analysed, the traces kept (keep_trace) and the inputs that failed
  // (keep_going; without it the run returns the first failure, by input order).
  std::vector<RankAnalysis> ranks;
  std::vector<size_t> rank_inputs;  // ranks[i] came from input rank_inputs[i]
  std::vector<KeptTrace> kept;
  std::vector<MissingInput> missing;
};

// `paths[i]` names input i in MissingInput and error messages.
StatusOr<RankRunResult> RunRanks(const std::vector<std::string>& paths, const RankRunOptions& options);

}  // namespace ampscope

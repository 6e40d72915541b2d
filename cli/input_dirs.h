// A directory given as input (as HTA and TensorBoard take a trace directory): its files are the
// ranks of one job, in natural order (rank2 before rank10).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ampscope::cli {

// The schema of a recording's session.json: `record` writes it (record_cmd.cc), and a directory
// given to analyze that holds one is a recording (its .amptrace files are the ranks).
inline constexpr const char kSessionSchemaFamily[] = "ampscope.session/";
inline constexpr const char kSessionSchema[] = "ampscope.session/1";

enum class DirInputs {
  kTraces,     // analyze: *.pt.trace.json(.gz), *.json(.gz), *.sqlite, *.amptrace (not *.summary.json)
  kSummaries,  // merge: *.summary.json(.gz)
};

// Replaces each directory in `inputs` by the files in it that `kind` reads (not recursive) and says
// on stderr, once per directory, how many were taken as the ranks of one job. A directory with
// none of them is an error naming what it looked for. Other inputs pass through unchanged.
StatusOr<std::vector<std::string>> ExpandInputDirectories(const std::string& command,
                                                          const std::vector<std::string>& inputs, DirInputs kind);

// "worker2" < "worker10": digit runs compare as numbers.
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace ampscope::cli

// `analyze --sqlite FILE` and `analyze --csv DIR`: the analysis database (export/sqlite), built
// once, written as one SQLite file and/or as one CSV file per table. Both are outputs of the one
// set `analyze` writes with WriteOutputs (base/atomic_write.h): all of them or none.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/atomic_write.h"
#include "base/status.h"
#include "export/sqlite/sqlite_export.h"

namespace ampscope::cli {

// Before anything is read: DIR may be missing (it is created when the outputs are written) or a
// directory, nothing else.
Status CheckCsvDir(const std::string& dir);

// DIR/<table>.csv for every table of `db`, in the database's table order.
std::vector<OutputSpec> CsvOutputs(const std::string& dir, const std::shared_ptr<AnalysisDatabase>& db);

// Appends the outputs of `--sqlite sqlite_path` and `--csv csv_dir` (either may be empty) for
// `traces` (the kept ranks) of `job`. The SQLite file alone is built while the set is written;
// with CSV the database is built here, once, for both (the CSV paths need its tables' names).
// `traces` and `job` must outlive the writing of the set.
Status AddTableOutputs(const std::string& sqlite_path, const std::string& csv_dir, const std::vector<const Trace*>& traces,
                       const JobAnalysis& job, const std::string& tool_version, std::vector<OutputSpec>& outputs);

// The CSV directory, created for the write of the set (with its missing parents) and removed
// again when the set fails and it is still empty, so that a failed run leaves nothing behind.
class CsvDir {
 public:
  explicit CsvDir(std::string dir) : dir_(std::move(dir)) {}
  Status Create();
  void RemoveIfCreated();

 private:
  std::string dir_;
  std::vector<std::string> created_;  // innermost last
};

}  // namespace ampscope::cli

// The analysis as a SQLite database (`ampscope analyze ... --sqlite out.db`), for SQL and pandas,
// and the same tables as CSV files (`--csv DIR`, one file per table, export/sqlite/csv_table.h):
// one row per kernel, CPU op, step, copy, memset, sync point, idle gap, finding (and its time
// ranges), checklist item and matrix dimension, every table with a `rank` column; `meta` holds
// the schema version, the tool version and the inputs. docs/sqlite_schema.md is the contract
// (every table, column and unit).
//
// The database is a sink of the rank walk (export/event_sink.h): what it stores about a kernel
// is what the analysis decided. It is built in memory, in one transaction with prepared
// statements, indexed, and then serialised into `out`: the caller (base/atomic_write.h's
// WriteOutputs) writes it to a temporary file next to the output and renames it over a regular
// file only when the whole set of outputs was written. `--csv` reads the tables of the same
// in-memory database (BuildSqliteExport): the rows are derived once, by the one sink.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

// Bumped when a table or column changes meaning or goes away (adding one keeps the version).
inline constexpr int kSqliteSchemaVersion = 1;

struct SqliteExportOptions {
  std::string tool_version;  // written to meta.tool_version
};

namespace sqlite_export {
class Db;
}  // namespace sqlite_export

// The analysis database, built in memory. Serialise it (the bytes of the .db file), or write any
// of its tables as CSV; both read the same rows.
class AnalysisDatabase {
 public:
  explicit AnalysisDatabase(std::unique_ptr<sqlite_export::Db> db);
  ~AnalysisDatabase();
  AnalysisDatabase(const AnalysisDatabase&) = delete;
  AnalysisDatabase& operator=(const AnalysisDatabase&) = delete;

  // The whole database file.
  Status Serialize(std::ostream& out);
  // Every table of the database, in the order the schema created them (whatever tables the
  // exporter has: CSV output follows them without a list of its own).
  std::vector<std::string> Tables();
  // One table as RFC 4180 CSV (export/sqlite/csv_table.h has the dialect).
  Status WriteCsv(const std::string& table, std::ostream& out);

 private:
  std::unique_ptr<sqlite_export::Db> db_;
};

// `traces[i]` is the input of a rank analysed in `analysis` (matched as the timeline exporters
// do): every rank of the job, or the ones `analyze --ranks` kept. One database for all of them,
// with the job's own rows (rank NULL) when the job has several ranks. Fails when SQLite fails
// (out of memory) or `out` fails.
StatusOr<std::unique_ptr<AnalysisDatabase>> BuildSqliteExport(const std::vector<const Trace*>& traces,
                                                              const JobAnalysis& analysis,
                                                              const SqliteExportOptions& options);
// BuildSqliteExport, then Serialize into `out`.
Status WriteSqliteExport(const std::vector<const Trace*>& traces, const JobAnalysis& analysis,
                         const SqliteExportOptions& options, std::ostream& out);
Status WriteSqliteExport(const std::vector<Trace>& traces, const JobAnalysis& analysis,
                         const SqliteExportOptions& options, std::ostream& out);

}  // namespace ampscope

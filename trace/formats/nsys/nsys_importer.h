// Internals of the Nsight Systems reader, shared by its .cc files. Not a public interface:
// use nsys_reader.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/diagnostics.h"
#include "trace/time_bounds.h"
#include "trace/formats/nsys/nsys_reader.h"
#include "trace/formats/nsys/nsys_schema.h"
#include "trace/formats/nsys/sqlite_file.h"

namespace ampscope::nsys {

// A column a table reader asks for. A missing required column makes the table unreadable
// (an error); a missing optional one is a counted nsys_column_missing.
struct ColumnSpec {
  const char* name;
  bool required;
  const char* stand_in = nullptr;  // an optional column that replaces this one when it is absent
};

// The rows of one table, with the requested columns mapped to their SELECT positions.
class TableRows {
 public:
  TableRows(std::string table, SqliteStatement stmt, std::vector<int> positions)
      : table_(std::move(table)), stmt_(std::move(stmt)), pos_(std::move(positions)) {}
  StatusOr<bool> Next() {
    ++row_;
    return stmt_.Step();
  }
  const std::string& table() const { return table_; }
  int64_t row() const { return row_; }  // 1-based, in the table's stored order
  bool present(int col) const { return pos_[static_cast<size_t>(col)] >= 0; }
  int pos(int col) const { return pos_[static_cast<size_t>(col)]; }
  SqliteStatement& stmt() { return stmt_; }

 private:
  std::string table_;
  SqliteStatement stmt_;
  std::vector<int> pos_;  // by ColumnSpec index; -1 when the table lacks the column
  int64_t row_ = 0;
};

class Importer;

// The values of the current row. The first NULL-where-required, wrongly typed or
// out-of-range value marks the row bad (one nsys_bad_value / nsys_time_out_of_range), and
// the caller skips it.
class RowValues {
 public:
  RowValues(Importer& importer, TableRows& rows) : importer_(importer), rows_(rows) {}
  bool bad() const { return bad_; }
  const TableRows& rows() const { return rows_; }
  // A required integer: NULL or not an integer marks the row bad and returns 0.
  int64_t Req(int col, const char* column_name);
  // An optional integer: absent column or NULL gives `dflt`; a non-integer marks the row bad.
  int64_t Opt(int col, const char* column_name, int64_t dflt);
  // Like Opt, and a value outside [lo, hi] marks the row bad.
  int64_t OptIn(int col, const char* column_name, int64_t dflt, int64_t lo, int64_t hi);
  // A number stored as INTEGER or REAL.
  double ReqReal(int col, const char* column_name);
  // Text or NULL (absent column: nullopt).
  std::optional<std::string> Text(int col);
  // Start and end in ns: both required, within -2^62..2^62 (trace/time_bounds.h); end < start is negative_duration
  // and reads as zero-length.
  void Times(int start_col, int end_col, TimeNs* start, TimeNs* end);
  void MarkBad(DiagCode diag, const std::string& what);

 private:
  Importer& importer_;
  TableRows& rows_;
  bool bad_ = false;
};

// Id maps read from the ENUM_* tables, or CUPTI's / nsys's documented numbers without them.
struct EnumMaps {
  std::unordered_map<int64_t, MemcpyKind> copy_kind;
  std::unordered_map<int64_t, MemoryKind> memory_kind;
  std::unordered_map<int64_t, SyncType> sync_type;
};

// Processes seen, and per GPU-activity row the pid it belongs to (kernels, memcpys, memsets
// in table order), so correlation ids can be made unique when one export holds several
// processes (CUPTI numbers correlations per process).
struct ActivityPids {
  std::set<int64_t> seen;  // processes with CUDA or NVTX activity
  std::vector<int64_t> kernels, memcpys, memsets;
};

// One export being read into a Trace.
class Importer {
 public:
  Importer(SqliteFile& db, std::string path, Trace& trace, const NsysReadOptions& options)
      : db_(db), path_(std::move(path)), trace_(trace), options_(options) {}
  Status Run();

  // ---- used by RowValues and the table readers
  void Diag(DiagCode d, int64_t record, const std::string& message);
  void DiagCount(DiagCode d, uint64_t n, int64_t record, const std::string& message);
  // "<file>: table T row N: <what>"
  Status RowError(const TableRows& rows, const std::string& what) const;
  const std::string& path() const { return path_; }

 private:
  // nsys_reader.cc: recognition, metadata, devices, the checks that need every table.
  Status CheckTables();
  Status ReadExportMetadata();
  Status ReadCaptureMetadata();
  Status ReadSystemInfo();
  Status ReadEnums();
  Status ReadDevices();
  void Finish();
  void Progress(size_t tables_done, size_t tables_total);

  // nsys_gpu_activity.cc
  Status ReadKernels();
  Status ReadMemcpys();
  Status ReadMemsets();
  Status ReadSyncs();
  Status ReadApiCalls(const char* table);

  // nsys_host_tables.cc
  Status ReadNvtx();
  Status ReadThreadAndProcessNames();
  Status ReadMemoryUsage();
  Status ReadGpuMetrics();

  // Tables that may be absent: counted in missing_tables_ (the report lists them), or not
  // counted where their absence is normal (a capture option was off).
  enum class IfAbsent { kCountMissing, kSkip };
  // Opens `table` (absent: Ok, see IfAbsent) and calls row(v, rows) for each row with its
  // RowValues; a row callback skips a bad row by returning. A SQLite error while stepping is
  // the read's error ("<file>: table T row N: ...").
  template <typename RowFn>
  Status ForEachRow(const char* table, const std::vector<ColumnSpec>& columns, IfAbsent absent, RowFn&& row,
                    const std::string& where = "") {
    StatusOr<std::optional<TableRows>> opened = OpenTable(table, columns, where);
    if (!opened.ok()) return opened.status();
    if (!opened->has_value()) {
      if (absent == IfAbsent::kCountMissing) missing_tables_.insert(table);
      return Status::Ok();
    }
    TableRows& rows = **opened;
    while (true) {
      StatusOr<bool> more = rows.Next();
      if (!more.ok()) return RowError(rows, more.status().message());
      if (!*more) return Status::Ok();
      RowValues v(*this, rows);
      row(v, rows);
    }
  }

  // A (name, value) table such as META_DATA_CAPTURE: fn(name, value) for each row where both are
  // text. An absent table is normal (older exports).
  template <typename Fn>
  Status ForEachNameValue(const char* table, Fn&& fn) {
    enum Col { kName, kValue };
    return ForEachRow(table, {{"name", true}, {"value", true}}, IfAbsent::kSkip, [&](RowValues& v, TableRows&) {
      const std::optional<std::string> name = v.Text(kName), value = v.Text(kValue);
      if (name && value) fn(*name, *value);
    });
  }

  // nsys_gpu_activity.cc: the columns kernels, memcpys and memsets start with (start, end,
  // deviceId, streamId, correlationId, globalPid). ReadActivityPrefix reads them into `e` (times,
  // correlation) and `prefix`; once the table's own columns are read too, AddActivity checks
  // the row (bad values, deviceId/streamId range) and records the event with its pid.
  struct ActivityPrefix {
    int64_t device = -1, stream = -1, global_pid = -1;
  };
  template <typename Event>
  ActivityPrefix ReadActivityPrefix(RowValues& v, Event* e);
  template <typename Event>
  bool AddActivity(RowValues& v, const ActivityPrefix& prefix, Event e, std::vector<Event>* events,
                   std::vector<int64_t>* pids);

  // nsys_table.cc: opening tables, strings, enum lookups.
  // nullopt when the table is absent. `where` is an optional SQL condition.
  StatusOr<std::optional<TableRows>> OpenTable(const char* table, const std::vector<ColumnSpec>& columns,
                                               const std::string& where = "");
  StringId Str(int64_t string_id, const TableRows& rows, const char* column);
  StatusOr<std::optional<std::string>> LookupString(int64_t string_id);
  MemcpyKind CopyKind(int64_t v, const TableRows& rows);
  MemoryKind MemKind(int64_t v, const TableRows& rows);
  SyncType SyncKind(int64_t v, const TableRows& rows);
  void SeePid(int64_t pid) {
    if (pid >= 0) pids_.seen.insert(pid);
  }
  // Every stored event's times: the latest (unclosed ranges end there) and the bounds of
  // trace/time_bounds.h, checked once every table is read (CheckTimes). `row` is the event's
  // row in `table`.
  void SeeTimes(const std::string& table, int64_t row, TimeNs start_ns, TimeNs end_ns);
  void SeeTimes(const TableRows& rows, TimeNs start_ns, TimeNs end_ns) { SeeTimes(rows.table(), rows.row(), start_ns, end_ns); }
  Status CheckTimes() const;

  SqliteFile& db_;
  std::string path_;
  Trace& trace_;
  const NsysReadOptions& options_;
  EnumMaps enums_;
  std::unordered_map<int64_t, StringId> strings_;  // StringIds.id -> interned name
  std::optional<SqliteStatement> string_lookup_;
  ActivityPids pids_;
  std::vector<size_t> unclosed_ranges_;            // ranges whose end is the export's last timestamp
  TimeNs last_ns_ = 0;
  TimeBounds bounds_;                              // offsets: (index in bound_tables_ << 40) | row
  std::vector<std::string> bound_tables_;
  std::set<std::string> missing_tables_;           // optional tables the export lacks
};

}  // namespace ampscope::nsys

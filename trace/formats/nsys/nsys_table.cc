// Table access for the Nsight Systems reader: columns discovered with PRAGMA table_info,
// typed row values with diagnostics, StringIds lookups and the enum maps.
#include <algorithm>
#include <cctype>

#include "trace/time_bounds.h"
#include "trace/formats/nsys/nsys_importer.h"

namespace ampscope::nsys {

namespace {

const char* TypeName(int sqlite_type) {
  switch (sqlite_type) {
    case SQLITE_INTEGER: return "an integer";
    case SQLITE_FLOAT: return "a real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a blob";
    default: return "NULL";
  }
}

}  // namespace

// ---- Importer: diagnostics and tables ------------------------------------------------

void Importer::Diag(DiagCode d, int64_t record, const std::string& message) {
  trace_.diagnostics.Add(d, record, message);
}

void Importer::DiagCount(DiagCode d, uint64_t n, int64_t record, const std::string& message) {
  trace_.diagnostics.AddCount(d, n, record, message);
}

Status Importer::RowError(const TableRows& rows, const std::string& what) const {
  return Status::Error(path_ + ": table " + rows.table() + " row " + std::to_string(rows.row()) + ": " + what);
}

StatusOr<std::optional<TableRows>> Importer::OpenTable(const char* table, const std::vector<ColumnSpec>& columns,
                                                       const std::string& where) {
  if (!db_.HasTable(table)) return std::optional<TableRows>();
  StatusOr<std::vector<std::string>> have = db_.Columns(table);
  if (!have.ok()) return Status::Error(path_ + ": table " + table + ": " + have.status().message());
  std::vector<int> positions;
  std::string select;
  int next = 0;
  std::vector<std::string> missing_optional;
  for (const ColumnSpec& c : columns) {
    const bool present = std::find(have->begin(), have->end(), c.name) != have->end();
    if (!present) {
      if (c.required)
        return Status::Error(path_ + ": table " + table + " has no column \"" + c.name +
                             "\" (an export schema this reader does not know)");
      const bool replaced = c.stand_in != nullptr && std::find(have->begin(), have->end(), c.stand_in) != have->end();
      if (!replaced) missing_optional.emplace_back(c.name);
      positions.push_back(-1);
      continue;
    }
    if (!select.empty()) select += ", ";
    select += QuoteIdentifier(c.name);
    positions.push_back(next++);
  }
  if (!missing_optional.empty()) {
    std::string list;
    for (const std::string& m : missing_optional) list += (list.empty() ? "" : ", ") + std::string(table) + "." + m;
    DiagCount(DiagCode::kNsysColumnMissing, missing_optional.size(), -1, "absent in this export: " + list);
  }
  if (select.empty()) select = "NULL";
  std::string sql = "SELECT " + select + " FROM " + QuoteIdentifier(table);
  if (!where.empty()) sql += " WHERE " + where;
  StatusOr<SqliteStatement> stmt = db_.Prepare(sql);
  if (!stmt.ok()) return Status::Error(path_ + ": table " + table + ": " + stmt.status().message());
  return std::optional<TableRows>(TableRows(table, std::move(stmt).value(), std::move(positions)));
}

StatusOr<std::optional<std::string>> Importer::LookupString(int64_t string_id) {
  if (!string_lookup_) {
    if (!db_.HasTable(kStringIds)) return std::optional<std::string>();
    StatusOr<SqliteStatement> st = db_.Prepare("SELECT value FROM StringIds WHERE id = ?");
    if (!st.ok()) return Status::Error(path_ + ": table StringIds: " + st.status().message());
    string_lookup_.emplace(std::move(st).value());
  }
  SqliteStatement& st = *string_lookup_;
  st.Reset();
  st.BindInt64(1, string_id);
  StatusOr<bool> row = st.Step();
  if (!row.ok()) return Status::Error(path_ + ": table StringIds: " + row.status().message());
  if (!*row || st.type(0) != SQLITE_TEXT) return std::optional<std::string>();
  return std::optional<std::string>(std::string(st.text(0)));
}

StringId Importer::Str(int64_t string_id, const TableRows& rows, const char* column) {
  auto it = strings_.find(string_id);
  if (it != strings_.end()) return it->second;
  StatusOr<std::optional<std::string>> s = LookupString(string_id);
  StringId id = kNoString;
  if (s.ok() && s->has_value()) {
    id = trace_.strings.Intern(**s);
  } else {
    // A corrupt StringIds page is reported like a missing string: the event is still
    // worth having, and its empty name says what is unknown.
    Diag(DiagCode::kNsysUnknownString, rows.row(),
         rows.table() + " row " + std::to_string(rows.row()) + ": " + column + " " + std::to_string(string_id) +
             (s.ok() ? " is not in StringIds" : ": " + s.status().message()));
  }
  strings_.emplace(string_id, id);
  return id;
}

MemcpyKind Importer::CopyKind(int64_t v, const TableRows& rows) {
  auto it = enums_.copy_kind.find(v);
  if (it != enums_.copy_kind.end()) return it->second;
  Diag(DiagCode::kNsysUnknownEnumValue, rows.row(), rows.table() + " row " + std::to_string(rows.row()) + ": copyKind " + std::to_string(v));
  return MemcpyKind::kUnknown;
}

MemoryKind Importer::MemKind(int64_t v, const TableRows& rows) {
  auto it = enums_.memory_kind.find(v);
  if (it != enums_.memory_kind.end()) return it->second;
  Diag(DiagCode::kNsysUnknownEnumValue, rows.row(),
       rows.table() + " row " + std::to_string(rows.row()) + ": memory kind " + std::to_string(v));
  return MemoryKind::kUnknown;
}

SyncType Importer::SyncKind(int64_t v, const TableRows& rows) {
  auto it = enums_.sync_type.find(v);
  if (it != enums_.sync_type.end()) return it->second;
  Diag(DiagCode::kNsysUnknownEnumValue, rows.row(), rows.table() + " row " + std::to_string(rows.row()) + ": syncType " + std::to_string(v));
  return SyncType::kUnknown;
}

// ---- RowValues ----------------------------------------------------------------------

void RowValues::MarkBad(DiagCode diag, const std::string& what) {
  if (bad_) return;  // one diagnostic per skipped row
  bad_ = true;
  importer_.Diag(diag, rows_.row(),
                 rows_.table() + " row " + std::to_string(rows_.row()) + ": " + what + "; row skipped");
}

int64_t RowValues::Req(int col, const char* column_name) {
  const int type = rows_.present(col) ? rows_.stmt().type(rows_.pos(col)) : SQLITE_NULL;
  if (type != SQLITE_INTEGER) {
    MarkBad(DiagCode::kNsysBadValue, std::string(column_name) + " is " + TypeName(type) + ", expected an integer");
    return 0;
  }
  return rows_.stmt().int64(rows_.pos(col));
}

int64_t RowValues::Opt(int col, const char* column_name, int64_t dflt) {
  if (!rows_.present(col)) return dflt;
  const int type = rows_.stmt().type(rows_.pos(col));
  if (type == SQLITE_NULL) return dflt;
  if (type != SQLITE_INTEGER) {
    MarkBad(DiagCode::kNsysBadValue, std::string(column_name) + " is " + TypeName(type) + ", expected an integer");
    return dflt;
  }
  return rows_.stmt().int64(rows_.pos(col));
}

int64_t RowValues::OptIn(int col, const char* column_name, int64_t dflt, int64_t lo, int64_t hi) {
  const int64_t v = Opt(col, column_name, dflt);
  if (v != dflt && (v < lo || v > hi)) {
    MarkBad(DiagCode::kNsysBadValue, std::string(column_name) + " " + std::to_string(v) + " is out of range");
    return dflt;
  }
  return v;
}

double RowValues::ReqReal(int col, const char* column_name) {
  const int type = rows_.present(col) ? rows_.stmt().type(rows_.pos(col)) : SQLITE_NULL;
  if (type == SQLITE_INTEGER) return static_cast<double>(rows_.stmt().int64(rows_.pos(col)));
  if (type == SQLITE_FLOAT) return rows_.stmt().real(rows_.pos(col));
  MarkBad(DiagCode::kNsysBadValue, std::string(column_name) + " is " + TypeName(type) + ", expected a number");
  return 0;
}

std::optional<std::string> RowValues::Text(int col) {
  if (!rows_.present(col) || rows_.stmt().is_null(rows_.pos(col))) return std::nullopt;
  return std::string(rows_.stmt().text(rows_.pos(col)));
}

void RowValues::Times(int start_col, int end_col, TimeNs* start, TimeNs* end) {
  *start = Req(start_col, "start");
  *end = Req(end_col, "end");
  if (bad_) return;
  for (const auto& [name, t] : {std::pair<const char*, TimeNs>{"start", *start}, {"end", *end}}) {
    // The model's bounds (base/units.h): spans of any two accepted times fit in int64.
    if (!IsAcceptedTime(t)) {
      MarkBad(DiagCode::kNsysTimeOutOfRange, std::string(name) + " " + std::to_string(t) + " ns is outside -2^62..2^62 ns");
      return;
    }
  }
  if (*end < *start) {
    importer_.Diag(DiagCode::kNegativeDuration, rows_.row(),
                   rows_.table() + " row " + std::to_string(rows_.row()) + ": end " + std::to_string(*end) +
                       " before start " + std::to_string(*start) + "; read as zero-length");
    *end = *start;
  }
}

// ---- time bounds -----------------------------------------------------------------------

namespace {
constexpr int kRowBits = 40;  // rows below 2^40 in an offset; the table index above
}  // namespace

void Importer::SeeTimes(const std::string& table, int64_t row, TimeNs start_ns, TimeNs end_ns) {
  if (end_ns > last_ns_) last_ns_ = end_ns;
  size_t index = 0;
  while (index < bound_tables_.size() && bound_tables_[index] != table) ++index;
  if (index == bound_tables_.size()) bound_tables_.push_back(table);
  const int64_t offset = (static_cast<int64_t>(index) << kRowBits) | (row & ((int64_t{1} << kRowBits) - 1));
  bounds_.AddInterval(start_ns, end_ns, offset);
}

Status Importer::CheckTimes() const {
  return bounds_.CheckWith(path_, [this](int64_t offset) {
    const size_t index = static_cast<size_t>(offset >> kRowBits);
    const std::string table = index < bound_tables_.size() ? bound_tables_[index] : "?";
    return "table " + table + " row " + std::to_string(offset & ((int64_t{1} << kRowBits) - 1));
  });
}

// ---- names ---------------------------------------------------------------------------

std::string_view StripApiVersionSuffix(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v == 0 || v + 2 == name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  return name.substr(0, v);
}

}  // namespace ampscope::nsys

#include "export/sqlite/csv_table.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace ampscope::sqlite_export {
namespace {

// Finalises the statement on every path.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) {
    if (sql.empty()) return;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// "name" as an SQL identifier (a table name comes from sqlite_master, but quote it anyway).
std::string QuoteIdentifier(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void AppendValue(sqlite3_stmt* stmt, int column, std::string& line) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_NULL:
      return;  // an empty field
    case SQLITE_INTEGER: {
      char buf[24];
      const auto res = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(sqlite3_column_int64(stmt, column)));
      line.append(buf, res.ptr);
      return;
    }
    case SQLITE_FLOAT:
      line += CsvReal(sqlite3_column_double(stmt, column));
      return;
    default: {  // TEXT or BLOB: the bytes as stored
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, column));
      const int n = sqlite3_column_bytes(stmt, column);
      const std::string_view text = bytes != nullptr ? std::string_view(bytes, static_cast<size_t>(n)) : std::string_view();
      if (text.empty()) {
        line += "\"\"";  // empty text, not NULL
      } else {
        AppendCsvField(text, line);
      }
    }
  }
}

}  // namespace

std::string CsvReal(double v) {
  if (std::isnan(v)) return "NaN";  // the exporter stores non-finite values as NULL; kept readable anyway
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void AppendCsvField(std::string_view text, std::string& line) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    line.append(text);
    return;
  }
  line += '"';
  for (char c : text) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

std::vector<std::string> ListTables(sqlite3* db) {
  std::vector<std::string> tables;
  // rowid order of sqlite_master is creation order.
  Statement list(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                     "ORDER BY rowid");
  if (list.get() == nullptr) return tables;
  while (sqlite3_step(list.get()) == SQLITE_ROW) {
    const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(list.get(), 0));
    if (name != nullptr) tables.emplace_back(name);
  }
  return tables;
}

Status WriteTableCsv(sqlite3* db, const std::string& table, std::ostream& out) {
  // Insertion order; a WITHOUT ROWID table has none, and is read in its key order.
  Statement by_rowid(db, "SELECT * FROM " + QuoteIdentifier(table) + " ORDER BY rowid");
  Statement by_key(db, by_rowid.get() == nullptr ? "SELECT * FROM " + QuoteIdentifier(table) : std::string());
  sqlite3_stmt* stmt = by_rowid.get() != nullptr ? by_rowid.get() : by_key.get();
  if (stmt == nullptr) return Status::Error("cannot write table " + table + " as CSV: " + sqlite3_errmsg(db));
  const int columns = sqlite3_column_count(stmt);
  std::string line;
  for (int c = 0; c < columns; ++c) {
    if (c > 0) line += ',';
    const char* name = sqlite3_column_name(stmt, c);
    AppendCsvField(name != nullptr ? name : "", line);
  }
  line += "\r\n";
  out << line;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    line.clear();
    for (int c = 0; c < columns; ++c) {
      if (c > 0) line += ',';
      AppendValue(stmt, c, line);
    }
    line += "\r\n";
    out << line;
    if (!out) return Status::Error("cannot write table " + table + " as CSV (output stream failed)");
  }
  if (rc != SQLITE_DONE) return Status::Error("cannot read table " + table + " for CSV: " + sqlite3_errmsg(db));
  if (!out) return Status::Error("cannot write table " + table + " as CSV (output stream failed)");
  return Status::Ok();
}

}  // namespace ampscope::sqlite_export

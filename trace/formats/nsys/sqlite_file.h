// A read-only view of a SQLite database file, for the Nsight Systems reader.
//
// The file is opened with SQLITE_OPEN_READONLY and the URI parameter immutable=1, so SQLite
// takes no locks and never creates a -journal, -wal or -shm file next to the input: reading
// a trace must not write anything. Unless a -wal or -journal file lies beside it: immutable
// would ignore it (and read rows a committed delete removed, or a half-written transaction), so
// the file is then opened read-only the ordinary way, as sqlite3 reads it (a WAL needs a -shm
// file, which SQLite creates). A hot journal (a writer killed mid-transaction), a database
// locked by a writer, and a WAL whose -shm cannot be made each get a message that says what
// to do. Before SQLite sees the file, its 100-byte header is
// checked by hand, so a truncated file is reported as truncated (with the byte counts)
// rather than as whatever page SQLite happens to trip over first.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ampscope::nsys {

// True if `bytes` starts with the 16-byte SQLite header string "SQLite format 3\0".
bool HasSqliteMagic(const unsigned char* bytes, size_t n);

// One prepared statement. Column indexes are 0-based, as in sqlite3_column_*.
class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStatement(SqliteStatement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  SqliteStatement& operator=(SqliteStatement&& o) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // true: a row is ready; false: done. An error (corrupt page, I/O) is returned as a
  // Status whose message is SQLite's text.
  StatusOr<bool> Step();
  void Reset();
  void BindInt64(int index_1based, int64_t v);

  int type(int col) const { return sqlite3_column_type(stmt_, col); }  // SQLITE_INTEGER, ...
  bool is_null(int col) const { return type(col) == SQLITE_NULL; }
  int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  // Valid until the next Step/Reset; empty for NULL.
  std::string_view text(int col) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteFile {
 public:
  // Checks the header, opens the file read-only (immutable unless a -wal or -journal is
  // beside it), and lists its tables.
  // Errors name the file and say what is wrong (not SQLite, truncated, corrupt schema).
  static StatusOr<SqliteFile> Open(const std::string& path);

  SqliteFile(SqliteFile&& o) noexcept : db_(o.db_), tables_(std::move(o.tables_)) { o.db_ = nullptr; }
  SqliteFile& operator=(SqliteFile&&) = delete;
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;
  ~SqliteFile();

  const std::set<std::string>& tables() const { return tables_; }
  bool HasTable(const std::string& name) const { return tables_.count(name) > 0; }
  // Column names of `table` from PRAGMA table_info, in table order.
  StatusOr<std::vector<std::string>> Columns(const std::string& table);
  StatusOr<SqliteStatement> Prepare(const std::string& sql);

 private:
  explicit SqliteFile(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
  std::set<std::string> tables_;
};

// Quotes an SQL identifier ("name" with embedded quotes doubled).
std::string QuoteIdentifier(std::string_view name);

}  // namespace ampscope::nsys

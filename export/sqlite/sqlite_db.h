// A small writer over an in-memory SQLite database: statements prepared once, values bound by
// position, errors kept (the first one) instead of thrown, and the finished database serialised
// to bytes. Only the SQLite exporter uses it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ampscope::sqlite_export {

class Db;

// One prepared INSERT. Bind the columns in order (1-based positions advance by themselves),
// then Insert().
class Insert {
 public:
  Insert() = default;
  Insert(Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Insert(Insert&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  Insert& operator=(Insert&& o) noexcept;
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;
  ~Insert();

  Insert& Int(int64_t v);
  Insert& Real(double v);  // non-finite values are stored as NULL
  // The text must stay valid until Run() (it is bound without a copy).
  Insert& Text(std::string_view v);
  Insert& Null();
  Insert& OptInt(bool known, int64_t v) { return known ? Int(v) : Null(); }
  Insert& OptReal(const std::optional<double>& v) { return v ? Real(*v) : Null(); }
  Insert& OptText(std::string_view v) { return v.empty() ? Null() : Text(v); }
  void Run();

 private:
  Db* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  int next_ = 1;
};

class Db {
 public:
  Db();
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void Exec(const char* sql);
  Insert Prepare(const std::string& sql);
  // Keeps the first failure (a later one is usually a consequence).
  void Fail(std::string_view what);
  const Status& status() const { return status_; }
  sqlite3* handle() { return db_; }

  // Writes the whole database file (the bytes of a .db on disk) to `out`.
  Status Serialize(std::ostream& out);

 private:
  sqlite3* db_ = nullptr;
  Status status_ = Status::Ok();
};

}  // namespace ampscope::sqlite_export

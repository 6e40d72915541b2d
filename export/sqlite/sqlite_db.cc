#include "export/sqlite/sqlite_db.h"

#include <cmath>
#include <string>

namespace ampscope::sqlite_export {

Insert& Insert::operator=(Insert&& o) noexcept {
  if (this != &o) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    next_ = 1;
    o.stmt_ = nullptr;
  }
  return *this;
}

Insert::~Insert() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Insert& Insert::Int(int64_t v) {
  if (stmt_ != nullptr) sqlite3_bind_int64(stmt_, next_, v);
  ++next_;
  return *this;
}

Insert& Insert::Real(double v) {
  if (!std::isfinite(v)) return Null();
  if (stmt_ != nullptr) sqlite3_bind_double(stmt_, next_, v);
  ++next_;
  return *this;
}

Insert& Insert::Text(std::string_view v) {
  // sqlite3_bind_text binds SQL NULL for a null pointer, which an empty string_view may hold (a
  // kernel with an empty or unresolved name): "" is text, and NOT NULL columns must take it.
  if (stmt_ != nullptr)
    sqlite3_bind_text(stmt_, next_, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()), SQLITE_STATIC);
  ++next_;
  return *this;
}

Insert& Insert::Null() {
  if (stmt_ != nullptr) sqlite3_bind_null(stmt_, next_);
  ++next_;
  return *this;
}

void Insert::Run() {
  next_ = 1;
  if (stmt_ == nullptr || !db_->status().ok()) return;
  if (sqlite3_step(stmt_) != SQLITE_DONE) db_->Fail(sqlite3_errmsg(db_->handle()));
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Db::Db() {
  if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Fail(db_ != nullptr ? sqlite3_errmsg(db_) : "cannot open an in-memory database");
    return;
  }
  // Nothing to recover: the database is written out only when complete.
  Exec("PRAGMA journal_mode=OFF");
  Exec("PRAGMA synchronous=OFF");
}

Db::~Db() {
  if (db_ != nullptr) sqlite3_close(db_);
}

void Db::Fail(std::string_view what) {
  if (status_.ok()) status_ = Status::Error("cannot build the SQLite database: " + std::string(what));
}

void Db::Exec(const char* sql) {
  if (!status_.ok() || db_ == nullptr) return;
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    Fail(err != nullptr ? err : sqlite3_errmsg(db_));
    sqlite3_free(err);
  }
}

Insert Db::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (status_.ok() && db_ != nullptr &&
      sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
    Fail(sqlite3_errmsg(db_));
  return Insert(this, stmt);
}

Status Db::Serialize(std::ostream& out) {
  if (!status_.ok()) return status_;
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db_, "main", &size, 0);
  if (bytes == nullptr) return Status::Error("cannot write the SQLite database: out of memory while serialising it");
  out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(size));
  sqlite3_free(bytes);
  if (!out) return Status::Error("cannot write the SQLite database (output stream failed)");
  return Status::Ok();
}

}  // namespace ampscope::sqlite_export

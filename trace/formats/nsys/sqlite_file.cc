#include "trace/formats/nsys/sqlite_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace ampscope::nsys {

namespace {

constexpr unsigned char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                            'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
constexpr size_t kHeaderBytes = 100;  // the SQLite database header (sqlite.org/fileformat.html)

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// "file:" URI for sqlite3_open_v2 with the path percent-encoded: '?', '#' and '%' would
// otherwise end or change the path part. `immutable`: no locks, no journal or WAL read.
std::string FileUri(const std::string& path, bool immutable) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' ||
                       c == '.' || c == '_' || c == '-' || c == '~';
    if (plain) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  // mode=ro: never opened for writing; immutable=1: no locks, no journal or WAL files.
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

bool NonEmptyFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

// What lies beside the export: a writer's -wal (committed changes not yet in the file) or
// -journal (a transaction in progress, or a hot journal left by a writer that was killed).
struct Companions {
  bool wal = false;
  bool journal = false;
  bool any() const { return wal || journal; }
};

// The one-line error for a failure of the first read of a file opened with its companions.
Status CompanionError(const std::string& path, const Companions& c, int extended_code, const std::string& what) {
  const int primary = extended_code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return Status::Error(path + ": locked by a program that is writing it (" + (c.wal ? path + "-wal" : path + "-journal") +
                         " is in use; an nsys export still running?): wait until it has finished, then run ampscope again");
  if (extended_code == SQLITE_READONLY_ROLLBACK || (c.journal && primary == SQLITE_READONLY))
    return Status::Error(path + ": " + path + "-journal is a hot journal left by a writer that was killed: the file holds "
                         "changes that were never committed. Roll them back by opening it once with write access "
                         "(sqlite3 '" + path + "' 'PRAGMA quick_check'), then run ampscope again");
  if (c.wal && (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY))
    return Status::Error(path + ": " + path + "-wal holds committed changes that are not in the file yet, and reading them "
                         "needs " + path + "-shm, which cannot be made here (" + what + "). Fold them into the file with "
                         "sqlite3 '" + path + "' 'PRAGMA wal_checkpoint(TRUNCATE)' where it is writable, then run ampscope again");
  return Status::Error(path + ": cannot read as SQLite: " + what);
}

// Checks the 100-byte header against the file size. SQLite itself would read a truncated
// file's missing pages as "database disk image is malformed" somewhere in the middle of a
// query; this says what happened, up front.
Status CheckHeader(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  unsigned char header[kHeaderBytes] = {0};
  const size_t n = std::fread(header, 1, sizeof(header), f);
  std::fclose(f);
  if (!HasSqliteMagic(header, n)) return Status::Error(path + ": byte 0: not a SQLite database (no \"SQLite format 3\" header)");
  if (n < kHeaderBytes)
    return Status::Error(path + ": byte " + std::to_string(n) + ": truncated SQLite file (shorter than the " +
                         std::to_string(kHeaderBytes) + "-byte header)");
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::Error(path + ": cannot stat: " + std::strerror(errno));
  const uint64_t file_bytes = static_cast<uint64_t>(st.st_size);
  uint32_t page_size = (uint32_t{header[16]} << 8) | header[17];
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0)
    return Status::Error(path + ": byte 16: corrupt SQLite header (page size " + std::to_string(page_size) + ")");
  if (file_bytes % page_size != 0)
    return Status::Error(path + ": byte " + std::to_string(file_bytes) + ": truncated SQLite file (" +
                         std::to_string(file_bytes) + " bytes is not a whole number of " + std::to_string(page_size) +
                         "-byte pages)");
  // The in-header page count is only valid when the change counter (offset 24) equals the
  // version-valid-for number (offset 92).
  const uint32_t pages = BigEndian32(header + 28);
  if (pages > 0 && BigEndian32(header + 24) == BigEndian32(header + 92)) {
    const uint64_t expected = uint64_t{pages} * page_size;
    if (file_bytes < expected)
      return Status::Error(path + ": byte " + std::to_string(file_bytes) + ": truncated SQLite file (the header says " +
                           std::to_string(pages) + " pages = " + std::to_string(expected) + " bytes, the file has " +
                           std::to_string(file_bytes) + ")");
  }
  return Status::Ok();
}

}  // namespace

bool HasSqliteMagic(const unsigned char* bytes, size_t n) {
  return n >= sizeof(kSqliteMagic) && std::memcmp(bytes, kSqliteMagic, sizeof(kSqliteMagic)) == 0;
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    o.stmt_ = nullptr;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

StatusOr<bool> SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Status::Error(std::string("SQLite: ") + sqlite3_errmsg(db_));
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void SqliteStatement::BindInt64(int index_1based, int64_t v) { sqlite3_bind_int64(stmt_, index_1based, v); }

std::string_view SqliteStatement::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

StatusOr<SqliteFile> SqliteFile::Open(const std::string& path) {
  // A -wal or -journal beside the export: it is read as SQLite reads it (read-only, with locks:
  // immutable=1 would ignore them, and show rows a committed delete removed, or a half-written
  // transaction). Without them, immutable: no lock taken, nothing created next to the input.
  Companions companions;
  companions.wal = NonEmptyFile(path + "-wal");
  companions.journal = NonEmptyFile(path + "-journal");
  if (!companions.wal) AMPSCOPE_RETURN_IF_ERROR(CheckHeader(path));  // the WAL may hold pages past the file's end
  sqlite3* db = nullptr;
  // NOMUTEX: the connection lives on one thread, so SQLite need not lock it on every
  // sqlite3_column_* call (a sixth of the read time of a large export otherwise).
  const int rc = sqlite3_open_v2(FileUri(path, !companions.any()).c_str(), &db,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const int code = db != nullptr ? sqlite3_extended_errcode(db) : rc;
    sqlite3_close(db);
    if (companions.any()) return CompanionError(path, companions, code, why);
    return Status::Error(path + ": cannot open as SQLite: " + why);
  }
  SqliteFile file(db);
  sqlite3_extended_result_codes(db, 1);
  // A writer that holds the file a moment longer is waited for, briefly.
  if (companions.any()) sqlite3_busy_timeout(db, 500);
  // Belt and braces: even a statement that tried to write would be refused.
  sqlite3_exec(db, "PRAGMA query_only = 1", nullptr, nullptr, nullptr);
  StatusOr<SqliteStatement> list = file.Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!list.ok()) {
    if (companions.any()) return CompanionError(path, companions, sqlite3_extended_errcode(db), list.status().message());
    return Status::Error(path + ": corrupt SQLite schema: " + list.status().message());
  }
  while (true) {
    StatusOr<bool> row = list->Step();
    if (!row.ok()) {
      if (companions.any()) return CompanionError(path, companions, sqlite3_extended_errcode(db), row.status().message());
      return Status::Error(path + ": corrupt SQLite schema: " + row.status().message());
    }
    if (!*row) break;
    file.tables_.insert(std::string(list->text(0)));
  }
  return file;
}

SqliteFile::~SqliteFile() {
  if (db_ != nullptr) sqlite3_close(db_);
}

StatusOr<SqliteStatement> SqliteFile::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    std::string why = std::string("SQLite: ") + sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return Status::Error(why);
  }
  return SqliteStatement(db_, stmt);
}

StatusOr<std::vector<std::string>> SqliteFile::Columns(const std::string& table) {
  StatusOr<SqliteStatement> st = Prepare("PRAGMA table_info(" + QuoteIdentifier(table) + ")");
  if (!st.ok()) return st.status();
  std::vector<std::string> names;
  while (true) {
    StatusOr<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    names.emplace_back(st->text(1));  // cid, name, type, notnull, dflt_value, pk
  }
  return names;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace ampscope::nsys

// Issue 38: an nsys export with a -wal or a -journal beside it. Opening with immutable=1 ignored
// them: after a committed but un-checkpointed delete sqlite3 saw 10 kernels and ampscope read
// 1,312; a hot journal left by a killed writer gave uncommitted rows or "malformed". The files
// are made here with the sqlite3 C API, by a writer that really is killed (a child that
// _exits in the middle), and the expected counts are what the test itself committed.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/nsys_export_builder.h"
#include "support/test_support.h"
#include "trace/reader.h"

namespace ampscope {
namespace nsys_journal_test {
namespace {

using testing::KernelRow;
using testing::MakeTempDir;
using testing::NsysExportBuilder;

constexpr int kKernels = 1312;

// An export with kKernels kernels (1 us each, 10 us apart) on one GPU, committed and closed.
void WriteExport(const std::string& path) {
  NsysExportBuilder b(path);
  b.Gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
  for (int i = 0; i < kKernels; ++i) {
    KernelRow k;
    k.start = 10000 + int64_t{i} * 10000;
    k.end = k.start + 1000;
    k.name = "void gemm_kernel_" + std::to_string(i % 7) + "(float*)";
    b.Kernel(k);
  }
}

sqlite3* OpenRw(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  return db;
}

void Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err != nullptr ? err : "");
  sqlite3_free(err);
}

// Runs `work` in a child that then dies without closing its connection: a writer killed.
template <typename F> void InKilledWriter(F work) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    work();
    ::_exit(0);  // no sqlite3_close: no checkpoint, no rollback
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

TEST(NsysJournal, AWalWithACommittedDeleteIsReadAsSqliteReadsIt) {
  const std::string dir = MakeTempDir("nsys_wal");
  const std::string path = dir + "/run.sqlite";
  WriteExport(path);
  InKilledWriter([&] {
    sqlite3* db = OpenRw(path);
    Exec(db, "PRAGMA journal_mode=WAL");
    Exec(db, "PRAGMA wal_autocheckpoint=0");
    // Keep the first 10 kernels: the commit is in the -wal only.
    Exec(db, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start >= " + std::to_string(10000 + 10 * 10000));
  });
  ASSERT_GT(FileSize(path + "-wal"), 0) << "the test needs an un-checkpointed WAL";
  StatusOr<Trace> t = ReadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kernels.size(), 10u);  // 1,312 before: the -wal was ignored
}

int64_t Count(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

// The issue's own case, on a copy of the shared CloverLeaf export (1,312 kernels): a committed
// delete that leaves 10, not checkpointed. sqlite3 itself counts what ampscope must read.
TEST(NsysJournal, TheSharedExportWithAWalReadsWhatSqliteReads) {
  const std::string shared = testing::SharedPath("traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(shared), "the shared CloverLeaf nsys export");
  const std::string dir = MakeTempDir("nsys_wal_shared");
  const std::string path = dir + "/cloverleaf.sqlite";
  std::filesystem::copy_file(shared, path);
  int64_t sqlite_sees = -1;
  InKilledWriter([&] {
    sqlite3* db = OpenRw(path);
    Exec(db, "PRAGMA journal_mode=WAL");
    Exec(db, "PRAGMA wal_autocheckpoint=0");
    Exec(db, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid NOT IN "
             "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start LIMIT 10)");
  });
  ASSERT_GT(FileSize(path + "-wal"), 0);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite_sees = Count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    sqlite3_close(db);
  }
  EXPECT_EQ(sqlite_sees, 10);
  StatusOr<Trace> t = ReadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(static_cast<int64_t>(t->kernels.size()), sqlite_sees);  // 1,312 before
}

TEST(NsysJournal, AHotJournalSaysHowToRollItBack) {
  const std::string dir = MakeTempDir("nsys_journal");
  const std::string path = dir + "/run.sqlite";
  WriteExport(path);
  InKilledWriter([&] {
    sqlite3* db = OpenRw(path);
    // A tiny cache: the delete's pages go to the file before the commit that never comes.
    Exec(db, "PRAGMA cache_size=1");
    Exec(db, "BEGIN");
    Exec(db, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start % 20000 = 0");
    Exec(db, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = gridX + 1");
  });
  ASSERT_GT(FileSize(path + "-journal"), 0) << "the test needs a hot journal";
  StatusOr<Trace> t = ReadTrace(path);
  ASSERT_FALSE(t.ok()) << "read " << t->kernels.size() << " kernels of a half-written transaction";
  EXPECT_EQ(t.status().message(),
            path + ": " + path + "-journal is a hot journal left by a writer that was killed: the file holds changes "
                   "that were never committed. Roll them back by opening it once with write access (sqlite3 '" + path +
                   "' 'PRAGMA quick_check'), then run ampscope again");
  // What the message says to do works, and then every committed kernel is read.
  sqlite3* db = OpenRw(path);
  Exec(db, "PRAGMA quick_check");
  sqlite3_close(db);
  StatusOr<Trace> again = ReadTrace(path);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->kernels.size(), static_cast<size_t>(kKernels));
}

TEST(NsysJournal, ADatabaseLockedByAWriterHasItsOwnMessage) {
  const std::string dir = MakeTempDir("nsys_locked");
  const std::string path = dir + "/run.sqlite";
  WriteExport(path);
  sqlite3* writer = OpenRw(path);
  Exec(writer, "BEGIN EXCLUSIVE");
  Exec(writer, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start < 50000");
  ASSERT_GT(FileSize(path + "-journal"), 0);
  StatusOr<Trace> t = ReadTrace(path);
  Exec(writer, "ROLLBACK");
  sqlite3_close(writer);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), path + ": locked by a program that is writing it (" + path +
                                      "-journal is in use; an nsys export still running?): wait until it has finished, "
                                      "then run ampscope again");
}

TEST(NsysJournal, WithoutCompanionsNothingIsCreatedBesideTheExport) {
  const std::string dir = MakeTempDir("nsys_plain");
  const std::string path = dir + "/run.sqlite";
  WriteExport(path);
  StatusOr<Trace> t = ReadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kernels.size(), static_cast<size_t>(kKernels));
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries += e.path().filename() == "run.sqlite" ? 0 : 1;
  EXPECT_EQ(entries, 0u);
}

}  // namespace
}  // namespace nsys_journal_test
}  // namespace ampscope

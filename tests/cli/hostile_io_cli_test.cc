// Issue 38 on the command line: outputs under failure and signals, inputs through pipes, reads
// that cannot grow without bound, names SQLite refused. Each test is a reproducer from the
// issue at a reduced size; bench/ has the large ones.
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../collector/test_subprocess.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_writer.h"

namespace ampscope {
namespace hostile_io_cli_test {
namespace {

using testing::BinaryPath;
using testing::MakeTempDir;
using testing::ReadFile;
using testing::RunProcess;
using testing::WriteFile;

// One step, one launch, three kernels: the numbers the tests check are the ones written here.
const char* kTrace = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
  "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120, "dur": 20,
  "args": {"correlation": 7, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "elementwise_kernel", "pid": 0, "tid": 7, "ts": 150, "dur": 10,
  "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "reduce_kernel", "pid": 0, "tid": 7, "ts": 170, "dur": 10,
  "args": {"device": 0, "stream": 7}}
]})";

testing::ProcessResult Ampscope(const std::vector<std::string>& args, const std::function<void(pid_t)>& on_started = nullptr) {
  std::vector<std::string> argv = {BinaryPath("cli/ampscope")};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, {}, {}, on_started);
}

// `sh -c script` with AMPSCOPE set to the binary: for pipes into stdin.
testing::ProcessResult Shell(const std::string& script) {
  return RunProcess({"/bin/sh", "-c", script}, {{"AMPSCOPE", BinaryPath("cli/ampscope")}});
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

bool OneLine(const std::string& err) {
  return !err.empty() && err.back() == '\n' && err.find('\n') == err.size() - 1;
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class HostileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("hostile_io");
    trace_ = dir_ + "/t.json";
    WriteFile(trace_, kTrace);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, trace_;
};

// ---- outputs ---------------------------------------------------------------------------

TEST_F(HostileIo, AnEmptyOutputPathIsAnError) {
  for (const char* option : {"-o", "--html", "--markdown", "--sqlite", "--chrome-trace"}) {
    auto r = Ampscope({"analyze", trace_, "-q", option, ""});
    EXPECT_EQ(r.exit_code(), 2) << option;
    EXPECT_EQ(r.err, std::string("ampscope analyze: ") + option +
                         ": an empty path (name a file, or leave the option out)\n");
  }
  auto merge = Ampscope({"merge", trace_, "-o", ""});
  EXPECT_EQ(merge.exit_code(), 2);
  EXPECT_TRUE(OneLine(merge.err)) << merge.err;
  auto gate = Ampscope({"gate", "--baseline", trace_, "--current", trace_, "--junit", ""});
  EXPECT_EQ(gate.exit_code(), 2);
  EXPECT_NE(gate.err.find("--junit: an empty path"), std::string::npos) << gate.err;
}

TEST_F(HostileIo, AMissingOutputDirectoryIsReportedBeforeTheAnalysis) {
  // The input does not exist either: the output directory is named first, so nothing was read.
  auto r = Ampscope({"analyze", dir_ + "/missing.json", "-q", "-o", dir_ + "/no/such/dir/r.json"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_EQ(r.err, "ampscope analyze: " + dir_ + "/no/such/dir/r.json: cannot write into " + dir_ +
                       "/no/such/dir: No such file or directory\n");
}

TEST_F(HostileIo, AReplacedReportKeepsItsMode) {
  WriteFile(dir_ + "/r.json", "{}");
  ASSERT_EQ(chmod((dir_ + "/r.json").c_str(), 0600), 0);
  auto r = Ampscope({"analyze", trace_, "-q", "-o", dir_ + "/r.json"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);  // came back 0644 before issue 38
  EXPECT_NE(ReadFile(dir_ + "/r.json"), "{}");
}

// Ctrl-C while the outputs are written: here `analyze` waits for the reader of a FIFO output
// after r.json's temporary is written. SIGINT removes the temporary and ends the process by
// SIGINT (a shell sees 130 and stops its loop).
TEST_F(HostileIo, SigintDuringTheWritesLeavesNoTemporaryAndDiesBySigint) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(sig));
    const std::string out = MakeTempDir("hostile_io_out");
    WriteFile(out + "/r.json", "OLD");
    ASSERT_EQ(mkfifo((out + "/pipe.md").c_str(), 0600), 0);
    auto r = Ampscope({"analyze", trace_, "-q", "-o", out + "/r.json", "--markdown", out + "/pipe.md"}, [&](pid_t pid) {
      // Until the temporary of r.json is there (the set is being written), then the signal.
      for (int i = 0; i < 500; ++i) {
        bool temp = false;
        for (const std::string& name : Entries(out)) temp |= name.find(".ampscope-tmp.") != std::string::npos;
        if (temp) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      kill(pid, sig);
    });
    EXPECT_EQ(r.term_signal(), sig) << "exit " << r.exit_code() << ": " << r.err;
    EXPECT_EQ(Entries(out), (std::vector<std::string>{"pipe.md", "r.json"}));
    EXPECT_EQ(ReadFile(out + "/r.json"), "OLD");
    std::filesystem::remove_all(out);
  }
}

// ---- reads with a cap ------------------------------------------------------------------

TEST_F(HostileIo, GateDiffAndGpuPeaksStopAt256MiB) {
  const std::string cap = ": byte 268435456: over 256 MiB: not ";
  auto gate = Ampscope({"gate", "--baseline", "/dev/zero", "--current", trace_});
  EXPECT_EQ(gate.exit_code(), 2);
  EXPECT_TRUE(OneLine(gate.err)) << gate.err;
  EXPECT_NE(gate.err.find("/dev/zero" + cap), std::string::npos) << gate.err;
  auto diff = Ampscope({"diff", "/dev/zero", trace_});
  EXPECT_EQ(diff.exit_code(), 2);
  EXPECT_NE(diff.err.find("/dev/zero" + cap), std::string::npos) << diff.err;
  auto peaks = Ampscope({"analyze", trace_, "-q", "--gpu-peaks", "/dev/zero"});
  EXPECT_EQ(peaks.exit_code(), 2);
  EXPECT_TRUE(OneLine(peaks.err)) << peaks.err;
  EXPECT_NE(peaks.err.find("/dev/zero" + cap + "a GPU peak table"), std::string::npos) << peaks.err;
}

TEST_F(HostileIo, OneJsonValueOver64MiBIsOneLineAndExit2) {
  // One kernel name of 65 MiB (issue 38: 1 GiB took 6.2 GB and exited 0), gzip'd to ~65 kB.
  std::string big = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": ")";
  const size_t event_at = big.find("{\"ph\"");
  big.append(size_t{65} << 20, 'k');
  big += R"(", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]})";
  WriteFile(dir_ + "/big.json.gz", Gzip(big));
  auto r = Ampscope({"analyze", dir_ + "/big.json.gz", "-q", "-o", dir_ + "/r.json"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_EQ(r.err, "ampscope analyze: " + dir_ + "/big.json.gz: byte " + std::to_string(event_at) +
                       ": a single JSON value (one event, or one top-level member) is larger than 64 MiB, the most "
                       "ampscope reads as one unit\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.json"));
}

// ---- inputs through pipes --------------------------------------------------------------

TEST_F(HostileIo, DashIsStdinAndAGzipPipeIsReadWhole) {
  WriteFile(dir_ + "/t.json.gz", Gzip(kTrace));
  auto r = Shell("cat '" + dir_ + "/t.json.gz' | \"$AMPSCOPE\" analyze - -q -o '" + dir_ + "/r.json'");
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
  EXPECT_EQ(report["inputs"][0]["events"], 5) << report["inputs"].dump();
  // Plain JSON through /dev/stdin (a pipe): the bytes the format check read are not lost.
  auto plain = Shell("cat '" + trace_ + "' | \"$AMPSCOPE\" analyze /dev/stdin -q -o '" + dir_ + "/r2.json'");
  ASSERT_EQ(plain.exit_code(), 0) << plain.err;
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/r2.json"))["inputs"][0]["events"], 5);
}

// A shared trace through a pipe gives the report its file gives (but for the input's name).
TEST_F(HostileIo, ASharedTraceThroughStdinGivesTheReportOfItsFile) {
  const std::string shared = testing::SharedPath("traces/kineto/hta/event_sync_trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(shared), "the shared HTA event_sync trace");
  auto file = Ampscope({"analyze", shared, "-q", "-o", dir_ + "/file.json"});
  ASSERT_EQ(file.exit_code(), 0) << file.err;
  auto piped = Shell("cat '" + shared + "' | \"$AMPSCOPE\" analyze - -q -o '" + dir_ + "/pipe.json'");
  ASSERT_EQ(piped.exit_code(), 0) << piped.err;
  nlohmann::json a = nlohmann::json::parse(ReadFile(dir_ + "/file.json"));
  nlohmann::json b = nlohmann::json::parse(ReadFile(dir_ + "/pipe.json"));
  EXPECT_EQ(b["inputs"][0]["path"], "stdin");
  for (nlohmann::json* r : {&a, &b}) {
    (*r)["inputs"][0].erase("path");
    (*r)["ranks"][0].erase("input");
  }
  EXPECT_EQ(a["steps"], b["steps"]);
  EXPECT_EQ(a["kernels"], b["kernels"]);
  EXPECT_EQ(a["findings"], b["findings"]);
  EXPECT_EQ(a["inputs"], b["inputs"]);
}

TEST_F(HostileIo, AFifoIsReadFromTheStreamItself) {
  const std::string fifo = dir_ + "/trace.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { WriteFile(fifo, Gzip(kTrace)); });
  auto r = Ampscope({"analyze", fifo, "-q", "-o", dir_ + "/r.json"});
  writer.join();
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/r.json"))["inputs"][0]["events"], 5);
}

TEST_F(HostileIo, AnAmptraceThroughAPipeSaysToUseAFile) {
  auto r = Shell("printf 'AMPTRACE\\001\\000' | \"$AMPSCOPE\" analyze - -q");
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_EQ(r.err, "ampscope analyze: stdin: byte 0: an .amptrace file is read with seeks and cannot come through "
                   "a pipe; save it to a file and name that file\n");
}

// ---- names SQLite refused --------------------------------------------------------------

int64_t Query(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

void ExpectUnnamedKernelsWritten(const std::string& dir, const std::string& input, int64_t unnamed, int64_t kernels) {
  auto r = Ampscope({"analyze", input, "-q", "-o", dir + "/r.json", "--sqlite", dir + "/k.db", "--html", dir + "/r.html"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;  // before: "NOT NULL constraint failed: kernels.name", nothing written
  EXPECT_TRUE(std::filesystem::exists(dir + "/r.html"));
  EXPECT_EQ(Query(dir + "/k.db", "SELECT count(*) FROM kernels"), kernels);
  EXPECT_EQ(Query(dir + "/k.db", "SELECT count(*) FROM kernels WHERE name = ''"), unnamed);
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir + "/r.json"));
  EXPECT_EQ(report["diagnostics"]["counters"]["unnamed_kernel"], unnamed) << report["diagnostics"].dump();
}

TEST_F(HostileIo, KinetoKernelsWithEmptyNumericOrNoNameAreWrittenToSqlite) {
  WriteFile(dir_ + "/u.json", R"({"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": 12345, "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 170, "dur": 10, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "named_kernel", "pid": 0, "tid": 7, "ts": 190, "dur": 10, "args": {"device": 0, "stream": 7}}
]})");
  ExpectUnnamedKernelsWritten(dir_, dir_ + "/u.json", 3, 4);
}

TEST_F(HostileIo, AmptraceKernelWithAnUndefinedNameIdIsWrittenToSqlite) {
  AmptraceHeaderInfo h;
  h.cupti_version = 130001;
  h.pid = 7;
  h.host = "h";
  auto w = AmptraceWriter::Create(dir_ + "/u.amptrace", h);
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (int i = 0; i < 2; ++i) {
    AmpKernelRecord k;
    std::memset(&k, 0, sizeof(k));
    k.start_ns = 1000 + i * 1000, k.end_ns = 1500 + i * 1000, k.device = 0, k.stream = 7;
    k.grid[0] = k.grid[1] = k.grid[2] = 1, k.block[0] = k.block[1] = k.block[2] = 1;
    k.name = i == 0 ? 4242 : (*w)->InternString("named_kernel");  // 4242: never defined
    (*w)->Append(k);
  }
  AmpFooterRecord footer;
  std::memset(&footer, 0, sizeof(footer));
  ASSERT_TRUE((*w)->Finish(footer).ok());
  ExpectUnnamedKernelsWritten(dir_, dir_ + "/u.amptrace", 1, 2);
}

// The shared CloverLeaf export with some kernels' names pointing at no string (nsys's
// unresolved ids): written to SQLite with "" for them, counted, and every other output written.
TEST_F(HostileIo, NsysKernelsWithUnresolvedNamesAreWrittenToSqlite) {
  const std::string shared = testing::SharedPath("traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(shared), "the shared CloverLeaf nsys export");
  const std::string copy = dir_ + "/cloverleaf.sqlite";
  std::filesystem::copy_file(shared, copy);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
  // Every name column of the first 5 kernels (by start) points at an id StringIds does not have.
  const char* sql =
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999999, shortName = 999999999, mangledName = NULL "
      "WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start LIMIT 5)";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  ASSERT_EQ(sqlite3_changes(db), 5);
  sqlite3_close(db);
  ExpectUnnamedKernelsWritten(dir_, copy, 5, 1312);  // 1312: the export's kernels (shared/traces/README.md)
}

}  // namespace
}  // namespace hostile_io_cli_test
}  // namespace ampscope

// `ampscope analyze` with PyTorch memory snapshots: alone, beside a trace, every output; on a
// bad snapshot one line naming the file and the byte offset, exit 2, and no output file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace memory_snapshot_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::HaveShared;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;

struct RunResult {
  int exit_code;
  std::string out;  // stdout + stderr
};

// `ampscope analyze ARGS`, after the shell commands `prefix` (a ulimit).
RunResult RunAmpscope(const std::string& args, const std::string& prefix = "") {
  const std::string cmd = prefix + BinaryPath("cli/ampscope") + " analyze " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

const char* kBf16 = "traces/memory/fwdbwd_bf16_autocast.pickle";

TEST(MemorySnapshotCli, SnapshotAloneWritesEveryOutput) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const std::string dir = MakeTempDir("snapshot_cli");
  const RunResult r = RunAmpscope(SharedPath(kBf16) + " -o " + dir + "/r.json --html " + dir + "/r.html --markdown " + dir +
                          "/r.md --sqlite " + dir + "/r.db --chrome-trace " + dir + "/t.json --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir + "/r.json"));
  ASSERT_TRUE(report.contains("memory_snapshot")) << report.dump().substr(0, 400);
  const nlohmann::json& m = report["memory_snapshot"];
  // PyTorch's segsum on this file (shared/traces/README.md).
  EXPECT_EQ(m["segment_count"], 88);
  EXPECT_EQ(m["reserved_bytes"], 1205862400);
  EXPECT_EQ(m["allocated_bytes"], 420198612);
  EXPECT_EQ(m["free_internal_bytes"], 6534444);
  EXPECT_EQ(m["free_external_bytes"], 779129344);
  EXPECT_EQ(m["segment_allocs"], 88);
  EXPECT_EQ(m["segment_frees"], 0);
  EXPECT_EQ(m["segments"].size(), 88u);
  EXPECT_EQ(report["inputs"][0]["format"], "memory_snapshot");
  // The finding this snapshot supports, and no "profile again" for the trace it never was.
  bool cast = false;
  for (const nlohmann::json& f : report["findings"]) {
    EXPECT_NE(f["id"], "no_gpu_activity_recorded");
    cast |= f["id"] == "autocast_cast_memory";
  }
  EXPECT_TRUE(cast);
  EXPECT_NE(r.out.find("Memory snapshot"), std::string::npos) << r.out;
  EXPECT_NE(ReadFile(dir + "/r.md").find("total_reserved: 1.1GiB"), std::string::npos);
  const std::string html = ReadFile(dir + "/r.html");
  EXPECT_NE(html.find("id=\"memory-timeline\""), std::string::npos);
  EXPECT_NE(html.find("id=\"segment-map\""), std::string::npos);
  EXPECT_NE(ReadFile(dir + "/t.json").find("Memory snapshot: live bytes"), std::string::npos);
  EXPECT_GT(std::filesystem::file_size(dir + "/r.db"), 0u);
}

TEST(MemorySnapshotCli, SnapshotBesideATraceAttachesToItsRank) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const std::string dir = MakeTempDir("snapshot_pair");
  const std::string trace = SharedPath("traces/kineto/hta/event_sync_trace.json.gz");
  const RunResult r = RunAmpscope(trace + " " + SharedPath(kBf16) + " -o " + dir + "/r.json -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir + "/r.json"));
  EXPECT_EQ(report["inputs"].size(), 1u);
  EXPECT_EQ(report["inputs"][0]["format"], "kineto");
  EXPECT_EQ(report["memory_snapshot"]["reserved_bytes"], 1205862400);
  for (const nlohmann::json& c : report["checklist"]) {
    if (c["id"] == "memory_fragmentation") {
      EXPECT_EQ(c["source"], "measured (allocator snapshot)");
    }
  }
  // Two snapshots with one trace: no way to pair them.
  const RunResult bad = RunAmpscope(trace + " " + SharedPath(kBf16) + " " + SharedPath("traces/memory/fwdbwd_fp32.pickle") + " -o " +
                            dir + "/bad.json -q");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("one snapshot per trace"), std::string::npos) << bad.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.json"));
}

TEST(MemorySnapshotCli, BadSnapshotIsOneLineExitTwoNoOutputs) {
  const std::string dir = MakeTempDir("snapshot_bad");
  struct Case {
    std::string name, bytes, expect;
  };
  const Case cases[] = {
      // pickle.dumps(os.system) style: PROTO 2, GLOBAL 'os system' at byte 2.
      {"global.pickle", std::string("\x80\x02" "cos\nsystem\n" "." , 14), "byte 2: pickle opcode GLOBAL"},
      // REDUCE right after PROTO 4.
      {"reduce.pickle", std::string("\x80\x04R.", 4), "byte 2: pickle opcode REDUCE"},
      // A memo reference to nothing.
      {"memo.pickle", std::string("\x80\x04h\x09.", 5), "byte 2: memo reference 9 to nothing"},
      // Truncated: EMPTY_DICT and nothing more.
      {"truncated.pickle", std::string("\x80\x04}", 3), "byte 3: the pickle ends before its STOP"},
      // {'segments': [[[...]]]} 200 deep: EMPTY_DICT, 'segments', 200 EMPTY_LISTs (bytes 13-212),
      // then APPENDs from byte 213: the 64th (byte 276) makes a list 65 deep.
      {"deep.pickle", std::string("\x80\x04}\x8c\x08segments", 13) + std::string(200, ']') + std::string(199, 'a') + "s.",
       "byte 276: containers nested more than 64 deep"},
      // L1 into L0, then (BINGET) L2 into L1 after it was placed: the memo grows nesting after the fact.
      {"cyclic.pickle", std::string("\x80\x04]\x94]\x94" "ah\x01]a."), "byte 10: APPEND into a list already put into"},
      // {'segments': [5]}: nothing there is a segment.
      {"notsegments.pickle", std::string("\x80\x04}\x8c\x08segments]K\x05" "as."), "byte 0: 'segments' holds 1 entry and none"},
      // A protocol this reader does not know (PROTO 9), and protocol 0 (no PROTO), told by its name.
      {"proto9.pickle", std::string("\x80\x09}.", 4), "byte 0: pickle protocol 9 (this reader knows 2 to 5"},
      {"proto0.pickle", std::string("(dp0\nVa\np1\nI1\ns."), "byte 0: the pickle starts with MARK (0x28), not PROTO"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir + "/" + c.name;
    WriteFile(path, c.bytes);
    const RunResult r = RunAmpscope(path + " -o " + dir + "/out.json --html " + dir + "/out.html --sqlite " + dir + "/out.db");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out.rfind("ampscope analyze: " + path + ": byte ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(path + ": " + c.expect), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    for (const char* out : {"/out.json", "/out.html", "/out.db"}) EXPECT_FALSE(std::filesystem::exists(dir + out)) << out;
  }
}

// AddressSanitizer reserves terabytes of address space: no limit on it there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// A 40 MB file of empty lists ({'segments': [MARK, [], [], ...]}) once cost 2.6 GB (65x): the
// reader's budget (4x the bytes read, at least 16 MiB) stops it early, with one line. Run under
// a 1 GiB address-space limit (ulimit -v), which the 2.6 GB could not have fit in.
TEST(MemorySnapshotCli, ContainerFloodIsRefusedWithinItsBudget) {
  const std::string dir = MakeTempDir("snapshot_flood");
  const std::string path = dir + "/flood.pickle";
  WriteFile(path, std::string("\x80\x04}\x8c\x08segments](", 14) + std::string(40000000, ']') + "es.");
  const std::string limit = kAddressSanitizer ? "" : "ulimit -v 1048576; ";
  const RunResult r = RunAmpscope(path + " -o " + dir + "/out.json", limit);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_EQ(r.out.rfind("ampscope analyze: " + path + ": byte ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("over the reader's budget"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json"));
}

// Appends pickle opcodes (Lib/pickletools.py) for the snapshots below.
struct Pickle {
  std::string b;
  Pickle& op(char c) {
    b.push_back(c);
    return *this;
  }
  Pickle& str(const std::string& s) {  // SHORT_BINUNICODE <len:1> <utf8>
    b.push_back('\x8c');
    b.push_back(static_cast<char>(s.size()));
    b += s;
    return *this;
  }
  Pickle& i2(uint16_t v) {  // BININT2 <uint16>
    b.push_back('M');
    b.push_back(static_cast<char>(v & 0xff));
    b.push_back(static_cast<char>(v >> 8));
    return *this;
  }
};

// A snapshot whose oddities the reader counts: a block in a state it does not know and a trace
// event with an action it does not know. They reach the report's diagnostics, and so every
// renderer.
std::string OddSnapshot() {
  Pickle p;
  p.op('\x80').op('\x04').op('}').op('(');
  p.str("segments").op(']').op('}').op('(').str("total_size").i2(4096).str("address").i2(8192).str("blocks").op(']');
  p.op('}').op('(').str("size").i2(4096).str("requested_size").i2(4000).str("state").str("teleported");
  p.str("frames").op(']').op('u');  // the block's items
  p.op('a').op('u').op('a');        // block into blocks, the segment's items, segment into segments
  p.str("device_traces").op(']').op(']').op('}').op('(').str("action").str("teleport").str("addr").i2(1);
  p.str("size").i2(64).op('u').op('a').op('a');  // the event into its list, the list into device_traces
  p.op('u').op('.');
  return p.b;
}

TEST(MemorySnapshotCli, SnapshotDiagnosticsReachTheReport) {
  const std::string dir = MakeTempDir("snapshot_diag");
  const std::string snap = dir + "/odd.pickle";
  WriteFile(snap, OddSnapshot());
  const RunResult r = RunAmpscope(snap + " -o " + dir + "/r.json --markdown " + dir + "/r.md --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir + "/r.json"));
  EXPECT_EQ(report["memory_snapshot"]["segment_count"], 1);
  const nlohmann::json& counters = report["diagnostics"]["counters"];
  EXPECT_EQ(counters.value("snapshot_unknown_block_state", 0), 1) << counters.dump();
  EXPECT_EQ(counters.value("snapshot_unknown_action", 0), 1) << counters.dump();
  for (const nlohmann::json& m : report["diagnostics"]["messages"])
    if (m["code"] == "snapshot_unknown_action") {
      EXPECT_EQ(m["file"], snap);
      EXPECT_EQ(m["message"], "action 'teleport'");
    }
  EXPECT_NE(r.out.find("snapshot_unknown_action"), std::string::npos) << r.out;  // the terminal
  EXPECT_NE(ReadFile(dir + "/r.md").find("snapshot_unknown_block_state"), std::string::npos);
}

TEST(MemorySnapshotCli, SnapshotDiagnosticsBesideATraceNameTheSnapshot) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const std::string dir = MakeTempDir("snapshot_diag_pair");
  const std::string snap = dir + "/odd.pickle";
  WriteFile(snap, OddSnapshot());
  const std::string trace = SharedPath("traces/kineto/hta/event_sync_trace.json.gz");
  const RunResult r = RunAmpscope(trace + " " + snap + " -o " + dir + "/r.json -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir + "/r.json"));
  EXPECT_EQ(report["diagnostics"]["counters"].value("snapshot_unknown_action", 0), 1) << report["diagnostics"].dump();
  bool seen = false;
  for (const nlohmann::json& m : report["diagnostics"]["messages"])
    if (m["code"] == "snapshot_unknown_action") {
      seen = true;
      EXPECT_EQ(m["file"], trace);  // the rank's input
      EXPECT_EQ(m["message"], snap + ": action 'teleport'");
    }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace memory_snapshot_cli_test

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

// `ampscope analyze ARGS`.
RunResult RunAmpscope(const std::string& args) {
  const std::string cmd = BinaryPath("cli/ampscope") + " analyze " + args + " 2>&1";
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

}  // namespace

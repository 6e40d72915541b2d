// KinetoReadOptions::keep_export_only_flows / keep_other_events and ReadOptions::
// keep_export_only_events: events only the timeline exporters draw are left out of the Trace,
// everything else (tables, counts, diagnostics) is what a full read gives. Expected values are
// read off the inline trace below.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/reader.h"

namespace ampscope {
namespace kineto_export_only_events_test {
namespace {

// Two launch flows (ac2g), a fwdbwd pair, one flow without an id (a missing_field diagnostic
// whether it is kept or not), a python_function event and a kernel with its launch.
const char* kTrace = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20, "args": {"External id": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 3, "args": {"correlation": 7, "External id": 1}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"correlation": 7, "device": 0, "stream": 7}},
  {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 12, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "s", "id": 3, "pid": 1, "tid": 1, "ts": 10, "cat": "fwdbwd", "name": "fwdbwd"},
  {"ph": "f", "id": 3, "pid": 1, "tid": 2, "ts": 40, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
  {"ph": "s", "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "python_function", "name": "train.py(10): step", "pid": 1, "tid": 1, "ts": 5, "dur": 40}
]})";

TEST(KinetoExportOnlyEvents, LeftOutAndEverythingElseTheSame) {
  StatusOr<Trace> full = ReadKinetoTraceFromString(kTrace, "inline.json");
  KinetoReadOptions lean_options;
  lean_options.keep_export_only_flows = false;
  lean_options.keep_other_events = false;
  StatusOr<Trace> lean = ReadKinetoTraceFromString(kTrace, "inline.json", lean_options);
  ASSERT_TRUE(full.ok()) << full.status().message();
  ASSERT_TRUE(lean.ok()) << lean.status().message();

  EXPECT_EQ(full->flows.size(), 5u);  // the id-less flow is kept with id 0
  ASSERT_EQ(lean->flows.size(), 2u);  // the fwdbwd pair only
  for (const FlowEvent& f : lean->flows) EXPECT_EQ(lean->str(f.category), "fwdbwd");
  EXPECT_EQ(full->other_events.size(), 1u);
  EXPECT_TRUE(lean->other_events.empty());

  EXPECT_EQ(lean->metadata.event_count, full->metadata.event_count);  // 9: all seen
  EXPECT_EQ(lean->metadata.event_count, 9u);
  ASSERT_EQ(lean->kernels.size(), 1u);
  EXPECT_EQ(lean->api_calls.size(), 1u);
  EXPECT_EQ(lean->cpu_ops.size(), 1u);
  EXPECT_EQ(lean->diagnostics.Count("missing_field"), 1u);
  EXPECT_EQ(full->diagnostics.Count("missing_field"), 1u);
  ASSERT_EQ(lean->diagnostics.entries().size(), full->diagnostics.entries().size());
  for (const auto& [code, entry] : full->diagnostics.entries()) {
    EXPECT_EQ(lean->diagnostics.Count(code), entry.count) << code;
    EXPECT_EQ(lean->diagnostics.entries().at(code).first_offset, entry.first_offset) << code;
  }
}

TEST(KinetoExportOnlyEvents, ReadTraceOptionReachesTheKinetoReader) {
  const std::string dir = testing::MakeTempDir("export_only_events");
  const std::string path = dir + "/t.json";
  testing::WriteFile(path, kTrace);
  ReadOptions lean;
  lean.keep_export_only_events = false;
  StatusOr<Trace> t = ReadTrace(path, lean);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->flows.size(), 2u);
  EXPECT_TRUE(t->other_events.empty());
  StatusOr<Trace> full = ReadTrace(path);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->flows.size(), 5u);
  EXPECT_EQ(full->other_events.size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kineto_export_only_events_test
}  // namespace ampscope

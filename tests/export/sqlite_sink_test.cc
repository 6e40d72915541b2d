// The SQLite sink on a hand-built trace: every row of the trace is a row of its table, and what a
// kernel row says (step, launching op, window) is what the trace was built to be. The expected
// values are the builder's own timeline below (a hand count), not the exporter's output.
#include "export/sqlite/sqlite_export.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <sstream>
#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace sqlite_sink_test {
namespace {

using testing::Us;

// Two ProfilerSteps of 100 µs; in each, aten::mm launches a Tensor Core GEMM (sm80 HMMA 16816)
// and aten::add launches an elementwise kernel; a DtoH copy and a memset in step 0; one kernel
// after the last step (outside the windows).
std::vector<Trace> TwoSteps() {
  testing::TraceBuilder b;
  b.AddA100();
  for (int s = 0; s < 2; ++s) {
    const double t0 = 1000 + 100 * s;
    b.AddRange("ProfilerStep#" + std::to_string(s + 1), Us(t0), Us(t0 + 100));
    b.AddCpuOp("aten::mm", Us(t0 + 1), Us(t0 + 20), -1, "[\"c10::Half\",\"c10::Half\"]", "[[64,64],[64,64]]");
    b.LaunchKernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", Us(t0 + 2), Us(5), Us(t0 + 10),
                   Us(t0 + 40));
    b.AddCpuOp("aten::add", Us(t0 + 30), Us(t0 + 50));
    b.LaunchKernel("void at::native::vectorized_elementwise_kernel<4, float>", Us(t0 + 31), Us(5), Us(t0 + 45),
                   Us(t0 + 60));
  }
  b.AddMemcpy(Us(1070), Us(1080), b.NewCorrelation(), MemcpyKind::kDtoH, 4096, MemoryKind::kDevice,
              MemoryKind::kPageable);
  b.AddMemset(Us(1082), Us(1084), b.NewCorrelation(), 1024);
  b.LaunchKernel("void at::native::vectorized_elementwise_kernel<4, float>", Us(1300), Us(5), Us(1310), Us(1320));
  std::vector<Trace> traces;
  traces.push_back(b.Build());
  traces[0].metadata.path = "two_steps.json";
  return traces;
}

class SqliteSink : public ::testing::Test {
 protected:
  void SetUp() override {
    traces_ = TwoSteps();
    JobAnalysis job = AnalyzeJob(traces_, AnalysisOptions{});
    ASSERT_EQ(job.ranks.size(), 1u);
    std::ostringstream out;
    SqliteExportOptions options;
    options.tool_version = "9.9.9";
    Status st = WriteSqliteExport(traces_, job, options, out);
    ASSERT_TRUE(st.ok()) << st.message();
    bytes_ = out.str();
    ASSERT_EQ(bytes_.compare(0, 16, std::string("SQLite format 3\0", 16)), 0);
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes_.size()));
    std::copy(bytes_.begin(), bytes_.end(), copy);
    ASSERT_EQ(sqlite3_deserialize(db_, "main", copy, static_cast<sqlite3_int64>(bytes_.size()),
                                  static_cast<sqlite3_int64>(bytes_.size()),
                                  SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE),
              SQLITE_OK);
  }
  void TearDown() override {
    if (db_ != nullptr) sqlite3_close(db_);
  }
  // Every column of every row, '|'-separated, NULL as "NULL"; rows joined by '\n'.
  std::string Query(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    std::string out;
    while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      if (!out.empty()) out += "\n";
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        if (c) out += "|";
        const unsigned char* v = sqlite3_column_text(stmt, c);
        out += v == nullptr ? "NULL" : reinterpret_cast<const char*>(v);
      }
    }
    sqlite3_finalize(stmt);
    return out;
  }
  std::vector<Trace> traces_;
  std::string bytes_;
  sqlite3* db_ = nullptr;
};

TEST_F(SqliteSink, OneRowPerEventOfTheTrace) {
  EXPECT_EQ(Query("SELECT COUNT(*) FROM kernels"), "5");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM ops"), "4");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM steps"), "2");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM memcpy"), "1");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM memset"), "1");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM checklist"), "7");  // DESIGN.md's seven checklist items
  EXPECT_EQ(Query("SELECT COUNT(*) FROM matrix"), "5");     // and five dimensions
  EXPECT_EQ(Query("SELECT value FROM meta WHERE key = 'tool_version'"), "9.9.9");
  EXPECT_EQ(Query("SELECT rank, value FROM meta WHERE key = 'input_path'"), "0|two_steps.json");
}

TEST_F(SqliteSink, KernelRowsCarryTheStepOpAndWindow) {
  // Hand timeline: kernels start at 1010, 1045, 1110, 1145 (steps 0, 0, 1, 1) and 1310 (no step).
  EXPECT_EQ(Query("SELECT id, start_ns, dur_ns, step, op, in_window, tensor_core FROM kernels ORDER BY id"),
            "0|1010000|30000|0|aten::mm|1|yes\n"
            "1|1045000|15000|0|aten::add|1|no\n"
            "2|1110000|30000|1|aten::mm|1|yes\n"
            "3|1145000|15000|1|aten::add|1|no\n"
            "4|1310000|10000|NULL|NULL|0|no");
  // Each op row counts the kernels it launched (kernels.op_id) and their time.
  EXPECT_EQ(Query("SELECT o.id, o.name, o.kernels, o.kernel_time_ns FROM ops o ORDER BY o.id"),
            "0|aten::mm|1|30000\n1|aten::add|1|15000\n2|aten::mm|1|30000\n3|aten::add|1|15000");
  EXPECT_EQ(Query("SELECT COUNT(*) FROM kernels k JOIN ops o ON o.rank = k.rank AND o.id = k.op_id "
                  "WHERE o.name = k.op"),
            "4");
  // Step windows: ProfilerStep#1 and #2, 100 µs each; two kernels starting in each.
  EXPECT_EQ(Query("SELECT step, number, start_ns, kernels, source FROM steps ORDER BY step"),
            "0|1|1000000|2|profiler_step\n1|2|1100000|2|profiler_step");
  EXPECT_EQ(Query("SELECT kind, src_kind, dst_kind, bytes FROM memcpy"), "DtoH|device|pageable|4096");
}

TEST_F(SqliteSink, IndexesOnRankStartAndName) {
  EXPECT_EQ(Query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kernels' ORDER BY name"),
            "kernels_name\nkernels_rank_start");
  EXPECT_NE(Query("EXPLAIN QUERY PLAN SELECT * FROM kernels WHERE rank = 0 AND start_ns > 5").find("kernels_rank_start"),
            std::string::npos);
}

}  // namespace
}  // namespace sqlite_sink_test
}  // namespace ampscope

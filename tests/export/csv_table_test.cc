// `analyze --csv DIR`: a table of the analysis database as RFC 4180 CSV (export/sqlite/csv_table.h).
// The expected bytes are written out by hand from RFC 4180's rules (quote a field holding a comma,
// a double quote, CR or LF; double the quotes inside; CRLF after every record), and the counts on
// the built trace are the builder's own timeline (a hand count), not the exporter's output.
#include "export/sqlite/csv_table.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "export/sqlite/sqlite_export.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace csv_table_test {
namespace {

using sqlite_export::AppendCsvField;
using sqlite_export::CsvReal;
using sqlite_export::ListTables;
using sqlite_export::WriteTableCsv;
using testing::Us;

std::string Field(std::string_view text) {
  std::string line;
  AppendCsvField(text, line);
  return line;
}

TEST(CsvField, QuotesOnlyWhatRfc4180Requires) {
  EXPECT_EQ(Field("aten::mm"), "aten::mm");
  EXPECT_EQ(Field("void k<float, 4>(int)"), "\"void k<float, 4>(int)\"");
  EXPECT_EQ(Field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(Field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(Field(" spaced "), " spaced ");  // spaces are part of a field (RFC 4180 2.4)
}

TEST(CsvReal, ShortestRoundTripAndAlwaysAReal) {
  EXPECT_EQ(CsvReal(100.0), "100.0");
  EXPECT_EQ(CsvReal(0.1), "0.1");
  EXPECT_EQ(CsvReal(-2.5), "-2.5");
  EXPECT_EQ(CsvReal(1e-05), "1e-05");
  EXPECT_EQ(CsvReal(55.51), "55.51");
  EXPECT_EQ(std::stod(CsvReal(1.0 / 3.0)), 1.0 / 3.0);  // reads back to the same double
}

class RawDb : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK); }
  void TearDown() override { sqlite3_close(db_); }
  void Exec(const char* sql) { ASSERT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db_); }
  std::string Csv(const std::string& table) {
    std::ostringstream out;
    Status st = WriteTableCsv(db_, table, out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out.str();
  }
  sqlite3* db_ = nullptr;
};

TEST_F(RawDb, NullIsAnEmptyFieldAndEmptyTextIsQuoted) {
  Exec("CREATE TABLE t (name TEXT, value REAL, n INTEGER);"
       "INSERT INTO t VALUES ('', NULL, 1), ('x,\"y\"', 100.0, NULL), ('two\nlines', 0.25, -5);");
  EXPECT_EQ(Csv("t"),
            "name,value,n\r\n"
            "\"\",,1\r\n"
            "\"x,\"\"y\"\"\",100.0,\r\n"
            "\"two\nlines\",0.25,-5\r\n");
}

TEST_F(RawDb, RowsInInsertionOrderEvenWithAnIndex) {
  Exec("CREATE TABLE t (k INTEGER, v TEXT); INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, 'b');"
       "CREATE INDEX t_k ON t (k); ANALYZE;");
  EXPECT_EQ(Csv("t"), "k,v\r\n3,c\r\n1,a\r\n2,b\r\n");
}

TEST_F(RawDb, WithoutRowidTableAndAnEmptyTable) {
  Exec("CREATE TABLE w (k INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID; INSERT INTO w VALUES (2, 'b'), (1, 'a');"
       "CREATE TABLE empty (a TEXT, \"odd,name\" INTEGER);");
  EXPECT_EQ(Csv("w"), "k,v\r\n1,a\r\n2,b\r\n");
  EXPECT_EQ(Csv("empty"), "a,\"odd,name\"\r\n");  // the header alone
}

TEST_F(RawDb, TablesInCreationOrderWithoutSqlitesOwn) {
  Exec("CREATE TABLE zeta (a); CREATE TABLE alpha (b); CREATE INDEX alpha_b ON alpha (b); ANALYZE;");
  EXPECT_EQ(ListTables(db_), (std::vector<std::string>{"zeta", "alpha"}));  // not sqlite_stat1
}

TEST_F(RawDb, UnknownTableIsAnError) {
  std::ostringstream out;
  Status st = WriteTableCsv(db_, "nope", out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nope"), std::string::npos) << st.message();
}

// RFC 4180 records back into fields (the test's own small parser).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, in_quotes = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      in_quotes = quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      ++i;
    } else {
      field += c;
    }
  }
  (void)quoted;
  return rows;
}

// A built trace with names a spreadsheet must not split: one ProfilerStep of 200 µs, an op whose
// name holds a comma and a quote, and three kernels (two in the step, one after it).
TEST(CsvOfTheAnalysisDatabase, EveryTableWithTheDatabasesRowsAndNamesIntact) {
  testing::TraceBuilder b;
  b.AddDevice(0, "NVIDIA GeForce RTX 4090", 8, 9);
  b.AddRange("ProfilerStep#41", Us(5000), Us(5200));
  const std::string op = "my_ext::fused(\"a\", b)";
  const std::string k1 = "void gemm<cutlass::half_t, 128, 64>(Params, \"tile\")";
  const std::string k2 = "reduce_kernel\nwith a newline";
  b.AddCpuOp(op, Us(5001), Us(5050));
  b.LaunchKernel(k1, Us(5002), Us(4), Us(5010), Us(5090));
  b.LaunchKernel(k2, Us(5060), Us(4), Us(5095), Us(5150));
  b.LaunchKernel("tail_kernel", Us(5300), Us(4), Us(5310), Us(5320));
  std::vector<Trace> traces;
  traces.push_back(b.Build());
  traces[0].metadata.path = "odd, \"names\".json";
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  ASSERT_EQ(job.ranks.size(), 1u);
  std::vector<const Trace*> pointers{&traces[0]};
  StatusOr<std::unique_ptr<AnalysisDatabase>> db = BuildSqliteExport(pointers, job, SqliteExportOptions{"1.2.3"});
  ASSERT_TRUE(db.ok()) << db.status().message();

  const std::vector<std::string> tables = (*db)->Tables();
  for (const char* t : {"meta", "kernels", "ops", "steps", "findings", "checklist", "matrix"})
    EXPECT_NE(std::find(tables.begin(), tables.end(), t), tables.end()) << t;
  EXPECT_EQ(std::find(tables.begin(), tables.end(), "sqlite_stat1"), tables.end());

  std::ostringstream kernels_csv;
  ASSERT_TRUE((*db)->WriteCsv("kernels", kernels_csv).ok());
  const auto kernels = ParseCsv(kernels_csv.str());
  ASSERT_EQ(kernels.size(), 4u);  // the header and the three kernels
  const std::vector<std::string>& header = kernels[0];
  ASSERT_GE(header.size(), 3u);
  EXPECT_EQ(header[0], "rank");
  const auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(col("name"), header.size());
  ASSERT_LT(col("op"), header.size());
  ASSERT_LT(col("step"), header.size());
  for (size_t r = 1; r < kernels.size(); ++r) ASSERT_EQ(kernels[r].size(), header.size()) << "row " << r;
  EXPECT_EQ(kernels[1][col("name")], k1);
  EXPECT_EQ(kernels[2][col("name")], k2);
  EXPECT_EQ(kernels[3][col("name")], "tail_kernel");
  EXPECT_EQ(kernels[1][col("op")], op);
  EXPECT_EQ(kernels[1][col("step")], "0");
  EXPECT_EQ(kernels[3][col("step")], "");  // after the step: NULL
  EXPECT_EQ(kernels[1][col("dur_ns")], "80000");

  std::ostringstream meta_csv;
  ASSERT_TRUE((*db)->WriteCsv("meta", meta_csv).ok());
  EXPECT_NE(meta_csv.str().find("input_path,0,\"odd, \"\"names\"\".json\"\r\n"), std::string::npos) << meta_csv.str();
  EXPECT_NE(meta_csv.str().find("tool_version,,1.2.3\r\n"), std::string::npos) << meta_csv.str();

  std::ostringstream steps_csv;
  ASSERT_TRUE((*db)->WriteCsv("steps", steps_csv).ok());
  EXPECT_EQ(ParseCsv(steps_csv.str()).size(), 2u);  // the header and ProfilerStep#41
}

}  // namespace
}  // namespace csv_table_test
}  // namespace ampscope

#include "export/sqlite/sqlite_export.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analyzers/roofline/roofline_result.h"
#include "export/analysis_tracks.h"
#include "export/event_sink.h"
#include "export/sqlite/csv_table.h"
#include "export/sqlite/sqlite_db.h"
#include "export/sqlite/sqlite_memory.h"
#include "reports/fields_json.h"

namespace ampscope {
namespace {

using sqlite_export::Db;
using sqlite_export::Insert;

// docs/sqlite_schema.md describes every table and column; keep the two in step.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT NOT NULL, rank INTEGER, value TEXT);
CREATE TABLE kernels (rank INTEGER NOT NULL, id INTEGER NOT NULL, device INTEGER, stream INTEGER,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, name TEXT NOT NULL,
  category TEXT, precision TEXT, tensor_core TEXT, role TEXT, op_id INTEGER, op TEXT, step INTEGER,
  in_window INTEGER, correlation INTEGER);
CREATE TABLE ops (rank INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL, tid INTEGER,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, input_dims TEXT,
  input_types TEXT, kernels INTEGER NOT NULL, kernel_time_ns INTEGER NOT NULL, dtype TEXT, family TEXT,
  roofline_pass TEXT, gflop REAL, flop_per_byte REAL, achieved_tflops REAL, bound TEXT, pct_of_peak REAL);
CREATE TABLE steps (rank INTEGER NOT NULL, step INTEGER NOT NULL, number INTEGER, name TEXT,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, cpu_start_ns INTEGER,
  cpu_end_ns INTEGER, busy_pct REAL, kernel_busy_pct REAL, tensor_core_kernel_pct REAL, kernels INTEGER,
  syncs INTEGER, source TEXT);
CREATE TABLE memcpy (rank INTEGER NOT NULL, device INTEGER, stream INTEGER, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, kind TEXT, src_kind TEXT, dst_kind TEXT,
  bytes INTEGER, async INTEGER, correlation INTEGER);
CREATE TABLE memset (rank INTEGER NOT NULL, device INTEGER, stream INTEGER, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, memory_kind TEXT, bytes INTEGER, correlation INTEGER);
CREATE TABLE syncs (rank INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  blocked_ns INTEGER, api TEXT, tid INTEGER, step INTEGER, label TEXT, waited_for TEXT, scaler INTEGER,
  input_copy INTEGER);
CREATE TABLE idle_gaps (rank INTEGER NOT NULL, device INTEGER, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, kind TEXT NOT NULL, cause TEXT, data_loader_ns INTEGER,
  pageable_copy_ns INTEGER, allocator_ns INTEGER, host_sync_ns INTEGER, grad_scaler_sync_ns INTEGER,
  host_launch_ns INTEGER, host_untraced_ns INTEGER, other_ns INTEGER);
CREATE TABLE findings (rank INTEGER, position INTEGER NOT NULL, id TEXT NOT NULL, severity TEXT,
  dimension TEXT, checklist TEXT, title TEXT, recommendation TEXT, est_saving_pct REAL, evidence TEXT);
CREATE TABLE finding_ranges (rank INTEGER, finding TEXT NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL);
CREATE TABLE checklist (rank INTEGER, id TEXT NOT NULL, status TEXT, value REAL, unit TEXT,
  threshold TEXT, source TEXT, evidence TEXT, how_to_know TEXT,
  numbers_of_rank INTEGER);
CREATE TABLE matrix (rank INTEGER, id TEXT NOT NULL, status TEXT, headline TEXT, value REAL, unit TEXT,
  source TEXT, findings TEXT, numbers_of_rank INTEGER);
)sql";

// After the rows are in (building an index once is faster than keeping it up to date).
constexpr const char* kIndexes = R"sql(
CREATE INDEX kernels_rank_start ON kernels (rank, start_ns);
CREATE INDEX kernels_name ON kernels (name);
CREATE INDEX ops_rank_start ON ops (rank, start_ns);
CREATE INDEX ops_rank_id ON ops (rank, id);
CREATE INDEX ops_name ON ops (name);
CREATE INDEX memcpy_rank_start ON memcpy (rank, start_ns);
CREATE INDEX syncs_rank_start ON syncs (rank, start_ns);
CREATE INDEX idle_gaps_rank_start ON idle_gaps (rank, start_ns);
CREATE INDEX finding_ranges_rank_start ON finding_ranges (rank, start_ns);
)sql";

std::string InsertSql(const char* table, int columns) {
  std::string sql = std::string("INSERT INTO ") + table + " VALUES (";
  for (int i = 0; i < columns; ++i) sql += i ? ",?" : "?";
  return sql + ")";
}

struct Statements {
  explicit Statements(Db& db)
      : meta(db.Prepare(InsertSql("meta", 3))),
        kernels(db.Prepare(InsertSql("kernels", 17))),
        ops(db.Prepare(InsertSql("ops", 19))),
        steps(db.Prepare(InsertSql("steps", 15))),
        memcpy(db.Prepare(InsertSql("memcpy", 12))),
        memset(db.Prepare(InsertSql("memset", 9))),
        syncs(db.Prepare(InsertSql("syncs", 11))),
        idle_gaps(db.Prepare(InsertSql("idle_gaps", 15))),
        findings(db.Prepare(InsertSql("findings", 10))),
        finding_ranges(db.Prepare(InsertSql("finding_ranges", 4))),
        checklist(db.Prepare(InsertSql("checklist", 10))),
        matrix(db.Prepare(InsertSql("matrix", 9))) {}
  Insert meta, kernels, ops, steps, memcpy, memset, syncs, idle_gaps, findings, finding_ranges, checklist, matrix;
};

// The rank column of a rank's rows, or NULL for the job-level rows of several ranks.
struct RankKey {
  bool job = false;
  int64_t rank = 0;
};
void BindRank(Insert& s, RankKey r) { r.job ? s.Null() : s.Int(r.rank); }

// The roofline row of an op call: the first (most kernel time) with the call's name and shapes.
using OpKey = std::tuple<std::string_view, std::string_view, std::string_view>;
std::map<OpKey, const roofline::OpRow*> RooflineRows(const RankAnalysis* rank) {
  std::map<OpKey, const roofline::OpRow*> rows;
  if (rank == nullptr || rank->roofline == nullptr || !rank->roofline->available) return rows;
  for (const roofline::OpRow& r : rank->roofline->ops) rows.emplace(OpKey{r.id.op, r.id.input_dims, r.id.input_types}, &r);
  return rows;
}

// The analysis results that are not timeline events (findings, checklist, matrix), for one rank or
// for the job.
class ResultRows {
 public:
  ResultRows(Statements& st, RankKey rank) : st_(st), rank_(rank) {}

  void Finding(size_t position, const ampscope::Finding& f) {
    const std::string evidence = FieldsJson(f.evidence).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    Insert& s = st_.findings;
    BindRank(s, rank_);
    s.Int(static_cast<int64_t>(position)).Text(f.id).Text(FindingSeverityName(f.severity)).OptText(f.dimension);
    s.OptText(f.checklist).Text(f.title).Text(f.recommendation).Real(f.est_saving_pct).Text(evidence).Run();
    for (const auto& [start, end] : f.time_ranges) {
      BindRank(st_.finding_ranges, rank_);
      st_.finding_ranges.Text(f.id).Int(start).Int(std::max(start, end)).Run();
    }
  }
  void Checklist(const ChecklistItem& c) {
    Insert& s = st_.checklist;
    BindRank(s, rank_);
    s.Text(c.id).Text(CheckStatusName(c.status)).OptReal(c.value).OptText(UnitName(c.unit)).OptText(c.threshold);
    s.OptText(c.source).OptText(c.evidence).OptText(c.how_to_know);
    s.OptInt(c.numbers_of_rank.has_value(), c.numbers_of_rank.value_or(0)).Run();
  }
  void Dimension(const DimensionResult& d) {
    std::string findings;
    for (const std::string& id : d.findings) findings += (findings.empty() ? "" : ",") + id;
    Insert& s = st_.matrix;
    BindRank(s, rank_);
    s.Text(d.id).Text(DimensionStatusName(d.status)).OptText(d.headline.name).OptReal(d.headline.value);
    // A job's row: the numbers are those of the rank it names (the first rank of the worst status).
    const std::optional<double> of_rank = FieldNumber(d.metrics, "numbers_of_rank");
    s.OptText(d.headline.unit).OptText(d.headline.source).OptText(findings);
    s.OptInt(of_rank.has_value(), static_cast<int64_t>(of_rank.value_or(0))).Run();
  }

 private:
  Statements& st_;
  RankKey rank_;
};

// One rank into the tables: a sink of the rank walk.
class SqliteRankSink : public trace_export::EventSink {
 public:
  SqliteRankSink(Statements& st, const Trace& trace, const RankAnalysis* rank, RankKey key)
      : st_(st), trace_(trace), rank_(rank), key_(key), results_(st, key), roofline_(RooflineRows(rank)),
        op_kernels_(trace.cpu_ops.size(), 0), op_kernel_ns_(trace.cpu_ops.size(), 0) {}

  void Kernel(size_t i, const KernelEvent& e, const trace_export::KernelFacts& f) override {
    Insert& s = Row(st_.kernels);
    s.Int(static_cast<int64_t>(i)).Int(e.device).Int(e.stream).Int(e.start_ns).Int(e.end_ns).Int(e.duration_ns());
    s.Text(trace_.str(e.name));
    if (f.cls != nullptr) {
      s.Text(KernelCategoryName(f.cls->category)).Text(PrecisionName(f.cls->precision));
      s.Text(TensorCoreUseName(f.cls->tensor_core)).Text(KernelRoleName(f.cls->role));
    } else {
      s.Null().Null().Null().Null();
    }
    const bool has_op = f.cpu_op >= 0 && static_cast<size_t>(f.cpu_op) < trace_.cpu_ops.size();
    if (has_op) {
      s.Int(f.cpu_op).Text(trace_.str(trace_.cpu_ops[f.cpu_op].name));
      op_kernels_[f.cpu_op]++;
      op_kernel_ns_[f.cpu_op] += std::max<TimeNs>(0, e.duration_ns());
    } else {
      s.Null().Null();
    }
    s.OptInt(f.step >= 0, f.step);
    f.cls != nullptr ? s.Int(f.in_window ? 1 : 0) : s.Null();
    s.OptInt(e.correlation >= 0, e.correlation).Run();
  }
  void Memcpy(size_t, const MemcpyEvent& e) override {
    Insert& s = Row(st_.memcpy);
    s.Int(e.device).Int(e.stream).Int(e.start_ns).Int(e.end_ns).Int(e.duration_ns()).Text(MemcpyKindName(e.kind));
    s.Text(MemoryKindName(e.src_kind)).Text(MemoryKindName(e.dst_kind)).Int(static_cast<int64_t>(e.bytes));
    s.Int(e.async ? 1 : 0).OptInt(e.correlation >= 0, e.correlation).Run();
  }
  void Memset(size_t, const MemsetEvent& e) override {
    Insert& s = Row(st_.memset);
    s.Int(e.device).Int(e.stream).Int(e.start_ns).Int(e.end_ns).Int(e.duration_ns());
    s.Text(MemoryKindName(e.memory_kind)).Int(static_cast<int64_t>(e.bytes)).OptInt(e.correlation >= 0, e.correlation);
    s.Run();
  }
  // Kernels come before CPU ops in the walk, so each op's kernel count and time are complete here.
  void CpuOp(size_t i, const ampscope::CpuOp& e) override {
    Insert& s = Row(st_.ops);
    const std::string_view name = trace_.str(e.name);
    const std::string_view dims = e.input_dims == kNoString ? std::string_view() : trace_.str(e.input_dims);
    const std::string_view types = e.input_types == kNoString ? std::string_view() : trace_.str(e.input_types);
    s.Int(static_cast<int64_t>(i)).Text(name).Int(e.tid).Int(e.start_ns).Int(e.end_ns).Int(e.end_ns - e.start_ns);
    s.OptText(dims).OptText(types).Int(static_cast<int64_t>(op_kernels_[i])).Int(op_kernel_ns_[i]);
    auto it = roofline_.find(OpKey{name, dims, types});
    if (it == roofline_.end()) {
      s.Null().Null().Null().Null().Null().Null().Null().Null();
    } else {
      const roofline::OpRow& r = *it->second;
      r.id.precision == Precision::kUnknown ? s.Null() : s.Text(PrecisionName(r.id.precision));
      r.id.family == roofline::OpFamily::kCount ? s.Null() : s.Text(roofline::OpFamilyName(r.id.family));
      s.Text(r.id.backward ? "backward" : "forward");
      r.work.known ? s.Real(r.work.gflop) : s.Null();
      s.OptReal(r.work.flop_per_byte).OptReal(r.timing.tflops).OptText(r.roof.bound).OptReal(r.roof.pct_of_peak);
    }
    s.Run();
  }

  void Step(size_t i, const StepWindow& w, const StepMetrics* m) override {
    Insert& s = Row(st_.steps);
    s.Int(static_cast<int64_t>(i)).Int(w.number).OptText(w.name).Int(w.start_ns).Int(w.end_ns).Int(w.duration_ns());
    s.Int(w.cpu_start_ns).Int(w.cpu_end_ns);
    if (m != nullptr) {
      s.Real(m->busy_pct).Real(m->kernel_busy_pct).Real(m->tensor_core_kernel_pct);
      s.Int(static_cast<int64_t>(m->kernels)).Int(static_cast<int64_t>(m->syncs));
    } else {
      s.Null().Null().Null().Null().Null();
    }
    s.Text(StepSourceName(rank_->steps.source)).Run();
  }
  void IdleGap(size_t, const ampscope::IdleGap& g, const IdleGapCauses* causes) override {
    Insert& s = Row(st_.idle_gaps);
    s.Int(g.device).Int(g.start_ns).Int(g.end_ns).Int(g.end_ns - g.start_ns).Text(IdleKindName(g.kind));
    if (causes == nullptr) {
      for (size_t c = 0; c <= kIdleCauses; ++c) s.Null();  // the cause and one column per cause
    } else {
      size_t top = 0;
      for (size_t c = 1; c < kIdleCauses; ++c)
        if (causes->ns[c] > causes->ns[top]) top = c;
      causes->ns[top] > 0 ? s.Text(IdleCauseName(static_cast<IdleCause>(top))) : s.Null();
      for (size_t c = 0; c < kIdleCauses; ++c) s.Int(causes->ns[c]);
    }
    s.Run();
  }
  void SyncPoint(size_t, const ampscope::SyncPoint& p) override {
    Insert& s = Row(st_.syncs);
    s.Int(p.start_ns).Int(p.end_ns).Int(p.blocked_ns).Text(p.api).Int(p.tid).OptInt(p.step_index >= 0, p.step_index);
    s.OptText(p.label).OptText(p.waited_for).Int(p.scaler ? 1 : 0).Int(p.input_copy ? 1 : 0).Run();
  }
  void Finding(size_t position, const ampscope::Finding& f) override { results_.Finding(position, f); }
  void Checklist(const ChecklistItem& c) override { results_.Checklist(c); }
  void Dimension(const DimensionResult& d) override { results_.Dimension(d); }

 private:
  Insert& Row(Insert& s) {
    BindRank(s, key_);
    return s;
  }

  Statements& st_;
  const Trace& trace_;
  const RankAnalysis* rank_;
  RankKey key_;
  ResultRows results_;
  std::map<OpKey, const roofline::OpRow*> roofline_;
  std::vector<uint64_t> op_kernels_;
  std::vector<TimeNs> op_kernel_ns_;
};

static_assert(kIdleCauses == 8, "idle_gaps has one column per IdleCause: update the schema and the docs");

// A rank's number in every table: the job's (BuildJob numbers traces that name no rank by their
// position among the inputs), else the trace's own, else its position here.
int64_t RankNumber(const Trace& trace, const RankAnalysis* rank, size_t index) {
  if (rank != nullptr && rank->rank >= 0) return rank->rank;
  return trace.metadata.rank >= 0 ? trace.metadata.rank : static_cast<int64_t>(index);
}

void WriteMeta(Statements& st, const std::vector<const Trace*>& traces, const JobAnalysis& analysis,
               const SqliteExportOptions& options) {
  const std::string version = std::to_string(kSqliteSchemaVersion);
  st.meta.Text("schema_version").Null().Text(version).Run();
  st.meta.Text("tool").Null().Text("ampscope").Run();
  st.meta.Text("tool_version").Null().Text(options.tool_version).Run();
  const std::string ranks = std::to_string(std::max(traces.size(), analysis.ranks.size()));
  st.meta.Text("ranks").Null().Text(ranks).Run();
  for (size_t i = 0; i < traces.size(); ++i) {
    const TraceMetadata& m = traces[i]->metadata;
    const int64_t rank = RankNumber(*traces[i], trace_export::FindRankAnalysis(traces, i, analysis), i);
    st.meta.Text("input_path").Int(rank).Text(m.path).Run();
    st.meta.Text("input_format").Int(rank).Text(SourceFormatName(m.format)).Run();
  }
}

}  // namespace

Status WriteSqliteExport(const std::vector<Trace>& traces, const JobAnalysis& analysis,
                         const SqliteExportOptions& options, std::ostream& out) {
  std::vector<const Trace*> pointers;
  pointers.reserve(traces.size());
  for (const Trace& t : traces) pointers.push_back(&t);
  return WriteSqliteExport(pointers, analysis, options, out);
}

StatusOr<std::unique_ptr<AnalysisDatabase>> BuildSqliteExport(const std::vector<const Trace*>& traces,
                                                              const JobAnalysis& analysis,
                                                              const SqliteExportOptions& options) {
  auto db = std::make_unique<Db>();
  db->Exec(kSchema);
  db->Exec(sqlite_export::kMemorySnapshotSchema);
  {
    Statements st(*db);
    db->Exec("BEGIN");
    WriteMeta(st, traces, analysis, options);
    for (size_t i = 0; i < traces.size() && db->status().ok(); ++i) {
      const RankAnalysis* rank = trace_export::FindRankAnalysis(traces, i, analysis);
      SqliteRankSink sink(st, *traces[i], rank, RankKey{false, RankNumber(*traces[i], rank, i)});
      trace_export::WalkRank(*traces[i], rank, sink);
      if (rank != nullptr && rank->memory_snapshot != nullptr)
        sqlite_export::WriteMemorySnapshotRows(*db, RankNumber(*traces[i], rank, i), *rank->memory_snapshot);
    }
    // Several ranks: the job's own findings, checklist and matrix, with rank NULL.
    if (analysis.ranks.size() > 1) {
      ResultRows job(st, RankKey{true, 0});
      for (size_t i = 0; i < analysis.job.findings.size(); ++i) job.Finding(i, analysis.job.findings[i]);
      for (const ChecklistItem& c : analysis.job.checklist) job.Checklist(c);
      for (const DimensionResult& d : analysis.job.matrix) job.Dimension(d);
    }
  }  // statements finalised before COMMIT
  db->Exec("COMMIT");
  db->Exec(kIndexes);
  db->Exec("ANALYZE");
  if (!db->status().ok()) return db->status();
  return std::make_unique<AnalysisDatabase>(std::move(db));
}

Status WriteSqliteExport(const std::vector<const Trace*>& traces, const JobAnalysis& analysis,
                         const SqliteExportOptions& options, std::ostream& out) {
  StatusOr<std::unique_ptr<AnalysisDatabase>> db = BuildSqliteExport(traces, analysis, options);
  if (!db.ok()) return db.status();
  return (*db)->Serialize(out);
}

AnalysisDatabase::AnalysisDatabase(std::unique_ptr<Db> db) : db_(std::move(db)) {}
AnalysisDatabase::~AnalysisDatabase() = default;

Status AnalysisDatabase::Serialize(std::ostream& out) { return db_->Serialize(out); }

std::vector<std::string> AnalysisDatabase::Tables() { return sqlite_export::ListTables(db_->handle()); }

Status AnalysisDatabase::WriteCsv(const std::string& table, std::ostream& out) {
  return sqlite_export::WriteTableCsv(db_->handle(), table, out);
}

}  // namespace ampscope

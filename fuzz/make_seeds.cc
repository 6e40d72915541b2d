// ampscope_fuzz_seeds OUT_DIR SHARED_DIR SOURCE_DIR: writes the fuzzers' generated seed corpora
// (scripts/fuzz.sh runs it before each fuzzing run; nothing here is committed):
//   OUT_DIR/kineto/       small real traces from SHARED_DIR, decompressed so mutations hit JSON
//   OUT_DIR/amptrace/     .amptrace files written by the real writer: every record kind, NVTX
//                         steps, a file without footer, an NVTX-only file
//   OUT_DIR/report/       JSON reports of those traces and of fuzz/corpus/kineto/* (real
//                         `ampscope analyze` output)
//   OUT_DIR/gate_config/  the default gate config and docs/gate.example.json
//   OUT_DIR/nsys/         the shared Nsight Systems exports cut down to a few KB: only the
//                         tables the reader reads, their first rows, the strings those use
// Exit codes: 0 done; 1 a shared trace or source file is missing (CI must not fuzz with less);
// 2 usage.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "analyzers/analyze.h"
#include "gate/gate_config.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"
#include "trace/formats/amptrace/amptrace_writer.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/io/input_stream.h"

namespace {

namespace fs = std::filesystem;
using namespace ampscope;

// Small shared traces (../shared/traces/README.md): each is a different producer or format era.
constexpr const char* kSharedSeeds[] = {
    "traces/kineto/hta/event_sync_trace.json.gz",    // A100, event syncs, fp16 elementwise
    "traces/kineto/hta/triton_example.json.gz",      // torch.compile, one Triton kernel
    "traces/kineto/tb_plugin/gpu_metrics_input.json",  // the 2021 format (Operator/Runtime/Kernel)
    "traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz",  // AMD, ROCm naming
};

// The shared nsys exports (1.6 and 2.1 MB) cut down (CutNsysExport) to fit max_len.
constexpr const char* kSharedNsysSeeds[] = {
    "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite",     // nsys 2024.5, schema 3.13
    "traces/nsys/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",  // nsys 2022.2, schema 2.9, NVTX
};
// Nsight Compute CSVs (the ncu target), each within its max_len (64 KiB); the A100 file
// (777 kB) is cut to its header and first launches (NcuSeedLines).
constexpr const char* kSharedNcuSeeds[] = {
    "traces/ncu/b200_int8_gemm/algo23_raw.csv",      // wide form, units row, ~600 metric columns
    "traces/ncu/b200_int8_gemm/algo23_details.csv",  // long form with rule rows
    "traces/ncu/rtx5090_deepseek_ocr/kernel_0005_e67789a8b6cb9adf2cb8d4d3745a9a79.details.csv",  // long, CC 12.0
};
constexpr const char* kSharedNcuCutSeed = "traces/ncu/a100_bert/bert_torch_nsight.csv";  // older long form
constexpr size_t kNcuSeedLines = 120;

// The tables trace/formats/nsys reads; the others only make a seed bigger.
constexpr const char* kNsysTables[] = {
    "META_DATA_EXPORT", "META_DATA_CAPTURE", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE",
    "TARGET_INFO_SYSTEM_ENV", "TARGET_INFO_SESSION_START_TIME", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND",
    "ENUM_CUPTI_SYNC_TYPE", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "NVTX_EVENTS", "ThreadNames", "PROCESSES", "CUDA_GPU_MEMORY_USAGE_EVENTS", "GPU_METRICS",
    "TARGET_INFO_GPU_METRICS"};
constexpr int kNsysRowsPerTable = 24;

bool Fail(const std::string& message) {
  std::fprintf(stderr, "ampscope_fuzz_seeds: %s\n", message.c_str());
  return false;
}

bool WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  return out.good() || Fail("cannot write " + path.string());
}

// The uncompressed bytes of a (possibly gzip'd) file, through the readers' own byte source.
bool ReadPlain(const std::string& path, std::string* out) {
  auto source = OpenByteSource(path);
  if (!source.ok()) return Fail(path + ": " + source.status().message());
  char buf[1 << 16];
  while (true) {
    auto n = (*source)->Read(buf, sizeof(buf));
    if (!n.ok()) return Fail(path + ": " + n.status().message());
    if (*n == 0) return true;
    out->append(buf, *n);
  }
}

std::string ReportOf(const std::string& json, const std::string& name) {
  auto trace = ReadKinetoTraceFromString(json, name);
  if (!trace.ok()) return "";
  std::vector<Trace> traces;
  traces.push_back(std::move(trace).value());
  AnalysisOptions options;
  JobAnalysis job = AnalyzeJob(traces, options);
  if (job.ranks.empty()) return "";
  return BuildJsonReport(job, options).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The rank summary of the same trace (`analyze --summary-out`), which `merge` reads: the report
// target feeds every input to the summary reader too.
std::string SummaryOf(const std::string& json, const std::string& name) {
  auto trace = ReadKinetoTraceFromString(json, name);
  if (!trace.ok()) return "";
  AnalysisOptions options;
  auto rank = AnalyzeTrace(*trace, options);
  if (!rank.ok()) return "";
  return RankSummaryText(*rank, options);
}

template <typename T>
T Zero() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

// A process that ran `steps` NVTX "step" ranges, each launching one GEMM and one elementwise
// kernel, with a copy, a memset, a sync, memory events and a counter: what the collector writes
// on a GPU. `cuda` false: NVTX only (a CPU-only program). `finish` false: no footer (killed).
bool WriteAmptrace(const fs::path& path, int steps, bool cuda, bool finish) {
  AmptraceHeaderInfo h;
  h.cupti_version = cuda ? 130001 : 0;
  h.pid = 4242;
  h.rank = 0;
  h.local_rank = 0;
  h.world_size = 1;
  h.driver_version = cuda ? 13000 : 0;
  h.start_clock = {1000000, 2000000, 1000000};
  h.host = "seed-host";
  h.command_line = "python train.py --amp";
  auto created = AmptraceWriter::Create(path.string(), h);
  if (!created.ok()) return Fail(created.status().message());
  AmptraceWriter& w = **created;
  const uint32_t tid = 4243;
  if (cuda) {
    auto dev = Zero<AmpDeviceRecord>();
    dev.cc_major = 8, dev.sm_count = 108, dev.global_memory_bytes = 80ull << 30;
    dev.max_warps_per_sm = 64, dev.threads_per_warp = 32, dev.max_registers_per_sm = 65536;
    dev.max_shared_memory_per_sm = 167936, dev.name = w.InternString("NVIDIA A100-SXM4-80GB");
    w.Append(dev);
    auto ctx = Zero<AmpContextRecord>();
    ctx.context = 1, ctx.null_stream = 7;
    w.Append(ctx);
  }
  auto nvtx = [&](AmpNvtxType type, int64_t t, const char* name) {
    auto e = Zero<AmpNvtxEvent>();
    e.time_ns = t, e.tid = tid, e.type = static_cast<uint8_t>(type);
    e.name = name != nullptr ? w.InternString(name) : 0;
    w.Append(e);
  };
  const char* kernels[] = {"ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn",
                           "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
                           "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)"};
  uint32_t correlation = 1;
  for (int s = 0; s < steps; ++s) {
    const int64_t t0 = 1000000 + int64_t{s} * 100000;  // 100 us per step
    nvtx(AmpNvtxType::kPush, t0, "step");
    nvtx(AmpNvtxType::kPush, t0 + 1000, "forward");
    for (int k = 0; cuda && k < 2; ++k, ++correlation) {
      auto api = Zero<AmpApiRecord>();
      api.start_ns = t0 + 2000 + k * 10000, api.end_ns = api.start_ns + 4000;
      api.correlation = correlation, api.cbid = 211, api.pid = h.pid, api.tid = tid;
      api.name = w.InternString("cudaLaunchKernel");
      w.Append(api);
      auto kr = Zero<AmpKernelRecord>();
      kr.start_ns = api.end_ns + 1000, kr.end_ns = kr.start_ns + 30000 - k * 20000;
      kr.correlation = correlation, kr.context = 1, kr.stream = 7;
      kr.grid[0] = 108, kr.grid[1] = kr.grid[2] = 1, kr.block[0] = 256, kr.block[1] = kr.block[2] = 1;
      kr.registers_per_thread = 64, kr.name = w.InternString(kernels[k]);
      w.Append(kr);
    }
    nvtx(AmpNvtxType::kPop, t0 + 40000, nullptr);
    if (cuda) {
      auto cp = Zero<AmpMemcpyRecord>();
      cp.start_ns = t0 + 50000, cp.end_ns = t0 + 60000, cp.bytes = 1 << 20, cp.correlation = correlation++;
      cp.stream = 7, cp.copy_kind = uint8_t(AmpMemcpyKind::kHtoD), cp.src_kind = uint8_t(AmpMemoryKind::kPageable);
      cp.dst_kind = uint8_t(AmpMemoryKind::kDevice);
      w.Append(cp);
      auto ms = Zero<AmpMemsetRecord>();
      ms.start_ns = t0 + 61000, ms.end_ns = t0 + 62000, ms.bytes = 4096, ms.correlation = correlation++, ms.stream = 7;
      w.Append(ms);
      auto sync_api = Zero<AmpApiRecord>();
      sync_api.start_ns = t0 + 63000, sync_api.end_ns = t0 + 70000, sync_api.correlation = correlation;
      sync_api.cbid = 131, sync_api.pid = h.pid, sync_api.tid = tid;
      sync_api.name = w.InternString("cudaStreamSynchronize");
      w.Append(sync_api);
      auto sy = Zero<AmpSyncRecord>();
      sy.start_ns = t0 + 63500, sy.end_ns = t0 + 69500, sy.correlation = correlation++, sy.context = 1, sy.stream = 7;
      sy.type = uint8_t(AmpSyncType::kStreamSynchronize);
      w.Append(sy);
      auto mem = Zero<AmpMemoryRecord>();
      mem.time_ns = t0 + 1500, mem.address = 0x7f0000000000ull + s * 4096, mem.bytes = 2 << 20;
      mem.op = uint8_t(AmpMemoryOp::kAllocation);
      w.Append(mem);
      auto c = Zero<AmpCounterRecord>();
      c.time_ns = t0 + 20000, c.value = 40.0 + s, c.name = w.InternString("tensor_active_pct");
      w.Append(c);
    }
    nvtx(AmpNvtxType::kPop, t0 + 90000, nullptr);
    if (s == 1) nvtx(AmpNvtxType::kMark, t0 + 95000, "checkpoint");
    if (!w.Flush().ok()) return Fail("cannot write " + path.string());
  }
  w.AddWarning(AmpSeverity::kInfo, "seed", "written by ampscope_fuzz_seeds");
  auto stats = Zero<AmpStatsRecord>();
  stats.records_written = w.records_written();
  w.Append(stats);
  if (!w.Flush().ok()) return Fail("cannot write " + path.string());
  if (!finish) return true;  // the writer's destructor closes the file without a footer
  auto f = Zero<AmpFooterRecord>();
  f.stats = stats;
  f.end_clock = {9000000, 10000000, 9000000};
  if (cuda) f.flags = kAmpFooterFlagCuptiActive;
  return w.Finish(f).ok() || Fail("cannot finish " + path.string());
}

bool Exec(sqlite3* db, const std::string& sql, const std::string& what) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return true;
  const std::string message = what + ": " + (error != nullptr ? error : "sqlite error") + " in: " + sql.substr(0, 120);
  sqlite3_free(error);
  return Fail(message);
}

// `from` (an nsys export) cut to `to`: the schema of the tables the reader reads, their first
// kNsysRowsPerTable rows, and the StringIds rows whose id any copied integer names, in 512-byte
// pages. A real schema with real values, small enough for libFuzzer to mutate.
bool CutNsysExport(const fs::path& from, const fs::path& to) {
  fs::remove(to);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(to.string().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return Fail("cannot create " + to.string());
  }
  const std::string what = from.string();
  bool ok = Exec(db, "PRAGMA page_size=512", what) &&
            Exec(db, "ATTACH DATABASE 'file:" + from.string() + "?mode=ro&immutable=1' AS src", what);
  std::vector<std::string> copied;
  for (const char* table : kNsysTables) {
    if (!ok) break;
    sqlite3_stmt* st = nullptr;
    std::string sql;
    if (sqlite3_prepare_v2(db, "SELECT sql FROM src.sqlite_master WHERE type='table' AND name=?", -1, &st, nullptr) ==
        SQLITE_OK) {
      sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr)
        sql = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (sql.empty()) continue;  // this export has no such table
    ok = Exec(db, sql, what) &&
         Exec(db, "INSERT INTO main.\"" + std::string(table) + "\" SELECT * FROM src.\"" + table + "\" LIMIT " +
                      std::to_string(kNsysRowsPerTable), what);
    copied.push_back(table);
  }
  // Every integer in the copied rows that could be a string id.
  std::set<int64_t> ids;
  for (const std::string& table : copied) {
    if (!ok) break;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, ("SELECT * FROM main.\"" + table + "\"").c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ok = Fail(what + ": cannot read back " + table);
      break;
    }
    while (sqlite3_step(st) == SQLITE_ROW)
      for (int c = 0; c < sqlite3_column_count(st); ++c)
        if (sqlite3_column_type(st, c) == SQLITE_INTEGER) ids.insert(sqlite3_column_int64(st, c));
    sqlite3_finalize(st);
  }
  sqlite3_stmt* schema = nullptr;
  std::string strings_sql;
  if (ok && sqlite3_prepare_v2(db, "SELECT sql FROM src.sqlite_master WHERE type='table' AND name='StringIds'", -1,
                               &schema, nullptr) == SQLITE_OK &&
      sqlite3_step(schema) == SQLITE_ROW && sqlite3_column_text(schema, 0) != nullptr)
    strings_sql = reinterpret_cast<const char*>(sqlite3_column_text(schema, 0));
  sqlite3_finalize(schema);
  if (ok && strings_sql.empty()) ok = Fail(what + ": no StringIds table");
  ok = ok && Exec(db, strings_sql, what);
  sqlite3_stmt* insert = nullptr;
  if (ok && sqlite3_prepare_v2(db, "INSERT INTO main.StringIds SELECT * FROM src.StringIds WHERE id=?", -1, &insert,
                               nullptr) != SQLITE_OK)
    ok = Fail(what + ": cannot copy StringIds");
  for (int64_t id : ids) {
    if (!ok) break;
    sqlite3_bind_int64(insert, 1, id);
    if (sqlite3_step(insert) != SQLITE_DONE) ok = Fail(what + ": cannot copy StringIds");
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  ok = ok && Exec(db, "DETACH DATABASE src", what) && Exec(db, "VACUUM", what);
  sqlite3_close(db);
  if (!ok) fs::remove(to);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ampscope_fuzz_seeds OUT_DIR SHARED_DIR SOURCE_DIR\n");
    return 2;
  }
  const fs::path out = argv[1], shared = argv[2], source = argv[3];
  std::error_code ec;
  for (const char* sub : {"kineto", "amptrace", "report", "gate_config", "nsys", "memory_snapshot", "ncu"}) {
    fs::create_directories(out / sub, ec);
    if (ec) {
      Fail("cannot create " + (out / sub).string());
      return 1;
    }
  }
  bool ok = true;

  std::vector<std::pair<std::string, std::string>> traces;  // (name, JSON)
  for (const char* rel : kSharedSeeds) {
    std::string json;
    if (!ReadPlain((shared / rel).string(), &json)) {
      ok = false;
      continue;
    }
    std::string name = fs::path(rel).filename().string();
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) name.resize(name.size() - 3);
    ok &= WriteBytes(out / "kineto" / name, json);
    traces.emplace_back(name, std::move(json));
  }
  for (const auto& e : fs::directory_iterator(source / "fuzz" / "corpus" / "kineto", ec)) {
    std::string json;
    if (ReadPlain(e.path().string(), &json)) traces.emplace_back(e.path().filename().string(), std::move(json));
  }
  if (ec) ok = Fail("cannot list " + (source / "fuzz" / "corpus" / "kineto").string());
  for (const auto& [name, json] : traces) {
    std::string report = ReportOf(json, name);
    if (!report.empty()) ok &= WriteBytes(out / "report" / (name + ".report.json"), report);
    const std::string summary = SummaryOf(json, name);
    if (!summary.empty()) ok &= WriteBytes(out / "report" / (name + ".summary.json"), summary);
  }

  ok &= WriteAmptrace(out / "amptrace" / "steps.amptrace", 3, /*cuda=*/true, /*finish=*/true);
  ok &= WriteAmptrace(out / "amptrace" / "killed.amptrace", 2, /*cuda=*/true, /*finish=*/false);
  ok &= WriteAmptrace(out / "amptrace" / "nvtx_only.amptrace", 2, /*cuda=*/false, /*finish=*/true);

  for (const char* rel : kSharedNsysSeeds) {
    const fs::path from = shared / rel;
    if (!fs::is_regular_file(from, ec)) {
      ok = Fail("cannot read " + from.string());
      continue;
    }
    ok &= CutNsysExport(from, out / "nsys" / from.filename());
  }

  for (const char* rel : kSharedNcuSeeds) {
    std::string csv;
    if (!ReadPlain((shared / rel).string(), &csv)) {
      ok = false;
      continue;
    }
    ok &= WriteBytes(out / "ncu" / fs::path(rel).filename(), csv);
  }
  {
    std::ifstream in(shared / kSharedNcuCutSeed, std::ios::binary);
    std::string line, cut;
    for (size_t i = 0; i < kNcuSeedLines && std::getline(in, line); ++i) cut += line + "\n";
    if (cut.empty()) ok = Fail("cannot read " + (shared / kSharedNcuCutSeed).string());
    else ok &= WriteBytes(out / "ncu" / "bert_torch_nsight.head.csv", cut);
  }

  ok &= WriteBytes(out / "gate_config" / "default.json",
                   gate::GateConfigToJson(gate::DefaultGateConfig()).dump(2) + "\n");
  std::string example;
  std::ifstream in(source / "docs" / "gate.example.json", std::ios::binary);
  if (in) {
    example.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ok &= WriteBytes(out / "gate_config" / "example.json", example);
  } else {
    ok = Fail("cannot read " + (source / "docs" / "gate.example.json").string());
  }
  return ok ? 0 : 1;
}

// The Nsight Systems reader on the real exports in shared/traces/nsys/.
//
// Where the expected values come from:
// - "pipit": pipit's expected event tables for the CloverLeaf export (pipit/tests/nsight.py,
//   shared/traces/nsys/pipit/cloverleaf_gpu_trace.csv and cloverleaf-cuda_api_trace.csv),
//   parsed here. Each event is an Enter row (Timestamp = start) whose _matching_timestamp is
//   its end. pipit names kernels by StringIds[shortName] ("par_ranged2d_kernel") while the
//   reader keeps StringIds[demangledName] ("void clover::par_ranged2d_kernel<...>(...)"),
//   so a kernel matches when its base name is pipit's name; pipit names API calls with
//   nsys's version suffix ("cudaMalloc_v3020"), which the reader drops, as nsys's own stats
//   reports do. Copies carry pipit's kind (CUDA_MEMCPY_KIND_HTOD) and byte count.
// - "README": shared/traces/README.md (1312 kernels, 3048 runtime rows, 279 memcpys; saxpy:
//   5 kernels, 95 runtime rows, 15 memcpys, 24 NVTX_EVENTS, no META_DATA_EXPORT).
// - "sqlite3": counted with the sqlite3 CLI on the export, e.g.
//     SELECT eventType, count(*) FROM NVTX_EVENTS GROUP BY 1  -> 59: 22, 75: 1, 39: 1
//     SELECT eventClass, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1 -> 0: 56, 1: 1, 67: 38
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "support/nsys_export_builder.h"
#include "support/test_support.h"
#include "trace/formats/nsys/nsys_schema.h"
#include "trace/reader.h"

namespace ampscope {
namespace nsys_shared_exports_test {
namespace {

using testing::SharedPath;

const std::string kCloverleaf = "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite";
const std::string kSaxpy = "traces/nsys/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

// pipit's CSVs have no quoted fields (checked: no '"' in either file).
std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::map<std::string, std::string>> rows;
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string cell;
    while (std::getline(ss, cell, ',')) out.push_back(cell);
    if (!l.empty() && l.back() == ',') out.emplace_back();
    return out;
  };
  if (!std::getline(in, line)) return rows;
  header = split(line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(std::move(row));
  }
  return rows;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// True if `short_name` is the function's base name in the demangled signature: a whole
// identifier followed by its template arguments or its parameter list.
bool BaseNameIs(std::string_view demangled, std::string_view short_name) {
  for (size_t at = demangled.find(short_name); at != std::string_view::npos; at = demangled.find(short_name, at + 1)) {
    const size_t after = at + short_name.size();
    if ((at == 0 || !IsIdentChar(demangled[at - 1])) && after < demangled.size() &&
        (demangled[after] == '<' || demangled[after] == '('))
      return true;
  }
  return false;
}

const char* PipitCopyKind(MemcpyKind k) {
  switch (k) {
    case MemcpyKind::kHtoD: return "CUDA_MEMCPY_KIND_HTOD";
    case MemcpyKind::kDtoH: return "CUDA_MEMCPY_KIND_DTOH";
    case MemcpyKind::kDtoD: return "CUDA_MEMCPY_KIND_DTOD";
    default: return "other";
  }
}

TEST(NsysSharedExports, CloverleafGpuActivityIsPipitsGpuTrace) {
  const std::string path = SharedPath(kCloverleaf);
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path),
                         "missing input " + path + " (shared/traces/nsys)");
  StatusOr<Trace> r = ReadTrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.metadata.format, SourceFormat::kNsys);
  EXPECT_EQ(t.kernels.size(), 1312u);  // README
  EXPECT_EQ(t.memcpys.size(), 279u);   // README
  EXPECT_EQ(t.memsets.size(), 0u);     // no MEMSET table

  // pipit: (start, end, stream, what, bytes) of every GPU activity.
  using Event = std::tuple<int64_t, int64_t, int64_t, std::string, std::string>;
  std::vector<Event> expected;
  for (const auto& row : ReadCsv(SharedPath("traces/nsys/pipit/cloverleaf_gpu_trace.csv"))) {
    if (row.at("Event Type") != "Enter") continue;
    const std::string type = row.at("type");
    expected.emplace_back(std::stoll(row.at("Timestamp (ns)")), std::stoll(row.at("_matching_timestamp")),
                          std::stoll(row.at("streamId")), type == "kernel" ? row.at("Name") : type,
                          type == "kernel" ? "" : row.at("bytes"));
  }
  ASSERT_EQ(expected.size(), 1591u);
  std::sort(expected.begin(), expected.end());

  std::vector<Event> got;
  for (const KernelEvent& k : t.kernels) got.emplace_back(k.start_ns, k.end_ns, k.stream, std::string(t.str(k.name)), "");
  for (const MemcpyEvent& m : t.memcpys)
    got.emplace_back(m.start_ns, m.end_ns, m.stream, PipitCopyKind(m.kind), std::to_string(m.bytes));
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), expected.size());  // every row of pipit's table, and nothing else
  size_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& [gs, ge, gstream, gwhat, gbytes] = got[i];
    const auto& [es, ee, estream, ewhat, ebytes] = expected[i];
    const bool kernel = ebytes.empty();
    const bool same = gs == es && ge == ee && gstream == estream && gbytes == ebytes &&
                      (kernel ? BaseNameIs(gwhat, ewhat) : gwhat == ewhat);
    if (!same && mismatches++ < 5)
      ADD_FAILURE() << "event " << i << ": got [" << gs << ", " << ge << ") stream " << gstream << " " << gwhat << " "
                    << gbytes << "; pipit [" << es << ", " << ee << ") stream " << estream << " " << ewhat << " "
                    << ebytes;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(NsysSharedExports, CloverleafApiCallsArePipitsApiTrace) {
  const std::string path = SharedPath(kCloverleaf);
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path),
                         "missing input " + path + " (shared/traces/nsys)");
  StatusOr<Trace> r = ReadTrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  using Call = std::tuple<int64_t, int64_t, std::string, int64_t, int64_t>;
  std::vector<Call> expected;
  for (const auto& row : ReadCsv(SharedPath("traces/nsys/pipit/cloverleaf-cuda_api_trace.csv"))) {
    if (row.at("Event Type") != "Enter") continue;
    expected.emplace_back(std::stoll(row.at("Timestamp (ns)")), std::stoll(row.at("_matching_timestamp")),
                          std::string(nsys::StripApiVersionSuffix(row.at("Name"))), std::stoll(row.at("Process")),
                          std::stoll(row.at("Thread")));
  }
  ASSERT_EQ(expected.size(), 3048u);  // README: 3048 CUDA runtime rows
  std::vector<Call> got;
  for (const ApiCall& a : t.api_calls) got.emplace_back(a.start_ns, a.end_ns, std::string(t.str(a.name)), a.pid, a.tid);
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
  // sqlite3: exactly one driver call (eventClass 1), cuModuleGetLoadingMode.
  size_t driver = 0;
  for (const ApiCall& a : t.api_calls)
    if (a.domain == ApiDomain::kDriver) {
      ++driver;
      EXPECT_EQ(t.str(a.name), "cuModuleGetLoadingMode");
    }
  EXPECT_EQ(driver, 1u);
}

TEST(NsysSharedExports, CloverleafDevicesSyncsAndMetadata) {
  const std::string path = SharedPath(kCloverleaf);
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path),
                         "missing input " + path + " (shared/traces/nsys)");
  StatusOr<Trace> r = ReadTrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  // sqlite3: TARGET_INFO_GPU lists four A100-SXM4-80GB (cc 8.0, 108 SMs); the work ran on device 0.
  ASSERT_EQ(t.devices.size(), 4u);
  const Device* d0 = t.FindDevice(0);
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(d0->cc_major, 8);
  EXPECT_EQ(d0->cc_minor, 0);
  EXPECT_EQ(d0->sm_count, 108);
  EXPECT_EQ(d0->total_memory_bytes, 84990623744);
  // sqlite3: 1312 SYNCHRONIZATION rows, all syncType 1 (event sync).
  ASSERT_EQ(t.syncs.size(), 1312u);
  for (const SyncEvent& s : t.syncs) EXPECT_EQ(s.type, SyncType::kEventSync);
  EXPECT_EQ(t.metadata.extra.at("nsys_export_schema_version"), "3.13.2");  // META_DATA_EXPORT
  EXPECT_EQ(t.metadata.extra.at("nsys_version"), "2024.5.1.113");
  EXPECT_EQ(t.metadata.pid, 1701896);
  EXPECT_EQ(t.metadata.host, "nid008553");  // TARGET_INFO_SYSTEM_ENV Hostname
  EXPECT_EQ(t.metadata.command_line, "cuda-cloverleaf --in ../CloverLeaf-hip/InputDecks/clover_bm32_prof.in");
  // One clock: every kernel and copy starts after the API call that launched it.
  EXPECT_EQ(t.diagnostics.Count("nsys_gpu_before_launch"), 0u);
  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 0u);
  EXPECT_EQ(t.diagnostics.Count("nsys_bad_value"), 0u);
}

TEST(NsysSharedExports, OldSaxpyExportWithItsNvtxRanges) {
  const std::string path = SharedPath(kSaxpy);
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path),
                         "missing input " + path + " (shared/traces/nsys)");
  StatusOr<Trace> r = ReadTrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.kernels.size(), 5u);   // README
  EXPECT_EQ(t.memcpys.size(), 15u);  // README
  // README: 95 runtime rows; sqlite3: 38 of them are eventClass 67 (CUDA backtrace)
  // duplicates of calls listed with eventClass 0 (same correlationId).
  EXPECT_EQ(t.api_calls.size(), 95u - 38u);
  EXPECT_EQ(t.diagnostics.Count("nsys_backtrace_duplicate"), 38u);
  // No META_DATA_EXPORT: nsys 2022.2 calls it EXPORT_META_DATA.
  EXPECT_EQ(t.metadata.extra.at("nsys_export_metadata_table"), "EXPORT_META_DATA");
  EXPECT_EQ(t.metadata.extra.at("nsys_export_schema_version"), "2.9.1");
  ASSERT_FALSE(t.devices.empty());
  EXPECT_EQ(t.devices[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(t.devices[0].cc_major, 8);

  // README: 24 NVTX_EVENTS rows; sqlite3: 22 push/pop ranges (eventType 59), one domain
  // registration (75, "MPI") and one thread name (39, "MPI Rank 0").
  ASSERT_EQ(t.ranges.size(), 22u);
  std::map<std::string, int> by_name;
  for (const Range& rg : t.ranges) {
    EXPECT_EQ(rg.kind, RangeKind::kNvtx);
    ++by_name[std::string(t.str(rg.name))];
    // Ranges registered in domain 1 (MPI_* through textId) are in "MPI"; the saxpy ranges
    // (text, domain 0) in the default domain.
    EXPECT_EQ(std::string(t.str(rg.domain)), t.str(rg.name) == "saxpy" ? "" : "MPI") << t.str(rg.name);
  }
  // sqlite3: textIds 59 MPI_Init x1, 85 MPI_Send x10, 68 MPI_Recv x5, 52 MPI_Finalize x1; text 'saxpy' x5.
  const std::map<std::string, int> want = {{"MPI_Finalize", 1}, {"MPI_Init", 1}, {"MPI_Recv", 5}, {"MPI_Send", 10}, {"saxpy", 5}};
  EXPECT_EQ(by_name, want);
  EXPECT_EQ(t.ranges.front().start_ns, 65117824);  // MPI_Init
  EXPECT_EQ(t.ranges.front().end_ns, 710796807);
  ASSERT_EQ(t.processes.count(1230493), 1u);
  EXPECT_EQ(t.processes.at(1230493).thread_names.at(1230493), "MPI Rank 0");
}

}  // namespace
}  // namespace nsys_shared_exports_test
}  // namespace ampscope

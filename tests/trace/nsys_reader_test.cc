// The Nsight Systems reader on small exports built here with the real nsys schema
// (support/nsys_export_builder.h). Every expected value is the one written into the file by
// the test.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/nsys_export_builder.h"
#include "support/test_support.h"
#include "trace/formats/nsys/nsys_reader.h"
#include "trace/formats/nsys/nsys_schema.h"
#include "trace/reader.h"

namespace ampscope {
namespace nsys_reader_test {
namespace {

using testing::GlobalTid;
using testing::KernelRow;
using testing::MakeTempDir;
using testing::NsysExportBuilder;
using testing::ReadFile;
using testing::WriteFile;

std::set<std::string> DirEntries(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

const DiagnosticEntry* FindDiag(const Trace& t, const std::string& code) {
  auto it = t.diagnostics.entries().find(code);
  return it == t.diagnostics.entries().end() ? nullptr : &it->second;
}

class NsysReader : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_nsys"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // One process (pid 100, thread 101) on one A100: a kernel launched by cudaLaunchKernel,
  // an HtoD copy from pageable memory, a memset, a stream sync, and an NVTX step range.
  void WriteBasic(NsysExportBuilder& b) {
    b.Gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
    b.Api(1000, 1500, 11, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.start = 2000;
    k.end = 5000;
    k.correlation = 11;
    k.name = "void at::native::vectorized_elementwise_kernel<4, float>(int, float)";
    k.grid[0] = 120;
    k.block[0] = 256;
    k.registers = 40;
    k.static_shared = 1024;
    k.dynamic_shared = 2048;
    b.Kernel(k);
    b.Api(6000, 9000, 12, "cudaMemcpy_v3020");
    b.Memcpy(6500, 8500, 12, 1 << 20, /*HtoD*/ 1, /*pageable*/ 0, /*device*/ 2);
    b.Api(9100, 9200, 13, "cudaMemsetAsync_v3020");
    b.Memset(9300, 9400, 13, 4096, /*device*/ 2);
    b.Api(9500, 9900, 14, "cudaStreamSynchronize_v3020");
    b.Sync(9600, 9800, 14, /*stream sync*/ 3);
    b.Nvtx(500, 9950, 59, "train_step 1");
  }

  std::string dir_;
};

TEST_F(NsysReader, ReadsEveryTableIntoTheModel) {
  {
    NsysExportBuilder b(Path("basic.sqlite"));
    WriteBasic(b);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("basic.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.metadata.format, SourceFormat::kNsys);
  EXPECT_STREQ(SourceFormatName(t.metadata.format), "nsys");
  EXPECT_EQ(t.metadata.pid, 100);
  EXPECT_EQ(t.metadata.extra.at("nsys_export_schema_version"), "3.13.2");

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(t.devices[0].cc_major, 8);
  EXPECT_EQ(t.devices[0].cc_minor, 0);
  EXPECT_EQ(t.devices[0].sm_count, 108);
  EXPECT_EQ(t.devices[0].total_memory_bytes, 84990623744);
  EXPECT_EQ(t.devices[0].max_threads_per_sm, 64 * 32);
  EXPECT_EQ(t.devices[0].vendor, GpuVendor::kNvidia);

  ASSERT_EQ(t.kernels.size(), 1u);
  const KernelEvent& k = t.kernels[0];
  EXPECT_EQ(k.start_ns, 2000);
  EXPECT_EQ(k.end_ns, 5000);
  EXPECT_EQ(k.correlation, 11);
  EXPECT_EQ(t.str(k.name), "void at::native::vectorized_elementwise_kernel<4, float>(int, float)");  // demangledName
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(t.launch(k).grid[0], 120u);
  EXPECT_EQ(t.launch(k).grid[1], 1u);
  EXPECT_EQ(t.launch(k).block[0], 256u);
  EXPECT_EQ(t.launch(k).registers_per_thread, 40);
  EXPECT_EQ(t.launch(k).static_shared_bytes, 1024);
  EXPECT_EQ(t.launch(k).dynamic_shared_bytes, 2048);
  EXPECT_EQ(k.graph_id, 0u);

  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].bytes, uint64_t{1} << 20);
  EXPECT_EQ(t.memcpys[0].kind, MemcpyKind::kHtoD);
  EXPECT_EQ(t.memcpys[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_FALSE(t.memcpys[0].async);  // launched by cudaMemcpy
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].bytes, 4096u);
  EXPECT_EQ(t.memsets[0].memory_kind, MemoryKind::kDevice);

  ASSERT_EQ(t.api_calls.size(), 4u);
  EXPECT_EQ(t.str(t.api_calls[0].name), "cudaLaunchKernel");  // the _v7000 suffix is dropped
  EXPECT_EQ(t.api_calls[0].pid, 100);
  EXPECT_EQ(t.api_calls[0].tid, 101);
  EXPECT_EQ(t.api_calls[0].correlation, 11);
  EXPECT_EQ(t.api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(t.str(t.api_calls[3].name), "cudaStreamSynchronize");

  ASSERT_EQ(t.syncs.size(), 1u);
  EXPECT_EQ(t.syncs[0].type, SyncType::kStreamSync);
  EXPECT_EQ(t.syncs[0].stream, 7);
  EXPECT_EQ(t.syncs[0].pid, 100);
  EXPECT_EQ(t.syncs[0].tid, 101);  // from the sync API call with the same correlation

  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.str(t.ranges[0].name), "train_step 1");
  EXPECT_EQ(t.ranges[0].kind, RangeKind::kNvtx);
  EXPECT_EQ(t.ranges[0].start_ns, 500);
  EXPECT_EQ(t.ranges[0].end_ns, 9950);
  EXPECT_EQ(t.ranges[0].tid, 101);

  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 0u);
  EXPECT_EQ(t.diagnostics.Count("nsys_gpu_before_launch"), 0u);
}

TEST_F(NsysReader, DispatchedByContentNotByName) {
  {
    NsysExportBuilder b(Path("no_extension"));
    WriteBasic(b);
  }
  StatusOr<Trace> r = ReadTrace(Path("no_extension"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->metadata.format, SourceFormat::kNsys);
  EXPECT_EQ(r->kernels.size(), 1u);
}

TEST_F(NsysReader, NeverWritesNextToTheInput) {
  {
    NsysExportBuilder b(Path("ro.sqlite"));
    WriteBasic(b);
  }
  const std::string before = ReadFile(Path("ro.sqlite"));
  const std::set<std::string> entries = DirEntries(dir_);
  // A read-only file in a read-only folder: any journal, WAL or lock file would fail here.
  chmod(Path("ro.sqlite").c_str(), 0444);
  chmod(dir_.c_str(), 0555);
  StatusOr<Trace> r = ReadTrace(Path("ro.sqlite"));
  chmod(dir_.c_str(), 0755);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(DirEntries(dir_), entries);
  EXPECT_EQ(ReadFile(Path("ro.sqlite")), before);
}

TEST_F(NsysReader, EnumTablesDecideTheMeaningOfCodes) {
  // An export whose ENUM_CUDA_MEMCPY_OPER numbers DtoH as 5: the table, not CUPTI's
  // numbering, decides.
  {
    NsysExportBuilder b(Path("enum.sqlite"));
    b.Exec("UPDATE ENUM_CUDA_MEMCPY_OPER SET id = 5 WHERE name = 'CUDA_MEMCPY_KIND_DTOH'");
    b.Memcpy(100, 200, -1, 8, 5, 2, 1);
    b.Memcpy(300, 400, -1, 8, 2, 2, 1);  // 2 is no longer in the table
    b.Api(10, 20, 1, "cudaDeviceSynchronize_v3020");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("enum.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->memcpys.size(), 2u);
  EXPECT_EQ(r->memcpys[0].kind, MemcpyKind::kDtoH);
  EXPECT_EQ(r->memcpys[0].src_kind, MemoryKind::kDevice);
  EXPECT_EQ(r->memcpys[0].dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(r->memcpys[1].kind, MemcpyKind::kUnknown);
  EXPECT_EQ(r->diagnostics.Count("nsys_unknown_enum_value"), 1u);
}

TEST_F(NsysReader, WithoutEnumTablesTheDocumentedNumbersAreUsed) {
  // nsys 2022 exports have no ENUM_* tables (like the shared saxpy export) and name the
  // export metadata table EXPORT_META_DATA.
  NsysExportBuilder::Options o;
  o.enums = false;
  o.export_meta_table = "EXPORT_META_DATA";
  o.schema_version = "2.9.1";
  {
    NsysExportBuilder b(Path("old.sqlite"), o);
    b.Memcpy(100, 200, 1, 8, /*DtoH*/ 2, /*device*/ 2, /*pageable*/ 0);
    b.Memcpy(300, 400, 2, 8, /*PtoP*/ 10, 2, 2);
    b.Sync(500, 600, 3, /*event sync*/ 1);
    b.Api(10, 20, 1, "cudaMemcpyAsync_v3020");
    b.Api(30, 40, 2, "cudaMemcpyPeerAsync_v4000");
    b.Api(50, 60, 3, "cudaEventSynchronize_v3020");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("old.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->memcpys.size(), 2u);
  EXPECT_EQ(r->memcpys[0].kind, MemcpyKind::kDtoH);
  EXPECT_EQ(r->memcpys[0].src_kind, MemoryKind::kDevice);
  EXPECT_EQ(r->memcpys[0].dst_kind, MemoryKind::kPageable);
  EXPECT_TRUE(r->memcpys[0].async);
  EXPECT_EQ(r->memcpys[1].kind, MemcpyKind::kPtoP);
  ASSERT_EQ(r->syncs.size(), 1u);
  EXPECT_EQ(r->syncs[0].type, SyncType::kEventSync);
  EXPECT_EQ(r->metadata.extra.at("nsys_export_schema_version"), "2.9.1");
  EXPECT_EQ(r->metadata.extra.at("nsys_export_metadata_table"), "EXPORT_META_DATA");
  const DiagnosticEntry* missing = FindDiag(*r, "nsys_table_missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->first_message.find("ENUM_CUDA_MEMCPY_OPER"), std::string::npos);
  EXPECT_NE(missing->first_message.find("ENUM_CUDA_MEM_KIND"), std::string::npos);
}

TEST_F(NsysReader, NoExportMetadataAtAll) {
  NsysExportBuilder::Options o;
  o.export_meta_table = nullptr;
  {
    NsysExportBuilder b(Path("nometa.sqlite"), o);
    b.Api(10, 20, 1, "cudaFree_v3020");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("nometa.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->metadata.extra.at("nsys_export_schema_version"), "unknown");
  const DiagnosticEntry* missing = FindDiag(*r, "nsys_table_missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->first_message.find("META_DATA_EXPORT"), std::string::npos);
}

TEST_F(NsysReader, UnknownSchemaMajorIsCounted) {
  NsysExportBuilder::Options o;
  o.schema_version = "4.0.0";
  {
    NsysExportBuilder b(Path("v4.sqlite"), o);
    b.Api(10, 20, 1, "cudaFree_v3020");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("v4.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count("nsys_schema_version"), 1u);
}

TEST_F(NsysReader, DriverCallsAndBacktraceDuplicates) {
  {
    NsysExportBuilder b(Path("api.sqlite"));
    b.Api(100, 200, 1, "cuModuleGetLoadingMode", 100, 101, /*driver*/ 1);
    b.Api(300, 400, 2, "cudaMalloc_v3020", 100, 101, 0);
    b.Api(290, 410, 2, "cudaMalloc", 100, 101, /*CUDA backtrace*/ 67);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("api.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->api_calls.size(), 2u);
  EXPECT_EQ(r->api_calls[0].domain, ApiDomain::kDriver);
  EXPECT_EQ(r->str(r->api_calls[0].name), "cuModuleGetLoadingMode");
  EXPECT_EQ(r->api_calls[1].domain, ApiDomain::kRuntime);
  EXPECT_EQ(r->str(r->api_calls[1].name), "cudaMalloc");
  EXPECT_EQ(r->diagnostics.Count("nsys_backtrace_duplicate"), 1u);
  EXPECT_NE(FindDiag(*r, "nsys_backtrace_duplicate")->first_message.find("1 rows"), std::string::npos);
}

TEST_F(NsysReader, StripsOnlyANumericVersionSuffix) {
  EXPECT_EQ(nsys::StripApiVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(nsys::StripApiVersionSuffix("cudaStreamSynchronize_ptsz_v7000"), "cudaStreamSynchronize_ptsz");
  EXPECT_EQ(nsys::StripApiVersionSuffix("cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
  EXPECT_EQ(nsys::StripApiVersionSuffix("cuModuleGetLoadingMode"), "cuModuleGetLoadingMode");
  EXPECT_EQ(nsys::StripApiVersionSuffix("my_vector_v"), "my_vector_v");
  EXPECT_EQ(nsys::StripApiVersionSuffix("cudaFoo_vx1"), "cudaFoo_vx1");
}

TEST_F(NsysReader, NvtxRangesMarksDomainsAndThreadNames) {
  {
    NsysExportBuilder b(Path("nvtx.sqlite"));
    b.Api(10, 20, 1, "cudaFree_v3020");
    b.Nvtx(50, -1, 75, "MPI", /*domain*/ 1);                   // domain create
    b.Nvtx(60, -1, 39, "MPI Rank 0");                         // thread name
    b.Nvtx(100, 400, 59, "MPI_Send", 1, /*registered*/ true);  // push/pop in domain MPI, text via StringIds
    b.Nvtx(150, 250, 60, "io", 0);                            // start/end
    b.Nvtx(300, -1, 34, "checkpoint");                        // mark
    b.Nvtx(350, -1, 59, "still open");                        // no end: the capture stopped first
    b.Nvtx(370, -1, 33, "a category");                        // no range
    b.Api(900, 1000, 2, "cudaFree_v3020");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("nvtx.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  ASSERT_EQ(t.ranges.size(), 4u);  // sorted by start
  EXPECT_EQ(t.str(t.ranges[0].name), "MPI_Send");
  EXPECT_EQ(t.str(t.ranges[0].domain), "MPI");
  EXPECT_EQ(t.ranges[0].kind, RangeKind::kNvtx);
  EXPECT_EQ(t.ranges[0].end_ns, 400);
  EXPECT_EQ(t.str(t.ranges[1].name), "io");
  EXPECT_EQ(t.ranges[1].domain, kNoString);
  EXPECT_EQ(t.ranges[1].depth, 1);  // inside MPI_Send on the same thread
  EXPECT_EQ(t.str(t.ranges[2].name), "checkpoint");
  EXPECT_EQ(t.ranges[2].kind, RangeKind::kNvtxMark);
  EXPECT_EQ(t.ranges[2].start_ns, 300);
  EXPECT_EQ(t.ranges[2].end_ns, 300);
  EXPECT_EQ(t.str(t.ranges[3].name), "still open");
  EXPECT_EQ(t.ranges[3].end_ns, 1000);  // the last timestamp in the export
  EXPECT_EQ(t.diagnostics.Count("nvtx_unclosed_range"), 1u);
  EXPECT_EQ(t.diagnostics.Count("nsys_nvtx_event_ignored"), 1u);
  EXPECT_EQ(t.processes.at(100).thread_names.at(101), "MPI Rank 0");
}

TEST_F(NsysReader, WrongTypesAndNullsSkipTheRow) {
  {
    NsysExportBuilder b(Path("bad.sqlite"));
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.start = 100;
    k.end = 200;
    k.name = "good_kernel(int)";
    b.Kernel(k);
    k.start = 300;
    k.end = 400;
    k.name = "typed_badly(int)";
    b.Kernel(k);
    b.Exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE start = 300");
    b.Kernel(k);
    b.Exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'many' WHERE start = 300 AND gridX = 1");
    // NULL where a value is needed: globalTid-less API rows are fine, a NULL nameId is not
    // (the real schema says NOT NULL, so this export was edited by hand).
    b.Exec("CREATE TABLE tmp AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    b.Exec("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME");
    b.Exec("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, "
           "correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER)");
    b.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM tmp");
    b.Exec("DROP TABLE tmp");
    b.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (30, 40, 0, NULL, 2, NULL, 0, NULL)");
    b.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 60, 0, NULL, 3, 1, 0, NULL)");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("bad.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->str(r->kernels[0].name), "good_kernel(int)");
  ASSERT_EQ(r->api_calls.size(), 2u);
  EXPECT_EQ(r->api_calls[1].pid, -1);  // no globalTid: unknown, not an error
  const DiagnosticEntry* bad = FindDiag(*r, "nsys_bad_value");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->count, 3u);  // start 'soon', gridX 'many', nameId NULL
  EXPECT_EQ(bad->severity, Severity::kDataLoss);
  EXPECT_NE(bad->first_message.find("CUPTI_ACTIVITY_KIND_KERNEL row 2: start is text"), std::string::npos)
      << bad->first_message;
  EXPECT_EQ(bad->first_offset, 2);  // the row
}

TEST_F(NsysReader, TimesNearTheInt64LimitsAndEndBeforeStart) {
  {
    NsysExportBuilder b(Path("times.sqlite"));
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.name = "k(int)";
    k.start = INT64_MAX - 10;
    k.end = INT64_MAX;
    b.Kernel(k);
    k.start = INT64_MIN + 1;  // (INT64_MIN itself is not an SQL integer literal)
    k.end = 5;
    b.Kernel(k);
    k.start = 500;
    k.end = 400;  // end before start
    b.Kernel(k);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("times.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].start_ns, 500);
  EXPECT_EQ(r->kernels[0].end_ns, 500);
  EXPECT_EQ(r->diagnostics.Count("nsys_time_out_of_range"), 2u);
  EXPECT_EQ(r->diagnostics.Count("negative_duration"), 1u);
}

TEST_F(NsysReader, TimesMoreThan2To61ApartAreNotOneClock) {
  // Each time is accepted (within +/-2^62 ns), but the two kernels are 2^62 + 2^60 ns apart,
  // more than the 2^61 ns one trace may span (trace/time_bounds.h), so no span an analyzer takes
  // can overflow. Found by the nsys reader fuzzer's contract check on
  // fuzz/regressions/nsys/times_at_the_accepted_limits.sqlite, which this reader used to accept.
  const int64_t two62 = int64_t{1} << 62, two60 = int64_t{1} << 60;
  {
    NsysExportBuilder b(Path("apart.sqlite"));
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.name = "k(int)";
    k.start = -two60;
    k.end = -two60 + 10;
    b.Kernel(k);
    k.start = two62 - 10;
    k.end = two62;
    b.Kernel(k);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("apart.sqlite"));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find(Path("apart.sqlite") + ": table CUPTI_ACTIVITY_KIND_KERNEL row 2: time 4611686018427387904 ns is "
                   "more than 2^61 ns"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("at table CUPTI_ACTIVITY_KIND_KERNEL row 1"), std::string::npos) << m;
}

TEST_F(NsysReader, MissingOptionalColumnIsCounted) {
  {
    NsysExportBuilder b(Path("cols.sqlite"));
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.start = 100;
    k.end = 200;
    k.correlation = 1;
    k.name = "k(int)";
    b.Kernel(k);
    b.Exec("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN dynamicSharedMemory");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("cols.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->launch(r->kernels[0]).dynamic_shared_bytes, -1);  // unknown
  const DiagnosticEntry* d = FindDiag(*r, "nsys_column_missing");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->first_message.find("CUPTI_ACTIVITY_KIND_KERNEL.dynamicSharedMemory"), std::string::npos);
}

TEST_F(NsysReader, MissingRequiredColumnIsAnError) {
  {
    NsysExportBuilder b(Path("nostart.sqlite"));
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    b.Exec("ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME DROP COLUMN start");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("nostart.sqlite"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CUPTI_ACTIVITY_KIND_RUNTIME has no column \"start\""), std::string::npos)
      << r.status().message();
}

TEST_F(NsysReader, GraphIdOrGraphNodeId) {
  KernelRow k;
  k.name = "k(int)";
  k.start = 100;
  k.end = 200;
  {
    NsysExportBuilder b(Path("node.sqlite"));  // schema 3.13: graphNodeId only
    b.Api(10, 20, 1, "cudaGraphLaunch_v10000");
    b.Kernel(k);
    b.Exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphNodeId = 77");
    k.start = 300;
    k.end = 400;
    b.Kernel(k);  // graphNodeId NULL: not from a graph
  }
  StatusOr<Trace> r = ReadNsysExport(Path("node.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->kernels[0].graph_id, 77u);
  EXPECT_EQ(r->kernels[1].graph_id, 0u);
  EXPECT_EQ(r->diagnostics.Count("nsys_graph_id_from_node"), 1u);
  EXPECT_EQ(r->diagnostics.Count("nsys_column_missing"), 0u);  // graphNodeId stands in for graphId
  {
    NsysExportBuilder b(Path("graph.sqlite"));  // nsys 2025: graphId as well
    b.Api(10, 20, 1, "cudaGraphLaunch_v10000");
    b.Exec("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN graphId INTEGER");
    b.Kernel(k);
    b.Exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphId = 5, graphNodeId = 77");
  }
  r = ReadNsysExport(Path("graph.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].graph_id, 5u);
  EXPECT_EQ(r->diagnostics.Count("nsys_graph_id_from_node"), 0u);
}

TEST_F(NsysReader, SeveralProcessesKeepTheirOwnCorrelations) {
  // Two processes whose CUPTI correlation ids collide (both 7): each kernel must stay
  // linked to its own process's launch.
  {
    NsysExportBuilder b(Path("two.sqlite"));
    b.Gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
    b.Gpu(1, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
    b.Api(100, 150, 7, "cudaLaunchKernel_v7000", /*pid*/ 200, 201);
    b.Api(110, 160, 7, "cudaLaunchKernel_v7000", /*pid*/ 300, 301);
    KernelRow k;
    k.name = "k(int)";
    k.correlation = 7;
    k.start = 170;
    k.end = 180;
    k.pid = 200;
    k.device = 0;
    b.Kernel(k);
    k.start = 175;
    k.end = 190;
    k.pid = 300;
    k.device = 1;
    b.Kernel(k);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("two.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.diagnostics.Count("nsys_several_processes"), 1u);
  EXPECT_EQ(t.metadata.pid, -1);
  EXPECT_EQ(t.metadata.extra.at("nsys_pids"), "200,300");
  ASSERT_EQ(t.kernels.size(), 2u);
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_NE(t.kernels[0].correlation, t.kernels[1].correlation);
  for (const KernelEvent& k : t.kernels) {
    const ApiCall* launch = nullptr;
    for (const ApiCall& a : t.api_calls)
      if (a.correlation == k.correlation) launch = &a;
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->pid, k.device == 0 ? 200 : 300);
  }
  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 0u);
}

TEST_F(NsysReader, GpuWorkBeforeItsLaunchIsAClockProblem) {
  {
    NsysExportBuilder b(Path("clock.sqlite"));
    b.Api(1000, 1100, 5, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.name = "k(int)";
    k.correlation = 5;
    k.start = 900;  // before the launch started
    k.end = 950;
    b.Kernel(k);
    k.correlation = 6;  // no API call at all
    k.start = 2000;
    k.end = 2100;
    b.Kernel(k);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("clock.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count("nsys_gpu_before_launch"), 1u);
  EXPECT_EQ(r->diagnostics.Count("unmatched_correlation"), 1u);
}

TEST_F(NsysReader, GpuMetricsBecomeCounters) {
  {
    NsysExportBuilder b(Path("metrics.sqlite"));
    b.Gpu(0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85520809984);
    b.Api(10, 20, 1, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.name = "k(int)";
    k.correlation = 1;
    k.start = 100;
    k.end = 1000;
    b.Kernel(k);
    // typeId's low byte is the GPU: 0x100 is GPU 0, 0x101 is GPU 1 (which ran nothing here).
    b.GpuMetricName(0x100, 4, "SMs Active [Throughput %]");
    b.GpuMetricName(0x100, 7, "Tensor Active [Throughput %]");
    b.GpuMetricName(0x100, 9, "GPC Clock Frequency [MHz]");  // not a percentage: ignored
    b.GpuMetricName(0x101, 7, "Tensor Active [Throughput %]");
    b.GpuMetric(200, 0x100, 7, 40);
    b.GpuMetric(300, 0x100, 7, 60);
    b.GpuMetric(200, 0x100, 4, 90);
    b.GpuMetric(200, 0x100, 9, 1980);
    b.GpuMetric(200, 0x101, 7, 0);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("metrics.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  std::vector<std::pair<std::string, double>> got;
  for (const CounterSample& c : t.counters) {
    got.emplace_back(std::string(t.str(c.name)), c.value);
    EXPECT_EQ(c.device, 0);
  }
  std::sort(got.begin(), got.end());
  const std::vector<std::pair<std::string, double>> want = {
      {"sm_active_pct", 90}, {"tensor_active_pct", 40}, {"tensor_active_pct", 60}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(t.diagnostics.Count("nsys_gpu_metrics_device"), 1u);  // the GPU-1 sample
}

TEST_F(NsysReader, MemoryUsageEventsAreAllocations) {
  {
    NsysExportBuilder b(Path("mem.sqlite"));
    b.Api(10, 20, 1, "cudaMalloc_v3020");
    b.MemoryUsage(100, 0x7f0000000000, 1 << 20, /*device*/ 2, /*alloc*/ 0);
    b.MemoryUsage(200, 0x7f0000000000, 1 << 20, /*device*/ 2, /*free*/ 1);
    b.MemoryUsage(300, 0x10000, 4096, /*pinned*/ 1, /*alloc*/ 0);
  }
  StatusOr<Trace> r = ReadNsysExport(Path("mem.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->memory_events.size(), 3u);
  EXPECT_EQ(r->memory_events[0].op, MemoryOp::kAlloc);
  EXPECT_EQ(r->memory_events[0].bytes, 1 << 20);
  EXPECT_EQ(r->memory_events[0].device, 0);
  EXPECT_EQ(r->memory_events[0].address, 0x7f0000000000u);
  EXPECT_EQ(r->memory_events[1].op, MemoryOp::kFree);
  EXPECT_EQ(r->memory_events[1].bytes, -(1 << 20));
  EXPECT_EQ(r->memory_events[2].device, -1);  // pinned host memory
}

TEST_F(NsysReader, RankFromTheCapturedEnvironment) {
  {
    NsysExportBuilder b(Path("rank.sqlite"));
    b.Api(10, 20, 1, "cudaFree_v3020");
    b.Exec("INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:COMMAND', 'python'), ('PROCESS_0:ARGUMENT_0', 'train.py'), "
           "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=\"3\"'), ('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE=\"8\"')");
    b.Exec("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (1, 'Local', 'Hostname', 1, 'node17'), "
           "(1, 'Local', 'NvDriverVersion', 2, '55054')");
  }
  StatusOr<Trace> r = ReadNsysExport(Path("rank.sqlite"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->metadata.rank, 3);
  EXPECT_EQ(r->metadata.world_size, 8);
  EXPECT_EQ(r->metadata.command_line, "python train.py");
  EXPECT_EQ(r->metadata.host, "node17");
  EXPECT_EQ(r->metadata.driver_version, "55054");
}

// ---- inputs that are not readable exports --------------------------------------------

TEST_F(NsysReader, TruncatedFileIsNamedAsTruncated) {
  {
    NsysExportBuilder b(Path("full.sqlite"));
    WriteBasic(b);
  }
  const std::string bytes = ReadFile(Path("full.sqlite"));
  ASSERT_GT(bytes.size(), 8192u);
  WriteFile(Path("half.sqlite"), bytes.substr(0, bytes.size() / 2 + 100));
  StatusOr<Trace> r = ReadTrace(Path("half.sqlite"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("half.sqlite"), std::string::npos);
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().message();
  WriteFile(Path("header_only.sqlite"), bytes.substr(0, 50));
  r = ReadTrace(Path("header_only.sqlite"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().message();
}

TEST_F(NsysReader, CorruptPagesAreAnErrorNotACrash) {
  {
    NsysExportBuilder b(Path("full.sqlite"));
    WriteBasic(b);
  }
  std::string bytes = ReadFile(Path("full.sqlite"));
  // Overwrite everything after the first page (the schema) with garbage.
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  WriteFile(Path("garbage.sqlite"), bytes);
  StatusOr<Trace> r = ReadTrace(Path("garbage.sqlite"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("garbage.sqlite"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST_F(NsysReader, SqliteThatIsNotAnExport) {
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(Path("other.db").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE users (id INTEGER, name TEXT); INSERT INTO users VALUES (1, 'a')", nullptr, nullptr,
                 nullptr);
    sqlite3_close(db);
    ASSERT_EQ(sqlite3_open(Path("empty.db").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr);  // a header, no tables
    sqlite3_close(db);
  }
  StatusOr<Trace> r = ReadTrace(Path("other.db"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not an Nsight Systems export"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("users"), std::string::npos);
  r = ReadTrace(Path("empty.db"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no tables"), std::string::npos) << r.status().message();
}

TEST_F(NsysReader, NoKernelAndNoRuntimeTableIsAnError) {
  {
    NsysExportBuilder b(Path("nocuda.sqlite"));
    b.Exec("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL");
    b.Exec("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME");
  }
  StatusOr<Trace> r = ReadTrace(Path("nocuda.sqlite"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--trace=cuda"), std::string::npos);
}

TEST_F(NsysReader, NsysRepReportsSayHowToExport) {
  WriteFile(Path("run 1.nsys-rep"), std::string("\x00\x01not-sqlite-binary", 19));
  StatusOr<Trace> r = ReadTrace(Path("run 1.nsys-rep"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            Path("run 1.nsys-rep") + ": an Nsight Systems report, which ampscope cannot read directly; export it with "
                                     "`nsys export --type sqlite --output '" + Path("run 1.sqlite") + "' '" +
                Path("run 1.nsys-rep") + "'` and analyze the .sqlite file");
  WriteFile(Path("old.QDREP"), "binary");
  r = ReadTrace(Path("old.QDREP"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nsys export --type sqlite --output " + Path("old.sqlite")), std::string::npos)
      << r.status().message();
  // A real export renamed .nsys-rep is still read: content first.
  {
    NsysExportBuilder b(Path("renamed.nsys-rep"));
    WriteBasic(b);
  }
  r = ReadTrace(Path("renamed.nsys-rep"));
  ASSERT_TRUE(r.ok()) << r.status().message();
}

// The nsys reader's codes live in base/diagnostic_codes_table.h. The ids and severities are
// report keys (diagnostics.counters): listed here literally as docs/nsys.md documents them,
// not copied from the table.
TEST(NsysDiagnosticCodes, IdsAndSeveritiesAreAsDocumented) {
  struct Expected {
    DiagCode code;
    const char* id;
    Severity severity;
  };
  const Expected kExpected[] = {
      {DiagCode::kNsysTableMissing, "nsys_table_missing", Severity::kInfo},
      {DiagCode::kNsysColumnMissing, "nsys_column_missing", Severity::kInfo},
      {DiagCode::kNsysBadValue, "nsys_bad_value", Severity::kDataLoss},
      {DiagCode::kNsysTimeOutOfRange, "nsys_time_out_of_range", Severity::kDataLoss},
      {DiagCode::kNegativeDuration, "negative_duration", Severity::kDataLoss},
      {DiagCode::kNsysUnknownString, "nsys_unknown_string", Severity::kDataLoss},
      {DiagCode::kUnmatchedCorrelation, "unmatched_correlation", Severity::kDataLoss},
      {DiagCode::kNsysGpuBeforeLaunch, "nsys_gpu_before_launch", Severity::kDataLoss},
      {DiagCode::kNsysBacktraceDuplicate, "nsys_backtrace_duplicate", Severity::kInfo},
      {DiagCode::kNsysUnknownEventClass, "nsys_unknown_event_class", Severity::kInfo},
      {DiagCode::kNsysUnknownEnumValue, "nsys_unknown_enum_value", Severity::kInfo},
      {DiagCode::kNvtxUnclosedRange, "nvtx_unclosed_range", Severity::kInfo},
      {DiagCode::kNsysNvtxEventIgnored, "nsys_nvtx_event_ignored", Severity::kInfo},
      {DiagCode::kNsysSchemaVersion, "nsys_schema_version", Severity::kInfo},
      {DiagCode::kNsysSeveralProcesses, "nsys_several_processes", Severity::kInfo},
      {DiagCode::kNsysGraphIdFromNode, "nsys_graph_id_from_node", Severity::kInfo},
      {DiagCode::kNsysGpuMetricsDevice, "nsys_gpu_metrics_device", Severity::kInfo},
      {DiagCode::kNsysDuplicateDevice, "nsys_duplicate_device", Severity::kInfo},
  };
  for (const Expected& e : kExpected) {
    EXPECT_STREQ(DiagnosticInfoOf(e.code).id, e.id);
    EXPECT_EQ(DiagnosticInfoOf(e.code).severity, e.severity) << e.id;
  }
}

}  // namespace
}  // namespace nsys_reader_test
}  // namespace ampscope

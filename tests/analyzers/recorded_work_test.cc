// Diagnoses that speak of what the trace recorded (issue 32's audit), on the shared real traces
// and on small built traces:
//   - a host sync's saving is the GPU idle it opens and the Python that read the value, never the
//     DataLoader work the host does next (that overlap is the input pipeline's fix), and its
//     time ranges are the idle after the sync, not the DataLoader range that followed;
//   - DeepEP's dispatch/combine kernels are communication, all-to-all, and the distributed item
//     says what was recorded instead of "no NCCL kernels".
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "diagnosis_builder.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace recorded_work_test {
namespace {

using namespace diagnosis_test;  // NOLINT: the builder and finders of the diagnosis tests

double Number(const Finding& f, const std::string& key) {
  for (const Field& x : f.evidence) {
    if (x.key != key) continue;
    if (const auto* d = std::get_if<double>(&x.value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&x.value)) return static_cast<double>(*i);
  }
  ADD_FAILURE() << f.id << " has no evidence " << key;
  return -1;
}
bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

RankAnalysis AnalyzeShared(const std::string& relative) {
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(relative));
  EXPECT_TRUE(t.ok()) << relative << ": " << (t.ok() ? "" : t.status().message());
  if (!t.ok()) return {};
  StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, AnalysisOptions{});
  EXPECT_TRUE(ra.ok());
  return ra.ok() ? std::move(ra).value() : RankAnalysis{};
}

const char* kDataLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

// ---------------------------------------------------------------------------------------
// Host syncs followed by the DataLoader

// OWLv2 inference on an H100 (shared/traces README: "hand-written attention ... 89% of GPU
// time"): five iterations of DataLoader __next__ (~122 ms each, on the main thread), the forward,
// then an 82,944-byte pageable HtoD copy whose cudaStreamSynchronize waits ~70 ms for the forward
// (a blocking input copy: pageable_h2d_copies'), the .cpu() reads of the outputs (DtoH +
// cudaStreamSynchronize, short: the GPU is done), then the next __next__. From the raw trace:
//   user_annotation, cuda_runtime cudaMemcpyAsync/cudaStreamSynchronize and gpu_memcpy events by
//   ts (the copy at +174.17 ms is "Memcpy HtoD (Pageable -> Device)", 82944 bytes).
// The GPU idles while the host loads the next batch: DataLoader time, not sync time. Before,
// host_device_sync claimed 25.6% (critical: it removed the input copy's wait too) with its ranges
// the DataLoader ranges.
TEST(RecordedWork, Owlv2SyncsDoNotClaimTheDataLoaderTime) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const RankAnalysis ra =
      AnalyzeShared("traces/kineto/tracelens_h100_owlv2/google_owlv2-large-patch14-ensemble__1016001.json.gz");
  ASSERT_GE(ra.findings.size(), 2u);
  // The causes an expert names first: the input pipeline and the hand-written attention.
  std::vector<std::string> top = {ra.findings[0].id, ra.findings[1].id};
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top, (std::vector<std::string>{"dataloader_bottleneck", "eager_attention"}));
  const Finding* sync = FindFinding(ra, "host_device_sync");
  if (sync != nullptr) {
    // Its saving is of the order of the idle after the syncs (0.7% of the step) and the Python
    // right after them: small, never the DataLoader's 51%.
    EXPECT_LT(sync->est_saving_pct, 3.0) << sync->recommendation;
    EXPECT_NE(sync->severity, FindingSeverity::kCritical);
    // Its ranges are the idle after the syncs: none overlaps the DataLoader's (the six __next__
    // ranges of the trace, the last one 0.1 ms, all among dataloader_bottleneck's eight).
    const Finding* dl = FindFinding(ra, "dataloader_bottleneck");
    ASSERT_NE(dl, nullptr);
    EXPECT_EQ(dl->time_ranges.size(), 6u);
    for (const auto& s : sync->time_ranges)
      for (const auto& d : dl->time_ranges)
        EXPECT_FALSE(s.first < d.second && d.first < s.second) << s.first << "-" << s.second << " in " << d.first << "-" << d.second;
  }
}

// Two iterations (steps of 540 us) of: DataLoader __next__ [0, 300); a 200 us GEMM launched at
// 300 (runs [305, 505)); .item()-like sync A (blocking DtoH call [310, 511), its copy [507, 509),
// cudaStreamSynchronize [512, 514)); sync B (DtoH call [520, 526), copy [522, 524), sync [527, 529));
// 11 us of Python, then the next iteration's __next__ at 540. Two syncs per step beyond none:
// the finding is raised.
//
// GPU idle (window [0, 1080)): [0, 305) DataLoader 300 + host launch 5; [509, 522) opened by sync A
// (13); [524, 540) and [540, 845) opened by sync B: 16, then DataLoader 300 + 5 more after sync B
// (20 us of slack, context.cc); step 2: [1049, 1062) 13 and [1064, 1080) 16. Idle after syncs:
// 13 + 16 + 5 + 13 + 16 = 63 us = 5.83% of 1080.
//
// The what-if: sync B is followed by the DataLoader before the host gives the GPU anything more,
// so in step 1 it keeps its wait; the rest of the syncs go, with the Python after each (1 + 6 + 1
// + 11 us per step). Whatever the replay does, the saving cannot exceed that idle and that
// Python: (63 + 2 x 19) / 1080 = 9.35%. Before the fix the host ran on into step 2's __next__
// at 310 instead of 540, under the GPU work the syncs waited for: about 21%.
RankAnalysis LoaderAfterSyncs() {
  TraceBuilder b;
  for (int s = 0; s < 2; ++s) {
    const double base = 540.0 * s;
    b.Step(s, base, base + 540);
    b.AddRange(kDataLoader, base, base + 300);
    b.Kernel(kTcGemm, base + 300, base + 305, 200);
    b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 4, base + 310, base + 511, base + 507, 2);
    b.Api("cudaStreamSynchronize", base + 512, base + 514);
    b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 4, base + 520, base + 526, base + 522, 2);
    b.Api("cudaStreamSynchronize", base + 527, base + 529);
  }
  return b.Analyze();
}

TEST(RecordedWork, BuiltSyncsBeforeTheDataLoaderSaveOnlyTheirIdle) {
  const RankAnalysis ra = LoaderAfterSyncs();
  const Finding* sync = FindFinding(ra, "host_device_sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_NEAR(Number(*sync, "idle_after_syncs_pct"), 100.0 * 63 / 1080, 0.01);
  EXPECT_LE(sync->est_saving_pct, 100.0 * (63 + 2 * 19) / 1080 + 1e-9);
  const Finding* dl = FindFinding(ra, "dataloader_bottleneck");
  ASSERT_NE(dl, nullptr);
  EXPECT_GT(dl->est_saving_pct, sync->est_saving_pct);
  // The sync's ranges: the idle after each sync, in us (the DataLoader range [540, 840) that
  // followed sync B is the DataLoader's).
  std::vector<std::pair<double, double>> got;
  for (const auto& [s, e] : sync->time_ranges) got.emplace_back(s / 1e3, e / 1e3);
  const std::vector<std::pair<double, double>> want = {{509, 522}, {524, 540}, {840, 845}, {1049, 1062}, {1064, 1080}};
  EXPECT_EQ(got, want);
  const std::vector<std::pair<double, double>> loader = {{0, 300}, {540, 840}};
  std::vector<std::pair<double, double>> dl_got;
  for (const auto& [s, e] : dl->time_ranges) dl_got.emplace_back(s / 1e3, e / 1e3);
  EXPECT_EQ(dl_got, loader);
}

// OWLv2's post-processing, built: two iterations (640 us each) of DataLoader __next__ [0, 300); a
// 300 us GEMM launched at 300 (runs [305, 605)); then a 1 MB tensor.to('cuda') from pageable memory
// (cudaMemcpyAsync HtoD [310, 312), its copy [606, 607)) whose implicit cudaStreamSynchronize
// [313, 609) waits for the GEMM: a blocking input copy, the pageable-copy finding's; then two .cpu()
// reads (DtoH call [612, 616) copy [613, 614) sync [617, 618); DtoH call [620, 624) copy [621, 622)
// sync [625, 626)), 14 us of Python, and the next __next__ at 640.
//
// Idle after the syncs (the input copy opens none: its idle is host time): [614, 621) 7, [622, 640)
// 18, then [940, 945) 5 after the DataLoader; step 2: 7 and 18. 55 us = 4.30% of 1280.
// What the fix changes: the two .cpu() points' calls (4 + 1 + 4 + 1 us) and the Python after each
// (1, 2, 1, 14 us), 28 us per step: 56 us, never the input copy's 296 us wait (before the fix it
// removed that too, and the host ran on into the next __next__ under the GEMM: about 23%).
TEST(RecordedWork, BuiltInputCopySyncIsNotTheSyncFindings) {
  TraceBuilder b;
  for (int s = 0; s < 2; ++s) {
    const double base = 640.0 * s;
    b.Step(s, base, base + 640);
    b.AddRange(kDataLoader, base, base + 300);
    b.Kernel(kTcGemm, base + 300, base + 305, 300);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 1 << 20, base + 310, base + 312, base + 606, 1);
    b.Api("cudaStreamSynchronize", base + 313, base + 609);
    b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 4, base + 612, base + 616, base + 613, 1);
    b.Api("cudaStreamSynchronize", base + 617, base + 618);
    b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 4, base + 620, base + 624, base + 621, 1);
    b.Api("cudaStreamSynchronize", base + 625, base + 626);
  }
  const RankAnalysis ra = b.Analyze();
  const Finding* sync = FindFinding(ra, "host_device_sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(Number(*sync, "input_copy_syncs"), 2);
  EXPECT_NEAR(Number(*sync, "idle_after_syncs_pct"), 100.0 * 55 / 1280, 0.01);
  EXPECT_NEAR(Number(*sync, "whatif_changed_time_us"), 56, 1e-6);
  EXPECT_LE(sync->est_saving_pct, 100.0 * (55 + 56) / 1280 + 1e-9);
  EXPECT_NE(FindFinding(ra, "pageable_h2d_copies"), nullptr);
}

// ---------------------------------------------------------------------------------------
// DeepEP all-to-all

// DeepSeek-V3, rank 0 of 64 (distributedInfo world_size 64, backend nccl), H800: no NCCL kernel,
// but 32 DeepEP kernels on stream 27 (8 combine, 12 cached_notify, 4 notify_dispatch, 8 dispatch
// in dpsk::ep::internode), 113,030 us of the 244,041 us of kernel time (46.3%):
//   zcat train.json.gz | python3 -c 'sum of "dur" of cat=kernel events whose name has
//   ::internode::{dispatch,combine,*notify*}' (one ProfilerStep).
TEST(RecordedWork, DeepSeekDeepEpKernelsAreAllToAllCommunication) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const RankAnalysis ra = AnalyzeShared("traces/kineto/deepseek/train.json.gz");
  size_t all_to_all = 0;
  for (const CollectiveCall& c : ra.collectives) {
    EXPECT_EQ(c.type, CollectiveType::kAllToAll) << c.kernel;
    all_to_all += c.type == CollectiveType::kAllToAll;
  }
  EXPECT_EQ(all_to_all, 32u);
  const double comm_pct =
      ra.gpu.kernel_time_by_category_ns[static_cast<size_t>(KernelCategory::kCommunication)] * 100.0 /
      static_cast<double>(ra.gpu.kernel_time_total_ns);
  EXPECT_NEAR(comm_pct, 100.0 * 113030 / 244041, 0.05);
  const ChecklistItem& item = Check(ra, "distributed_sync");
  EXPECT_NE(item.status, CheckStatus::kUnknown) << item.evidence;
  EXPECT_FALSE(Has(item.how_to_know, "no NCCL kernels")) << item.how_to_know;
  EXPECT_TRUE(Has(item.evidence, "32.0 communication kernels per step (DeepEP all-to-all 32)")) << item.evidence;
  EXPECT_TRUE(Has(item.evidence, "by type: all_to_all 100%")) << item.evidence;
}

// Built: world size 8, one step; a 400 us GEMM on stream 7, then DeepEP's dispatch and combine
// (100 us each) on stream 8 with nothing beside them, and the layout kernel (10 us, local).
// Communication: 200 us, all exposed, all-to-all, two kernels.
TEST(RecordedWork, BuiltDeepEpRunNamesItsAllToAll) {
  TraceBuilder b;
  b.trace().metadata.world_size = 8;
  b.Step(1, 0, 800);
  b.Kernel(kTcGemm, 5, 10, 400);
  b.Kernel("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
           20, 410, 10, 8);
  b.Kernel("void deep_ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*)", 30, 420, 100, 8);
  b.Kernel("void deep_ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*)", 40, 520, 100, 8);
  const RankAnalysis ra = b.Analyze();
  ASSERT_EQ(ra.collectives.size(), 2u);
  for (const CollectiveCall& c : ra.collectives) EXPECT_EQ(c.type, CollectiveType::kAllToAll) << c.kernel;
  const ChecklistItem& item = Check(ra, "distributed_sync");
  EXPECT_NE(item.status, CheckStatus::kUnknown) << item.evidence;
  EXPECT_TRUE(Has(item.evidence, "2.0 communication kernels per step (DeepEP all-to-all 2)")) << item.evidence;
  EXPECT_TRUE(Has(item.evidence, "all_to_all 100%")) << item.evidence;
  const Finding* f = FindFinding(ra, "exposed_communication");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "all-to-all")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "DDP")) << f->recommendation;
}

}  // namespace
}  // namespace recorded_work_test
}  // namespace ampscope

// Diagnoses that speak of what the trace recorded (issue 32's audit), on the shared real traces
// and on small built traces:
//   - DeepEP's dispatch/combine kernels are communication, all-to-all, and the distributed item
//     says what was recorded instead of "no NCCL kernels".
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "diagnosis_builder.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace {

using namespace diagnosis_test;  // NOLINT: the builder and finders of the diagnosis tests

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

RankAnalysis AnalyzeShared(const std::string& relative) {
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(relative));
  EXPECT_TRUE(t.ok()) << relative << ": " << (t.ok() ? "" : t.status().message());
  if (!t.ok()) return {};
  StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, AnalysisOptions{});
  EXPECT_TRUE(ra.ok());
  return ra.ok() ? std::move(ra).value() : RankAnalysis{};
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
}  // namespace ampscope

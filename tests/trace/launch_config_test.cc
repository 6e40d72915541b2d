// Interned launch configurations (Trace::launch_configs, trace/model.h): a configuration shared
// by many kernels is stored once, each kernel reads back its own, and the readers intern through
// Trace::InternLaunch alike (sequential and parallel Kineto reads give the same table). Also the
// two narrowed fields of issue 38 point 6: Range::depth saturates, ApiCall::cbid keeps only
// CUPTI-sized ids. Expected values are written by hand here, or counted from the shared traces'
// JSON by Python (noted at each test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/model.h"

namespace ampscope {
namespace launch_config_test {
namespace {

using ampscope::testing::SharedPath;
using ampscope::testing::TraceBuilder;
using ampscope::testing::Us;

LaunchConfig Config(uint32_t gx, uint32_t gy, uint32_t bx, int32_t regs, int32_t dyn_shared, float occupancy) {
  LaunchConfig c;
  c.grid[0] = gx, c.grid[1] = gy, c.grid[2] = 1;
  c.block[0] = bx, c.block[1] = 1, c.block[2] = 1;
  c.registers_per_thread = regs;
  c.dynamic_shared_bytes = dyn_shared;
  c.est_occupancy_pct = occupancy;
  return c;
}

bool Same(const LaunchConfig& a, const LaunchConfig& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// No two entries of the table hold the same bits.
size_t DistinctEntries(const Trace& t) {
  std::set<std::string> seen;
  for (const LaunchConfig& c : t.launch_configs) seen.insert(std::string(reinterpret_cast<const char*>(&c), sizeof c));
  return seen.size();
}

TEST(LaunchConfig, ManyKernelsFewConfigsStoredOnceEachReadsItsOwn) {
  // 3,000 kernels in reverse time order (FinalizeTrace reorders them), cycling through three
  // configurations; every fifth kernel has none (the all-unknown entry 0).
  const LaunchConfig configs[3] = {Config(216, 1, 256, 32, 0, 50.f), Config(84, 3, 128, 168, 98304, 12.5f),
                                   Config(1, 1, 32, 16, -1, -0.f)};
  TraceBuilder b;
  for (int i = 0; i < 3000; ++i) {
    KernelEvent& k = b.AddKernel(i % 2 ? "sm80_xmma_gemm" : "elementwise", Us(3000 - i), Us(3000 - i) + 500, i);
    if (i % 5 != 4) k.launch_config = b.trace().InternLaunch(configs[i % 3]);
  }
  Trace& t = b.Finalize();
  ASSERT_EQ(t.launch_configs.size(), 4u);  // the unknown one + three
  EXPECT_TRUE(Same(t.launch_configs[0], LaunchConfig{}));
  EXPECT_EQ(DistinctEntries(t), 4u);
  EXPECT_TRUE(t.launch_slots.empty());  // the lookup table goes with FinalizeTrace
  for (const KernelEvent& k : t.kernels) {
    const int64_t i = k.correlation;
    const LaunchConfig& got = t.launch(k);
    if (i % 5 == 4) {
      EXPECT_EQ(k.launch_config, 0u) << i;
      EXPECT_EQ(got.grid[0], 0u) << i;
      EXPECT_EQ(got.registers_per_thread, -1) << i;
      continue;
    }
    ASSERT_TRUE(Same(got, configs[i % 3])) << "kernel " << i;
  }
  // Hand-written spot checks of the values read back.
  const KernelEvent& k1 = *std::find_if(t.kernels.begin(), t.kernels.end(), [](auto& k) { return k.correlation == 1; });
  EXPECT_EQ(t.launch(k1).grid[1], 3u);
  EXPECT_EQ(t.launch(k1).block[0], 128u);
  EXPECT_EQ(t.launch(k1).registers_per_thread, 168);
  EXPECT_EQ(t.launch(k1).dynamic_shared_bytes, 98304);
  EXPECT_FLOAT_EQ(t.launch(k1).est_occupancy_pct, 12.5f);

  // After FinalizeTrace the table is rebuilt on demand: a known config keeps its index,
  // a new one is appended, and -0.f stays apart from 0.f (same bits only).
  EXPECT_EQ(t.InternLaunch(configs[1]), k1.launch_config);
  const uint32_t again = t.InternLaunch(configs[2]);
  EXPECT_TRUE(Same(t.launch_configs[again], configs[2]));
  EXPECT_EQ(t.launch_configs.size(), 4u);
  EXPECT_EQ(t.InternLaunch(Config(1, 1, 32, 16, -1, 0.f)), 4u);
  EXPECT_EQ(t.InternLaunch(LaunchConfig{}), 0u);
  EXPECT_EQ(t.launch_configs.size(), 5u);
}

TEST(LaunchConfig, OutOfRangeIndexReadsAsUnknown) {
  Trace t;
  KernelEvent k;
  k.launch_config = 7;  // a row built by hand past the table
  EXPECT_EQ(t.launch(k).grid[0], 0u);
  EXPECT_EQ(t.launch(k).registers_per_thread, -1);
  t.launch_configs.clear();  // even an emptied table keeps entry 0 for InternLaunch
  EXPECT_EQ(t.InternLaunch(Config(2, 1, 64, 8, 0, 1.f)), 1u);
  EXPECT_EQ(t.launch_configs.size(), 2u);
}

TEST(LaunchConfig, ManyDistinctConfigsGrowTheTable) {
  // 20,000 distinct configurations then the same again: the lookup table grows (rebuilt at each
  // doubling) and every repeat finds its first index.
  Trace t;
  std::vector<uint32_t> first;
  for (uint32_t i = 0; i < 20000; ++i) first.push_back(t.InternLaunch(Config(i + 1, 1, 128, 32, 0, 25.f)));
  for (uint32_t i = 0; i < 20000; ++i) {
    ASSERT_EQ(first[i], i + 1);
    ASSERT_EQ(t.InternLaunch(Config(i + 1, 1, 128, 32, 0, 25.f)), i + 1);
  }
  EXPECT_EQ(t.launch_configs.size(), 20001u);
}

// Six kernels, two configurations (one on four kernels under two names), one kernel without any.
constexpr const char* kSixKernels = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 10, "dur": 2, "args": {"correlation": 1, "grid": [40, 2, 1], "block": [256, 1, 1], "registers per thread": 90, "shared memory": 49152, "blocks per SM": 0.75, "est. achieved occupancy %": 19}},
  {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 13, "dur": 1, "args": {"correlation": 2, "grid": [1024, 1, 1], "block": [128, 1, 1], "registers per thread": 20, "shared memory": 0, "blocks per SM": 12.8, "est. achieved occupancy %": 100}},
  {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": 15, "dur": 2, "args": {"correlation": 3, "grid": [40, 2, 1], "block": [256, 1, 1], "registers per thread": 90, "shared memory": 49152, "blocks per SM": 0.75, "est. achieved occupancy %": 19}},
  {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 18, "dur": 2, "args": {"correlation": 4, "grid": [40, 2, 1], "block": [256, 1, 1], "registers per thread": 90, "shared memory": 49152, "blocks per SM": 0.75, "est. achieved occupancy %": 19}},
  {"ph": "X", "cat": "kernel", "name": "nccl", "pid": 0, "tid": 20, "ts": 21, "dur": 5, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": 27, "dur": 2, "args": {"correlation": 6, "grid": [40, 2, 1], "block": [256, 1, 1], "registers per thread": 90, "shared memory": 49152, "blocks per SM": 0.75, "est. achieved occupancy %": 19}}
]})JSON";

void ExpectSixKernels(const Trace& t, const std::string& how) {
  SCOPED_TRACE(how);
  ASSERT_EQ(t.kernels.size(), 6u);
  EXPECT_EQ(t.launch_configs.size(), 3u);  // unknown, the gemm's, relu's
  for (const KernelEvent& k : t.kernels) {
    const LaunchConfig& c = t.launch(k);
    const std::string_view name = t.str(k.name);
    if (name == "nccl") {
      EXPECT_EQ(k.launch_config, 0u);
    } else if (name == "relu") {
      EXPECT_EQ(c.grid[0], 1024u);
      EXPECT_EQ(c.block[0], 128u);
      EXPECT_EQ(c.registers_per_thread, 20);
      EXPECT_EQ(c.dynamic_shared_bytes, 0);
      EXPECT_FLOAT_EQ(c.blocks_per_sm, 12.8f);
      EXPECT_FLOAT_EQ(c.est_occupancy_pct, 100.f);
    } else {
      EXPECT_EQ(c.grid[0], 40u) << name;
      EXPECT_EQ(c.grid[1], 2u) << name;
      EXPECT_EQ(c.block[0], 256u) << name;
      EXPECT_EQ(c.registers_per_thread, 90) << name;
      EXPECT_EQ(c.static_shared_bytes, -1) << name;  // Kineto's "shared memory" is static + dynamic
      EXPECT_EQ(c.dynamic_shared_bytes, 49152) << name;
      EXPECT_FLOAT_EQ(c.blocks_per_sm, 0.75f) << name;
      EXPECT_FLOAT_EQ(c.est_occupancy_pct, 19.f) << name;
    }
  }
}

TEST(LaunchConfig, KinetoSequentialAndParallelInternAlike) {
  StatusOr<Trace> one = ReadKinetoTraceFromString(kSixKernels, "six.json");
  ASSERT_TRUE(one.ok()) << one.status().message();
  ExpectSixKernels(*one, "sequential");
  for (size_t piece : {64, 300, 700}) {
    KinetoReadOptions options;
    options.threads = 2;
    options.parallel_piece_bytes = piece;
    StatusOr<Trace> many = ReadKinetoTraceFromString(kSixKernels, "six.json", options);
    ASSERT_TRUE(many.ok()) << many.status().message();
    ExpectSixKernels(*many, "parallel, pieces of " + std::to_string(piece));
    ASSERT_EQ(many->launch_configs.size(), one->launch_configs.size());
    for (size_t i = 0; i < one->kernels.size(); ++i)
      EXPECT_EQ(many->kernels[i].launch_config, one->kernels[i].launch_config) << "kernel " << i << " piece " << piece;
  }
}

// The shared traces: 8,772 kernels with 183 distinct launch configurations (tb_plugin) and
// 4,350 kernels with 173 (hta rank 0), counted by Python's json module over the kernel events'
// (grid, block, registers per thread, shared memory, blocks per SM as float32, est. achieved
// occupancy % as float32); no kernel there lacks them, so entry 0 is the one extra.
TEST(LaunchConfig, SharedKinetoTracesStoreEachConfigOnce) {
  AMPSCOPE_REQUIRE_INPUT(ampscope::testing::HaveShared(), "shared/traces (AMPSCOPE_SHARED_DIR)");
  struct Case {
    const char* path;
    size_t kernels;
    size_t configs;
  };
  for (const Case& c : {Case{"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz", 8772, 183},
                        Case{"traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 4350, 173}}) {
    SCOPED_TRACE(c.path);
    StatusOr<Trace> t = ReadKinetoTrace(SharedPath(c.path));
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->kernels.size(), c.kernels);
    EXPECT_EQ(t->launch_configs.size(), c.configs + 1);
    EXPECT_EQ(DistinctEntries(*t), t->launch_configs.size());
    for (const KernelEvent& k : t->kernels) ASSERT_LT(k.launch_config, t->launch_configs.size());
  }
}

TEST(NarrowedRows, RangeDepthSaturatesOnVeryDeepNesting) {
  // 40,000 ranges nested on one thread: depths 0, 1, ... up to kMaxRangeDepth, then held there
  // (never wrapped to a negative depth). A sibling after them is back at 0.
  TraceBuilder b;
  const int n = 40000;
  for (int i = 0; i < n; ++i) b.AddRange("r", i, 2 * n - i);
  b.AddRange("after", 2 * n + 1, 2 * n + 2);
  Trace& t = b.Finalize();
  ASSERT_EQ(t.ranges.size(), static_cast<size_t>(n + 1));
  for (int i = 0; i < n; ++i) ASSERT_EQ(t.ranges[i].depth, std::min(i, 32767)) << i;
  EXPECT_EQ(t.ranges[n].depth, 0);
}

TEST(NarrowedRows, CbidKeepsCuptiIdsOnly) {
  // CUDA 13's largest ids: runtime 522, driver 806 (cupti_runtime_cbid.h, cupti_driver_cbid.h).
  EXPECT_EQ(CbidOrUnknown(211), 211);
  EXPECT_EQ(CbidOrUnknown(806), 806);
  EXPECT_EQ(CbidOrUnknown(32767), 32767);
  EXPECT_EQ(CbidOrUnknown(32768), -1);
  EXPECT_EQ(CbidOrUnknown(int64_t{1} << 40), -1);
  EXPECT_EQ(CbidOrUnknown(-7), -1);
  const char* json = R"JSON({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1, "cbid": 211}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 2, "cbid": 4294967507}}
  ]})JSON";
  StatusOr<Trace> t = ReadKinetoTraceFromString(json, "cbid.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->api_calls.size(), 2u);
  EXPECT_EQ(t->api_calls[0].cbid, 211);
  EXPECT_EQ(t->api_calls[1].cbid, -1);  // 2^32 + 211 is no CUPTI id (it used to wrap to 211)
}

}  // namespace
}  // namespace launch_config_test
}  // namespace ampscope

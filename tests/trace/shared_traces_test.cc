// The Kineto reader on every real trace in shared/traces/kineto/.
//
// Where the expected numbers come from:
// - "HTA" / "README": golden values in shared/traces/README.md (HTA's and the tensorboard
//   plugin's own tests on these files).
// - "python": counted independently with python3's json and gzip modules, e.g.
//     d = json.load(gzip.open(F, 'rt')); ev = d['traceEvents']
//     kernels = sum(e.get('ph') == 'X' and e.get('cat') in ('kernel', 'Kernel') for e in ev)
//   (api = cats cuda_runtime/cuda_driver/Runtime; flows = ph s/f/t; memory = ph i named
//   "[memory]"; ranges = user_annotation + gpu_user_annotation + 2021 Operators named
//   ProfilerStep#*, enumerate(DataLoader)*, Optimizer.*, "## "*; cpu_ops = cpu_op/Operator
//   minus those).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/trace_dump.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace shared_traces_test {
namespace {

using testing::HaveShared;
using testing::SharedPath;

void ListFiles(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      ListFiles(path, out);
    } else {
      out->push_back(path);
    }
  }
  closedir(d);
}

struct Expected {
  uint64_t events, kernels, memcpys, memsets, api, syncs, cpu_ops, ranges, gpu_ranges, flows, memory, comm;
};

// python (see the header comment).
const std::map<std::string, Expected>& ExpectedCounts() {
  static const std::map<std::string, Expected> kCounts = {
      //                                                  events kern  mcpy mset  api    sync ops    rng gpur flows  mem   comm
      {"hta/a100_16rank_recsys_rank0.json.gz", {108936, 6080, 1390, 277, 33924, 0, 25185, 360, 0, 41671, 0, 0}},
      {"hta/benchmark_result_493459_1694039959_trace.json.gz", {1348, 79, 16, 3, 331, 41, 359, 8, 0, 470, 0, 0}},
      {"hta/event_sync_trace.json.gz", {92, 4, 1, 0, 12, 4, 10, 1, 0, 21, 0, 0}},
      {"hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz", {220, 14, 2, 0, 21, 0, 70, 5, 2, 45, 0, 0}},
      {"hta/nccl_data.json.gz", {40573, 2700, 960, 114, 8740, 0, 14346, 72, 30, 13600, 0, 21}},
      {"hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", {68692, 4350, 1600, 145, 15329, 0, 23910, 85, 15, 23234, 0, 0}},
      {"hta/sampled_rank-0.json.gz", {4855, 1154, 40, 10, 1204, 0, 2329, 73, 0, 0, 0, 0}},
      {"hta/triton_example.json.gz", {71, 1, 0, 0, 2, 0, 3, 1, 0, 3, 0, 0}},
      {"tb_plugin/gpu_metrics_input.json", {340, 30, 2, 0, 42, 0, 175, 4, 0, 64, 0, 0}},
      {"tb_plugin/worker0.1623143089861.pt.trace.json.gz", {75718, 8772, 12, 312, 11923, 0, 23622, 24, 0, 18192, 12838, 0}},
      {"tb_plugin/worker0.1623143566756.pt.trace.json.gz", {75718, 8772, 12, 312, 11923, 0, 23622, 24, 0, 18192, 12838, 0}},
  };
  return kCounts;
}

StatusOr<Trace> ReadShared(const std::string& relative) {
  return ReadKinetoTrace(SharedPath("traces/kineto/" + relative));
}

TEST(SharedTraces, EveryKinetoTraceReadsWithExpectedCounts) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::vector<std::string> files;
  ListFiles(SharedPath("traces/kineto"), &files);
  ASSERT_GE(files.size(), ExpectedCounts().size());
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    StatusOr<Trace> r = ReadKinetoTrace(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Trace& t = *r;
    EXPECT_EQ(t.metadata.format, SourceFormat::kKineto);
    EXPECT_GT(t.metadata.input_bytes, 0u);
    EXPECT_EQ(t.diagnostics.Count("bad_field_type"), 0u);
    EXPECT_EQ(t.diagnostics.Count("negative_duration"), 0u);  // python: no dur < 0 in these files
    // python: no kernel/gpu_memcpy/gpu_memset ts below the ts of the runtime/driver call with
    // its correlation; no ProfilerStep#N name twice with other (ts, dur) among the
    // user_annotation/cpu_op/Operator events, and none starting before the previous one ends.
    // (The GPU projections, gpu_user_annotation, repeat a step with other times: not steps.)
    EXPECT_EQ(t.diagnostics.Count("kernel_before_launch"), 0u);
    EXPECT_EQ(t.diagnostics.Count("duplicate_profiler_step"), 0u);
    EXPECT_EQ(t.diagnostics.Count("overlapping_profiler_steps"), 0u);
    std::string relative = path.substr(SharedPath("traces/kineto/").size());
    auto it = ExpectedCounts().find(relative);
    if (it == ExpectedCounts().end()) continue;  // a newly added trace: read without error is all we know
    const Expected& e = it->second;
    EXPECT_EQ(t.metadata.event_count, e.events);
    EXPECT_EQ(t.kernels.size(), e.kernels);
    EXPECT_EQ(t.memcpys.size(), e.memcpys);
    EXPECT_EQ(t.memsets.size(), e.memsets);
    EXPECT_EQ(t.api_calls.size(), e.api);
    EXPECT_EQ(t.syncs.size(), e.syncs);
    EXPECT_EQ(t.cpu_ops.size(), e.cpu_ops);
    EXPECT_EQ(t.ranges.size(), e.ranges);
    EXPECT_EQ(std::count_if(t.ranges.begin(), t.ranges.end(),
                            [](const Range& r) { return r.kind == RangeKind::kGpuAnnotation; }),
              static_cast<long>(e.gpu_ranges));
    EXPECT_EQ(t.flows.size(), e.flows);
    EXPECT_EQ(t.memory_events.size(), e.memory);
    EXPECT_EQ(t.comm_infos.size(), e.comm);
  }
}

// HTA get_gpu_kernels_with_user_annotations on rank-0.Apr_03...: 4876 GPU events. HTA keeps
// GPU events launched before the last ProfilerStep (#105) starts. python: of the 4350 kernels
// + 1600 memcpy + 145 memset, those whose runtime call (joined by correlation) starts before
// ProfilerStep#105 are 3480 + 1280 + 116 = 4876.
TEST(SharedTraces, HtaRank0GpuEventsBeforeTheLastStep) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  TimeNs last_step_start = -1;
  int steps = 0;
  for (const Range& g : t.ranges) {
    if (g.kind == RangeKind::kCpuAnnotation && t.str(g.name).rfind("ProfilerStep#", 0) == 0) {
      ++steps;
      last_step_start = std::max(last_step_start, g.start_ns);
    }
  }
  EXPECT_EQ(steps, 5);  // README: ProfilerStep#101..105
  std::map<int64_t, TimeNs> launch;
  for (const ApiCall& a : t.api_calls) launch.emplace(a.correlation, a.start_ns);
  auto before = [&](int64_t corr) {
    auto it = launch.find(corr);
    return it != launch.end() && it->second < last_step_start;
  };
  int kernels = 0, memcpys = 0, memsets = 0;
  for (const KernelEvent& k : t.kernels) kernels += before(k.correlation);
  for (const MemcpyEvent& m : t.memcpys) memcpys += before(m.correlation);
  for (const MemsetEvent& m : t.memsets) memsets += before(m.correlation);
  EXPECT_EQ(kernels + memcpys + memsets, 4876);
  EXPECT_EQ(kernels, 3480);
  EXPECT_EQ(memcpys, 1280);
  EXPECT_EQ(memsets, 116);

  // HTA: correlation 135139 is a "Memcpy DtoD (Device -> Device)".
  const MemcpyEvent* copy = nullptr;
  for (const MemcpyEvent& m : t.memcpys)
    if (m.correlation == 135139) copy = &m;
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, MemcpyKind::kDtoD);
  EXPECT_EQ(copy->src_kind, MemoryKind::kDevice);
  EXPECT_EQ(copy->dst_kind, MemoryKind::kDevice);
  // The file's text (zcat | grep 135139) says "ts": 1712195495506161.288, "dur": 1.280,
  // "bytes": 256. (Python's float prints that ts as ...161.2: a double cannot hold the ns.)
  EXPECT_EQ(copy->start_ns, 1712195495506161288);
  EXPECT_EQ(copy->end_ns, 1712195495506161288 + 1280);
  EXPECT_EQ(copy->bytes, 256u);
  // README: world size 1, nccl 2.17.1, V100.
  EXPECT_EQ(t.metadata.rank, 0);
  EXPECT_EQ(t.metadata.world_size, 1);
  EXPECT_EQ(t.metadata.nccl_version, "2.17.1");
  ASSERT_NE(t.FindDevice(0), nullptr);
  EXPECT_EQ(t.FindDevice(0)->name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(t.FindDevice(0)->vendor, GpuVendor::kNvidia);
}

// HTA: 21 ncclKernel events; the longest is an allreduce of 2049000 elements in and out,
// process group '0' ('default_pg'). README: 15 of them are ncclKernel_AllReduce.
TEST(SharedTraces, NcclDataCommunicationKernels) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("hta/nccl_data.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  int nccl = 0, allreduce = 0;
  const KernelEvent* longest = nullptr;
  for (const KernelEvent& k : t.kernels) {
    std::string_view name = t.str(k.name);
    if (name.rfind("ncclKernel", 0) != 0) continue;
    ++nccl;
    allreduce += name.rfind("ncclKernel_AllReduce", 0) == 0;
    EXPECT_GE(k.comm_index, 0) << name;
    if (longest == nullptr || k.duration_ns() > longest->duration_ns()) longest = &k;
  }
  EXPECT_EQ(nccl, 21);
  EXPECT_EQ(allreduce, 15);
  ASSERT_NE(longest, nullptr);
  ASSERT_GE(longest->comm_index, 0);
  const CommInfo& c = t.comm_infos[static_cast<size_t>(longest->comm_index)];
  EXPECT_EQ(t.str(c.collective), "allreduce");
  EXPECT_EQ(c.in_nelems, 2049000);
  EXPECT_EQ(c.out_nelems, 2049000);
  EXPECT_EQ(t.str(c.process_group), "0");
  EXPECT_EQ(t.str(c.process_group_desc), "default_pg");
  EXPECT_EQ(c.group_size, 2);  // python: "Group size": 2 (ranks [0, 1])
  EXPECT_EQ(t.metadata.world_size, 2);
  EXPECT_EQ(t.metadata.distributed_backend, "nccl");
}

// HTA: one cpu_op with kernel_backend 'triton', named triton_poi_fused_add_cos_sin_0.
TEST(SharedTraces, TritonExampleBackend) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("hta/triton_example.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  std::vector<std::string> triton_ops;
  for (const CpuOp& op : t.cpu_ops)
    if (t.str(op.kernel_backend) == "triton") triton_ops.emplace_back(t.str(op.name));
  ASSERT_EQ(triton_ops.size(), 1u);
  EXPECT_EQ(triton_ops[0], "triton_poi_fused_add_cos_sin_0");
  // python: the trace's one kernel is launched by cuLaunchKernel (cat cuda_driver).
  ASSERT_EQ(t.kernels.size(), 1u);
  bool driver_launch = false;
  for (const ApiCall& a : t.api_calls)
    if (a.correlation == t.kernels[0].correlation) driver_launch = a.domain == ApiDomain::kDriver;
  EXPECT_TRUE(driver_launch);
  EXPECT_EQ(t.metadata.cuda_runtime_version, "12000");
}

// README: ResNet50, 2021 format, ProfilerStep#5..#10, 8772 kernels, Tesla V100-DGXS-32GB cc 7.0.
TEST(SharedTraces, TbPluginWorker0Steps) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.kernels.size(), 8772u);
  std::vector<std::string> steps;
  for (const Range& g : t.ranges)
    if (t.str(g.name).rfind("ProfilerStep#", 0) == 0) {
      EXPECT_EQ(g.kind, RangeKind::kCpuAnnotation);
      EXPECT_EQ(g.depth, 0);
      steps.emplace_back(t.str(g.name));
    }
  EXPECT_EQ(steps, (std::vector<std::string>{"ProfilerStep#5", "ProfilerStep#6", "ProfilerStep#7", "ProfilerStep#8",
                                             "ProfilerStep#9", "ProfilerStep#10"}));
  ASSERT_NE(t.FindDevice(0), nullptr);
  EXPECT_EQ(t.FindDevice(0)->name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(t.FindDevice(0)->cc_major, 7);
  EXPECT_EQ(t.metadata.rank, 0);  // from "worker0" in the file name
  // Every kernel and copy has its runtime call in this trace (python: 0 unmatched).
  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 0u);
}

// README: an AMD MI250 trace; its devices must be marked AMD.
TEST(SharedTraces, Mi250IsAmd) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  ASSERT_FALSE(t.devices.empty());
  for (const Device& d : t.devices) EXPECT_EQ(d.vendor, GpuVendor::kAmd) << d.name;
  // python: hipMemcpyWithStream (correlation 117) carries "size": "2560" and the copy has no
  // "bytes"; the reader takes the size from the runtime call.
  bool found = false;
  for (const MemcpyEvent& m : t.memcpys)
    if (m.correlation == 117) {
      found = true;
      EXPECT_EQ(m.bytes, 2560u);
      EXPECT_FALSE(m.async);  // hipMemcpyWithStream blocks the host
    }
  EXPECT_TRUE(found);
}

// A trace without deviceProperties still names its GPUs (from the GPU events).
TEST(SharedTraces, SampledTraceWithoutDeviceProperties) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> r = ReadShared("hta/sampled_rank-0.json.gz");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->devices.size(), 1u);  // python: every GPU event has "device": 0
  EXPECT_EQ(r->devices[0].id, 0);
  EXPECT_EQ(r->devices[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(r->diagnostics.Count("missing_device_properties"), 1u);
  EXPECT_EQ(r->metadata.world_size, 128);
}

// Chunk boundaries at odd places in real data give the same trace.
TEST(SharedTraces, ChunkSizeDoesNotChangeTheResult) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  for (const auto& [file, chunk] : std::vector<std::pair<std::string, size_t>>{
           {"hta/event_sync_trace.json.gz", 1}, {"hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 37},
           {"hta/nccl_data.json.gz", 4093}}) {
    SCOPED_TRACE(file);
    std::string path = SharedPath("traces/kineto/" + file);
    StatusOr<Trace> whole = ReadKinetoTrace(path);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
    ASSERT_TRUE(source.ok());
    std::unique_ptr<ByteSource> limited = MakeChunkLimitedByteSource(std::move(*source), chunk);
    StatusOr<Trace> pieces = ReadKinetoTraceFromSource(*limited, path);
    ASSERT_TRUE(pieces.ok()) << pieces.status().message();
    EXPECT_EQ(testing::DumpTrace(*pieces), testing::DumpTrace(*whole));
  }
}

}  // namespace
}  // namespace shared_traces_test
}  // namespace ampscope

// The analysis of memory snapshots: segsum's totals, the timeline (peak, sites, cast copies),
// steps and churn, OOMs, and which findings fire. Shared snapshots against values computed
// outside ampscope; small snapshots built here (other names and sizes) for both sides of
// every finding.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyzers/analyze.h"
#include "analyzers/memory/memory_snapshot.h"
#include "support/test_support.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace memory_snapshot_analysis_test {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

const Finding* FindingOf(const RankAnalysis& ra, const std::string& id) {
  for (const Finding& f : ra.findings)
    if (f.id == id) return &f;
  return nullptr;
}
const ChecklistItem* ItemOf(const RankAnalysis& ra, const std::string& id) {
  for (const ChecklistItem& c : ra.checklist)
    if (c.id == id) return &c;
  return nullptr;
}

// A snapshot built in memory: segments of (size, blocks), a device trace, annotations.
struct Builder {
  MemorySnapshot s;
  int32_t Frames(std::vector<SnapshotFrame> frames) {
    std::vector<uint32_t> ids;
    for (SnapshotFrame& f : frames) {
      ids.push_back(static_cast<uint32_t>(s.frames.size()));
      s.frames.push_back(std::move(f));
    }
    s.frame_lists.push_back(ids);
    return static_cast<int32_t>(s.frame_lists.size() - 1);
  }
  void Segment(uint64_t address, std::vector<SnapshotBlock> blocks, std::string type = "large") {
    SnapshotSegment seg;
    seg.address = address;
    seg.segment_type = std::move(type);
    seg.first_block = static_cast<uint32_t>(s.blocks.size());
    seg.block_count = static_cast<uint32_t>(blocks.size());
    for (SnapshotBlock& b : blocks) {
      b.address = address + seg.total_size;
      seg.total_size += b.size;
      s.blocks.push_back(b);
    }
    s.segments.push_back(seg);
  }
  void Event(SnapshotAction a, uint64_t addr, uint64_t size, int64_t t, int32_t frames = kNoFrames) {
    SnapshotEvent e;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.time_us = t;
    e.frames = frames;
    s.events.push_back(e);
    s.has_device_traces = true;
    s.device_traces = 1;
  }
  void Annotate(const std::string& name, bool start, int64_t t) {
    SnapshotAnnotation a;
    a.name = name;
    a.start = start;
    a.time_us = t;
    s.annotations.push_back(a);
  }
};

SnapshotBlock Block(uint64_t size, uint64_t requested, BlockState state) {
  SnapshotBlock b;
  b.size = size;
  b.requested_size = requested;
  b.state = state;
  return b;
}

RankAnalysis SnapshotAloneRank(const MemorySnapshot& s) {
  Trace t;
  t.metadata.path = "snap.pickle";
  t.metadata.format = SourceFormat::kMemorySnapshot;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, {});
  EXPECT_TRUE(ra.ok());
  ApplyMemorySnapshot(std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(s)), *ra);
  return std::move(*ra);
}

TEST(MemorySnapshotAnalysis, SnapshotDiagnosticsJoinTheRanksInput) {
  // What the snapshot reader counted goes where the report reads input diagnostics from.
  Builder b;
  b.s.path = "snap.pickle";
  b.Segment(0, {Block(2 * kMiB, 2 * kMiB, BlockState::kOther)});
  b.s.diagnostics.Add(DiagCode::kSnapshotUnknownBlockState, -1, "block state 'teleported'");
  b.s.diagnostics.AddCount(DiagCode::kSnapshotMissingField, 3, -1, "a block without a usable 'size'");
  const RankAnalysis alone = SnapshotAloneRank(b.s);
  EXPECT_EQ(alone.input.diagnostics.Count(DiagCode::kSnapshotUnknownBlockState), 1u);
  EXPECT_EQ(alone.input.diagnostics.Count(DiagCode::kSnapshotMissingField), 3u);
  EXPECT_EQ(alone.input.diagnostics.entries().at("snapshot_unknown_block_state").first_message, "block state 'teleported'");
  // Beside a trace the rank's input is the trace: the message names the snapshot.
  testing::TraceBuilder tb;
  tb.AddA100();
  tb.LaunchKernel("k", testing::Us(0), testing::Us(5), testing::Us(10), testing::Us(100));
  Trace t = tb.Build();
  t.metadata.path = "run.json";
  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, {});
  ASSERT_TRUE(ra.ok());
  const uint64_t before = ra->input.diagnostics.Count(DiagCode::kSnapshotMissingField);
  ApplyMemorySnapshot(std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(b.s)), *ra);
  EXPECT_EQ(ra->input.diagnostics.Count(DiagCode::kSnapshotMissingField), before + 3);
  EXPECT_EQ(ra->input.diagnostics.entries().at("snapshot_unknown_block_state").first_message,
            "snap.pickle: block state 'teleported'");
}

TEST(MemorySnapshotAnalysis, FrameFilterIsTheMemoryVizs) {
  EXPECT_FALSE(KeepFrame("torch::unwind::unwind()", "??"));
  EXPECT_FALSE(KeepFrame("_PyEval_EvalFrameDefault", "bytecodes.c"));
  EXPECT_FALSE(KeepFrame("cfunction_call", "/usr/src/python/Objects/methodobject.c"));
  EXPECT_FALSE(KeepFrame("wrapper_CUDA__empty", "/pytorch/build/aten/src/ATen/RegisterCUDA.cpp"));
  EXPECT_TRUE(KeepFrame("forward", "/home/u/model.py"));
  EXPECT_TRUE(KeepFrame("at::autocast::cached_cast(c10::ScalarType, at::Tensor const&)", ""));
}

// Stranded free memory fires memory_fragmentation; the same free memory in wholly free
// segments (the cache) does not.
TEST(MemorySnapshotAnalysis, FragmentationIsFreeMemoryBetweenLiveBlocks) {
  Builder stranded;
  // 3 segments of 300 MiB, each [live 60 MiB asked 59 MiB][free 240 MiB]: 720 MiB of 900 stranded.
  for (uint64_t i = 0; i < 3; ++i)
    stranded.Segment((i + 1) << 32, {Block(60 * kMiB, 59 * kMiB, BlockState::kActiveAllocated), Block(240 * kMiB, 240 * kMiB, BlockState::kInactive)});
  const MemorySnapshotResult r = AnalyzeMemorySnapshot(stranded.s);
  // Hand sums: reserved 900 MiB; allocated 3 x 59 MiB; internal 3 x 1 MiB; external 3 x 240 MiB.
  EXPECT_EQ(r.reserved_bytes, 900 * kMiB);
  EXPECT_EQ(r.allocated_bytes, static_cast<int64_t>(177 * kMiB));
  EXPECT_EQ(r.free_internal_bytes, static_cast<int64_t>(3 * kMiB));
  EXPECT_EQ(r.free_external_bytes, static_cast<int64_t>(720 * kMiB));
  EXPECT_EQ(r.free_in_used_segments_bytes, static_cast<int64_t>(720 * kMiB));
  EXPECT_EQ(r.largest_free_block_bytes, 240 * kMiB);
  ASSERT_EQ(r.segment_groups.size(), 1u);
  EXPECT_EQ(r.segment_groups[0].count, 3u);
  // segsum's page map of a 300 MiB segment: 15 pages of 20 MiB, the first 3 taken by block 'a'.
  EXPECT_EQ(r.segments[0].page_map, "aaa            ");
  RankAnalysis ra = SnapshotAloneRank(stranded.s);
  const Finding* f = FindingOf(ra, "memory_fragmentation");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("expandable_segments:True"), std::string::npos);
  EXPECT_EQ(FieldNumber(f->evidence, "free_external_in_used_segments_bytes"), static_cast<double>(720 * kMiB));
  const ChecklistItem* item = ItemOf(ra, "memory_fragmentation");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->source, "measured (allocator snapshot)");
  EXPECT_EQ(item->status, CheckStatus::kFail);
  EXPECT_EQ(FindingOf(ra, "no_gpu_activity_recorded"), nullptr);

  Builder cached;  // one live segment, full; three wholly free ones: cache, not fragmentation
  cached.Segment(1ull << 32, {Block(60 * kMiB, 59 * kMiB, BlockState::kActiveAllocated)});
  for (uint64_t i = 0; i < 3; ++i) cached.Segment((i + 2) << 32, {Block(240 * kMiB, 240 * kMiB, BlockState::kInactive)});
  RankAnalysis ok = SnapshotAloneRank(cached.s);
  EXPECT_EQ(FindingOf(ok, "memory_fragmentation"), nullptr);
  EXPECT_EQ(ItemOf(ok, "memory_fragmentation")->status, CheckStatus::kPass);
  EXPECT_EQ(ok.memory_snapshot->free_in_empty_segments_bytes, static_cast<int64_t>(720 * kMiB));
}

// The timeline: peak, sites at the peak, cast copies, steps from ProfilerStep annotations,
// segment churn in steady state, OOM.
TEST(MemorySnapshotAnalysis, TimelinePeakSitesCastsChurnAndOom) {
  Builder b;
  const int32_t embed = b.Frames({{"??", 0, "torch::unwind::unwind()"}, {"/srv/net/embed.py", 7, "lookup"}});
  const int32_t attn = b.Frames({{"/srv/net/attn.py", 88, "scores"}});
  const int32_t cast = b.Frames({{"", 0, "at::autocast::cached_cast(c10::ScalarType, at::Tensor const&)"}, {"/srv/net/attn.py", 80, "proj"}});
  const uint64_t A = 1ull << 40;
  b.Segment(A, {Block(512 * kMiB, 500 * kMiB, BlockState::kActiveAllocated)});
  int64_t t = 100;
  // step 0: warm-up, step 1 and 2: each frees a segment (empty_cache) and allocates it again.
  for (int step = 0; step < 3; ++step) {
    b.Annotate("ProfilerStep#" + std::to_string(step), true, t);
    b.Event(SnapshotAction::kSegmentAlloc, A + (1ull << 30), 256 * kMiB, t + 1);
    b.Event(SnapshotAction::kAlloc, A + 1000, 100 * kMiB, t + 2, embed);
    b.Event(SnapshotAction::kAlloc, A + 2000, 30 * kMiB, t + 3, cast);
    b.Event(SnapshotAction::kAlloc, A + 3000, 70 * kMiB, t + 4, attn);
    b.Event(SnapshotAction::kFreeCompleted, A + 1000, 100 * kMiB, t + 5);
    b.Event(SnapshotAction::kFreeCompleted, A + 2000, 30 * kMiB, t + 6);
    b.Event(SnapshotAction::kFreeCompleted, A + 3000, 70 * kMiB, t + 7);
    b.Event(SnapshotAction::kSegmentFree, A + (1ull << 30), 256 * kMiB, t + 8);
    b.Annotate("ProfilerStep#" + std::to_string(step), false, t + 9);
    t += 10;
  }
  b.Event(SnapshotAction::kAlloc, A, 500 * kMiB, t);  // the block still live at the dump
  SnapshotEvent oom;
  oom.action = SnapshotAction::kOom;
  oom.size = 3000 * kMiB;
  oom.device_free = 12 * kMiB;
  oom.time_us = t + 1;
  b.s.events.push_back(oom);
  const MemorySnapshotResult r = AnalyzeMemorySnapshot(b.s);
  // Peak: 100 + 30 + 70 = 200 MiB live in step 0 (the first to reach it), before the last alloc of
  // 500 MiB, which is then the peak: 500 MiB at t = 130.
  ASSERT_TRUE(r.peak_live_bytes.has_value());
  EXPECT_EQ(*r.peak_live_bytes, 500 * kMiB);
  EXPECT_EQ(r.peak_time_us, 130);
  EXPECT_EQ(r.baseline_live_bytes, 0u);
  EXPECT_EQ(r.step_source, "profiler_step");
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steady_steps, 2u);
  EXPECT_EQ(r.steady_segment_frees, 2u);
  EXPECT_EQ(r.steady_segment_allocs, 2u);
  EXPECT_EQ(r.autocast_cast_bytes, 3 * 30 * kMiB);
  EXPECT_EQ(r.autocast_cast_allocs, 3u);
  ASSERT_EQ(r.oom_events.size(), 1u);
  EXPECT_EQ(r.oom_events[0].requested_bytes, 3000 * kMiB);
  EXPECT_EQ(r.oom_events[0].live_bytes, 500 * kMiB);
  EXPECT_EQ(r.oom_events[0].reserved_bytes, 512 * kMiB);  // what the segments hold at the dump
  // Sites at the peak: one line of <no stack> (the 500 MiB alloc has no frames).
  ASSERT_FALSE(r.top_sites.empty());
  EXPECT_EQ(r.top_sites[0].label(), "<no stack>");
  RankAnalysis ra = SnapshotAloneRank(b.s);
  EXPECT_NE(FindingOf(ra, "allocator_churn"), nullptr);
  EXPECT_NE(FindingOf(ra, "oom"), nullptr);
  EXPECT_EQ(FindingOf(ra, "peak_from_one_site"), nullptr);  // not a Python line
  EXPECT_EQ(FindingOf(ra, "autocast_cast_memory"), nullptr);  // no cast copy live at the peak
  for (const Finding& f : ra.findings) EXPECT_EQ(f.est_saving_pct, 0.0) << f.id;  // memory, not time
}

TEST(MemorySnapshotAnalysis, PeakFromOneSiteAndCastMemory) {
  Builder b;
  const int32_t big = b.Frames({{"/opt/app/loss.py", 12, "logits"}});
  const int32_t cast = b.Frames({{"", 0, "at::autocast::cached_cast(c10::ScalarType, at::Tensor const&)"}, {"/opt/app/mlp.py", 3, "up"}});
  b.Segment(1ull << 36, {Block(1024 * kMiB, 1024 * kMiB, BlockState::kInactive)});
  b.Event(SnapshotAction::kAlloc, 1, 80 * kMiB, 10, cast);
  b.Event(SnapshotAction::kAlloc, 2, 300 * kMiB, 11, big);
  b.Event(SnapshotAction::kFreeCompleted, 2, 300 * kMiB, 12);
  b.Event(SnapshotAction::kFreeCompleted, 1, 80 * kMiB, 13);
  const MemorySnapshotResult r = AnalyzeMemorySnapshot(b.s);
  EXPECT_EQ(r.peak_live_bytes, 380 * kMiB);
  ASSERT_EQ(r.top_sites.size(), 2u);
  EXPECT_EQ(r.top_sites[0].label(), "loss.py:12:logits");
  EXPECT_NEAR(r.top_sites[0].pct_of_peak, 100.0 * 300 / 380, 1e-9);
  EXPECT_EQ(r.autocast_cast_live_at_peak_bytes, 80 * kMiB);
  EXPECT_EQ(r.step_source, "none");
  EXPECT_FALSE(r.steady_segment_frees.has_value());
  RankAnalysis ra = SnapshotAloneRank(b.s);
  const Finding* one = FindingOf(ra, "peak_from_one_site");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(FieldString(one->evidence, "site"), "loss.py:12:logits");
  EXPECT_NE(FindingOf(ra, "autocast_cast_memory"), nullptr);
  EXPECT_EQ(FindingOf(ra, "allocator_churn"), nullptr);
  EXPECT_EQ(FindingOf(ra, "oom"), nullptr);
}

// The shared snapshots: the peak and the cast copies were computed with Python's pickle module
// and MemoryViz's rule (alloc adds its size, free_completed takes it away; cast copies: allocs
// whose stack has at::autocast::cached_cast); the top site with _memory_viz.py's _frame_filter.
TEST(MemorySnapshotAnalysis, SharedSnapshots) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  struct Golden {
    const char* path;
    uint64_t peak, cast_bytes, cast_allocs, cast_live_at_peak;
    const char* top_site;
    uint64_t top_site_bytes;
    int64_t peak_time_us;
  };
  const Golden goldens[] = {
      {"traces/memory/fwdbwd_bf16_autocast.pickle", 977167528, 982519680, 155, 126791680, "functional.py:407:einsum", 213711360, 1762926170914845},
      {"traces/memory/fwdbwd_fp32.pickle", 1229753640, 0, 0, 0, "softmax.py:14:forward", 307712000, 1762924152917988},
  };
  for (const Golden& g : goldens) {
    SCOPED_TRACE(g.path);
    StatusOr<MemorySnapshot> s = ReadMemorySnapshot(testing::SharedPath(g.path));
    ASSERT_TRUE(s.ok()) << s.status().message();
    const MemorySnapshotResult r = AnalyzeMemorySnapshot(*s);
    EXPECT_EQ(r.peak_live_bytes, g.peak);
    EXPECT_EQ(r.peak_time_us, g.peak_time_us);
    EXPECT_EQ(r.baseline_live_bytes, 0u);  // the trace starts before every live block
    EXPECT_EQ(r.autocast_cast_bytes, g.cast_bytes);
    EXPECT_EQ(r.autocast_cast_allocs, g.cast_allocs);
    EXPECT_EQ(r.autocast_cast_live_at_peak_bytes, g.cast_live_at_peak);
    ASSERT_FALSE(r.top_sites.empty());
    EXPECT_EQ(r.top_sites[0].label(), g.top_site);
    EXPECT_EQ(r.top_sites[0].bytes, g.top_site_bytes);
    // 3 optimizer steps (external annotations): 1 segment_alloc in the two after the first, no frees.
    EXPECT_EQ(r.step_source, "optimizer_step");
    EXPECT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.steady_segment_allocs, 1u);
    EXPECT_EQ(r.steady_segment_frees, 0u);
    // Of the free external memory, most is wholly free segments (the cache): bf16 641,728,512 in
    // 28 segments, fp32 799,014,912 in 29 (summed with Python over segments without an active block).
    EXPECT_EQ(r.free_in_empty_segments_bytes + r.free_in_used_segments_bytes, r.free_external_bytes);
    RankAnalysis ra = SnapshotAloneRank(*s);
    // What fires: the cast copies under bf16 autocast (13% of the peak), nothing else: the
    // free memory between live blocks is 11% / 9% of reserved, no segment is freed, no OOM,
    // no line holds half the peak.
    EXPECT_EQ(FindingOf(ra, "autocast_cast_memory") != nullptr, g.cast_live_at_peak > 0);
    EXPECT_EQ(FindingOf(ra, "memory_fragmentation"), nullptr);
    EXPECT_EQ(FindingOf(ra, "allocator_churn"), nullptr);
    EXPECT_EQ(FindingOf(ra, "oom"), nullptr);
    EXPECT_EQ(FindingOf(ra, "peak_from_one_site"), nullptr);
    EXPECT_EQ(ItemOf(ra, "memory_fragmentation")->source, "measured (allocator snapshot)");
  }
}

// Beside a trace (built here: three steps of GEMMs on an A100): the snapshot's finding joins the
// trace's, warns data_locality, and the checklist item keeps the trace's own evidence.
TEST(MemorySnapshotAnalysis, BesideABuiltTrace) {
  testing::TraceBuilder tb;
  using testing::Us;
  tb.AddA100();
  for (int step = 0; step < 3; ++step) {
    const TimeNs t = Us(1000.0 * step);
    tb.AddRange("ProfilerStep#" + std::to_string(step), t, t + Us(900));
    for (int k = 0; k < 4; ++k)
      tb.LaunchKernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", t + Us(10 + 200 * k), Us(5), t + Us(20 + 200 * k),
                      t + Us(190 + 200 * k));
  }
  StatusOr<RankAnalysis> ra = AnalyzeTrace(tb.Build(), {});
  ASSERT_TRUE(ra.ok());
  Builder b;  // 2 segments of 600 MiB, each [live 100 MiB][free 500 MiB]: 1000 of 1200 MiB stranded
  for (uint64_t i = 0; i < 2; ++i)
    b.Segment((i + 7) << 32, {Block(100 * kMiB, 100 * kMiB, BlockState::kActiveAllocated), Block(500 * kMiB, 500 * kMiB, BlockState::kInactive)});
  ApplyMemorySnapshot(std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(b.s)), *ra);
  ASSERT_NE(FindingOf(*ra, "memory_fragmentation"), nullptr);
  for (const DimensionResult& d : ra->matrix) {
    if (d.id != "data_locality") continue;
    EXPECT_NE(d.status, DimensionStatus::kGood);
    EXPECT_NE(std::find(d.findings.begin(), d.findings.end(), "memory_fragmentation"), d.findings.end());
  }
  const ChecklistItem* item = ItemOf(*ra, "memory_fragmentation");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->status, CheckStatus::kFail);
  EXPECT_EQ(item->source, "measured (allocator snapshot)");
  EXPECT_NE(item->evidence.find("; trace: "), std::string::npos) << item->evidence;
  EXPECT_NEAR(*item->value, 100.0 * 1000 / 1200, 0.01);
}

}  // namespace
}  // namespace memory_snapshot_analysis_test
}  // namespace ampscope

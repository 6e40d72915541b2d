// Unit tests of the diagnosis rules on small hand-built traces: each [heur] threshold of
// analyzers/diagnosis/diagnosis.h is tested on both sides, with the expected numbers worked out by hand
// in the comments. The full pipeline (core analyzers + precision + diagnosis) runs on them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "diagnosis_builder.h"
#include "support/trace_builder.h"
#include "trace/model.h"

namespace ampscope {
namespace diagnosis_test {
namespace {

using namespace diagnosis;

using namespace diagnosis_test;

// ---------------------------------------------------------------------------------------
// Shape of the output

TEST(Diagnosis, MatrixAndChecklistHaveEveryEntryInDesignOrder) {
  TraceBuilder b;
  b.Step(1, 0, 1000);
  b.Run(kTcGemm, 10, 9, 100);
  RankAnalysis ra = b.Analyze();
  ASSERT_EQ(ra.matrix.size(), 5u);
  const char* dims[] = {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality", "task_parallelism"};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(ra.matrix[i].id, dims[i]);
  ASSERT_EQ(ra.checklist.size(), 7u);
  const char* items[] = {"tensor_core_utilization", "autocast_coverage", "grad_scaler", "kernel_fusion",
                         "data_pipeline", "distributed_sync", "memory_fragmentation"};
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(ra.checklist[i].id, items[i]);
}

TEST(Diagnosis, EmptyTraceIsUnknownWithHowToKnow) {
  TraceBuilder b;
  RankAnalysis ra = b.Analyze();
  EXPECT_EQ(Check(ra, "tensor_core_utilization").status, CheckStatus::kUnknown);
  EXPECT_FALSE(Check(ra, "tensor_core_utilization").how_to_know.empty());
  EXPECT_EQ(Dim(ra, "compute_intensity").status, DimensionStatus::kUnknown);
  EXPECT_FALSE(Dim(ra, "compute_intensity").headline.value.has_value());
  // Nothing measured is not "nothing to fix" (issue 12): the one finding says so.
  ASSERT_EQ(ra.findings.size(), 1u);
  EXPECT_EQ(ra.findings.front().id, "no_gpu_activity_recorded");
}

// ---------------------------------------------------------------------------------------
// Tensor Cores: pass >= 70% [proj], fail < 35% [heur]

// One step of 1000 µs: `tc_us` of fp16 GEMM then (900 - tc_us) of layer norm kernels.
RankAnalysis TcMix(double tc_us) {
  TraceBuilder b;
  b.Step(1, 0, 1000);
  double t = b.Run(kTcGemm, 10, 1, tc_us, 0);
  b.Run(kLayerNorm, t, 1, 900 - tc_us, 0);
  return b.Analyze();
}

TEST(Diagnosis, TensorCoreUtilizationThresholds) {
  EXPECT_EQ(Check(TcMix(72 * 9), "tensor_core_utilization").status, CheckStatus::kPass);  // 72%
  EXPECT_EQ(Check(TcMix(68 * 9), "tensor_core_utilization").status, CheckStatus::kWarn);  // 68%
  EXPECT_EQ(Check(TcMix(37 * 9), "tensor_core_utilization").status, CheckStatus::kWarn);  // 37%
  EXPECT_EQ(Check(TcMix(33 * 9), "tensor_core_utilization").status, CheckStatus::kFail);  // 33%
  EXPECT_EQ(Dim(TcMix(72 * 9), "compute_intensity").status, DimensionStatus::kGood);
  EXPECT_EQ(Dim(TcMix(50 * 9), "compute_intensity").status, DimensionStatus::kWarn);
  EXPECT_EQ(Dim(TcMix(20 * 9), "compute_intensity").status, DimensionStatus::kBad);
  EXPECT_NEAR(*Check(TcMix(72 * 9), "tensor_core_utilization").value, 72.0, 0.5);
}

TEST(Diagnosis, AmpNotInUseWhenGemmsRunOnCudaCores) {
  // A GPU-bound step on an A100: both kernels launched at the start (CPU range [0, 20) µs), a
  // 600 µs fp32 sgemm [10, 610) and a 300 µs layer norm [610, 910): the step lasts 910 µs.
  // The AMP transform (docs/whatif.md): the sgemm has no op shapes and the trace no fp16 matmul
  // to measure the efficiency, so it gains the peak ratio 19.5 / 312 times the efficiency ratio
  // 0.7 / 0.5 (600 x 0.0875 = 52.5 µs) but at most the typical 3x: 200 µs; the layer norm (no op:
  // not one autocast keeps in fp32) moves half the bytes: 150 µs. Replayed, the step ends at
  // 10 + 200 + 150 = 360 µs: a saving of 550 / 910 = 60.44%.
  TraceBuilder b;
  b.Step(1, 0, 20);
  b.Kernel(kSgemm, 1, 10, 600);
  b.Kernel(kLayerNorm, 5, 610, 300);
  RankAnalysis ra = b.Analyze();
  const Finding* f = FindFinding(ra, "amp_not_in_use");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 550 / 910, 0.01);
  EXPECT_EQ(f->severity, FindingSeverity::kCritical);
  EXPECT_NEAR(FieldNumber(f->evidence, "kernel_time_per_step_us").value(), 900, 1e-6);
  EXPECT_NEAR(FieldNumber(f->evidence, "whatif_kernel_time_per_step_us").value(), 350, 1e-6);
  EXPECT_EQ(Check(ra, "tensor_core_utilization").status, CheckStatus::kFail);
  EXPECT_EQ(Check(ra, "autocast_coverage").status, CheckStatus::kFail);
  EXPECT_EQ(ra.findings.front().id, "amp_not_in_use");
}

TEST(Diagnosis, Fp32SimtGemmShareBothSides) {
  // GEMM time 1000 µs of which 9% (no finding) or 11% (finding) is sgemm, both launched at the
  // start of a GPU-bound step (CPU range [0, 20) µs): fp16 GEMM [10, 10 + 1000 - simt), sgemm after it.
  for (double simt : {90.0, 110.0}) {
    TraceBuilder b;
    b.Step(1, 0, 20);
    b.Kernel(kTcGemm, 1, 10, 1000 - simt);
    b.Kernel(kSgemm, 5, 10 + 1000 - simt, simt);
    RankAnalysis ra = b.Analyze();
    const Finding* f = FindFinding(ra, "fp32_gemm_outside_autocast");
    if (simt < 100) {
      EXPECT_EQ(f, nullptr);
      EXPECT_NE(Check(ra, "autocast_coverage").status, CheckStatus::kFail);
    } else {
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(Check(ra, "autocast_coverage").status, CheckStatus::kFail);
      // Replayed with the sgemm at fp16 Tensor Core speed (no shapes: the peak ratio 19.5/312
      // times the efficiency ratio 0.7/0.5 would be 110 x 0.0875 = 9.625 µs, but no fp16 matmul
      // with shapes measures the efficiency, so at most the typical 3x: 36.667 µs), the step
      // (1010 µs) ends 73.333 µs sooner: 7.26%.
      EXPECT_NEAR(f->est_saving_pct, 100.0 * (110 - 110 / 3.0) / 1010, 0.01);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Host-device syncs: > 1 per step beyond GradScaler's [heur]

// Two steps; each has `syncs` .item()-like syncs (D2H to pageable + stream sync) after a
// 200 µs GEMM; after each sync the host runs 100 µs of Python before launching the next GEMM.
// Per sync (GEMM launched at t, ends at e = t + 205): D2H copy on the GPU [e+2, e+4], sync
// point [t+10, e+9], next launch at e+109, its kernel starts at e+114: a 110 µs host_wait gap
// opened inside the sync. A step is 10 + 314 * syncs + 100 + 8 µs long.
double SyncStepUs(int syncs) { return 10 + 314.0 * syncs + 108; }
RankAnalysis SyncSteps(int syncs, bool scaler_first) {
  TraceBuilder b;
  const double len = SyncStepUs(syncs);
  for (int s = 0; s < 2; ++s) {
    const double base = s * len;
    b.Step(s, base, base + len);
    double t = base + 10;
    for (int i = 0; i < syncs; ++i) {
      // GEMM 200 µs launched at t, then the host waits for it.
      b.Kernel(i == 0 && scaler_first ? kUnscale : kTcGemm, t, t + 5, 200);
      const double end = t + 205;
      b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 4, t + 10, end + 6, end + 2, 2);
      b.Api("cudaStreamSynchronize", end + 7, end + 9);
      t = end + 109;  // 100 µs of Python before the next launch
    }
    b.Run(kTcGemm, t, 1, 100);
  }
  return b.Analyze();
}

TEST(Diagnosis, HostSyncThresholdBothSides) {
  // 1 sync per step beyond none: not flagged.
  EXPECT_EQ(FindFinding(SyncSteps(1, false), "host_device_sync"), nullptr);
  // 2 per step beyond GradScaler's (3 with the scaler's first): flagged.
  RankAnalysis ra = SyncSteps(3, true);
  const Finding* f = FindFinding(ra, "host_device_sync");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "syncs_per_step_beyond_scaler").value(), 2.0, 1e-9);
  EXPECT_EQ(FieldNumber(f->evidence, "grad_scaler_syncs").value(), 2);
  // 3 per step with the first being GradScaler's = 2 beyond: flagged; 2 per step with the
  // first GradScaler's = 1 beyond: not flagged.
  EXPECT_EQ(FindFinding(SyncSteps(2, true), "host_device_sync"), nullptr);
  EXPECT_NE(FindFinding(SyncSteps(2, false), "host_device_sync"), nullptr);
}

TEST(Diagnosis, HostSyncSavingIsTheIdleItOpened) {
  // Per step (1060 µs, two steps): 3 x (launch [t, t+3) -> GEMM [t+5, t+205); the blocking D2H
  // call [t+10, t+211) and its copy [t+207, t+209); cudaStreamSynchronize [t+212, t+214); 100 µs of
  // Python), t = 10, 324, 638; then a launch at 947 -> GEMM [952, 1052); the CPU range ends at 1060.
  // Replayed without the sync points' calls: the host runs 10 + 3 x 111 + 95 + 3 + 110 = 451 µs
  // per step; the GPU queues the GEMMs behind each other (each copy 2 µs after its GEMM, as
  // measured): step 1 ends with its last GEMM at 627 + 100 = 727. Step 2 starts there (its CPU
  // start, 451, is earlier) and its GPU work runs back to back from 727: it ends at 1439.
  // Saving (2120 - 1439) / 2120 = 32.12%.
  RankAnalysis ra = SyncSteps(3, false);
  const Finding* f = FindFinding(ra, "host_device_sync");
  ASSERT_NE(f, nullptr);
  const double idle = FieldNumber(f->evidence, "idle_after_syncs_pct").value();
  EXPECT_NEAR(idle, 100.0 * 325 / SyncStepUs(3), 0.01);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * (2120 - 1439) / 2120.0, 0.01);
  EXPECT_EQ(f->severity, FindingSeverity::kCritical);
  EXPECT_EQ(ra.findings.front().id, "host_device_sync");
}

// ---------------------------------------------------------------------------------------
// Saving ladder: < 0.5% nothing, < 3% info, < 15% warning, >= 15% critical [heur]

TEST(Diagnosis, LayoutTransformThresholdAndSeverityLadder) {
  // A GPU-bound step (CPU range [0, 20) µs, each kernel launched at its start): transposes of
  // `t` µs [10, 10 + t), a 1000 µs conv, a 730 µs layer norm; the step ends at 1740 + t. Transposes
  // of 40 µs (4% of conv: no finding), 50 µs (5% exactly: none), 60 µs (6%: a finding).
  // Replayed without the transposes: the conv starts as soon as its launch (5 µs) plus the trace's
  // launch latency (9 µs, the 5th percentile of start - launch) allow, at 14 µs: the step ends
  // t - 4 µs sooner. 56 / 1800 = 3.11% -> warning; with t = 52: 48 / 1792 = 2.68% -> info.
  auto run = [](double transpose_us) {
    TraceBuilder b;
    b.Step(1, 0, 20);
    b.Kernel(kNchwToNhwc, 1, 10, transpose_us);
    b.Kernel(kConv, 5, 10 + transpose_us, 1000);
    b.Kernel(kLayerNorm, 9, 1010 + transpose_us, 730);
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(40), "layout_transforms"), nullptr);
  EXPECT_EQ(FindFinding(run(50), "layout_transforms"), nullptr);
  const RankAnalysis ra = run(60);
  const Finding* f = FindFinding(ra, "layout_transforms");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 56 / 1800, 0.01);
  EXPECT_EQ(f->severity, FindingSeverity::kWarning);
  EXPECT_EQ(Dim(ra, "data_locality").status, DimensionStatus::kWarn);
  const RankAnalysis ra2 = run(52);
  ASSERT_NE(FindFinding(ra2, "layout_transforms"), nullptr);
  EXPECT_NEAR(FindFinding(ra2, "layout_transforms")->est_saving_pct, 100.0 * 48 / 1792, 0.01);
  EXPECT_EQ(FindFinding(ra2, "layout_transforms")->severity, FindingSeverity::kInfo);
  EXPECT_EQ(Dim(ra2, "data_locality").status, DimensionStatus::kGood);
}

// ---------------------------------------------------------------------------------------
// Fusion: runs of >= 3 memory-bound kernels [proj]

TEST(Diagnosis, ElementwiseChainsOfThreeButNotTwo) {
  // GEMM, then a run of `n` 100 µs adds, then GEMM; repeated 4 times; kernels 1 µs apart from
  // 10 µs on, all launched at the start of the step (3 µs launches from 1 µs; CPU range [0, 60)),
  // so the step is GPU-bound: with n = 3 it ends with the last GEMM at 10 + 4 x 404 + 100 = 1726.
  auto run = [](int n) {
    TraceBuilder b;
    b.Step(1, 0, 60);
    double t = 10, launch = 1;
    auto kernel = [&](const char* name) {
      b.Kernel(name, launch, t, 100);
      launch += 3;
      t += 101;
    };
    for (int r = 0; r < 4; ++r) {
      kernel(kTcGemm);
      for (int i = 0; i < n; ++i) kernel(kAdd);
    }
    kernel(kTcGemm);
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(2), "unfused_elementwise_chains"), nullptr);
  RankAnalysis ra = run(3);
  const Finding* f = FindFinding(ra, "unfused_elementwise_chains");
  ASSERT_NE(f, nullptr);
  // Each chain fused into one kernel of its longest member's time (no op shapes, so no bytes):
  // 3 x 100 - 100 = 200 µs less, the 1 µs gaps kept; 4 chains = 800 µs of 1726 = 46.35%.
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 800 / 1726, 0.01);
  EXPECT_EQ(Check(ra, "kernel_fusion").status, CheckStatus::kFail);
  EXPECT_EQ(Dim(ra, "memory_bandwidth").status, DimensionStatus::kBad);
}

TEST(Diagnosis, UnfusedOptimizerNeedsManyPerParameterKernels) {
  // Optimizer.step range with `n` per-parameter add kernels of 5 µs launched every 15 µs.
  auto run = [](int n, bool foreach) {
    TraceBuilder b;
    b.Step(1, 0, 3000);
    b.Run(kTcGemm, 10, 1, 1000);
    b.AddRange("Optimizer.step#AdamW.step", 1100, 1100 + 15.0 * n + 20);
    for (int i = 0; i < n; ++i) {
      const double l = 1110 + 15.0 * i;
      b.Kernel(foreach ? kForeach : kAdd, l, l + 5, 5);
    }
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(31, false), "unfused_optimizer"), nullptr);
  EXPECT_EQ(FindFinding(run(64, true), "unfused_optimizer"), nullptr);  // multi_tensor_apply: fused
  RankAnalysis ra = run(64, false);
  const Finding* f = FindFinding(ra, "unfused_optimizer");
  ASSERT_NE(f, nullptr);
  // Replayed as one multi-tensor launch: the 64 launch calls (3 µs) and the 63 stretches of 12 µs
  // of host time between them go, the rest of the host's step stays: 948 µs of 3000 = 31.6%.
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 948 / 3000, 0.01);
  EXPECT_EQ(Check(ra, "kernel_fusion").status, CheckStatus::kFail);
}

// ---------------------------------------------------------------------------------------
// Task parallelism: busy >= 80 good [heur], < 50 bad [nsys]/[kineto]

TEST(Diagnosis, BusyThresholdsForTaskParallelism) {
  auto run = [](double busy_us) {
    TraceBuilder b;
    b.Step(1, 0, 1000);
    b.Run(kTcGemm, 0, 1, busy_us, 0);
    return b.Analyze();
  };
  EXPECT_EQ(Dim(run(810), "task_parallelism").status, DimensionStatus::kGood);
  EXPECT_EQ(Dim(run(790), "task_parallelism").status, DimensionStatus::kWarn);
  EXPECT_EQ(Dim(run(510), "task_parallelism").status, DimensionStatus::kWarn);
  EXPECT_EQ(Dim(run(490), "task_parallelism").status, DimensionStatus::kBad);
  EXPECT_NEAR(*Dim(run(810), "task_parallelism").headline.value, 81.0, 0.01);
}

TEST(Diagnosis, LaunchBoundNeedsSmallKernelsAndLowUtilization) {
  // `n` kernels of `dur` µs launched every `period` µs in a 2000 µs step.
  auto run = [](double dur, int n, double period) {
    TraceBuilder b;
    b.Step(1, 0, 2000);
    for (int i = 0; i < n; ++i) {
      const double l = 5 + period * i;
      b.Kernel(kAdd, l, l + 4, dur);
    }
    return b.Analyze();
  };
  // 5 µs kernels every 20 µs: 100% under 10 µs, busy 25% -> launch-bound.
  RankAnalysis ra = run(5, 100, 20);
  const Finding* f = FindFinding(ra, "launch_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Dim(ra, "instruction_efficiency").status, DimensionStatus::kBad);
  // idle between launches: 2000 - 500 busy, minus the leading 9 µs (no launch yet counts too)
  EXPECT_GT(f->est_saving_pct, 70.0);
  EXPECT_LE(f->est_saving_pct, 75.0);
  // 12 µs kernels every 30 µs: none under 10 µs, busy 60 * 12 / 2000 = 36% -> not launch-bound,
  // low utilization instead.
  RankAnalysis ra2 = run(12, 60, 30);
  EXPECT_EQ(FindFinding(ra2, "launch_bound"), nullptr);
  EXPECT_NE(FindFinding(ra2, "low_gpu_utilization"), nullptr);
}

// ---------------------------------------------------------------------------------------
// Data pipeline: DataLoader > 5% of step [kineto]

TEST(Diagnosis, DataLoaderShareBothSides) {
  // A 2000 µs step starting with a DataLoader range of `dl` µs while the GPU is idle; the
  // first kernel is launched 5 µs after the range ends (a runtime call inside the range would
  // take precedence over it, as in the plugin's breakdown).
  auto run = [](double dl) {
    TraceBuilder b;
    b.Step(1, 0, 2000);
    b.AddRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, dl);
    b.Run(kTcGemm, dl + 10, 1, 2000 - dl - 20, 0);
    return b.Analyze();
  };
  RankAnalysis low = run(90);  // 4.5%
  EXPECT_EQ(FindFinding(low, "dataloader_bottleneck"), nullptr);
  EXPECT_EQ(Check(low, "data_pipeline").status, CheckStatus::kPass);
  RankAnalysis high = run(110);  // 5.5%
  const Finding* f = FindFinding(high, "dataloader_bottleneck");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 5.5, 0.01);
  EXPECT_EQ(Check(high, "data_pipeline").status, CheckStatus::kFail);
  EXPECT_NEAR(*Check(high, "data_pipeline").value, 5.5, 0.01);
}

TEST(Diagnosis, IdleAtStepStartWithoutDataLoaderRange) {
  auto run = [](double idle) {
    TraceBuilder b;
    b.Step(1, 0, 2000);
    b.Run(kTcGemm, idle - 5, 1, 2000 - idle - 10, 0);
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(90), "gpu_idle_at_step_start"), nullptr);   // 4.5%
  const RankAnalysis ra = run(110);                                     // 5.5%
  ASSERT_NE(FindFinding(ra, "gpu_idle_at_step_start"), nullptr);
  EXPECT_EQ(Check(ra, "data_pipeline").status, CheckStatus::kFail);
}

TEST(Diagnosis, PageableCopiesAreAlwaysReported) {
  // One 16 MB pageable H2D copy of 2500 µs (its call [815, 3320) blocks the host); a pinned
  // 16 MB copy in the same trace ran at 16 MB / 800 µs = 20.97 GB/s. Replayed with the pageable
  // copy pinned: it takes 800 µs [815, 1615) and its call returns at once, so the GEMM behind it
  // on the stream runs [1620, 8220) (5 µs after the copy, as measured) and the host's last 6680 µs
  // end at 7495: the step ends at 8220 instead of 10000, 17.8% sooner.
  TraceBuilder b;
  b.Step(1, 0, 10000);
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 16 << 20, 5, 12, 10, 800);
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 16 << 20, 815, 3320, 815, 2500);
  b.Run(kTcGemm, 3320, 1, 6600);
  RankAnalysis ra = b.Analyze();
  const Finding* f = FindFinding(ra, "pageable_h2d_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 17.8, 0.01);
  EXPECT_EQ(Check(ra, "data_pipeline").status, CheckStatus::kWarn);
}

// ---------------------------------------------------------------------------------------
// GradScaler

// `n` steps of 1000 µs from step number `first`: unscale + update kernels each step, an
// Optimizer.step range with a foreach kernel unless the step is in `skipped`.
RankAnalysis ScalerSteps(int first, int n, const std::vector<int>& skipped, bool scaler = true, const char* gemm = kTcGemm) {
  TraceBuilder b;
  for (int i = 0; i < n; ++i) {
    const double base = 1000.0 * i;
    b.Step(first + i, base, base + 1000);
    double t = b.Run(gemm, base + 5, 1, 500);
    if (scaler) t = b.Run(kUnscale, t, 1, 20);
    if (std::find(skipped.begin(), skipped.end(), first + i) == skipped.end()) {
      b.AddRange("Optimizer.step#AdamW.step", t - 5, t + 40);
      t = b.Run(kForeach, t, 1, 30);
    }
    if (scaler) b.Run(kUpdate, t, 1, 2);
  }
  return b.Analyze();
}

TEST(Diagnosis, GradScalerSkipsAtStartMeanInitScaleTooHigh) {
  // Steps 0..1 skipped (2 = kStartSkipsMin): flagged; only step 0 skipped: not an init-scale problem.
  RankAnalysis ra = ScalerSteps(0, 6, {0, 1});
  const Finding* f = FindFinding(ra, "grad_scaler_init_scale_too_high");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FieldNumber(f->evidence, "inferred_scale_factor_too_high").value(), 4.0);
  EXPECT_EQ(Check(ra, "grad_scaler").status, CheckStatus::kFail);
  EXPECT_EQ(FindFinding(ScalerSteps(0, 6, {0}), "grad_scaler_init_scale_too_high"), nullptr);
  // The same skips late in training (steps 100, 101) are steady-state skips instead.
  RankAnalysis late = ScalerSteps(100, 6, {100, 101});
  EXPECT_EQ(FindFinding(late, "grad_scaler_init_scale_too_high"), nullptr);
  EXPECT_NE(FindFinding(late, "grad_scaler_skipped_steps"), nullptr);
}

TEST(Diagnosis, GradScalerSkipRateAfterWarmup) {
  // 120 steps after warm-up with one skip = 0.83% (<= 1%: pass); two skips = 1.67%: flagged.
  RankAnalysis one = ScalerSteps(20, 120, {50});
  EXPECT_EQ(FindFinding(one, "grad_scaler_skipped_steps"), nullptr);
  EXPECT_EQ(Check(one, "grad_scaler").status, CheckStatus::kPass);
  RankAnalysis two = ScalerSteps(20, 120, {50, 70});
  const Finding* f = FindFinding(two, "grad_scaler_skipped_steps");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "skip_rate_pct").value(), 1.67, 0.01);
  // Two wasted 1000 µs steps out of 120: 1.67% of the window.
  EXPECT_NEAR(f->est_saving_pct, 1.67, 0.01);
  EXPECT_EQ(Check(two, "grad_scaler").status, CheckStatus::kFail);
}

TEST(Diagnosis, Fp16WithoutScalerAndBf16WithScaler) {
  RankAnalysis no_scaler = ScalerSteps(20, 3, {}, /*scaler=*/false);
  ASSERT_NE(FindFinding(no_scaler, "fp16_without_grad_scaler"), nullptr);
  EXPECT_EQ(Check(no_scaler, "grad_scaler").status, CheckStatus::kFail);
  const char* bf16 = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn";
  RankAnalysis bf = ScalerSteps(20, 3, {}, /*scaler=*/true, bf16);
  const Finding* f = FindFinding(bf, "grad_scaler_with_bf16");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kInfo);
  EXPECT_EQ(Check(bf, "grad_scaler").status, CheckStatus::kPass);
  RankAnalysis bf_plain = ScalerSteps(20, 3, {}, /*scaler=*/false, bf16);
  EXPECT_EQ(Check(bf_plain, "grad_scaler").status, CheckStatus::kNotApplicable);
}

// ---------------------------------------------------------------------------------------
// Distributed: overlap < 50% and exposed >= 5% [heur]; communication > 10% [kineto]

RankAnalysis CommStep(double comm_us, double overlapped_us) {
  TraceBuilder b;
  b.trace().metadata.world_size = 2;
  b.Step(1, 0, 20);
  // compute 0..1500; the all-reduce ends at 1500 + (comm - overlapped); both launched at the
  // start, so the step ends with the GPU work.
  b.Kernel(kTcGemm, 0, 0, 1500);
  const double start = 1500 - overlapped_us;
  b.Kernel(kNccl, 5, start, comm_us, 20);
  return b.Analyze();
}

TEST(Diagnosis, ExposedCommunicationBothSides) {
  // 300 µs all-reduce: 100 overlapped (33%), 200 exposed = 11.8% of the 1700 µs step -> fail.
  // Replayed with full overlap (the all-reduce takes no time): the step ends with the compute
  // at 1500, 200 µs sooner.
  RankAnalysis bad = CommStep(300, 100);
  const Finding* f = FindFinding(bad, "exposed_communication");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 200 / 1700, 0.01);
  EXPECT_EQ(Check(bad, "distributed_sync").status, CheckStatus::kFail);
  // 300 µs with 290 overlapped (97%): exposed 10 / 1510 = 0.7% -> pass; communication 20% -> info "heavy".
  RankAnalysis good = CommStep(300, 290);
  EXPECT_EQ(FindFinding(good, "exposed_communication"), nullptr);
  EXPECT_NE(FindFinding(good, "communication_heavy"), nullptr);
  EXPECT_EQ(Check(good, "distributed_sync").status, CheckStatus::kWarn);
  // 150 µs, 140 overlapped: 9.9% comm, exposed 0.7%: pass.
  EXPECT_EQ(Check(CommStep(150, 140), "distributed_sync").status, CheckStatus::kPass);
  // Single process, no NCCL: not applicable.
  EXPECT_EQ(Check(TcMix(800), "distributed_sync").status, CheckStatus::kNotApplicable);
  // World size 2 but no communication kernel recorded: unknown, and unknown has no value (a 0%
  // would read as "nothing exposed").
  TraceBuilder b;
  b.trace().metadata.world_size = 2;
  b.Step(1, 0, 20);
  b.Kernel(kTcGemm, 0, 0, 1500);
  const RankAnalysis no_comm = b.Analyze();
  const ChecklistItem& unknown = Check(no_comm, "distributed_sync");
  EXPECT_EQ(unknown.status, CheckStatus::kUnknown);
  EXPECT_FALSE(unknown.value.has_value()) << *unknown.value;
}

// ---------------------------------------------------------------------------------------
// Memory: peak > 90% [kineto], fragmentation >= 30% and >= 1 GiB [heur], churn after warm-up

TEST(Diagnosis, MemoryPeakAndFragmentation) {
  auto run = [](double peak_frac, double reserved_frac) {
    TraceBuilder b;
    b.Step(1, 0, 1000);
    b.Run(kTcGemm, 5, 1, 900);
    const double cap = 84990623744.0;
    b.Memory(10, static_cast<int64_t>(peak_frac * cap), static_cast<int64_t>(reserved_frac * cap));
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(0.89, 0.89), "memory_peak_near_capacity"), nullptr);
  RankAnalysis peak = run(0.91, 0.91);
  ASSERT_NE(FindFinding(peak, "memory_peak_near_capacity"), nullptr);
  EXPECT_EQ(Check(peak, "memory_fragmentation").status, CheckStatus::kFail);
  // Reserved 0.50, allocated 0.36: 28% unallocated -> none; allocated 0.34: 32% -> info (reserved not near capacity).
  EXPECT_EQ(FindFinding(run(0.36, 0.50), "allocator_fragmentation"), nullptr);
  const RankAnalysis frag = run(0.34, 0.50);
  ASSERT_NE(FindFinding(frag, "allocator_fragmentation"), nullptr);
  EXPECT_EQ(FindFinding(frag, "allocator_fragmentation")->severity, FindingSeverity::kInfo);
  EXPECT_EQ(Check(frag, "memory_fragmentation").status, CheckStatus::kWarn);
  // Near capacity: the rule's warning, but without a time saving a finding is info (issue 12:
  // a warning carries a saving); the item fails and data_locality warns instead.
  const RankAnalysis near = run(0.55, 0.93);
  EXPECT_EQ(FindFinding(near, "allocator_fragmentation")->severity, FindingSeverity::kInfo);
  EXPECT_EQ(Check(near, "memory_fragmentation").status, CheckStatus::kFail);
  EXPECT_EQ(Dim(near, "data_locality").status, DimensionStatus::kWarn);
}

TEST(Diagnosis, AllocationCallsInTheFirstStepAreWarmup) {
  auto run = [](bool in_second_step) {
    TraceBuilder b;
    b.Step(1, 0, 1000);
    b.Step(2, 1000, 2000);
    b.Run(kTcGemm, 5, 1, 900);
    b.Run(kTcGemm, 1005, 1, 900);
    b.Api("cudaMalloc", in_second_step ? 1500 : 500, in_second_step ? 1550 : 550);
    return b.Analyze();
  };
  EXPECT_EQ(FindFinding(run(false), "allocation_churn"), nullptr);
  EXPECT_EQ(Check(run(false), "memory_fragmentation").status, CheckStatus::kPass);
  ASSERT_NE(FindFinding(run(true), "allocation_churn"), nullptr);
}

TEST(Diagnosis, UnknownMemoryStatusSaysHowToKnow) {
  // Kernels but no runtime calls and no [memory] events.
  TraceBuilder b;
  b.Step(1, 0, 1000);
  KernelEvent k;
  k.start_ns = 10'000;
  k.end_ns = 900'000;
  k.name = b.trace().strings.Intern(kTcGemm);
  k.device = 0;
  k.stream = 7;
  b.trace().kernels.push_back(k);
  RankAnalysis ra = b.Analyze();
  const ChecklistItem& m = Check(ra, "memory_fragmentation");
  EXPECT_EQ(m.status, CheckStatus::kUnknown);
  EXPECT_NE(m.how_to_know.find("profile_memory=True"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// GEMM efficiency: < 30% of peak on GEMMs of >= 1 GFLOP [heur]

// A GPU-bound step (CPU range [0, 10) µs): aten::mm's GEMM [10, 10 + dur) and an unattributed
// GEMM of the same length [20 + dur, 20 + 2 dur), both launched at the start (the second after the op).
RankAnalysis GemmCall(int64_t m, int64_t n, int64_t k, double dur_us) {
  TraceBuilder b;
  b.Step(1, 0, 10);
  const std::string dims = "[[" + std::to_string(m) + "," + std::to_string(k) + "],[" + std::to_string(k) + "," + std::to_string(n) + "]]";
  b.Op("aten::mm", 1, 6, "[\"c10::Half\",\"c10::Half\"]", dims, 77);
  b.Kernel(kTcGemm, 2, 10, dur_us);
  b.trace().kernels.back().external_id = 77;
  b.Kernel(kTcGemm, 7, 20 + dur_us, dur_us);  // launched after the op
  return b.Analyze();
}

TEST(Diagnosis, LowGemmTflopsBothSides) {
  // 4096^3: 2*4096^3 = 137.4 GFLOP. At 312 TFLOP/s peak, 31% takes 1421 µs; 29% takes 1519 µs.
  EXPECT_EQ(FindFinding(GemmCall(4096, 4096, 4096, 1421), "low_gemm_tflops"), nullptr);
  RankAnalysis low = GemmCall(4096, 4096, 4096, 1519);
  const Finding* f = FindFinding(low, "low_gemm_tflops");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "large_gemm_efficiency_pct").value(), 29.0, 0.1);
  // Replayed at the 30% target: 1519 x 28.997 / 30 = 1468.2 µs, 50.8 µs sooner, and the GEMM
  // behind it follows: 50.8 µs of the 3058 µs step = 1.66%.
  EXPECT_NEAR(f->est_saving_pct, 100.0 * (1519 - 1519 * (2.0 * 4096.0 * 4096 * 4096 / 1519e-6 / 312e12) / 0.30) / 3058, 0.01);
  // Small GEMMs (< 1 GFLOP) are never judged: 512^3 = 0.27 GFLOP at 1% of peak.
  RankAnalysis small = GemmCall(512, 512, 512, 900);
  EXPECT_EQ(FindFinding(small, "low_gemm_tflops"), nullptr);
  EXPECT_TRUE(FieldIsNull(Dim(small, "compute_intensity").metrics, "large_gemm_efficiency_pct"));
}

TEST(Diagnosis, GemmEfficiencyUnknownWithoutShapes) {
  RankAnalysis ra = TcMix(800);
  const DimensionResult& d = Dim(ra, "compute_intensity");
  EXPECT_TRUE(FieldIsNull(d.metrics, "large_gemm_efficiency_pct"));
  EXPECT_NE(FieldString(d.metrics, "large_gemm_efficiency_unavailable").value_or("").find("record_shapes=True"), std::string::npos);
  EXPECT_NE(FieldString(d.metrics, "tensor_active_unavailable").value_or("").find("--tensor-metrics"), std::string::npos);
}

// The cause of a slow GEMM, from the roofline's per-op rows (issue 14). By hand on the A100
// SXM4 80 GB (shared/reference/gpu_peaks.tsv: 312 TFLOP/s fp16 dense, 2039 GB/s HBM; 108 SMs):
// ridge point 312 / 2.039 = 153 FLOP/byte.
RankAnalysis HalfMm(const std::string& dims, double dur_us) {
  TraceBuilder b;
  b.Step(1, 0, 10);  // GPU-bound: both GEMMs launched at the start
  b.Op("aten::mm", 1, 6, "[\"c10::Half\",\"c10::Half\"]", dims, 77);
  b.Kernel(kTcGemm, 2, 10, dur_us);
  b.trace().kernels.back().external_id = 77;
  b.Kernel(kTcGemm, 7, 20 + dur_us, dur_us);  // launched after the op
  return b.Analyze();
}

// The first record of an evidence list (gemms, calls).
const FieldList& FirstRecord(const Finding& f, const char* key) {
  static const FieldList kNone;
  const Field* list = FindField(f.evidence, key);
  if (list == nullptr || !std::holds_alternative<std::vector<FieldList>>(list->value)) return kNone;
  const auto& records = std::get<std::vector<FieldList>>(list->value);
  return records.empty() ? kNone : records[0];
}

std::string GemmCause(const RankAnalysis& ra) {
  const Finding* f = FindFinding(ra, "low_gemm_tflops");
  if (f == nullptr) return "no finding";
  return FieldString(FirstRecord(*f, "gemms"), "cause").value_or("no cause");
}

TEST(Diagnosis, SlowGemmCauses) {
  // 4095 x 4096 x 4096: 137.4 GFLOP, 100.6 MB -> 1365 FLOP/B (compute-bound); in 2000 µs
  // 68.7 TFLOP/s = 22% of 312. M is not a multiple of 8.
  RankAnalysis mis = HalfMm("[[4095,4096],[4096,4096]]", 2000);
  EXPECT_EQ(GemmCause(mis), "misaligned");
  const FieldList& shape = FirstRecord(*FindFinding(mis, "low_gemm_tflops"), "gemms");
  ASSERT_NE(FindField(shape, "dims_multiple_of_8"), nullptr);
  EXPECT_EQ(std::get<bool>(FindField(shape, "dims_multiple_of_8")->value), false);
  EXPECT_NEAR(FieldNumber(shape, "efficiency_pct").value_or(-1), 22.0, 0.1);
  EXPECT_NE(FindFinding(mis, "low_gemm_tflops")->recommendation.find("multiples of 8"), std::string::npos);
  // 8 x 8192 x 8192: 1.074 GFLOP over 134.5 MB = 7.98 FLOP/B, below the ridge: attainable
  // 7.98 x 2.039 = 16.3 TFLOP/s; in 400 µs 2.68 TFLOP/s = 16.5% of attainable.
  RankAnalysis mem = HalfMm("[[8,8192],[8192,8192]]", 400);
  EXPECT_EQ(GemmCause(mem), "memory_bound");
  EXPECT_NEAR(FieldNumber(FirstRecord(*FindFinding(mem, "low_gemm_tflops"), "gemms"), "efficiency_pct").value_or(-1), 16.5, 0.1);
  // 1024 x 16384 x 1024: 34.36 GFLOP, 496 FLOP/B (compute-bound); 8 x 8 = 64 output tiles of
  // 128 x 128 for 108 SMs; in 600 µs 57.3 TFLOP/s = 18.4%.
  RankAnalysis tiles = HalfMm("[[1024,16384],[16384,1024]]", 600);
  EXPECT_EQ(GemmCause(tiles), "too_few_tiles");
  EXPECT_NE(FindFinding(tiles, "low_gemm_tflops")->recommendation.find("108 SMs"), std::string::npos);
  // The same shape at 40% (258 µs) is not low.
  EXPECT_EQ(GemmCause(HalfMm("[[1024,16384],[16384,1024]]", 258)), "no finding");
}

// Attention through scaled_dot_product_attention: which kernel the dispatcher chose.
RankAnalysis Attention(const std::string& op, int cc_major, double dur_us) {
  TraceBuilder b;
  if (cc_major != 8) {
    Device& d = b.trace().devices[0];
    d.name = "Tesla V100-SXM2-32GB";
    d.cc_major = cc_major;
    d.sm_count = 80;
    d.total_memory_bytes = 34'089'730'048;
  }
  b.Step(1, 0, 10);  // GPU-bound: both kernels launched at the start
  const std::string q = "[8,16,1024,64]";
  b.Op(op, 1, 6, "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]", "[" + q + "," + q + "," + q + "]", 91);
  b.Kernel("fmha_cutlassF_f16_aligned_64x64_rf_sm80", 2, 10, dur_us);
  b.trace().kernels.back().external_id = 91;
  b.Kernel(kTcGemm, 7, 20 + dur_us, dur_us);
  return b.Analyze();
}

TEST(Diagnosis, AttentionNotOnAFlashKernel) {
  // The math path (N x N scores in eager ops) on an A100: 1000 µs of a 2020 µs GPU-bound step;
  // flash is taken as 2x faster [heur]: replayed, the attention takes 500 µs and the GEMM behind
  // it follows, so the step ends 500 µs sooner: 24.75%.
  RankAnalysis math = Attention("aten::_scaled_dot_product_attention_math", 8, 1000);
  const Finding* f = FindFinding(math, "attention_not_flash");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 500 / 2020, 0.01);
  EXPECT_EQ(FieldString(FirstRecord(*f, "calls"), "implementation").value_or(""), "math");
  ASSERT_NE(FindField(f->evidence, "flash_available"), nullptr);
  EXPECT_EQ(std::get<bool>(FindField(f->evidence, "flash_available")->value), true);
  // Memory-efficient attention with fp16 inputs on sm80, where flash exists: a finding.
  const RankAnalysis efficient = Attention("aten::_scaled_dot_product_efficient_attention", 8, 1000);
  f = FindFinding(efficient, "attention_not_flash");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("is_causal=True"), std::string::npos);
  // On a V100 (sm70) memory-efficient attention is the fused choice: nothing to say.
  EXPECT_EQ(FindFinding(Attention("aten::_scaled_dot_product_efficient_attention", 7, 1000), "attention_not_flash"), nullptr);
  // On sm70 the math path is still worth moving off, with the right advice for the GPU.
  const RankAnalysis math_sm70 = Attention("aten::_scaled_dot_product_attention_math", 7, 1000);
  f = FindFinding(math_sm70, "attention_not_flash");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("needs sm80 or newer"), std::string::npos);
  // Flash itself: no finding.
  EXPECT_EQ(FindFinding(Attention("aten::_scaled_dot_product_flash_attention", 8, 1000), "attention_not_flash"), nullptr);
}

// ---------------------------------------------------------------------------------------
// Memory-bound vs GEMM time: > 1 warn, > 2 bad [heur]

TEST(Diagnosis, MemoryBoundVersusGemmTime) {
  auto run = [](double gemm, double mem) {
    TraceBuilder b;
    b.Step(1, 0, 2000);
    double t = b.Run(kTcGemm, 5, 1, gemm, 0);
    b.Run(kLayerNorm, t, 1, mem, 0);
    return b.Analyze();
  };
  EXPECT_EQ(Dim(run(900, 850), "memory_bandwidth").status, DimensionStatus::kGood);
  EXPECT_EQ(Dim(run(850, 900), "memory_bandwidth").status, DimensionStatus::kWarn);
  EXPECT_EQ(Dim(run(600, 1190), "memory_bandwidth").status, DimensionStatus::kWarn);
  EXPECT_EQ(Dim(run(590, 1200), "memory_bandwidth").status, DimensionStatus::kBad);
}

// ---------------------------------------------------------------------------------------
// Ranking

TEST(Diagnosis, FindingsAreRankedBySaving) {
  RankAnalysis ra = SyncSteps(3, false);
  for (size_t i = 1; i < ra.findings.size(); ++i) EXPECT_GE(ra.findings[i - 1].est_saving_pct, ra.findings[i].est_saving_pct);
}

// ---------------------------------------------------------------------------------------
// GPU peak table

TEST(GpuPeaks, DeviceNamesMapToTableRows) {
  // Names as CUDA reports them (deviceProperties in the shared traces and NVIDIA docs).
  struct Case {
    const char* name;
    const char* row;
  } cases[] = {{"NVIDIA A100-SXM4-80GB", "A100-80GB-SXM4"}, {"NVIDIA A100-SXM4-40GB", "A100-40GB-SXM4"},
               {"NVIDIA A100 80GB PCIe", "A100-80GB-PCIe"}, {"Tesla V100-DGXS-32GB", "V100-SXM2-16/32GB"},
               {"Tesla V100-SXM2-32GB", "V100-SXM2-16/32GB"}, {"Tesla V100-PCIE-16GB", "V100-PCIe"},
               {"NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"}, {"NVIDIA H100 PCIe", "H100-PCIe-80GB"},
               {"NVIDIA H200", "H200-SXM-141GB"}, {"NVIDIA L4", "L4-24GB"}, {"NVIDIA GeForce RTX 4090", "RTX-4090"},
               {"Tesla T4", "T4-16GB"}, {"a100-80gb-sxm4", "A100-80GB-SXM4"}};
  for (const Case& c : cases) {
    const GpuPeak* p = LookupGpuPeak(c.name);
    ASSERT_NE(p, nullptr) << c.name;
    EXPECT_EQ(p->id, c.row) << c.name;
  }
  // Names of parts that are not in the table (the L40S and MI250X now are: gpu_peaks_test.cc).
  EXPECT_EQ(LookupGpuPeak("NVIDIA A10G"), nullptr);
  EXPECT_EQ(LookupGpuPeak("AMD Instinct MI100"), nullptr);
  // Values from shared/reference/gpu_peaks.tsv.
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA A100-SXM4-80GB")->fp16_tflops, 312);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA A100-SXM4-80GB")->hbm_gbs, 2039);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("Tesla V100-DGXS-32GB")->fp32_tflops, 15.7);
  EXPECT_FALSE(LookupGpuPeak("Tesla V100-DGXS-32GB")->bf16);
}

TEST(GpuPeaks, ParsesTheSharedTableFormat) {
  const std::string tsv =
      "# comment\n"
      "gpu\tfp16_bf16_tc_dense\ttf32_tc_dense\tfp32_simt\thbm_gbs\tnvlink_gbs\tpcie\tverified\tsource\n"
      "V100-PCIe\t112\tn/a\t14\t900\tn/a\tGen3 32\tD\tx\n"
      "RTX-4090\t165.2 (fp32-acc); 330.3 (fp16-acc)\t82.6\t82.6\t1008\tn/a\tGen4 64\tY\tx\n";
  auto rows = ParseGpuPeaksTsv(tsv, "t.tsv");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows.value().size(), 2u);
  EXPECT_DOUBLE_EQ(rows.value()[0].tf32_tflops, 0);
  EXPECT_DOUBLE_EQ(rows.value()[0].pcie_gbs, 32);
  EXPECT_DOUBLE_EQ(rows.value()[1].fp16_tflops, 165.2);
  EXPECT_FALSE(ParseGpuPeaksTsv("gpu\tx\nA\t1\t2\n", "bad.tsv").ok());
}

}  // namespace
}  // namespace diagnosis_test
}  // namespace ampscope

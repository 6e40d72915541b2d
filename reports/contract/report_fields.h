// The report's fields that several readers share (gate, diff, the validator, render), as JSON
// pointers, declared once. Their meaning is docs/report_schema.md; the writer is
// reports/json_report.cc. A reader names a field through these, never by a literal of its own.
#pragma once

namespace ampscope::report_field {

inline constexpr const char kSchema[] = "/schema";
inline constexpr const char kToolVersion[] = "/tool/version";
inline constexpr const char kEnvironmentDriver[] = "/environment/driver";
inline constexpr const char kEnvironment[] = "/environment";
inline constexpr const char kGateMetrics[] = "/gate_metrics";
inline constexpr const char kChecklist[] = "/checklist";
inline constexpr const char kFindings[] = "/findings";
inline constexpr const char kKernelsTop[] = "/kernels/top";
inline constexpr const char kRanks[] = "/ranks";
inline constexpr const char kJobRanks[] = "/job/ranks";
inline constexpr const char kJobDefinitions[] = "/job/definitions";

inline constexpr const char kStepCount[] = "/steps/count";
inline constexpr const char kStepDurationsUs[] = "/steps/durations_us";
inline constexpr const char kStepWindows[] = "/steps/windows";
inline constexpr const char kStepPerStep[] = "/steps/per_step";
inline constexpr const char kStepTimeMeanUs[] = "/steps/time_us/mean";
inline constexpr const char kStepTimeMedianUs[] = "/steps/time_us/median";
inline constexpr const char kStepTimeP90Us[] = "/steps/time_us/p90";

inline constexpr const char kGpuActivityRecorded[] = "/gpu/activity_recorded";
inline constexpr const char kGpuBusyPct[] = "/gpu/busy_pct";
inline constexpr const char kGpuKernelBusyPct[] = "/gpu/kernel_busy_pct";
inline constexpr const char kGpuIdlePct[] = "/gpu/idle_pct";
inline constexpr const char kGpuIdleHostWaitPct[] = "/gpu/idle_breakdown_pct/host_wait";
inline constexpr const char kGpuIdleKernelWaitPct[] = "/gpu/idle_breakdown_pct/kernel_wait";
inline constexpr const char kGpuIdleOtherPct[] = "/gpu/idle_breakdown_pct/other";
inline constexpr const char kKernelTimeByCategoryUs[] = "/gpu/kernel_time_by_category_us";
inline constexpr const char kKernelTimeByCategoryPct[] = "/gpu/kernel_time_by_category_pct";
inline constexpr const char kKernelTimeByPrecisionPct[] = "/gpu/kernel_time_by_precision_pct";

inline constexpr const char kTensorCoreKernelTimePct[] = "/tensor_cores/kernel_time_pct";
inline constexpr const char kTensorCoreActivePct[] = "/tensor_cores/active_pct";
inline constexpr const char kTensorCoreSource[] = "/tensor_cores/source";

inline constexpr const char kMatrix[] = "/matrix";

}  // namespace ampscope::report_field

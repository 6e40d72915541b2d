// The finding catalogue (see catalog.h). Adding a finding = one row here, one section in
// docs/findings.md. Row order breaks ranking ties.
#include "analyzers/diagnosis/catalog.h"

#include <iterator>

#include "base/status.h"

namespace ampscope::diagnosis {
namespace {

using S = SeverityRule;
using V = SavingKind;
constexpr CatalogEntry kCatalog[] = {
    // id                                  dimension                 checklist                  severity           saving      docs anchor
    // Raised by analyzers/integrity/ when the analysed window is itself a cold start.
    {"cold_start_profiled",               "",                       "",                        S::kProfileWarning, V::kNone, "findings.md#cold_start_profiled"},
    {"amp_not_in_use",                    "compute_intensity",      "tensor_core_utilization", S::kAtLeastWarning, V::kBusy, "findings.md#amp_not_in_use"},
    {"host_device_sync",                  "task_parallelism",       "",                        S::kBySaving,       V::kIdle, "findings.md#host_device_sync"},
    {"dataloader_bottleneck",             "task_parallelism",       "data_pipeline",           S::kAtLeastWarning, V::kIdle, "findings.md#dataloader_bottleneck"},
    {"gpu_idle_at_step_start",            "task_parallelism",       "data_pipeline",           S::kBySaving,       V::kIdle, "findings.md#gpu_idle_at_step_start"},
    {"exposed_communication",             "task_parallelism",       "distributed_sync",        S::kBySaving,       V::kBusy, "findings.md#exposed_communication"},
    {"queued_work_stalled",               "task_parallelism",       "",                        S::kBySaving,       V::kIdle, "findings.md#queued_work_stalled"},
    {"launch_bound",                      "instruction_efficiency", "",                        S::kAtLeastWarning, V::kIdle, "findings.md#launch_bound"},
    {"fp32_gemm_outside_autocast",        "compute_intensity",      "autocast_coverage",       S::kAtLeastWarning, V::kBusy, "findings.md#fp32_gemm_outside_autocast"},
    {"low_gemm_tflops",                   "compute_intensity",      "tensor_core_utilization", S::kBySaving,       V::kBusy, "findings.md#low_gemm_tflops"},
    {"attention_not_flash",               "memory_bandwidth",       "",                        S::kBySaving,       V::kBusy, "findings.md#attention_not_flash"},
    {"eager_attention",                   "memory_bandwidth",       "kernel_fusion",           S::kBySaving,       V::kBusy, "findings.md#eager_attention"},
    {"unfused_elementwise_chains",        "memory_bandwidth",       "kernel_fusion",           S::kBySaving,       V::kBusy, "findings.md#unfused_elementwise_chains"},
    {"unfused_optimizer",                 "instruction_efficiency", "kernel_fusion",           S::kBySaving,       V::kIdle, "findings.md#unfused_optimizer"},
    // foreach is PyTorch's default and a healthy step: fused=True is advice, never a warning.
    {"optimizer_not_fused",               "instruction_efficiency", "",                        S::kInfo,           V::kBusy, "findings.md#optimizer_not_fused"},
    {"optimizer_step_dominates",          "instruction_efficiency", "",                        S::kAtLeastWarning, V::kIdle, "findings.md#optimizer_step_dominates"},
    {"device_to_device_copies",           "memory_bandwidth",       "",                        S::kBySaving,       V::kBusy, "findings.md#device_to_device_copies"},
    {"layout_transforms",                 "data_locality",          "",                        S::kBySaving,       V::kBusy, "findings.md#layout_transforms"},
    {"pageable_h2d_copies",               "memory_bandwidth",       "data_pipeline",           S::kBySaving,       V::kIdle, "findings.md#pageable_h2d_copies"},
    {"allocation_churn",                  "data_locality",          "memory_fragmentation",    S::kWarningWhen,    V::kIdle, "findings.md#allocation_churn"},
    {"grad_scaler_init_scale_too_high",   "compute_intensity",      "grad_scaler",             S::kAtLeastWarning, V::kStep, "findings.md#grad_scaler_init_scale_too_high"},
    {"grad_scaler_skipped_steps",         "compute_intensity",      "grad_scaler",             S::kAtLeastWarning, V::kStep, "findings.md#grad_scaler_skipped_steps"},
    {"fp16_without_grad_scaler",          "",                       "grad_scaler",             S::kAtLeastWarning, V::kNone, "findings.md#fp16_without_grad_scaler"},
    {"loss_or_norm_in_low_precision",     "",                       "autocast_coverage",       S::kAtLeastWarning, V::kNone, "findings.md#loss_or_norm_in_low_precision"},
    {"grad_scaler_with_bf16",             "",                       "grad_scaler",             S::kInfo,           V::kBusy, "findings.md#grad_scaler_with_bf16"},
    {"cast_overhead",                     "memory_bandwidth",       "autocast_coverage",       S::kBySaving,       V::kBusy, "findings.md#cast_overhead"},
    {"memory_peak_near_capacity",         "data_locality",          "memory_fragmentation",    S::kAtLeastWarning, V::kNone, "findings.md#memory_peak_near_capacity"},
    {"allocator_fragmentation",           "data_locality",          "memory_fragmentation",    S::kWarningWhen,    V::kNone, "findings.md#allocator_fragmentation"},
    {"communication_heavy",               "task_parallelism",       "distributed_sync",        S::kInfo,           V::kBusy, "findings.md#communication_heavy"},
    {"per_parameter_allreduce",           "task_parallelism",       "distributed_sync",        S::kBySaving,       V::kBusy, "findings.md#per_parameter_allreduce"},
    // Raised after the replay (pipeline_rules.cc): the host is the bottleneck and no finding explains it.
    {"host_bound",                        "task_parallelism",       "",                        S::kAtLeastWarning, V::kNone, "findings.md#host_bound"},
    {"low_gpu_utilization",               "task_parallelism",       "",                        S::kAtLeastWarning, V::kIdle, "findings.md#low_gpu_utilization"},
    {"zero_grad_fills",                   "instruction_efficiency", "kernel_fusion",           S::kBySaving,       V::kBusy, "findings.md#zero_grad_fills"},
    {"no_gpu_activity_recorded",          "",                       "",                        S::kInfo,           V::kNone, "findings.md#no_gpu_activity_recorded"},
    // Raised from a PyTorch memory snapshot by analyzers/memory/memory_snapshot_findings.cc (no time saving: they save memory).
    {"oom",                               "",                       "memory_fragmentation",    S::kInfo,           V::kNone, "findings.md#oom"},
    {"memory_fragmentation",              "data_locality",          "memory_fragmentation",    S::kInfo,           V::kNone, "findings.md#memory_fragmentation"},
    {"allocator_churn",                   "data_locality",          "memory_fragmentation",    S::kInfo,           V::kNone, "findings.md#allocator_churn"},
    {"autocast_cast_memory",              "",                       "",                        S::kInfo,           V::kNone, "findings.md#autocast_cast_memory"},
    {"peak_from_one_site",                "",                       "",                        S::kInfo,           V::kNone, "findings.md#peak_from_one_site"},
    // Measured kernel metrics (analyzers/ncu/: an Nsight Compute CSV, alone or with --ncu).
    {"ncu_memory_bound_far_from_roof",    "memory_bandwidth",       "",                        S::kBySaving,       V::kBusy, "findings.md#ncu_memory_bound_far_from_roof"},
    {"ncu_latency_bound",                 "instruction_efficiency", "",                        S::kBySaving,       V::kBusy, "findings.md#ncu_latency_bound"},
    {"ncu_low_occupancy",                 "instruction_efficiency", "",                        S::kInfo,           V::kNone, "findings.md#ncu_low_occupancy"},
    {"ncu_l2_thrash",                     "data_locality",          "",                        S::kWarningWhen,    V::kNone, "findings.md#ncu_l2_thrash"},
    // Raised by consistency.cc when a bad dimension or a failing item has no finding to explain it.
    {"low_tensor_core_share",             "compute_intensity",      "tensor_core_utilization", S::kInfo,           V::kNone, "findings.md#low_tensor_core_share"},
    {"memory_bound_kernels",              "memory_bandwidth",       "",                        S::kInfo,           V::kNone, "findings.md#memory_bound_kernels"},
    {"fp32_eligible_ops",                 "",                       "autocast_coverage",       S::kInfo,           V::kNone, "findings.md#fp32_eligible_ops"},
    // Raised on the job by analyzers/collectives/collectives.cc (the wait one rank causes the others).
    {"straggler",                         "task_parallelism",       "distributed_sync",        S::kBySaving,       V::kIdle, "findings.md#straggler"},
};

}  // namespace

size_t CatalogSize() { return std::size(kCatalog); }
const CatalogEntry& CatalogAt(size_t i) { return kCatalog[i]; }

size_t CatalogOrder(std::string_view id) {
  for (size_t i = 0; i < std::size(kCatalog); ++i)
    if (kCatalog[i].id == id) return i;
  return std::size(kCatalog);
}

const CatalogEntry& CatalogEntryOf(std::string_view id) {
  const size_t i = CatalogOrder(id);
  AMPSCOPE_CHECK(i < std::size(kCatalog));  // every rule's finding id is catalogued
  return kCatalog[i];
}

}  // namespace ampscope::diagnosis

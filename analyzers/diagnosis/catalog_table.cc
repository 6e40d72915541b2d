// The finding catalogue (see catalog.h). Adding a finding = one row here, one section in
// docs/findings.md. Row order breaks ranking ties.
#include "analyzers/diagnosis/catalog.h"

#include <iterator>

#include "base/status.h"

namespace ampscope::diagnosis {
namespace {

using S = SeverityRule;
constexpr CatalogEntry kCatalog[] = {
    // id                                  dimension                 checklist                  severity           docs anchor
    {"amp_not_in_use",                    "compute_intensity",      "tensor_core_utilization", S::kAtLeastWarning, "findings.md#amp_not_in_use"},
    {"host_device_sync",                  "task_parallelism",       "",                        S::kBySaving,       "findings.md#host_device_sync"},
    {"dataloader_bottleneck",             "task_parallelism",       "data_pipeline",           S::kAtLeastWarning, "findings.md#dataloader_bottleneck"},
    {"gpu_idle_at_step_start",            "task_parallelism",       "data_pipeline",           S::kBySaving,       "findings.md#gpu_idle_at_step_start"},
    {"exposed_communication",             "task_parallelism",       "distributed_sync",        S::kBySaving,       "findings.md#exposed_communication"},
    {"launch_bound",                      "instruction_efficiency", "",                        S::kAtLeastWarning, "findings.md#launch_bound"},
    {"fp32_gemm_outside_autocast",        "compute_intensity",      "autocast_coverage",       S::kAtLeastWarning, "findings.md#fp32_gemm_outside_autocast"},
    {"low_gemm_tflops",                   "compute_intensity",      "tensor_core_utilization", S::kBySaving,       "findings.md#low_gemm_tflops"},
    {"attention_not_flash",               "memory_bandwidth",       "",                        S::kBySaving,       "findings.md#attention_not_flash"},
    {"unfused_elementwise_chains",        "memory_bandwidth",       "kernel_fusion",           S::kBySaving,       "findings.md#unfused_elementwise_chains"},
    {"unfused_optimizer",                 "instruction_efficiency", "kernel_fusion",           S::kBySaving,       "findings.md#unfused_optimizer"},
    {"layout_transforms",                 "data_locality",          "",                        S::kBySaving,       "findings.md#layout_transforms"},
    {"pageable_h2d_copies",               "memory_bandwidth",       "data_pipeline",           S::kBySaving,       "findings.md#pageable_h2d_copies"},
    {"allocation_churn",                  "data_locality",          "memory_fragmentation",    S::kWarningWhen,    "findings.md#allocation_churn"},
    {"grad_scaler_init_scale_too_high",   "compute_intensity",      "grad_scaler",             S::kAtLeastWarning, "findings.md#grad_scaler_init_scale_too_high"},
    {"grad_scaler_skipped_steps",         "compute_intensity",      "grad_scaler",             S::kAtLeastWarning, "findings.md#grad_scaler_skipped_steps"},
    {"fp16_without_grad_scaler",          "",                       "grad_scaler",             S::kAtLeastWarning, "findings.md#fp16_without_grad_scaler"},
    {"loss_or_norm_in_low_precision",     "",                       "autocast_coverage",       S::kAtLeastWarning, "findings.md#loss_or_norm_in_low_precision"},
    {"grad_scaler_with_bf16",             "",                       "grad_scaler",             S::kInfo,           "findings.md#grad_scaler_with_bf16"},
    {"cast_overhead",                     "memory_bandwidth",       "autocast_coverage",       S::kBySaving,       "findings.md#cast_overhead"},
    {"memory_peak_near_capacity",         "data_locality",          "memory_fragmentation",    S::kAtLeastWarning, "findings.md#memory_peak_near_capacity"},
    {"allocator_fragmentation",           "data_locality",          "memory_fragmentation",    S::kWarningWhen,    "findings.md#allocator_fragmentation"},
    {"communication_heavy",               "task_parallelism",       "distributed_sync",        S::kInfo,           "findings.md#communication_heavy"},
    {"low_gpu_utilization",               "task_parallelism",       "",                        S::kAtLeastWarning, "findings.md#low_gpu_utilization"},
    {"zero_grad_fills",                   "instruction_efficiency", "kernel_fusion",           S::kBySaving,       "findings.md#zero_grad_fills"},
    {"no_gpu_activity_recorded",          "",                       "",                        S::kInfo,           "findings.md#no_gpu_activity_recorded"},
    // Raised on the job by analyzers/collectives.cc (the wait one rank causes the others).
    {"straggler",                         "task_parallelism",       "distributed_sync",        S::kBySaving,       "findings.md#straggler"},
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

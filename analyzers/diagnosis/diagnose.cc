// Diagnose (diagnosis.h): the facts once, the rule families in order, the matrix last.
#include <algorithm>
#include <cassert>
#include <utility>

#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/diagnosis/rules.h"
#include "analyzers/diagnosis/wording.h"

namespace ampscope {

namespace {

// Why a trace has no GPU activity, from what it does have.
std::string NoGpuActivityCause(const RankContext& context) {
  const Trace& t = context.trace();
  bool launches = false;
  for (size_t i = 0; i < t.api_calls.size() && !launches; ++i) launches = context.api_role(i) == ApiRole::kLaunch;
  if (launches)
    return "kernel launches were recorded but no kernels: CUPTI was not loaded or its activity buffers were lost "
           "(look for profiler warnings in the program's log)";
  if (!t.cpu_ops.empty())
    return "only host activity was profiled: torch.profiler ran with activities=[ProfilerActivity.CPU] (add "
           "ProfilerActivity.CUDA), or the program ran without a CUDA device";
  if (!t.ranges.empty())
    return "only NVTX / user ranges were recorded: CUPTI was not loaded (libcupti not found, or collection disabled), "
           "or the program did no CUDA work";
  return "the trace has no GPU or host activity";
}

// A trace without kernels, copies or memsets: every GPU-based verdict would be a guess ("GPU 0%
// busy", "Data pipeline PASS"). Everything is unknown with the likely cause, except the
// DataLoader's share of the step, which needs no GPU, when DataLoader ranges exist.
void MarkNoGpuActivity(const RankContext& context, RankAnalysis& ra) {
  const std::string cause = NoGpuActivityCause(context);
  // The cause is said once, by the finding; each dimension and item points to it (it was repeated
  // twelve times in the terminal summary).
  const std::string why = "no GPU activity was recorded (the cause: finding no_gpu_activity_recorded)";
  const bool dataloader = !context.host().dataloader.empty();
  std::vector<Finding> kept;
  for (Finding& f : ra.findings)
    if (f.id == "dataloader_bottleneck") kept.push_back(std::move(f));
  ra.findings = std::move(kept);
  diagnosis::FindingSink out(ra.findings);
  Finding& x = out.Add("no_gpu_activity_recorded", 0.0, "No GPU activity was recorded",
                       "The trace has no kernels, copies or memsets, so nothing on the GPU can be judged: " + cause +
                           ". Profile again with GPU activities: torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                           "ProfilerActivity.CUDA]) or ampscope record.");
  x.evidence = {{"kernels", 0, Unit::kCount}, {"cpu_ops", context.trace().cpu_ops.size(), Unit::kCount},
                {"api_calls", context.trace().api_calls.size(), Unit::kCount}, {"ranges", context.trace().ranges.size(), Unit::kCount},
                {"likely_cause", cause}};
  for (DimensionResult& d : ra.matrix) {
    d.status = DimensionStatus::kUnknown;
    d.headline.value.reset();
    d.headline.source = "unavailable: " + why;
    std::vector<std::string> ids;
    for (const std::string& id : d.findings)
      for (const Finding& f : ra.findings)
        if (f.id == id) ids.push_back(id);
    d.findings = ids;
  }
  for (ChecklistItem& c : ra.checklist) {
    std::vector<std::string> ids;
    for (const std::string& id : c.findings)
      for (const Finding& f : ra.findings)
        if (f.id == id) ids.push_back(id);
    c.findings = ids;
    if (c.id == "data_pipeline" && dataloader) continue;
    c.status = CheckStatus::kUnknown;
    c.value.reset();
    c.source = "unavailable";
    c.evidence = why;
    c.how_to_know = "the fix of finding no_gpu_activity_recorded";
  }
  diagnosis::RankFindings(ra.findings);
}

}  // namespace

void Diagnose(const RankContext& context, RankAnalysis& ra) {
  const diagnosis::Facts facts(context, ra);
  Diagnose(facts, ra);
}

void Diagnose(const diagnosis::Facts& in, RankAnalysis& ra, const diagnosis::ExtraRules& extra) {
  using namespace diagnosis;
  assert(&in.ra == &ra && "the facts must be of this analysis");
  const RankContext& context = in.ctx;
  ra.matrix.clear();
  ra.checklist.clear();
  ra.findings.clear();
  FindingSink out(ra.findings);
  Outcomes o;
  o.compute = RuleCompute(in, out);
  RuleGradScaler(in, out);
  RuleEagerAttention(in, out);
  RuleFusion(in, out);
  RuleOptimizer(in, out);
  o.memory_bound = RuleMemoryBound(in, o.compute.amp_not_in_use, out);
  RuleDeviceCopies(in, out);
  RuleDataPipeline(in, out, o.pipeline);
  RuleSyncs(in, out, o.pipeline);
  RuleQueuedStalls(in, out);
  o.comm_overlap_pct = RuleDistributed(in, out);
  // Memory before utilization: the low-utilization rule counts the idle that allocation churn
  // explains.
  o.memory = RuleMemory(in, out);
  RuleLaunchAndUtilization(in, out, o.pipeline);
  if (extra) extra(out);
  ReplaySavings(in, out, ra);
  RuleHostBound(in, out, ra);
  RefreshChecklist(out);
  AssembleMatrix(in, o, out, ra);
  ExplainStatuses(in, o, out, ra);
  RankFindings(ra.findings);
  const Trace& trace = context.trace();
  if (trace.kernels.empty() && trace.memcpys.empty() && trace.memsets.empty()) {
    MarkNoGpuActivity(context, ra);
    double kept = 0;
    for (const Finding& f : ra.findings) kept += f.est_saving_pct;
    ra.joint_saving_pct = std::min(ra.joint_saving_pct, Round(kept, 2));
  }
  // Without steps the unit is the window: no text may say "per step" for "per trace".
  if (ra.steps.steps.empty()) SayWindowNotStep(ra);
}

}  // namespace ampscope

// Diagnose (diagnosis.h): the facts once, the rule families in order, the matrix last.
#include <utility>

#include "analyzers/diagnosis.h"
#include "analyzers/diagnosis/rules.h"

namespace ampscope {

void Diagnose(const RankContext& context, RankAnalysis& ra) {
  using namespace diagnosis;
  ra.matrix.clear();
  ra.checklist.clear();
  ra.findings.clear();
  {
    const Facts in(context, ra);
    FindingSink out(ra.findings);
    Outcomes o;
    o.compute = RuleCompute(in, out);
    RuleGradScaler(in, out);
    RuleFusion(in, out);
    o.memory_bound = RuleMemoryBound(in, o.compute.amp_not_in_use, out);
    RuleDataPipeline(in, out, o.pipeline);
    RuleSyncs(in, out, o.pipeline);
    o.comm_overlap_pct = RuleDistributed(in, out);
    RuleLaunchAndUtilization(in, out, o.pipeline);
    o.memory = RuleMemory(in, out);
    AssembleMatrix(in, o, out, ra);
    RankFindings(ra.findings);
  }
  const Trace& trace = context.trace();
  if (trace.kernels.empty() && trace.memcpys.empty() && trace.memsets.empty()) {
    // A CPU-only run (no CUDA device, or no GPU work): GPU verdicts ("GPU 0% busy") would make
    // a healthy CPU run look broken. Only the host-side input-pipeline check stands (the
    // DataLoader's share of the step needs no GPU); everything else is unknown, with why.
    static const char* kWhy = "no GPU activity was recorded (no CUDA device, or the program did no GPU work)";
    std::vector<Finding> kept;
    for (Finding& f : ra.findings)
      if (f.id == "dataloader_bottleneck") kept.push_back(std::move(f));
    ra.findings = std::move(kept);
    for (DimensionResult& d : ra.matrix) {
      d.status = DimensionStatus::kUnknown;
      d.headline.value.reset();
      d.headline.source = std::string("unavailable: ") + kWhy;
      std::vector<std::string> ids;
      for (const std::string& id : d.findings)
        for (const Finding& f : ra.findings)
          if (f.id == id) ids.push_back(id);
      d.findings = ids;
    }
    for (ChecklistItem& c : ra.checklist) {
      if (c.id == "data_pipeline") continue;
      c.status = CheckStatus::kUnknown;
      c.value.reset();
      c.source = "unavailable";
      c.evidence = kWhy;
      c.how_to_know = "record the program on a machine with a CUDA GPU";
    }
  }
}

}  // namespace ampscope

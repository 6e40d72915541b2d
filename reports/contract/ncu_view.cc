#include "reports/contract/ncu_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = ncu_key;

namespace {

NcuStall ReadStall(const json& s) { return {TextMember(s, key::kReason), NumberMember(s, key::kSharePct)}; }

NcuKernel ReadKernel(const json& k) {
  NcuKernel out;
  out.name = TextMember(k, key::kName);
  out.bound = TextMember(k, key::kBound);
  out.weight_us = NumberMember(k, key::kWeightUs);
  out.sm_throughput_pct = NumberMember(k, key::kSmThroughputPct);
  out.memory_throughput_pct = NumberMember(k, key::kMemoryThroughputPct);
  out.dram_throughput_pct = NumberMember(k, key::kDramThroughputPct);
  out.l2_hit_rate_pct = NumberMember(k, key::kL2HitRatePct);
  out.achieved_occupancy_pct = NumberMember(k, key::kAchievedOccupancyPct);
  out.stall_reasons = ListMember<NcuStall>(k, key::kStallReasons, ReadStall);
  return out;
}

NcuCounter ReadCounter(const json& c) {
  return {TextMember(c, key::kName), TextMember(c, key::kField), NumberMember(c, key::kSamples), NumberMember(c, key::kMean)};
}

}  // namespace

std::optional<NcuView> ReadNcuView(const json& report) {
  const json& n = Member(report, key::kNcu);
  if (!n.is_object()) return std::nullopt;
  NcuView v;
  v.source = TextMember(n, key::kSource);
  v.mode = TextMember(n, key::kMode);
  v.weighting = TextMember(n, key::kWeighting);
  v.file = TextMember(n, key::kFile);
  if (const json& files = Member(n, key::kFiles); files.is_array()) v.files = files.size();
  v.shape = TextMember(n, key::kShape);
  const json& join = Member(n, key::kJoin);
  v.join = {NumberMember(join, key::kTraceKernels), NumberMember(join, key::kTraceKernelsMatched),
            NumberMember(join, key::kKernelTimeCoveredPct)};
  v.kernels = ListMember<NcuKernel>(n, key::kKernels, ReadKernel);
  v.counters = ListMember<NcuCounter>(n, key::kCounters, ReadCounter);
  return v;
}

std::string NcuMode(const json& report) { return TextMember(Member(report, key::kNcu), key::kMode); }

}  // namespace ampscope::reports

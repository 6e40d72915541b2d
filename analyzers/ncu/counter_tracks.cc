// Hardware-counter tracks of a trace (CUPTI PM sampling through torch.profiler, `ampscope record
// --tensor-metrics`, nsys GPU_METRICS): each counter whose name trace/classify's counter roles
// know fills the measured field of its role with its mean over the analysed windows. Samples of
// other devices than the one that ran most of the work are left out when samples name a device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analyzers/ncu/ncu_internal.h"
#include "trace/classify/counter_roles.h"

namespace ampscope::ncu {

namespace {

struct Sum {
  double sum = 0;
  uint64_t n = 0;
  std::string name;
};

}  // namespace

bool MeasureCounterTracks(const RankContext& ctx, NcuResult& r) {
  const Trace& t = ctx.trace();
  if (t.counters.empty() || ctx.windows().empty()) return false;
  std::map<StringId, CounterRole> roles;
  const int32_t main = ctx.busy().main_device;
  std::map<CounterRole, std::map<StringId, Sum>> by_role;
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for (const CounterSample& s : t.counters) {
    auto it = roles.find(s.name);
    if (it == roles.end()) it = roles.emplace(s.name, CounterRoleOf(t.str(s.name))).first;
    if (it->second == CounterRole::kNone || !std::isfinite(s.value)) continue;
    if (s.device >= 0 && s.device != main) continue;
    if (!ctx.InWindows(s.time_ns)) continue;
    Sum& sum = by_role[it->second][s.name];
    sum.sum += s.value;
    ++sum.n;
    sum.name = std::string(t.str(s.name));
    first = std::min(first, s.time_ns);
    last = std::max(last, s.time_ns);
  }
  if (by_role.empty()) return false;
  r.source = "PM sampling";
  r.weighting = "samples over the analysed windows";
  auto mean = [](const std::map<StringId, Sum>& sums, std::string* name, uint64_t* n) {
    // Several names of one role (two spellings of the same metric): the one with most samples.
    const Sum* best = nullptr;
    for (const auto& [id, s] : sums)
      if (best == nullptr || s.n > best->n) best = &s;
    *name = best->name;
    *n = best->n;
    return best->sum / static_cast<double>(best->n);
  };
  // Kernel time inside the sampled span: what the means can speak for.
  double total = 0, covered = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!ctx.kernels().in_window[i]) continue;
    const double d = static_cast<double>(t.kernels[i].duration_ns());
    total += d;
    if (t.kernels[i].start_ns >= first && t.kernels[i].start_ns <= last) covered += d;
  }
  r.counter_coverage_pct = total > 0 ? 100.0 * covered / total : 0;
  r.total_weight_ns = total;
  auto fill = [&](MeasuredValue& m, double value, const std::string& metric) {
    m.value = value;
    m.coverage_pct = r.counter_coverage_pct;
    m.metric = metric;
  };
  for (const auto& [role, sums] : by_role) {
    std::string name;
    uint64_t n = 0;
    const double v = mean(sums, &name, &n);
    r.counters.push_back({name, CounterRoleName(role), n, v});
    switch (role) {
      case CounterRole::kTensorActive: fill(r.measured[static_cast<size_t>(NcuField::kTensorPipeActivePct)], v, name); break;
      case CounterRole::kSmThroughput: fill(r.measured[static_cast<size_t>(NcuField::kSmThroughputPct)], v, name); break;
      case CounterRole::kDramThroughput: fill(r.measured[static_cast<size_t>(NcuField::kDramThroughputPct)], v, name); break;
      case CounterRole::kAchievedOccupancy: fill(r.measured[static_cast<size_t>(NcuField::kAchievedOccupancyPct)], v, name); break;
      case CounterRole::kL1HitRate: fill(r.measured[static_cast<size_t>(NcuField::kL1HitRatePct)], v, name); break;
      case CounterRole::kL2HitRate: fill(r.measured[static_cast<size_t>(NcuField::kL2HitRatePct)], v, name); break;
      case CounterRole::kSmActive: fill(r.sm_active_pct, v, name); break;
      case CounterRole::kDramRead: case CounterRole::kDramWrite: case CounterRole::kNone: break;
    }
  }
  // Read + write bandwidth (nsys reports them apart): their sum is the DRAM throughput.
  MeasuredValue& dram = r.measured[static_cast<size_t>(NcuField::kDramThroughputPct)];
  const auto rd = by_role.find(CounterRole::kDramRead), wr = by_role.find(CounterRole::kDramWrite);
  if (!dram.value && rd != by_role.end() && wr != by_role.end()) {
    std::string rn, wn;
    uint64_t n = 0;
    const double v = mean(rd->second, &rn, &n) + mean(wr->second, &wn, &n);
    fill(dram, v, rn + " + " + wn);
  }
  return true;
}

}  // namespace ampscope::ncu

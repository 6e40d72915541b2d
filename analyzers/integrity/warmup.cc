#include "analyzers/integrity/warmup.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "base/saturating.h"
#include "trace/classify/api_roles.h"

namespace ampscope {

namespace {

template <typename T>
T Median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : static_cast<T>((v[m - 1] + v[m]) / 2);
}

const char* RoleWords(ColdStartRole r) {
  switch (r) {
    case ColdStartRole::kModuleLoad: return "module loading";
    case ColdStartRole::kHandleOrPlan: return "cuDNN/cuBLAS handle and plan creation";
    case ColdStartRole::kContextSetup: return "context and stream-pool setup";
    case ColdStartRole::kPinnedHostAlloc: return "pinned staging buffers";
    default: return "";
  }
}

// The one-time work of step `i` that no later step repeats: of each kind (slow first launches,
// each ColdStartRole, device allocations), what step i did beyond the most any later step did.
// Work that recurs is the run's own (an optimizer step that allocates every 4th step under
// gradient accumulation): a median of later steps would be 0 there and read it as one-time.
TimeNs WorkThatDoesNotRecur(const std::vector<ColdStartWork>& work, size_t i) {
  ColdStartWork most;  // per kind, the most of it in one later step
  for (size_t k = i + 1; k < work.size(); ++k) {
    most.first_launch_ns = std::max(most.first_launch_ns, work[k].first_launch_ns);
    for (size_t r = 1; r < kColdStartRoles; ++r) most.api_ns[r] = std::max(most.api_ns[r], work[k].api_ns[r]);
    most.malloc_ns = std::max(most.malloc_ns, work[k].malloc_ns);
  }
  const ColdStartWork& w = work[i];
  TimeNs excess = std::max<TimeNs>(0, w.first_launch_ns - most.first_launch_ns);
  for (size_t r = 1; r < kColdStartRoles; ++r) SatAccumulate(excess, std::max<TimeNs>(0, w.api_ns[r] - most.api_ns[r]));
  SatAccumulate(excess, std::max<TimeNs>(0, w.malloc_ns - most.malloc_ns));
  return excess;
}

}  // namespace

std::string DurationText(TimeNs ns) {
  const double us = static_cast<double>(ns) / 1e3;
  if (us >= 1e6) return fmt::format("{:.2f} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.1f} ms", us / 1e3);
  return fmt::format("{:.0f} µs", us);
}

TimeNs ColdStartWork::one_time_ns() const {
  TimeNs t = first_launch_ns;
  for (size_t r = 1; r < kColdStartRoles; ++r) SatAccumulate(t, api_ns[r]);
  return t;
}

std::string ColdStartWork::Describe() const {
  std::vector<std::string> parts;
  if (first_launches > 0)
    parts.push_back(first_launches == 1
                        ? fmt::format("1 first kernel launch of {} (lazy module loading)", DurationText(first_launch_max_ns))
                        : fmt::format("{} first kernel launches of {}-{} (lazy module loading)", first_launches,
                                      DurationText(first_launch_min_ns), DurationText(first_launch_max_ns)));
  for (size_t r = 1; r < kColdStartRoles; ++r)
    if (api_calls[r] > 0)
      parts.push_back(fmt::format("{} {} ({} call{})", RoleWords(static_cast<ColdStartRole>(r)), DurationText(api_ns[r]),
                                  api_calls[r], api_calls[r] == 1 ? "" : "s"));
  if (mallocs > 0) parts.push_back(fmt::format("{} device allocation{} {}", mallocs, mallocs == 1 ? "" : "s", DurationText(malloc_ns)));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

ColdStartMeter::ColdStartMeter(const Trace& trace) {
  // The kernel each correlation id launched (its name), to tell a kernel's first launch.
  std::vector<std::pair<int64_t, StringId>> kernel_of;
  kernel_of.reserve(trace.kernels.size());
  for (const KernelEvent& k : trace.kernels)
    if (k.correlation >= 0) kernel_of.emplace_back(k.correlation, k.name);
  std::sort(kernel_of.begin(), kernel_of.end());
  struct NameFacts {
    ApiRole api;
    ColdStartRole role;
  };
  std::unordered_map<StringId, NameFacts> by_name;
  std::vector<uint8_t> launched(trace.strings.size(), 0);
  // api_calls are in start order (FinalizeTrace), so "first" is first in time.
  for (const ApiCall& a : trace.api_calls) {
    auto it = by_name.find(a.name);
    if (it == by_name.end()) {
      const std::string_view n = trace.str(a.name);
      it = by_name.emplace(a.name, NameFacts{ClassifyApi(n), ClassifyColdStartApi(n)}).first;
    }
    const NameFacts& f = it->second;
    if (f.role != ColdStartRole::kNone) {
      calls_.push_back({a.start_ns, a.duration_ns(), Kind::kRole, f.role});
    } else if (f.api == ApiRole::kAlloc) {
      calls_.push_back({a.start_ns, a.duration_ns(), Kind::kMalloc, ColdStartRole::kNone});
    } else if (f.api == ApiRole::kLaunch && a.correlation >= 0) {
      auto k = std::lower_bound(kernel_of.begin(), kernel_of.end(), std::make_pair(a.correlation, StringId{0}));
      if (k == kernel_of.end() || k->first != a.correlation) continue;
      const StringId kernel = k->second;
      if (kernel >= launched.size()) launched.resize(static_cast<size_t>(kernel) + 1, 0);
      const bool first = launched[kernel] == 0;
      launched[kernel] = 1;
      if (first && a.duration_ns() > kSlowFirstLaunchNs)
        calls_.push_back({a.start_ns, a.duration_ns(), Kind::kFirstLaunch, ColdStartRole::kNone});
    }
  }
}

ColdStartWork ColdStartMeter::In(TimeNs start, TimeNs end) const {
  ColdStartWork w;
  auto it = std::lower_bound(calls_.begin(), calls_.end(), start,
                             [](const Call& c, TimeNs t) { return c.start_ns < t; });
  for (; it != calls_.end() && it->start_ns < end; ++it) {
    switch (it->kind) {
      case Kind::kFirstLaunch:
        w.first_launch_min_ns = w.first_launches == 0 ? it->duration_ns : std::min(w.first_launch_min_ns, it->duration_ns);
        w.first_launch_max_ns = std::max(w.first_launch_max_ns, it->duration_ns);
        ++w.first_launches;
        SatAccumulate(w.first_launch_ns, it->duration_ns);
        break;
      case Kind::kMalloc:
        ++w.mallocs;
        SatAccumulate(w.malloc_ns, it->duration_ns);
        break;
      case Kind::kRole:
        ++w.api_calls[static_cast<size_t>(it->role)];
        SatAccumulate(w.api_ns[static_cast<size_t>(it->role)], it->duration_ns);
        break;
      case Kind::kNone: break;
    }
  }
  return w;
}

WarmupVerdict FindWarmupSteps(const std::vector<TimeNs>& durations, const std::vector<ColdStartWork>& work) {
  WarmupVerdict v;
  const size_t n = durations.size();
  if (n < 2) return v;
  const size_t limit = std::max<size_t>(1, n / 2);
  for (size_t i = 0; i < limit; ++i) {
    const std::vector<TimeNs> rest(durations.begin() + static_cast<std::ptrdiff_t>(i) + 1, durations.end());
    const TimeNs med = Median(rest);
    const TimeNs longest = *std::max_element(rest.begin(), rest.end());
    const TimeNs d = durations[i];
    if (med <= 0) break;
    const double ratio = static_cast<double>(d) / static_cast<double>(med);
    const bool much_longer = ratio >= 1.5 && static_cast<double>(d) > 1.2 * static_cast<double>(longest);
    const TimeNs excess_work = i < work.size() ? WorkThatDoesNotRecur(work, i) : 0;
    const bool explained = ratio > 1.1 && d > longest && static_cast<double>(excess_work) >= 0.5 * static_cast<double>(d - med);
    if (!much_longer && !explained) break;
    std::string reason = fmt::format("{}, {:.1f}x the median of the {} steps after it ({}), longer than any of them",
                                     DurationText(d), ratio, rest.size(), DurationText(med));
    const std::string cold = i < work.size() ? work[i].Describe() : std::string();
    if (!cold.empty()) reason += "; one-time CUDA work in it: " + cold;
    v.steps.push_back(i);
    v.reasons.push_back(std::move(reason));
  }
  return v;
}

}  // namespace ampscope

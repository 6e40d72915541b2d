#include "analyzers/context/iterations.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "trace/classify/host_roles.h"
#include "trace/classify/trust_roles.h"

namespace ampscope {

namespace {

using NamePredicate = std::function<bool(std::string_view)>;

// Ranges (user annotations, NVTX) and cpu_ops (2021 traces write record_function ranges as
// Operator events) whose name `matches`, each distinct name judged once.
std::vector<StepCandidate> Collect(const Trace& trace, const NamePredicate& matches) {
  std::unordered_map<StringId, bool> judged;
  auto match = [&](StringId name) {
    auto it = judged.find(name);
    if (it == judged.end()) it = judged.emplace(name, matches(trace.str(name))).first;
    return it->second;
  };
  std::vector<StepCandidate> out;
  for (const Range& r : trace.ranges) {
    if (r.kind != RangeKind::kCpuAnnotation && r.kind != RangeKind::kNvtx) continue;
    if (match(r.name)) out.push_back({r.start_ns, r.end_ns, r.pid, r.tid, r.depth, r.name, -1});
  }
  for (const CpuOp& op : trace.cpu_ops)
    if (match(op.name)) out.push_back({op.start_ns, op.end_ns, op.pid, op.tid, 0, op.name, -1});
  return out;
}

// The anchors of one name on one thread that recur most often, outermost only (a range nested
// in another of the same name, or a duplicate of it, is the same iteration).
std::vector<StepCandidate> MostFrequent(std::vector<StepCandidate> all) {
  using Key = std::tuple<int64_t, int64_t, StringId>;
  std::map<Key, std::vector<StepCandidate>> groups;
  for (const StepCandidate& c : all) groups[{c.pid, c.tid, c.name}].push_back(c);
  std::vector<StepCandidate> best;
  for (auto& [key, group] : groups) {
    std::sort(group.begin(), group.end(), [](const StepCandidate& a, const StepCandidate& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
    });
    std::vector<StepCandidate> kept;
    for (const StepCandidate& c : group)
      if (kept.empty() || c.start_ns >= kept.back().end_ns) kept.push_back(c);
    if (kept.size() > best.size() || (kept.size() == best.size() && !kept.empty() && kept.front().start_ns < best.front().start_ns))
      best = std::move(kept);
  }
  return best;
}

// The span of a thread's host activity (ops, ranges, API calls).
std::pair<TimeNs, TimeNs> ThreadSpan(const Trace& trace, int64_t pid, int64_t tid) {
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  auto widen = [&](int64_t p, int64_t t, TimeNs s, TimeNs e) {
    if (p != pid || t != tid) return;
    lo = std::min(lo, s);
    hi = std::max(hi, e);
  };
  for (const CpuOp& o : trace.cpu_ops) widen(o.pid, o.tid, o.start_ns, o.end_ns);
  for (const Range& r : trace.ranges)
    if (r.kind == RangeKind::kCpuAnnotation || r.kind == RangeKind::kNvtx) widen(r.pid, r.tid, r.start_ns, r.end_ns);
  for (const ApiCall& a : trace.api_calls) widen(a.pid, a.tid, a.start_ns, a.end_ns);
  return {lo, hi};
}

// Iterations between consecutive anchors: each ends with one (`ends`) or begins with one.
std::vector<StepCandidate> Windows(const Trace& trace, const std::vector<StepCandidate>& anchors, bool ends) {
  std::vector<StepCandidate> out;
  const auto [first, last] = ThreadSpan(trace, anchors.front().pid, anchors.front().tid);
  for (size_t i = 0; i < anchors.size(); ++i) {
    StepCandidate w = anchors[i];
    w.depth = 0;
    w.step_number = static_cast<int64_t>(i);
    if (ends) {
      w.start_ns = i == 0 ? std::min(first, anchors[i].start_ns) : anchors[i - 1].end_ns;
      w.end_ns = anchors[i].end_ns;
    } else {
      w.start_ns = anchors[i].start_ns;
      w.end_ns = i + 1 < anchors.size() ? anchors[i + 1].start_ns : std::max(last, anchors[i].end_ns);
    }
    if (w.end_ns > w.start_ns) out.push_back(w);
  }
  return out;
}

}  // namespace

InferredIterations InferIterations(const Trace& trace) {
  struct Source {
    StepSource source;
    bool ends;  // the anchor ends the iteration (else it begins it)
    NamePredicate matches;
  };
  const Source sources[] = {
      {StepSource::kOptimizerStep, true,
       [](std::string_view n) { return ClassifyHostRange(n) == HostRangeRole::kOptimizerStep; }},
      {StepSource::kDataLoader, false,
       [](std::string_view n) { return ClassifyHostRange(n) == HostRangeRole::kDataLoader; }},
      {StepSource::kForward, false,
       [](std::string_view n) {
         return IsForwardRangeName(n) || ClassifyHostRange(n) == HostRangeRole::kDataParallelForward;
       }},
  };
  InferredIterations out;
  for (const Source& s : sources) {
    std::vector<StepCandidate> anchors = MostFrequent(Collect(trace, s.matches));
    if (anchors.size() < 2) continue;
    out.source = s.source;
    out.anchor = std::string(trace.str(anchors.front().name));
    out.windows = Windows(trace, anchors, s.ends);
    return out;
  }
  return out;
}

}  // namespace ampscope

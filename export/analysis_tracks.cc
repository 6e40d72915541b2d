#include "export/analysis_tracks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/results/memory_snapshot_result.h"
#include "analyzers/graph/critical_path_result.h"
#include "base/units.h"
#include "reports/fields_json.h"
#include "reports/json_report.h"

namespace ampscope {
namespace trace_export {

// ---------------------------------------------------------------------------------------
// Analysis tracks

const char* ChromeColorName(SpanColor c) {
  // catapult's reserved colour names (tracing/base/color_scheme.html).
  switch (c) {
    case SpanColor::kStep: return "rail_response";
    case SpanColor::kHostWait: return "terrible";
    case SpanColor::kKernelWait: return "yellow";
    case SpanColor::kOtherIdle: return "grey";
    case SpanColor::kSync: return "bad";
    case SpanColor::kInfo: return "good";
    case SpanColor::kWarning: return "yellow";
    case SpanColor::kCritical: return "terrible";
    default: return "";
  }
}

namespace {

class TrackBuilder {
 public:
  explicit TrackBuilder(AnalysisTracks& out) : out_(out) {}

  uint32_t Name(const std::string& s) {
    auto it = name_ids_.find(s);
    if (it != name_ids_.end()) return it->second;
    out_.names.push_back(s);
    uint32_t id = static_cast<uint32_t>(out_.names.size() - 1);
    name_ids_.emplace(s, id);
    return id;
  }
  int32_t Args(nlohmann::json args) {
    out_.args.push_back(std::move(args));
    return static_cast<int32_t>(out_.args.size() - 1);
  }
  // A block of `count` args made when written: the i-th is make(i). Returns its first index.
  int32_t LazyArgs(size_t count, std::function<nlohmann::json(size_t)> make) {
    const int32_t first = out_.lazy_args.empty() ? AnalysisTracks::kLazyArgsBase
                                                 : out_.lazy_args.back().first + static_cast<int32_t>(out_.lazy_args.back().count);
    out_.lazy_args.push_back({first, count, std::move(make)});
    return first;
  }

  // Sorts `spans` and splits them into properly nested lanes, appended as tracks.
  void AddTrack(const std::string& name, const std::string& category, std::vector<AnalysisSpan> spans) {
    if (spans.empty()) return;
    std::stable_sort(spans.begin(), spans.end(), [](const AnalysisSpan& a, const AnalysisSpan& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      return a.end_ns > b.end_ns;  // enclosing first
    });
    std::vector<std::vector<TimeNs>> open;  // per lane: a stack of open span ends
    std::vector<std::vector<AnalysisSpan>> lanes;
    for (const AnalysisSpan& s : spans) {
      size_t lane = 0;
      for (; lane < open.size(); ++lane) {
        std::vector<TimeNs>& stack = open[lane];
        while (!stack.empty() && stack.back() <= s.start_ns) stack.pop_back();
        if (stack.empty() || stack.back() >= s.end_ns) break;
      }
      if (lane == open.size()) {
        open.emplace_back();
        lanes.emplace_back();
      }
      if (!s.instant) open[lane].push_back(s.end_ns);
      lanes[lane].push_back(s);
    }
    for (size_t l = 0; l < lanes.size(); ++l) {
      AnalysisTrack t;
      t.name = l == 0 ? name : fmt::format("{} (overlap {})", name, l);
      t.category = category;
      t.spans = std::move(lanes[l]);
      out_.tracks.push_back(std::move(t));
    }
  }

 private:
  AnalysisTracks& out_;
  std::unordered_map<std::string, uint32_t> name_ids_;
};

SpanColor SeverityColor(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kCritical: return SpanColor::kCritical;
    case FindingSeverity::kWarning: return SpanColor::kWarning;
    default: return SpanColor::kInfo;
  }
}

// Per-step counter samples: the value from the step's start; 0 after the last step and
// in gaps between steps, so a value never spills outside its step.
AnalysisCounter StepCounter(const std::string& name, const std::string& series, const std::vector<StepWindow>& steps,
                            const std::vector<std::optional<double>>& values) {
  AnalysisCounter c;
  c.name = name;
  c.series = series;
  for (size_t i = 0; i < steps.size() && i < values.size(); ++i) {
    if (!values[i]) continue;
    c.samples.emplace_back(steps[i].start_ns, *values[i]);
    bool next_starts_later = i + 1 >= steps.size() || steps[i + 1].start_ns > steps[i].end_ns || !values[i + 1];
    if (next_starts_later) c.samples.emplace_back(steps[i].end_ns, 0.0);
  }
  return c;
}

// A step's metric from the typed per-step results (RankAnalysis::per_step, in step order).
std::optional<double> MetricAt(const std::vector<StepMetrics>& per_step, size_t i, double StepMetrics::*metric) {
  if (i >= per_step.size()) return std::nullopt;
  double v = per_step[i].*metric;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

// A step span's args, from the step and its numbers (RankAnalysis::per_step, in step order).
nlohmann::json StepArgs(const RankAnalysis& rank, size_t i) {
  const StepWindow& w = rank.steps.steps[i];
  nlohmann::json args = {{"step_index", i},
                         {"number", w.number},
                         {"step_source", StepSourceName(rank.steps.source)},
                         {"duration_us", NsToUs(w.duration_ns())},
                         {"cpu_start_us", NsToUs(w.cpu_start_ns)},
                         {"cpu_end_us", NsToUs(w.cpu_end_ns)}};
  if (i < rank.per_step.size()) {
    const StepMetrics& m = rank.per_step[i];
    args["busy_pct"] = m.busy_pct;
    args["kernel_busy_pct"] = m.kernel_busy_pct;
    args["tensor_core_kernel_pct"] = m.tensor_core_kernel_pct;
    args["kernels"] = m.kernels;
    args["syncs"] = m.syncs;
  }
  return args;
}

// The critical path (analyzers/graph/, docs/whatif.md): each stretch in its category.
void AddCriticalPathTrack(const RankAnalysis& rank, TrackBuilder& b, AnalysisTracks& out) {
  if (rank.critical_path != nullptr && rank.critical_path->available && !rank.critical_path->segments.empty()) {
    static constexpr const char* kWhat[] = {"host time", "runtime call", "kernel", "memcpy", "memset", "delay", "earlier step's work"};
    static constexpr const char* kTables[] = {"", "api_calls", "kernels", "memcpys", "memsets", "", ""};
    std::vector<AnalysisSpan> spans;
    for (const graph::CriticalPathSegment& seg : rank.critical_path->segments) {
      const char* category = graph::BreakdownName(seg.category);
      const size_t what = std::min<size_t>(seg.what, std::size(kWhat) - 1);
      nlohmann::json args = {{"category", category}, {"on", kWhat[what]}, {"duration_us", NsToUs(seg.end_ns - seg.start_ns)}};
      if (seg.ref != 0xFFFFFFFFu && kTables[what][0] != '\0') args["index"] = {{"table", kTables[what]}, {"row", seg.ref}};
      const std::string_view c = category;
      const SpanColor color = c == "sync_wait"             ? SpanColor::kSync
                              : c == "kernel_launch_delay" ? SpanColor::kKernelWait
                              : c == "unrecorded_host"     ? SpanColor::kOtherIdle
                              : c == "host_bound"          ? SpanColor::kHostWait
                                                           : SpanColor::kStep;
      spans.push_back({seg.start_ns, seg.end_ns, b.Name(category), b.Args(std::move(args)), color, false});
    }
    if (rank.critical_path->segments_truncated) out.dropped_finding_ranges++;
    b.AddTrack("critical path", "ampscope.critical_path", std::move(spans));
  }
}

}  // namespace

AnalysisTracks BuildAnalysisTracks(const RankAnalysis& rank) {
  AnalysisTracks out;
  TrackBuilder b(out);
  const std::vector<StepWindow>& steps = rank.steps.steps;
  const std::vector<StepMetrics>& per_step = rank.per_step;

  // Steps: one span per analysed step.
  {
    std::vector<AnalysisSpan> spans;
    const int32_t first_args = b.LazyArgs(steps.size(), [&rank](size_t i) { return StepArgs(rank, i); });
    for (size_t i = 0; i < steps.size(); ++i) {
      const StepWindow& w = steps[i];
      std::string name = w.name.empty() ? "step " + std::to_string(w.number) : w.name;
      spans.push_back({w.start_ns, w.end_ns, b.Name(name), first_args + static_cast<int32_t>(i), SpanColor::kStep, false});
    }
    b.AddTrack("steps", "ampscope.step", std::move(spans));
  }

  // Idle gaps per device, with HTA's categories.
  {
    const std::vector<IdleGap>& gaps = rank.gpu.idle_gaps;  // the analysis' gaps (analyzers/context)
    static constexpr struct {
      IdleKind kind;
      SpanColor color;
      const char* meaning;
    } kKinds[] = {
        {IdleKind::kHostWait, SpanColor::kHostWait,
         "host_wait: the GPU waited for the CPU to launch the next work (the launch started after the GPU went idle)"},
        {IdleKind::kKernelWait, SpanColor::kKernelWait,
         "kernel_wait: a short gap (< 30 us) between back-to-back GPU work that was already launched"},
        {IdleKind::kOther, SpanColor::kOtherIdle, "other: idle for another reason (e.g. waiting on a sync or event)"},
    };
    int32_t kind_args[3];
    for (const auto& k : kKinds)
      kind_args[static_cast<int>(k.kind)] = b.Args({{"idle_kind", IdleKindName(k.kind)}, {"meaning", k.meaning}});
    std::map<int32_t, std::vector<AnalysisSpan>> by_device;
    for (const IdleGap& g : gaps) {
      const auto& k = kKinds[static_cast<int>(g.kind)];
      by_device[g.device].push_back({g.start_ns, g.end_ns, b.Name(IdleKindName(g.kind)),
                                     kind_args[static_cast<int>(g.kind)], k.color, false});
    }
    for (auto& [device, spans] : by_device)
      b.AddTrack(fmt::format("GPU {} idle gaps", device), "ampscope.idle", std::move(spans));
  }

  // Sync points (host-blocking syncs).
  {
    std::vector<AnalysisSpan> spans;
    const std::vector<SyncPoint>& points = rank.syncs.points;
    const int32_t first_args = b.LazyArgs(points.size(), [&points](size_t i) {
      const SyncPoint& p = points[i];
      return nlohmann::json{{"api", p.api}, {"tid", p.tid}, {"step_index", p.step_index}, {"blocked_us", NsToUs(p.end_ns - p.start_ns)}};
    });
    for (size_t i = 0; i < points.size(); ++i) {
      const SyncPoint& p = points[i];
      spans.push_back({p.start_ns, std::max(p.start_ns, p.end_ns), b.Name(p.api), first_args + static_cast<int32_t>(i),
                       SpanColor::kSync, p.end_ns <= p.start_ns});
    }
    b.AddTrack("sync points", "ampscope.sync", std::move(spans));
  }

  AddCriticalPathTrack(rank, b, out);

  // Findings: one track each, spans where the finding shows, an instant at the start of the
  // analysed window when it has no time ranges.
  for (const Finding& f : rank.findings) {
    nlohmann::json args = {{"id", f.id},
                           {"severity", FindingSeverityName(f.severity)},
                           {"title", f.title},
                           {"dimension", f.dimension},
                           {"checklist", f.checklist},
                           {"est_saving_pct", f.est_saving_pct},
                           {"evidence", FieldsJson(f.evidence)},
                           {"recommendation", f.recommendation}};
    int32_t a = b.Args(std::move(args));
    uint32_t name = b.Name(f.id + ": " + f.title);
    std::vector<AnalysisSpan> spans;
    for (const auto& [start, end] : f.time_ranges) {
      if (spans.size() >= kMaxRangesPerFinding) {
        out.dropped_finding_ranges++;
        continue;
      }
      spans.push_back({start, std::max(start, end), name, a, SeverityColor(f.severity), end <= start});
    }
    if (spans.empty()) {
      TimeNs at = rank.steps.window_start_ns;
      spans.push_back({at, at, name, a, SeverityColor(f.severity), true});
    }
    b.AddTrack("finding " + f.id, "ampscope.finding", std::move(spans));
  }

  // Counters per step.
  if (!steps.empty()) {
    static constexpr struct {
      const char* key;
      const char* name;
      double StepMetrics::*metric;
    } kCounters[] = {
        {"busy_pct", "GPU busy per step", &StepMetrics::busy_pct},
        {"kernel_busy_pct", "GPU kernel busy per step", &StepMetrics::kernel_busy_pct},
        {"tensor_core_kernel_pct", "Tensor Core kernel share per step", &StepMetrics::tensor_core_kernel_pct},
    };
    for (const auto& c : kCounters) {
      std::vector<std::optional<double>> values;
      for (size_t i = 0; i < steps.size(); ++i) values.push_back(MetricAt(per_step, i, c.metric));
      AnalysisCounter counter = StepCounter(c.name, c.key, steps, values);
      if (!counter.samples.empty()) out.counters.push_back(std::move(counter));
    }
    // Sampled Tensor Core activity: the per-step means the analysis computed.
    if (!rank.tensor_active_per_step_pct.empty()) {
      const std::vector<std::optional<double>>& values = rank.tensor_active_per_step_pct;
      AnalysisCounter counter = StepCounter("Tensor Core active per step", "tensor_active_pct", steps, values);
      if (!counter.samples.empty()) out.counters.push_back(std::move(counter));
    }
  }
  // The memory snapshot's timeline (each point the peak of its stretch of events), on the
  // snapshot's own clock: µs since the epoch, as PyTorch records time_us.
  if (rank.memory_snapshot != nullptr && !rank.memory_snapshot->timeline.empty() && rank.memory_snapshot->first_time_us) {
    AnalysisCounter live{"Memory snapshot: live bytes", "live_bytes", {}};
    AnalysisCounter reserved{"Memory snapshot: reserved bytes", "reserved_bytes", {}};
    constexpr int64_t kMaxUs = (int64_t{1} << 62) / 1000;  // ns must fit the trace model's range
    for (const SnapshotTimelinePoint& p : rank.memory_snapshot->timeline) {
      if (p.time_us > kMaxUs || p.time_us < -kMaxUs) continue;
      live.samples.emplace_back(p.time_us * 1000, static_cast<double>(p.live_bytes));
      reserved.samples.emplace_back(p.time_us * 1000, static_cast<double>(p.reserved_bytes));
    }
    if (!live.samples.empty()) {
      out.counters.push_back(std::move(live));
      out.counters.push_back(std::move(reserved));
    }
  }
  return out;
}

nlohmann::json AnalysisTracks::Args(int32_t index) const {
  if (index < kLazyArgsBase) return args[static_cast<size_t>(index)];
  for (const LazyArgs& block : lazy_args)
    if (index >= block.first && static_cast<size_t>(index - block.first) < block.count)
      return block.make(static_cast<size_t>(index - block.first));
  return nlohmann::json::object();
}

const RankAnalysis* FindRankAnalysis(const std::vector<const Trace*>& traces, size_t index, const JobAnalysis& job) {
  const std::string& path = traces[index]->metadata.path;
  // Paths identify inputs unless two inputs share one (tests build traces in memory).
  size_t same_path = 0;
  for (const Trace* t : traces) same_path += t->metadata.path == path;
  if (same_path == 1)
    for (const RankAnalysis& r : job.ranks)
      if (r.input_path == path) return &r;
  if (job.ranks.size() == traces.size()) return &job.ranks[index];
  if (job.ranks.empty() && traces.size() == 1 && !job.job.steps.steps.empty()) return &job.job;
  return nullptr;
}

const RankAnalysis* FindRankAnalysis(const std::vector<Trace>& traces, size_t index, const JobAnalysis& job) {
  std::vector<const Trace*> pointers;
  pointers.reserve(traces.size());
  for (const Trace& t : traces) pointers.push_back(&t);
  return FindRankAnalysis(pointers, index, job);
}

}  // namespace trace_export
}  // namespace ampscope

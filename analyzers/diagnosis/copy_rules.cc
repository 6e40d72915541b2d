// Copy rules: device-to-device copies (device_to_device_copies). Host-to-device copies are the
// data pipeline's (pipeline_rules.cc).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {

void RuleDeviceCopies(const Facts& in, FindingSink& out) {
  if (in.window_ns <= 0) return;
  uint64_t copies = 0, bytes = 0;
  TimeNs time = 0, exposed = 0;
  std::map<std::string, std::pair<uint64_t, TimeNs>> by_ops;  // launching op chain -> (copies, time)
  std::vector<Interval> spans;
  std::vector<uint32_t> removed;
  const BusyIntervals& busy = in.ctx.busy();
  for (size_t i = 0; i < in.t.memcpys.size(); ++i) {
    const MemcpyEvent& m = in.t.memcpys[i];
    if (m.kind != MemcpyKind::kDtoD || !in.ctx.InWindows(m.start_ns)) continue;
    removed.push_back(static_cast<uint32_t>(i));
    const TimeNs d = m.duration_ns();
    ++copies;
    bytes += m.bytes;
    SatAccumulate(time, d);
    // The GPU time the copy adds: the part no kernel on its device runs beside.
    SatAccumulate(exposed, d - std::min(d, OverlapNs(busy.kernels(m.device), m.start_ns, m.end_ns)));
    spans.push_back({m.start_ns, m.end_ns});
    std::string ops = "(no op recorded)";
    const int64_t call = in.ctx.launches().Find(m.correlation);
    if (call >= 0) {
      const ApiCall& a = in.t.api_calls[static_cast<size_t>(call)];
      const std::string chain = in.ctx.OpChainName(a.tid, a.start_ns);
      if (!chain.empty()) ops = chain;
    }
    auto& [n, ns] = by_ops[ops];
    ++n;
    SatAccumulate(ns, d);
  }
  const double time_pct = in.PctOfWindow(static_cast<double>(time));
  if (copies == 0 || time_pct < kDeviceCopyPct) return;
  std::vector<std::pair<TimeNs, std::string>> top;
  for (const auto& [ops, v] : by_ops) top.emplace_back(v.second, ops);
  std::sort(top.rbegin(), top.rend());
  std::vector<FieldList> ops;
  std::string named;
  for (size_t i = 0; i < top.size() && i < 5; ++i) {
    const auto& v = by_ops[top[i].second];
    ops.push_back({{"ops", top[i].second}, {"copies", v.first, Unit::kCount}, {"time_us", NsToUsRounded3(v.second), Unit::kUs}});
    if (i < 3) named += fmt::format("{}{} ({} copies, {:.1f} ms)", i ? "; " : "", top[i].second, v.first, Ms(v.second));
  }
  // DDP copies each gradient into its bucket: only where DDP (or a gradient all-reduce) ran.
  bool ddp = false;
  for (const CollectiveCall& c : in.ra.collectives) ddp = ddp || c.type == CollectiveType::kAllReduce;
  for (size_t i = 0; i < in.t.ranges.size() && !ddp; ++i)
    ddp = ClassifyHostRange(in.t.str(in.t.ranges[i].name)) == HostRangeRole::kDataParallelForward;
  Finding& x = out.Add(
      "device_to_device_copies", 0.0,
      fmt::format("{:.0f} device-to-device copies per step take {:.1f}% of the step", static_cast<double>(copies) / in.nsteps, time_pct),
      fmt::format("Copies within GPU memory ({:.1f} MB per step) move data without computing on it. Issued by: {}. Look "
                  "for .contiguous() after transpose/permute/expand, torch.cat/torch.stack in a loop, .clone() and "
                  "index or slice assignments that a view, an out= argument or a preallocated buffer would avoid{}.",
                  static_cast<double>(bytes) / 1e6 / in.nsteps, named,
                  ddp ? "; DDP copies every gradient into its all-reduce buckets unless "
                        "DistributedDataParallel(..., gradient_as_bucket_view=True)"
                      : ""));
  x.evidence = {{"copies", copies, Unit::kCount},
                {"copies_per_step", Round(static_cast<double>(copies) / in.nsteps), Unit::kPerStep},
                {"bytes", bytes, Unit::kBytes},
                {"time_us", NsToUsRounded3(time), Unit::kUs},
                {"pct_of_step", Round(time_pct), Unit::kPctOfStep},
                {"not_overlapped_us", NsToUsRounded3(exposed), Unit::kUs},
                {"by_ops", ops},
                {"estimate", "replayed: the device-to-device copies removed (a view, an out= argument or a preallocated "
                             "buffer avoids them)"}};
  out.Fix(x, graph::ScaleCopies(in.t, std::move(removed), 0.0, "the device-to-device copies in the window"));
  std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) { return a.end_ns - a.start_ns > b.end_ns - b.start_ns; });
  for (size_t i = 0; i < spans.size() && i < 8; ++i) x.time_ranges.emplace_back(spans[i].start_ns, spans[i].end_ns);
  std::sort(x.time_ranges.begin(), x.time_ranges.end());
}

}  // namespace ampscope::diagnosis

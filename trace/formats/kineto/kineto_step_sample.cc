// Kineto traces with more steps than the analysis keeps in detail: see kineto_step_sample.h.
#include "trace/formats/kineto/kineto_step_sample.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "base/percentile.h"

#include "trace/formats/kineto/kineto_time.h"
#include "trace/formats/kineto/kineto_tokenizer.h"
#include "trace/io/input_stream.h"

namespace ampscope::kineto {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr TimeNs kOpenEnd = std::numeric_limits<TimeNs>::max();

bool IsString(const json::Value& v, std::string_view s) { return v.kind == json::Kind::kString && v.text == s; }
bool IsStepName(const json::Value& v) {
  return v.kind == json::Kind::kString && v.text.substr(0, kStepPrefix.size()) == kStepPrefix;
}

// An event's [start, end) in ns, when its times are numbers the reader accepts (the reader
// itself says what is wrong with the others).
bool EventSpan(const RawEvent& ev, StepSpan* span) {
  if (ev.ts.kind != json::Kind::kNumber || !ParseMicrosToNs(ev.ts.text, &span->start_ns)) return false;
  TimeNs dur = 0;
  if (ev.dur.kind == json::Kind::kNumber && !ParseMicrosToNs(ev.dur.text, &dur)) return false;
  if (dur < 0 || span->start_ns > kOpenEnd - dur) return false;
  span->end_ns = span->start_ns + dur;
  return true;
}

// A ProfilerStep#N range on the host (user_annotation, or a 2021 trace's Operator): not its
// gpu_user_annotation twin on the GPU's timeline.
bool IsHostStep(const RawEvent& ev) {
  EventClass cls = EventClass::kUnknown;
  return IsString(ev.ph, "X") && IsStepName(ev.name) && ev.cat.kind == json::Kind::kString &&
         EventClasses().Find(ev.cat.text, &cls) && (cls == EventClass::kUserAnnotation || cls == EventClass::kCpuOp);
}

// Pass 1's sink: the ProfilerStep ranges.
class StepScanSink final : public EventSink {
 public:
  Status OnEvent(const RawEvent& ev) override {
    StepSpan s;
    if (IsHostStep(ev) && EventSpan(ev, &s)) steps.push_back(s);
    return Status::Ok();
  }
  void OnTopLevelMember(std::string_view, const json::Value&) override {}
  std::vector<StepSpan> steps;
};

enum class Side : uint8_t { kGpu, kCall, kOther };
Side SideOf(const RawEvent& ev) {
  EventClass cls = EventClass::kUnknown;
  if (!IsString(ev.ph, "X") || ev.cat.kind != json::Kind::kString || !EventClasses().Find(ev.cat.text, &cls)) return Side::kOther;
  if (cls == EventClass::kKernel || cls == EventClass::kMemcpy || cls == EventClass::kMemset) return Side::kGpu;
  if (cls == EventClass::kRuntime || cls == EventClass::kDriver) return Side::kCall;
  return Side::kOther;
}

// args.correlation, when the event has a readable one.
bool Correlation(const RawEvent& ev, int64_t* id) {
  if (!ev.Has(kArgCorrelation)) return false;
  const json::Value& v = ev.arg[kArgCorrelation];
  return (v.kind == json::Kind::kNumber || v.kind == json::Kind::kString) && json::ParseInt64(v.text, id);
}

// Pass 2's sink: the ids of the calls and GPU work that overlap the kept steps' host windows.
class CorrelationSink final : public EventSink {
 public:
  explicit CorrelationSink(const StepChoice& choice) : choice_(choice) {}
  Status OnEvent(const RawEvent& ev) override;
  void OnTopLevelMember(std::string_view, const json::Value&) override {}
  std::vector<int64_t> ids;

 private:
  const StepChoice& choice_;
};

bool Overlaps(const std::vector<StepSpan>& windows, const StepSpan& e) {
  auto it = std::upper_bound(windows.begin(), windows.end(), e.start_ns,
                             [](TimeNs t, const StepSpan& w) { return t < w.end_ns; });
  if (it == windows.end()) return false;
  // An instant (or a zero-length event) at t is inside [start, end) when start <= t.
  return e.end_ns > e.start_ns ? it->start_ns < e.end_ns : it->start_ns <= e.start_ns;
}

Status CorrelationSink::OnEvent(const RawEvent& ev) {
  StepSpan span;
  int64_t id = 0;
  if (SideOf(ev) != Side::kOther && EventSpan(ev, &span) && Overlaps(choice_.host_windows, span) && Correlation(ev, &id))
    ids.push_back(id);
  return Status::Ok();
}

// Sorted spans, overlapping or touching ones joined.
std::vector<StepSpan> Merged(std::vector<StepSpan> v) {
  std::vector<StepSpan> out;
  for (const StepSpan& s : v) {
    if (!out.empty() && s.start_ns <= out.back().end_ns) {
      out.back().end_ns = std::max(out.back().end_ns, s.end_ns);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

Status ChosenStepsSink::OnEvent(const RawEvent& ev) {
  ++seen;
  StepSpan span;
  if (ev.ph.kind != json::Kind::kString || IsString(ev.ph, "M") || !EventSpan(ev, &span)) return inner_.OnEvent(ev);
  bool keep = false;
  int64_t id = 0;
  const auto kept_id = [&] {
    return Correlation(ev, &id) && std::binary_search(choice_.kept_correlations.begin(), choice_.kept_correlations.end(), id);
  };
  if (IsHostStep(ev)) {
    keep = std::binary_search(choice_.kept_starts.begin(), choice_.kept_starts.end(), span.start_ns);
  } else {
    switch (SideOf(ev)) {
      case Side::kGpu: keep = Correlation(ev, &id) ? kept_id() : Overlaps(choice_.host_windows, span); break;
      case Side::kCall: keep = Overlaps(choice_.host_windows, span) || kept_id(); break;
      case Side::kOther: keep = Overlaps(choice_.host_windows, span); break;
    }
  }
  if (keep) return inner_.OnEvent(ev);
  ++dropped;
  return Status::Ok();
}

namespace {

// Whether the next `bytes` of `source` name more than `steps` steps. Read in small pieces (a small
// trace costs no more than its size); a name split between two pieces is found in the bytes
// carried over. A read error is "no": the reader names the damage.
bool DenseIn(ByteSource& source, size_t steps, size_t bytes) {
  constexpr size_t kPiece = size_t{256} << 10;
  const size_t carry = kStepPrefix.size() - 1;
  std::string buf(carry + kPiece, '\0');
  size_t kept = 0, read = 0, count = 0;
  while (read < bytes) {
    StatusOr<size_t> n = source.Read(buf.data() + kept, std::min(kPiece, bytes - read));
    if (!n.ok() || *n == 0) return false;
    read += *n;
    const std::string_view text(buf.data(), kept + *n);
    for (size_t at = text.find(kStepPrefix); at != std::string_view::npos; at = text.find(kStepPrefix, at + kStepPrefix.size()))
      if (++count > steps) return true;
    kept = std::min(carry, text.size());
    std::memmove(buf.data(), text.data() + text.size() - kept, kept);
  }
  return false;
}

// One pass over the whole file into `sink`; errors as the reader's ("<file>: byte N: ...").
Status ReadInto(const std::string& path, EventSink& sink) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  const std::function<void(uint64_t, uint64_t)> no_progress;  // the tokenizer keeps a reference
  Tokenizer tokenizer(**source, path, no_progress);
  tokenizer.set_window_bytes(kSampledReadWindowBytes);
  return tokenizer.Run(sink);
}

}  // namespace

StatusOr<bool> LooksStepDense(const std::string& path, size_t steps, size_t prefix_bytes) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  if (DenseIn(**source, steps, prefix_bytes)) return true;
  // A file that can be read anywhere (not gzip'd) is also looked at from its end: a trace that
  // writes its GPU activity first has its step ranges there.
  const uint64_t size = (*source)->raw_bytes_total();
  if (size <= prefix_bytes) return false;
  std::unique_ptr<ByteSource> tail = (*source)->OpenAt(std::max<uint64_t>(prefix_bytes, size - prefix_bytes));
  return tail != nullptr && DenseIn(*tail, steps, prefix_bytes);
}

StatusOr<std::vector<StepSpan>> ScanProfilerSteps(const std::string& path) {
  StepScanSink sink;
  AMPSCOPE_RETURN_IF_ERROR(ReadInto(path, sink));
  std::stable_sort(sink.steps.begin(), sink.steps.end(), [](const StepSpan& a, const StepSpan& b) { return a.start_ns < b.start_ns; });
  return std::move(sink.steps);
}

StepChoice ChooseSteps(const std::vector<StepSpan>& steps, size_t detail_steps) {
  constexpr size_t kEnds = 50, kLongest = 100;
  const size_t n = steps.size();
  StepChoice c;
  // Transient beside the steps (16 B each): a byte and a duration a step, and the 100 longest.
  std::vector<uint8_t> keep(n, 0);
  for (size_t i = 0; i < n && i < kEnds; ++i) keep[i] = keep[n - 1 - i] = 1;
  std::vector<TimeNs> dur(n);
  for (size_t i = 0; i < n; ++i) dur[i] = steps[i].end_ns - steps[i].start_ns;
  {
    // The longest first; on equal lengths the earlier step. A heap of the best so far, its
    // worst on top.
    using Entry = std::pair<TimeNs, size_t>;
    auto better = [](const Entry& a, const Entry& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
    std::vector<Entry> top;
    for (size_t i = 0; i < n; ++i) {
      const Entry e{dur[i], i};
      if (top.size() < kLongest) {
        top.push_back(e);
        std::push_heap(top.begin(), top.end(), better);
      } else if (better(e, top.front())) {
        std::pop_heap(top.begin(), top.end(), better);
        top.back() = e;
        std::push_heap(top.begin(), top.end(), better);
      }
    }
    for (const Entry& e : top) keep[e.second] = 1;
  }
  const size_t budget = detail_steps > 2 * kEnds + kLongest ? detail_steps - 2 * kEnds - kLongest : 1;
  const size_t every = (n + budget - 1) / budget;
  for (size_t i = 0; i < n; i += every) keep[i] = 1;
  std::vector<StepSpan> host;
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    c.kept_starts.push_back(steps[i].start_ns);
    host.push_back({steps[i].start_ns, i + 1 < n ? std::max(steps[i + 1].start_ns, steps[i].end_ns) : kOpenEnd});
  }
  keep = {};
  std::sort(c.kept_starts.begin(), c.kept_starts.end());
  c.host_windows = Merged(std::move(host));
  StepSampling& s = c.info;
  s.steps_in_trace = n;
  s.steps_kept = c.kept_starts.size();
  s.every = every;
  s.rule = fmt::format("the first {} and last {} steps, the {} longest, and one in every {}", kEnds, kEnds, kLongest, every);
  if (n > 0) {
    double total = 0;
    for (TimeNs d : dur) total += static_cast<double>(d) / 1e3;
    std::sort(dur.begin(), dur.end());
    s.mean_us = total / static_cast<double>(n);
    s.median_us = PercentileOfSorted(dur, 50, 1e3);
    s.p90_us = PercentileOfSorted(dur, 90, 1e3);
    s.min_us = static_cast<double>(dur.front()) / 1e3;
    s.max_us = static_cast<double>(dur.back()) / 1e3;
  }
  return c;
}

Status CollectKeptCorrelations(const std::string& path, StepChoice& choice) {
  CorrelationSink sink(choice);
  AMPSCOPE_RETURN_IF_ERROR(ReadInto(path, sink));
  std::sort(sink.ids.begin(), sink.ids.end());
  sink.ids.erase(std::unique(sink.ids.begin(), sink.ids.end()), sink.ids.end());
  sink.ids.shrink_to_fit();
  choice.kept_correlations = std::move(sink.ids);
  return Status::Ok();
}

}  // namespace ampscope::kineto

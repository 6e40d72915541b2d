#include "render/report_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "render/format.h"
#include "reports/contract/inputs_view.h"
#include "reports/contract/integrity_view.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

using nlohmann::json;

namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string InputsSummary(const json& report) {
  const std::vector<reports::InputRow> inputs = reports::ReadInputsView(report).inputs;
  if (inputs.empty()) return "no inputs";
  if (inputs.size() == 1) {
    const reports::InputRow& in = inputs[0];
    std::string s = BaseName(in.path.value_or("?"));
    const std::string& fmt_name = in.format;
    if (!fmt_name.empty()) s += " (" + fmt_name + ")";
    return s;
  }
  std::string s = fmt::format("{} ranks: ", inputs.size());
  for (size_t i = 0; i < inputs.size() && i < 3; ++i) s += (i ? ", " : "") + BaseName(inputs[i].path.value_or("?"));
  if (inputs.size() > 3) s += ", ...";
  return s;
}

std::string DevicesSummary(const json& report) {
  const std::vector<reports::DeviceRow> devices = reports::ReadDevices(report);
  if (devices.empty()) return "unknown device (no deviceProperties in the trace)";
  std::vector<std::pair<std::string, int>> groups;  // label -> count, in order of appearance
  for (const reports::DeviceRow& d : devices) {
    std::string label = d.name;
    // An AMD device's "compute capability" in a trace is its gfx generation, not NVIDIA's cc.
    const bool amd = d.vendor == "amd";
    const std::string& cc = d.compute_capability;
    const std::string& basis = d.compute_capability_basis;
    const bool inferred = !basis.empty() && basis != "device_properties";
    if (label.empty() && inferred && !cc.empty()) {
      // No deviceProperties: the architecture its kernel names prove, and the peaks assumed for it.
      label = "NVIDIA GPU of compute capability >= " + cc + " (inferred from kernel names";
      const std::string& assumed = d.peak_matched;
      label += assumed.empty() ? ")" : "; " + assumed + " peaks assumed)";
    } else {
      if (label.empty()) label = "unknown GPU (no deviceProperties in the trace)";
      if (!cc.empty() && !amd) label += " (cc " + cc + ")";
    }
    if (amd) label += " [AMD]";
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == label; });
    if (it == groups.end()) {
      groups.emplace_back(label, 1);
    } else {
      it->second++;
    }
  }
  std::string out;
  for (const auto& [label, n] : groups) {
    if (!out.empty()) out += ", ";
    out += n > 1 ? fmt::format("{}x {}", n, label) : label;
  }
  return out;
}

std::string DriverLabel(const std::string& driver) {
  if (driver.empty()) return "";
  const bool numeric = std::all_of(driver.begin(), driver.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numeric || driver.size() > 9) return "driver " + driver;  // a release string (535.104.05)
  const long v = std::stol(driver);  // cudaDriverGetVersion: 1000 * major + 10 * minor
  return fmt::format("CUDA driver API {}.{} ({})", v / 1000, (v % 1000) / 10, driver);
}

std::string StepsSummary(const json& report) {
  const reports::StepsView steps = reports::ReadStepsView(report);
  const std::optional<double>& count = steps.count;
  std::string source = steps.source.value_or("none");
  size_t warmup = 0, cut = 0;
  for (const reports::FlaggedStepView& f : steps.flagged)
    if (f.excluded) (f.kind == "cut" ? cut : warmup)++;
  std::string left_out;
  if (warmup > 0) left_out += Plural(static_cast<double>(warmup), "warm-up step");
  if (cut > 0) left_out += (left_out.empty() ? "" : " and ") + Plural(static_cast<double>(cut), "cut step");
  if (!left_out.empty()) left_out = "; " + left_out + " left out";
  if (!count || *count == 0) return "no steps found (the whole trace is analysed)" + left_out;
  if (!steps.anchor.empty()) source += ": iterations from " + steps.anchor;
  std::string sampled;
  if (steps.sampled_in_trace)
    sampled = fmt::format(" of {} in the trace ({}; the step time is every step's)", Plural(*steps.sampled_in_trace, "step"),
                          steps.sampled_rule);
  return Plural(*count, "step") + " (" + source + ")" + sampled + left_out;
}

std::string StepWords(const json& report, std::string text) {
  if (Number(report, report_field::kStepCount).value_or(0) > 0) return text;
  for (const char* from : {"per step", "Per step"}) {
    const std::string to = from[0] == 'P' ? "In the window" : "in the window";
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, 8, to);
  }
  return text;
}

std::vector<IntegrityRow> IntegrityChecks(const json& report) {
  std::vector<IntegrityRow> rows;
  for (reports::TraceIntegrityCheck& c : reports::ReadIntegrityView(report))
    rows.push_back({std::move(c.id), c.status.value_or("ok"), std::move(c.evidence), std::move(c.affects)});
  return rows;
}

std::string IntegrityTitle(const std::string& id) {
  static const std::map<std::string, std::string> kTitles = {
      {"warmup", "Warm-up and cold start"},      {"sampling", "Sampled or thinned trace"},
      {"empty_steps", "Empty or partial steps"}, {"dropped_events", "Dropped events"},
      {"cuda_graphs", "CUDA-graph kernels"},     {"cut_steps", "Steps cut by the profile"},
      {"missing_ranks", "Missing ranks"},        {"clock_offsets", "Clock offsets between ranks"}};
  auto it = kTitles.find(id);
  return it == kTitles.end() ? HumanKey(id) : it->second;
}

std::vector<std::pair<std::string, double>> SortedShares(const json& obj) {
  std::vector<std::pair<std::string, double>> out;
  if (!obj.is_object()) return out;
  for (const auto& [k, v] : obj.items())
    if (v.is_number() && std::isfinite(v.get<double>())) out.emplace_back(k, v.get<double>());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// ---- job-level numbers ----

std::string JobDefinition(const json& report, const char* section) {
  if (Number(report, report_field::kJobRanks).value_or(1) <= 1) return "";
  const json& definitions = Section(report, report_field::kJobDefinitions);
  if (!definitions.is_object() || !definitions.contains(section) || !definitions[section].is_string()) return "";
  return definitions[section].get<std::string>();
}

std::string OfRank(const json& record, const char* pointer) { return OfRank(Number(record, pointer)); }

std::string OfRank(std::optional<double> rank) {
  return rank ? fmt::format(" (rank {})", static_cast<int64_t>(*rank)) : std::string();
}

bool GpuActivityRecorded(const json& report) {
  const json& recorded = Section(report, report_field::kGpuActivityRecorded);
  return !recorded.is_boolean() || recorded.get<bool>();
}

namespace {

// Collects the rows' reasons: each row's status and why ("unavailable: why" or plain why).
class SharedReason {
 public:
  // False once the rows no longer share one reason.
  bool Add(const std::string& status, std::string why) {
    if (status != "unknown") return Fail();
    constexpr std::string_view kUnavailable = "unavailable: ";
    if (why.rfind(kUnavailable, 0) == 0) why.erase(0, kUnavailable.size());
    if (why.empty() || (n_ > 0 && why != shared_)) return Fail();
    shared_ = std::move(why);
    ++n_;
    return true;
  }
  std::string Result() const { return failed_ || n_ <= 1 ? "" : shared_; }

 private:
  bool Fail() {
    failed_ = true;
    return false;
  }
  std::string shared_;
  size_t n_ = 0;
  bool failed_ = false;
};

}  // namespace

// A dimension says why in its headline's source ("unavailable: why"), an item in its evidence.
std::string SharedUnknownReason(const std::vector<reports::DimensionView>& matrix) {
  SharedReason reason;
  for (const reports::DimensionView& d : matrix)
    if (!reason.Add(d.status.value_or(""), d.headline.source)) break;
  return reason.Result();
}

std::string SharedUnknownReason(const std::vector<reports::ChecklistItemView>& checklist) {
  SharedReason reason;
  for (const reports::ChecklistItemView& item : checklist)
    if (!reason.Add(item.status.value_or(""), item.evidence)) break;
  return reason.Result();
}

std::string DimensionValueCell(const reports::DimensionView& dimension) {
  const reports::DimensionHeadline& h = dimension.headline;
  if (std::holds_alternative<std::monostate>(h.value)) return "n/a";
  return Value(h.value, h.unit) + OfRank(dimension.numbers_of_rank);
}

std::string ChecklistValueCell(const reports::ChecklistItemView& item) {
  if (std::holds_alternative<std::monostate>(item.value)) return item.status == "not_applicable" ? "-" : "not measured";
  return Value(item.value, ChecklistUnit(item)) + OfRank(item.numbers_of_rank);
}

StepClock FindingClock(const json& report, const reports::FindingView& finding, const StepClock& report_clock) {
  const std::optional<double>& rank = finding.numbers_of_rank;
  const json& ranks = Section(report, report_field::kRanks);
  if (!rank || !ranks.is_array()) return report_clock;
  for (const json& section : ranks) {
    if (Number(section, "/rank") != rank) continue;
    StepClock own(section);
    return own.empty() ? report_clock : own;
  }
  return report_clock;
}

// ---- times relative to the steps ----

StepClock::StepClock(const json& report) {
  const reports::StepsView steps = reports::ReadStepsView(report);
  for (const std::vector<reports::StepView>* list : {&steps.windows, &steps.per_step}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const reports::StepView& s = (*list)[i];
      if (!s.start_us || !s.end_us || *s.end_us < *s.start_us) continue;
      windows_.push_back({s.number ? static_cast<int64_t>(*s.number) : static_cast<int64_t>(i), *s.start_us, *s.end_us});
    }
    if (!windows_.empty()) break;
  }
  std::sort(windows_.begin(), windows_.end(), [](const Window& a, const Window& b) { return a.start_us < b.start_us; });
}

const StepClock::Window* StepClock::Find(double us) const {
  // The last step that starts at or before `us`.
  auto it = std::upper_bound(windows_.begin(), windows_.end(), us,
                             [](double t, const Window& w) { return t < w.start_us; });
  return it == windows_.begin() ? nullptr : &*(it - 1);
}

std::string StepClock::Offset(double us, const Window& w) const { return "+" + DurationUs(us - w.start_us); }

std::string StepClock::At(double us, double origin_us) const {
  if (windows_.empty()) return "+" + DurationUs(us - origin_us);
  const Window* w = Find(us);
  if (w == nullptr) return DurationUs(windows_.front().start_us - us) + " before step " + std::to_string(windows_.front().number);
  // Past the step's end: after the last one, or in a step the report does not list (a report of
  // many steps lists some: steps.listed).
  if (us > w->end_us) return "+" + DurationUs(us - w->end_us) + " after step " + std::to_string(w->number);
  return "step " + std::to_string(w->number) + " " + Offset(us, *w);
}

std::string StepClock::Range(double start_us, double end_us, double origin_us) const {
  if (windows_.empty()) return "+" + DurationUs(start_us - origin_us) + " to +" + DurationUs(end_us - origin_us);
  const Window* a = Find(start_us);
  const Window* b = Find(end_us);
  // An end exactly on the next step's start belongs to the step it closes.
  if (b != nullptr && a != nullptr && b != a && end_us == b->start_us && b > a && b - 1 == a) b = a;
  if (a != nullptr && a == b && !(a == &windows_.back() && start_us > a->end_us))
    return "step " + std::to_string(a->number) + " " + Offset(start_us, *a) + " to " + Offset(end_us, *a);
  return At(start_us) + " to " + At(end_us);
}

bool StepClock::Near(double us) const {
  if (windows_.empty()) return false;
  double span = 0;
  for (const Window& w : windows_) span = std::max(span, w.end_us - w.start_us);
  return us >= windows_.front().start_us - span && us <= windows_.back().end_us + span;
}

std::string RelativeTimes(std::string_view text, const StepClock& clock) {
  if (clock.empty()) return std::string(text);
  // "[at ]1623142623928.196 ms": at least 7 digits, so durations inside a step never match.
  static const std::regex kTime(R"((\bat )?(\d{7,}(?:\.\d+)?) ?(ms|us|µs)(?![A-Za-z]))");
  std::string in(text), out;
  auto begin = std::sregex_iterator(in.begin(), in.end(), kTime);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    double v = std::stod(m[2].str());
    double us = m[3].str() == "ms" ? v * 1e3 : v;
    if (!clock.Near(us)) continue;
    out += in.substr(last, static_cast<size_t>(m.position(0)) - last);
    std::string at = clock.At(us);
    if (m[1].matched) {
      // "at T" -> "in step 7 at +12.3 ms" (or "at 2.0 ms before step 5").
      out += at.rfind("step ", 0) == 0 ? "in " + at.substr(0, at.find(' ', 5)) + " at" + at.substr(at.find(' ', 5))
                                       : "at " + at;
    } else {
      out += at;
    }
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  return out + in.substr(last);
}

// ---- input diagnostics ----

std::string DiagnosticText(const std::string& code, double count, const reports::DiagnosticMessage& message) {
  const std::string& description = message.description;
  const std::string n = count >= 0 ? Count(count) : std::string();
  if (!description.empty()) return code + (n.empty() ? "" : ": " + n) + " \xE2\x80\x94 " + description;
  const std::string& first = message.message;
  if (!first.empty()) return code + (n.empty() ? "" : ": " + n) + " (first: " + first + ")";
  return code + (n.empty() ? "" : ": " + n);
}

std::vector<DiagnosticEntry> Diagnostics(const json& report) {
  std::vector<DiagnosticEntry> out;
  const reports::DiagnosticsView view = reports::ReadDiagnosticsView(report);
  std::map<std::string, size_t> index;
  std::vector<const reports::DiagnosticMessage*> first;  // per entry: its first message, if any
  for (const reports::DiagnosticMessage& m : view.messages) {
    if (m.code.empty()) continue;
    const double count = m.count.value_or(1);
    auto it = index.find(m.code);
    if (it != index.end()) {
      out[it->second].count += count;  // the same code from several files: one line
      continue;
    }
    index[m.code] = out.size();
    out.push_back({m.code, m.severity, count, ""});
    first.push_back(&m);
  }
  for (const auto& [code, n] : view.counters) {
    if (index.count(code)) continue;
    index[code] = out.size();
    out.push_back({code, "", n, ""});
    first.push_back(nullptr);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    DiagnosticEntry& e = out[i];
    // The counters are the totals; a message carries its file's share.
    auto total = std::find_if(view.counters.begin(), view.counters.end(), [&](const auto& c) { return c.first == e.code; });
    if (total != view.counters.end()) e.count = total->second;
    e.text = DiagnosticText(e.code, e.count, first[i] != nullptr ? *first[i] : reports::DiagnosticMessage{});
  }
  return out;
}

const reports::RooflineSection& RooflineToShow(const reports::RooflineView& view, std::string* note) {
  if (view.report.present && view.report.available) return view.report;
  if (view.ranks > 1 && view.first_rank_roofline.present) {
    *note = fmt::format("Rank {} of {} ranks; every rank's roofline is in the JSON report (ranks[].roofline).",
                        Count(view.first_rank), view.ranks);
    return view.first_rank_roofline;
  }
  return view.report;
}

}  // namespace ampscope::render

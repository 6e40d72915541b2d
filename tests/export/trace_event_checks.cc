#include "trace_event_checks.h"

#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report_fixtures.h"

namespace ampscope::testing {

namespace {

using nlohmann::json;
constexpr int64_t kMissing = std::numeric_limits<int64_t>::min();

// SAX pass that records the text of "ts" and "dur" of each traceEvents element, so times
// can be compared exactly (the DOM stores them as doubles).
class RawTimes : public nlohmann::json_sax<json> {
 public:
  std::vector<std::string> ts, dur;

  bool null() override { return Scalar("null"); }
  bool boolean(bool) override { return Scalar("bool"); }
  bool number_integer(number_integer_t v) override { return Scalar(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return Scalar(s); }
  bool string(string_t&) override { return Scalar("string"); }
  bool binary(binary_t&) override { return Scalar("binary"); }
  bool start_object(std::size_t) override {
    ++depth_;
    if (in_events_ && depth_ == 3) {
      ts.emplace_back();
      dur.emplace_back();
    }
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    if (depth_ == 1) pending_events_ = k == "traceEvents";
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && pending_events_) in_events_ = true;
    return true;
  }
  bool end_array() override {
    if (depth_ == 2) in_events_ = false;
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool Scalar(const std::string& text) {
    if (in_events_ && depth_ == 3) {
      if (key_ == "ts") ts.back() = text;
      if (key_ == "dur") dur.back() = text;
    }
    return true;
  }
  int depth_ = 0;
  bool in_events_ = false;
  bool pending_events_ = false;
  std::string key_;
};

bool IsInt(const json& v) { return v.is_number_integer(); }

}  // namespace

ParsedChromeTrace ParseChromeTrace(const std::string& text) {
  ParsedChromeTrace out;
  try {
    out.doc = json::parse(text);
  } catch (const std::exception& e) {
    out.error = std::string("not valid JSON: ") + e.what();
    return out;
  }
  if (!out.doc.is_object() || !out.doc.contains("traceEvents") || !out.doc["traceEvents"].is_array()) {
    out.error = "no traceEvents array";
    return out;
  }
  RawTimes raw;
  if (!json::sax_parse(text, &raw)) {
    out.error = "SAX parse failed";
    return out;
  }
  for (const json& e : out.doc["traceEvents"]) out.events.push_back(e);
  if (raw.ts.size() != out.events.size()) {
    out.error = fmt::format("SAX saw {} events, DOM {}", raw.ts.size(), out.events.size());
    return out;
  }
  for (size_t i = 0; i < out.events.size(); ++i) {
    int64_t v;
    out.ts_ns.push_back(ParseDecimalMicrosToNs(raw.ts[i], &v) ? v : kMissing);
    out.dur_ns.push_back(ParseDecimalMicrosToNs(raw.dur[i], &v) ? v : kMissing);
  }
  out.ok = true;
  return out;
}

std::vector<std::string> CheckTraceEventFormat(const ParsedChromeTrace& t) {
  std::vector<std::string> problems;
  static const std::set<std::string> kPhases = {"X", "i", "I", "M", "C", "s", "t", "f", "B", "E"};
  static const std::set<std::string> kMetadata = {"process_name", "process_labels", "process_sort_index",
                                                  "thread_name", "thread_sort_index"};
  for (size_t i = 0; i < t.events.size() && problems.size() < 20; ++i) {
    const json& e = t.events[i];
    auto bad = [&](const std::string& what) { problems.push_back(fmt::format("event {}: {}: {}", i, what, e.dump())); };
    if (!e.is_object()) {
      bad("not an object");
      continue;
    }
    if (!e.contains("ph") || !e["ph"].is_string() || !kPhases.count(e["ph"].get<std::string>())) {
      bad("ph missing or unknown");
      continue;
    }
    const std::string ph = e["ph"];
    if (!e.contains("name") || !e["name"].is_string()) bad("name is not a string");
    if (!e.contains("pid") || !IsInt(e["pid"])) bad("pid is not an integer");
    if (!e.contains("tid") || !IsInt(e["tid"])) bad("tid is not an integer");
    if (!e.contains("ts") || !e["ts"].is_number()) bad("ts is not a number");
    if (t.ts_ns[i] == kMissing) bad("ts is not a decimal with at most 3 fractional digits");
    if (e.contains("cat") && !e["cat"].is_string()) bad("cat is not a string");
    if (e.contains("args") && !e["args"].is_object()) bad("args is not an object");
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number()) bad("X without a numeric dur");
      else if (t.dur_ns[i] == kMissing || t.dur_ns[i] < 0) bad("dur negative or not exact");
    }
    if (ph == "M") {
      if (!kMetadata.count(e.value("name", ""))) bad("unknown metadata name");
      if (!e.contains("args") || !e["args"].is_object()) bad("M without args");
    }
    if (ph == "i" || ph == "I") {
      std::string s = e.value("s", "t");
      if (s != "t" && s != "p" && s != "g") bad("instant scope is not t/p/g");
    }
    if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) bad("counter without args");
      else
        for (const auto& [k, v] : e["args"].items())
          if (!v.is_number()) bad("counter value " + k + " is not a number");
    }
    if (ph == "s" || ph == "t" || ph == "f") {
      if (!e.contains("id") || !(IsInt(e["id"]) || e["id"].is_string())) bad("flow without id");
      if (!e.contains("cat") || !e["cat"].is_string()) bad("flow without cat");
      if (e.contains("bp") && e["bp"] != "e") bad("flow bp is not \"e\"");
    }
    if (e.contains("cname") && !e["cname"].is_string()) bad("cname is not a string");
  }
  return problems;
}

std::vector<std::string> CheckNamesAndFlows(const ParsedChromeTrace& t) {
  std::vector<std::string> problems;
  std::set<int64_t> named_pids;
  std::set<std::pair<int64_t, int64_t>> named_threads;
  for (const json& e : t.events) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") named_pids.insert(e["pid"].get<int64_t>());
    if (e["name"] == "thread_name") named_threads.insert({e["pid"].get<int64_t>(), e["tid"].get<int64_t>()});
  }
  std::set<int64_t> missing_pids;
  std::set<std::pair<int64_t, int64_t>> missing_threads;
  std::map<std::pair<std::string, std::string>, std::string> flows;
  for (const json& e : t.events) {
    std::string ph = e["ph"];
    if (ph == "M") continue;
    int64_t pid = e["pid"], tid = e["tid"];
    if (!named_pids.count(pid)) missing_pids.insert(pid);
    bool thread_scoped = !(ph == "C" || ((ph == "i" || ph == "I") && e.value("s", "t") != "t"));
    if (thread_scoped && !named_threads.count({pid, tid})) missing_threads.insert({pid, tid});
    if (ph == "s" || ph == "f") flows[{e["cat"].get<std::string>(), e["id"].dump()}] += ph;
  }
  for (int64_t p : missing_pids) problems.push_back(fmt::format("pid {} has no process_name", p));
  for (const auto& [p, tid] : missing_threads) problems.push_back(fmt::format("({}, {}) has no thread_name", p, tid));
  for (const auto& [key, phases] : flows)
    if (phases.find('s') == std::string::npos || phases.find('f') == std::string::npos)
      problems.push_back(fmt::format("flow {}/{} is not paired: {}", key.first, key.second, phases));
  return problems;
}

int64_t FindProcess(const ParsedChromeTrace& t, const std::string& name) {
  for (const json& e : t.events)
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == name) return e["pid"];
  return -1;
}

int64_t FindThread(const ParsedChromeTrace& t, int64_t pid, const std::string& name) {
  for (const json& e : t.events)
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == pid && e["args"]["name"] == name) return e["tid"];
  return -1;
}

std::vector<std::pair<int64_t, int64_t>> SpansOnThread(const ParsedChromeTrace& t, int64_t pid,
                                                       const std::string& thread) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t tid = FindThread(t, pid, thread);
  if (tid < 0) return out;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const json& e = t.events[i];
    if (e["ph"] == "X" && e["pid"] == pid && e["tid"] == tid) out.push_back({t.ts_ns[i], t.dur_ns[i]});
  }
  return out;
}

}  // namespace ampscope::testing

// Reading a Chrome Trace Event JSON back and checking it against the format
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::testing {

struct ParsedChromeTrace {
  bool ok = false;
  std::string error;
  nlohmann::json doc;
  std::vector<nlohmann::json> events;  // doc["traceEvents"], in order
  // ts and dur of each event in ns, from the number text as written (not via a double);
  // INT64_MIN when absent or not a decimal with at most 3 fractional digits.
  std::vector<int64_t> ts_ns;
  std::vector<int64_t> dur_ns;
};

ParsedChromeTrace ParseChromeTrace(const std::string& text);

// Problems with types and required fields per phase (empty = valid).
std::vector<std::string> CheckTraceEventFormat(const ParsedChromeTrace& t);
// Problems with names (every pid has a process_name, every thread-scoped (pid, tid) a
// thread_name) and flows (every s has an f with the same cat and id, and vice versa).
std::vector<std::string> CheckNamesAndFlows(const ParsedChromeTrace& t);

// pid of the process named `name`, or -1.
int64_t FindProcess(const ParsedChromeTrace& t, const std::string& name);
// tid of the thread named `name` in `pid`, or -1.
int64_t FindThread(const ParsedChromeTrace& t, int64_t pid, const std::string& name);
// (ts, dur) in ns of the X events on the thread named `thread` of `pid`, in order.
std::vector<std::pair<int64_t, int64_t>> SpansOnThread(const ParsedChromeTrace& t, int64_t pid,
                                                       const std::string& thread);

}  // namespace ampscope::testing

#include "collector/config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "base/step_range.h"

namespace ampscope::collector {

namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

int32_t EnvInt(const char* name, int32_t fallback, std::vector<std::string>* problems) {
  std::string v = Env(name);
  if (v.empty()) return fallback;
  int64_t x;
  if (!ParseInt(v, &x) || x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
    problems->push_back(std::string(name) + "='" + v + "' is not an integer; ignored");
    return fallback;
  }
  return static_cast<int32_t>(x);
}

// EnvInt limited to lo..hi: a value outside is reported and ignored, never wrapped or clamped.
int32_t EnvIntInRange(const char* name, int32_t lo, int32_t hi, int32_t fallback, std::vector<std::string>* problems) {
  if (Env(name).empty()) return fallback;
  const size_t before = problems->size();
  const int32_t v = EnvInt(name, fallback, problems);
  if (problems->size() != before || (v >= lo && v <= hi)) return v;  // not an integer: already said
  problems->push_back(std::string(name) + "=" + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                      std::to_string(hi) + "; ignored");
  return fallback;
}

std::string ReadCommandLine() {
  FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (f == nullptr) return "";
  std::string raw;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0 && raw.size() < 65536) raw.append(buf, n);
  std::fclose(f);
  std::string out;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    std::string arg = raw.substr(start, end - start);
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    if (plain) {
      out += arg;
    } else {  // single-quote it the way a shell would read it back
      out += '\'';
      for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string SessionConfig::FilePath() const {
  std::string path = output_dir.empty() ? std::string(".") : output_dir;
  if (path.back() != '/') path += '/';
  path += host + "." + std::to_string(pid);
  if (rank >= 0) path += ".rank" + std::to_string(rank);
  return path + ".amptrace";
}

bool ParseStepRange(const std::string& text, int64_t* first, int64_t* last) {
  // The parser `ampscope record --steps` and `analyze --steps` use; recording needs a first step.
  StatusOr<StepRange> range = ampscope::ParseStepRange(text);
  if (!range.ok() || !range->first) return false;
  *first = *range->first;
  *last = range->last.value_or(std::numeric_limits<int64_t>::max());
  return true;
}

bool GateRangeMatches(const SessionConfig& config, std::string_view name, int64_t* number) {
  *number = -1;
  const std::string& gate = config.gate_range_name;
  if (gate.empty() || name.size() < gate.size() || name.compare(0, gate.size(), gate) != 0) return false;
  if (name.size() == gate.size()) return true;
  if (config.gate_is_capture_range) return false;
  std::string_view rest = name.substr(gate.size());
  while (!rest.empty() && (rest[0] == ' ' || rest[0] == '#' || rest[0] == '_' || rest[0] == ':' || rest[0] == '-'))
    rest.remove_prefix(1);
  // At most 18 digits: any such number fits in int64.
  if (rest.empty() || rest.size() > 18 || rest.find_first_not_of("0123456789") != std::string_view::npos) return false;
  int64_t v = 0;
  for (char c : rest) v = v * 10 + (c - '0');
  *number = v;
  return true;
}

SessionConfig ConfigFromEnvironment(std::vector<std::string>* problems) {
  SessionConfig c;
  c.pid = static_cast<uint32_t>(getpid());
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') {
    c.host = host;
  } else {
    c.host = "localhost";
  }
  for (char& ch : c.host)  // the host name becomes part of a file name
    if (ch == '/' || ch == '\0') ch = '_';
  c.command_line = ReadCommandLine();
  if (std::string dir = Env("AMPSCOPE_OUTPUT_DIR"); !dir.empty()) c.output_dir = dir;
  c.rank = EnvInt("RANK", -1, problems);
  c.local_rank = EnvInt("LOCAL_RANK", -1, problems);
  c.world_size = EnvInt("WORLD_SIZE", -1, problems);

  if (std::string steps = Env("AMPSCOPE_STEPS"); !steps.empty()) {
    if (ParseStepRange(steps, &c.gate_first, &c.gate_last)) {
      c.gate_range_name = Env("AMPSCOPE_STEP_RANGE_NAME");
      if (c.gate_range_name.empty()) c.gate_range_name = "step";
    } else {
      problems->push_back("AMPSCOPE_STEPS='" + steps + "' is not N..M; recording everything");
    }
  } else if (std::string capture = Env("AMPSCOPE_CAPTURE_NVTX"); !capture.empty()) {
    c.gate_range_name = capture;
    c.gate_first = c.gate_last = 0;
    c.gate_is_capture_range = true;
  }
  if (Env("AMPSCOPE_PRINT_WARNINGS") == "0") c.print_warnings = false;
  const std::string tm = Env("AMPSCOPE_TENSOR_METRICS");
  c.tensor_metrics = !tm.empty() && tm != "0";
  // At most 4 s: the interval is kept in uint32 ns.
  if (int32_t us = EnvIntInRange("AMPSCOPE_PM_INTERVAL_US", 1, 4000000, 0, problems); us > 0)
    c.pm_sample_interval_ns = static_cast<uint32_t>(us) * 1000u;
  const std::string drv = Env("AMPSCOPE_DRIVER_API");
  c.record_driver_api = !drv.empty() && drv != "0";
  if (int32_t mb = EnvIntInRange("AMPSCOPE_BUFFER_MB", 1, 256, 0, problems); mb > 0) c.buffer_bytes = size_t(mb) << 20;
  if (int32_t n = EnvIntInRange("AMPSCOPE_MAX_BUFFERS", 1, 4096, 0, problems); n > 0) c.max_buffers = size_t(n);
  if (int32_t ms = EnvIntInRange("AMPSCOPE_FLUSH_MS", 1, 3600000, 0, problems); ms > 0) c.flush_interval_ms = ms;
  return c;
}

}  // namespace ampscope::collector

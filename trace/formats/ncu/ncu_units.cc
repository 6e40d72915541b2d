#include "trace/formats/ncu/ncu_units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace ampscope::ncu {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// An SI or binary prefix in front of `base`: "K" 1e3, "Ki" 1024, ... ("" 1). 0: not one.
double Prefix(std::string_view p) {
  if (p.empty()) return 1;
  if (p == "K" || p == "k") return 1e3;
  if (p == "M") return 1e6;
  if (p == "G") return 1e9;
  if (p == "T") return 1e12;
  if (p == "P") return 1e15;
  if (p == "Ki") return 1024.0;
  if (p == "Mi") return 1024.0 * 1024;
  if (p == "Gi") return 1024.0 * 1024 * 1024;
  if (p == "Ti") return 1024.0 * 1024 * 1024 * 1024;
  if (p == "m") return 1e-3;
  if (p == "u") return 1e-6;
  if (p == "n") return 1e-9;
  return 0;
}

// One unit without '/'.
UnitScale Simple(std::string_view u) {
  if (u.empty()) return {true, UnitKind::kPlain, 1};
  if (u == "%") return {true, UnitKind::kPercent, 1};
  // Time: ns, us, ms, s and ncu's older nsecond, usecond, msecond, second (also "sec", "usec").
  struct TimeUnit { const char* name; double ns; };
  static constexpr TimeUnit kTimes[] = {{"ns", 1},        {"nsec", 1},      {"nsecond", 1},  {"nseconds", 1},
                                        {"us", 1e3},      {"usec", 1e3},    {"usecond", 1e3}, {"useconds", 1e3},
                                        {"\xC2\xB5s", 1e3}, {"ms", 1e6},   {"msec", 1e6},   {"msecond", 1e6},
                                        {"mseconds", 1e6}, {"s", 1e9},      {"sec", 1e9},    {"second", 1e9},
                                        {"seconds", 1e9}};
  for (const TimeUnit& t : kTimes)
    if (u == t.name) return {true, UnitKind::kTime, t.ns};
  // Bytes: byte, Kbyte, Mbyte, ... (ncu), KB, MB, GB, KiB, Kibyte, ...
  for (std::string_view base : {"bytes", "byte", "iB", "B"}) {
    if (u.size() < base.size() || u.substr(u.size() - base.size()) != base) continue;
    std::string_view p = u.substr(0, u.size() - base.size());
    if (base == "iB") {  // KiB, MiB, ...
      const double f = Prefix(std::string(p) + "i");
      if (f > 1) return {true, UnitKind::kBytes, f};
      continue;
    }
    const double f = Prefix(p);
    if (f >= 1) return {true, UnitKind::kBytes, f};
    if (p.size() == 2 && p[1] == 'i') {  // "Kibyte"
      const double g = Prefix(p);
      if (g > 1) return {true, UnitKind::kBytes, g};
    }
  }
  // Frequency: hz, Khz, Mhz, Ghz (ncu's spelling) and Hz, kHz, MHz, GHz.
  if (u.size() >= 2 && EqualsNoCase(u.substr(u.size() - 2), "hz")) {
    std::string p(u.substr(0, u.size() - 2));
    if (p.size() == 1) p[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(p[0])));
    const double f = p == "K" ? 1e3 : Prefix(p);
    if (f >= 1) return {true, UnitKind::kFrequency, f};
  }
  // Counts: cycles, instructions, warps, ... with an optional K/M/G prefix ("Kcycle", "Minst").
  static constexpr const char* kCounts[] = {"cycle", "cycles", "inst", "instruction", "instructions", "warp", "warps",
                                            "block", "blocks", "thread", "threads", "register", "registers", "SM",
                                            "cluster", "sector", "sectors", "request", "requests", "wavefront",
                                            "wavefronts", "lane", "transaction", "transactions", "TPC", "pass",
                                            "passes", "line", "lines", "ratio", "x", "time", "times", "kernel"};
  for (const char* c : kCounts) {
    const std::string_view base(c);
    if (u.size() < base.size() || u.substr(u.size() - base.size()) != base) continue;
    const double f = Prefix(u.substr(0, u.size() - base.size()));
    if (f >= 1) return {true, UnitKind::kPlain, f};
  }
  return {};
}

}  // namespace

UnitScale ParseUnit(std::string_view unit) {
  unit = Trim(unit);
  const size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return Simple(unit);
  const UnitScale num = Simple(Trim(unit.substr(0, slash)));
  const UnitScale den = Simple(Trim(unit.substr(slash + 1)));
  if (!num.known || !den.known || den.factor == 0) return {};
  const double f = num.factor / den.factor;
  if (den.kind == UnitKind::kTime) {  // per time: per second
    const double per_second = f * 1e9;
    if (num.kind == UnitKind::kBytes) return {true, UnitKind::kBandwidth, per_second};
    if (num.kind == UnitKind::kPlain) return {true, UnitKind::kFrequency, per_second};
    return {true, UnitKind::kOther, per_second};
  }
  if (num.kind == UnitKind::kPlain && den.kind == UnitKind::kPlain) return {true, UnitKind::kPlain, f};
  return {true, UnitKind::kOther, f};
}

bool IsNotAvailable(std::string_view text) {
  text = Trim(text);
  return text.empty() || EqualsNoCase(text, "n/a") || EqualsNoCase(text, "nan");
}

std::optional<double> ParseNcuNumber(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  // Drop thousands separators: a comma between a digit and exactly three digits.
  std::string s;
  s.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ',') {
      const bool digit_before = i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]));
      size_t n = 0;
      while (i + 1 + n < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1 + n]))) ++n;
      if (!digit_before || n != 3) return std::nullopt;
      continue;
    }
    s.push_back(c);
  }
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  double v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || end != last || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace ampscope::ncu

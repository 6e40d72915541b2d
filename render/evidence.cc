#include "render/evidence.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "render/format.h"
#include "render/kernel_names.h"

namespace ampscope::render {

using nlohmann::json;

namespace {

constexpr const char* kTimes = "\xC3\x97";  // ×

// "exposed_per_step_us" -> "Exposed": the key's name without its unit (the value carries it).
std::string Label(const std::string& key) {
  std::string words = UnitOfKey(key).label;
  std::replace(words.begin(), words.end(), ' ', '_');
  return HumanKey(words.empty() ? key : words);
}

bool IsNote(const std::string& key) {
  return key == "estimate" || key == "method" || key == "basis" ||
         (key.size() > 6 && key.compare(key.size() - 6, 6, "_basis") == 0);
}

bool IsKernelList(const std::string& key) { return key.find("kernel") != std::string::npos; }

std::string UnitFor(const json& units, const std::string& key) {
  return units.is_object() && units.contains(key) && units[key].is_string() ? units[key].get<std::string>() : "";
}

std::string Keyed(const std::string& key, double v, const json& units) { return FormatKeyed(key, v, UnitFor(units, key)); }

// Kernel names, grouped: "FillFunctor<float> ×160, ClassNLLCriterion… ×1" (most frequent first).
std::string KernelNames(const json& names, size_t max) {
  std::vector<std::pair<std::string, size_t>> groups;
  std::map<std::string, size_t> index;
  for (const json& n : names) {
    if (!n.is_string()) continue;
    std::string s = ShortKernelName(n.get<std::string>());
    auto it = index.find(s);
    if (it == index.end()) {
      index[s] = groups.size();
      groups.emplace_back(s, 1);
    } else {
      groups[it->second].second++;
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < groups.size() && i < max; ++i)
    out += (i ? ", " : "") + groups[i].first + (groups[i].second > 1 ? " " + std::string(kTimes) + std::to_string(groups[i].second) : "");
  if (groups.size() > max) out += fmt::format(", and {} more", groups.size() - max);
  return out;
}

std::string Joined(const json& list, const std::string& key, const json& units, size_t max) {
  if (IsKernelList(key)) return KernelNames(list, max);
  std::string out;
  size_t n = 0;
  for (const json& v : list) {
    if (n == max) {
      out += fmt::format(", and {} more", list.size() - max);
      break;
    }
    // A nested value may hold names from the trace, which need not be UTF-8: dump never throws.
    std::string s = v.is_string()   ? v.get<std::string>()
                    : v.is_number() ? Keyed(key, v.get<double>(), units)
                                    : v.dump(-1, ' ', false, json::error_handler_t::replace);
    out += (n++ ? ", " : "") + s;
  }
  return out;
}

// A nested object of numbers ({"data_loader": 33.07, "host_launch": 8.99}) under a key whose
// unit applies to each: "data loader 33.1%, host launch 9.0%", largest first, zeros left out.
std::string Breakdown(const std::string& key, const json& obj) {
  const std::string unit = UnitOfKey(key).unit;
  std::vector<std::pair<std::string, double>> parts;
  for (const auto& [k, v] : obj.items())
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() != 0) parts.emplace_back(k, v.get<double>());
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [k, v] : parts) {
    std::string words = k;
    std::replace(words.begin(), words.end(), '_', ' ');
    out += (out.empty() ? "" : ", ") + words + " " + (unit.empty() ? FormatKeyed(k, v) : WithUnit(v, unit));
  }
  return out.empty() ? "none" : out;
}

// A list of records: a table (name-like column first; start/end as one "When" column).
void RecordTable(const std::string& key, const json& list, const json& units, const StepClock& clock,
                 double origin_us, size_t max_rows, EvidenceItem& item) {
  std::vector<std::string> cols;
  for (const json& r : list)
    if (r.is_object())
      for (const auto& [k, v] : r.items())
        if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  const bool when = std::find(cols.begin(), cols.end(), "start_us") != cols.end() &&
                    std::find(cols.begin(), cols.end(), "end_us") != cols.end();
  if (when) {
    cols.erase(std::remove_if(cols.begin(), cols.end(), [](const std::string& c) { return c == "start_us" || c == "end_us"; }),
               cols.end());
    cols.insert(cols.begin(), "when");
  }
  // The row leads with what it is about: a name-like column (records are JSON objects, whose keys
  // come in alphabetical order: "calls" or "attention_matrix_bytes" would otherwise lead). Where
  // none of the known label keys is there, the first column that holds text in every record (a
  // note such as "shape_basis" never leads); a record of a time range leads with its time.
  auto lead = cols.end();
  for (const char* key : {"name", "kernel", "call", "op", "api", "type", "shape", "ops"})
    if (lead == cols.end()) lead = std::find(cols.begin(), cols.end(), key);
  if (lead == cols.end() && !when)
    lead = std::find_if(cols.begin(), cols.end(), [&](const std::string& c) {
      return !IsNote(c) && std::all_of(list.begin(), list.end(), [&](const json& r) {
               return !r.is_object() || (r.contains(c) && r[c].is_string());
             });
    });
  if (lead != cols.end()) std::rotate(cols.begin(), lead, lead + 1);
  const bool kernels = IsKernelList(key);
  for (const std::string& c : cols)
    item.header.push_back(c == "when" ? "When" : kernels && (c == "name" || c == "kernel") ? "Kernel" : Label(c));
  std::vector<std::string> lines;
  for (size_t i = 0; i < list.size(); ++i) {
    if (item.rows.size() == max_rows) {
      item.more = list.size() - i;
      break;
    }
    const json& r = list[i];
    if (!r.is_object()) continue;
    std::vector<std::string> row;
    std::string full, lead, rest;
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string& k = cols[c];
      std::string cell;
      if (k == "when") {
        auto s = render::Number(r, "/start_us"), e = render::Number(r, "/end_us");
        cell = s && e ? clock.Range(*s, *e, origin_us) : "";
      } else if (!r.contains(k) || r[k].is_null()) {
        cell = "";
      } else if (r[k].is_string()) {
        cell = r[k].get<std::string>();
        if (kernels && (k == "name" || k == "kernel")) {
          full = cell;
          cell = ShortKernelName(cell);
        }
      } else if (r[k].is_number()) {
        cell = UnitOfKey(k).time_point ? clock.At(r[k].get<double>(), origin_us) : Keyed(k, r[k].get<double>(), units);
      } else if (r[k].is_array()) {
        cell = r[k].size() > 3 && IsKernelList(k) ? fmt::format("{}: {}", Plural(static_cast<double>(r[k].size()), "kernel"), KernelNames(r[k], 3))
                                                  : Joined(r[k], k, units, 4);
      } else if (r[k].is_boolean()) {
        cell = r[k].get<bool>() ? "yes" : "no";
      } else {
        cell = r[k].dump(-1, ' ', false, json::error_handler_t::replace);
      }
      row.push_back(cell);
      if (cell.empty()) continue;
      if (c == 0) {
        lead = cell;
      } else if (k == "count") {
        rest += (rest.empty() ? "" : ", ") + cell + kTimes;
      } else if (k == "time_us" || (r.contains(k) && r[k].is_array() && IsKernelList(k))) {  // "when" is not a key of r
        rest += (rest.empty() ? "" : ", ") + cell;  // says what it is ("164 kernels: ...")
      } else {
        std::string label = item.header[c];
        // Lower-case the first letter inside the sentence, not an acronym's ("GPU idle", "CUDA graph").
        const bool acronym = label.size() > 1 && std::isupper(static_cast<unsigned char>(label[1]));
        if (!label.empty() && !acronym) label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
        rest += (rest.empty() ? "" : ", ") + label + " " + cell;
      }
    }
    item.row_full.push_back(full.empty() ? (row.empty() ? "" : row[0]) : full);
    item.rows.push_back(std::move(row));
    lines.push_back(rest.empty() ? lead : lead.empty() ? rest : lead + " (" + rest + ")");
  }
  // The one-line form: three records, or one when records carry lists (chains of kernels).
  const bool nested = std::any_of(list.begin(), list.end(), [](const json& r) {
    return r.is_object() && std::any_of(r.begin(), r.end(), [](const json& v) { return v.is_array(); });
  });
  const size_t shown = std::min<size_t>(lines.size(), nested ? 1 : 3);
  for (size_t i = 0; i < shown; ++i) item.text += (i ? "; " : "") + lines[i];
  const size_t left = list.size() - shown;
  if (left > 0) item.text += fmt::format("; and {} more", left);
}

// The earliest time in a finding: the origin of relative times when the report has no steps.
double Origin(const reports::FindingView& finding) {
  double origin = INFINITY;
  for (const reports::FindingTimeRange& r : finding.time_ranges_us)
    if (r.start_us) origin = std::min(origin, *r.start_us);
  const json& ev = finding.evidence;
  if (ev.is_object())
    for (const auto& [k, v] : ev.items()) {
      if (v.is_number() && UnitOfKey(k).time_point) origin = std::min(origin, v.get<double>());
      if (v.is_array())
        for (const json& r : v)
          if (r.is_object())
            for (const char* t : {"/start_us", "/end_us"})
              if (auto x = render::Number(r, t)) origin = std::min(origin, *x);
    }
  return std::isfinite(origin) ? origin : 0;
}

// An item's label as a report without steps needs it: a value already per window ("1.70
// ms/window") drops the label's "per step", another says "in the window" (StepWords).
std::string WindowLabel(const json& report, const EvidenceItem& item) {
  std::string label = StepWords(report, item.label);
  if (label == item.label) return label;  // the report has steps, or the label names none
  const std::string_view per_window = "/window";
  const bool value_says_it = item.text.size() >= per_window.size() &&
                             item.text.compare(item.text.size() - per_window.size(), per_window.size(), per_window) == 0;
  if (!value_says_it) return label;
  label = item.label;
  for (const char* words : {" per step", "Per step "})
    for (size_t at = label.find(words); at != std::string::npos; at = label.find(words)) label.erase(at, std::string_view(words).size());
  if (!label.empty()) label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  return label;
}

}  // namespace

std::vector<EvidenceItem> FindingEvidence(const json& report, const reports::FindingView& finding, const StepClock& clock,
                                          size_t max_rows) {
  std::vector<EvidenceItem> items;
  const json& ev = finding.evidence;
  const json& units = finding.evidence_units;
  const double origin = Origin(finding);
  auto add = [&](const std::string& key, const json& v) {
    EvidenceItem item;
    item.key = key;
    item.label = Label(key);
    item.note = IsNote(key);
    if (v.is_number()) {
      item.text = UnitOfKey(key).time_point ? clock.At(v.get<double>(), origin) : Keyed(key, v.get<double>(), units);
    } else if (v.is_string()) {
      item.text = RelativeTimes(v.get<std::string>(), clock);
    } else if (v.is_boolean()) {
      item.text = v.get<bool>() ? "yes" : "no";
    } else if (v.is_object()) {
      item.text = Breakdown(key, v);
    } else if (v.is_array() && std::any_of(v.begin(), v.end(), [](const json& x) { return x.is_object(); })) {
      RecordTable(key, v, units, clock, origin, max_rows, item);
      if (item.rows.empty() && v.empty()) item.text = "none";
    } else if (v.is_array()) {
      item.text = v.empty() ? "none" : Joined(v, key, units, max_rows);
    } else {
      return;  // null: nothing measured
    }
    items.push_back(std::move(item));
  };
  if (ev.is_object()) {
    for (const auto& [k, v] : ev.items()) add(k, v);
  } else if (!ev.is_null()) {
    add("evidence", ev);
  }
  // Measurements first, explanations last; the report's key order otherwise.
  std::stable_partition(items.begin(), items.end(), [](const EvidenceItem& i) { return !i.note; });
  // One quantity in two units ("eligible_kernel_time_pct", "eligible_kernel_time_us") is one
  // item: "Eligible kernel time: 67.6% (400.0 ms)".
  std::vector<EvidenceItem> merged;
  for (EvidenceItem& item : items) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const EvidenceItem& m) {
      return m.label == item.label && m.rows.empty() && item.rows.empty() && !m.note && !item.note;
    });
    if (same != merged.end()) {
      same->text += " (" + item.text + ")";
      same->key += "," + item.key;
    } else {
      merged.push_back(std::move(item));
    }
  }
  for (EvidenceItem& item : merged) item.label = WindowLabel(report, item);
  return merged;
}

std::string TimeRangesText(const reports::FindingView& finding, const StepClock& clock, size_t max) {
  const std::vector<reports::FindingTimeRange>& ranges = finding.time_ranges_us;
  if (ranges.empty()) return "";
  const double origin = Origin(finding);
  std::string out;
  size_t shown = 0;
  for (const reports::FindingTimeRange& r : ranges) {
    if (!r.start_us || !r.end_us) continue;
    if (shown == max) break;
    out += (shown++ ? "; " : "") + clock.Range(*r.start_us, *r.end_us, origin);
  }
  if (ranges.size() > shown) out += fmt::format(" (and {} more)", ranges.size() - shown);
  return out;
}

std::string MetricLabel(const std::string& key) {
  // A key with a unit suffix loses it (the value carries the unit); others are named whole.
  return UnitOfKey(key).unit.empty() ? HumanKey(key) : Label(key);
}

std::string MetricText(const std::string& key, const json& v, const json& units) {
  if (v.is_number()) return Keyed(key, v.get<double>(), units);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_object()) return Breakdown(key, v);
  if (v.is_array()) return v.empty() ? "none" : Joined(v, key, units, kEvidenceRows);
  return "";
}

std::string EvidenceLine(const std::vector<EvidenceItem>& items, bool with_notes) {
  std::string out;
  for (const EvidenceItem& i : items) {
    if (i.note && !with_notes) continue;
    if (i.text.empty()) continue;
    out += (out.empty() ? "" : "; ") + i.label + ": " + i.text;
  }
  return out;
}

}  // namespace ampscope::render

#include "trace/formats/ncu/ncu_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "trace/formats/ncu/ncu_csv.h"
#include "trace/formats/ncu/ncu_fields.h"
#include "trace/formats/ncu/ncu_units.h"

namespace ampscope {

namespace {

using ncu::CsvReader;
using ncu::LaunchValues;
using ncu::UnitScale;

constexpr size_t kMaxHeaderLine = 1 << 20;  // a wide header of ~1,000 metric names is ~40 kB

bool EndsWithNoCase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) !=
        std::tolower(static_cast<unsigned char>(suffix[i])))
      return false;
  return true;
}

// ncu's header: "ID" first, a "Kernel Name" column.
bool IsHeader(const std::vector<std::string>& fields) {
  if (fields.size() < 2 || fields[0] != "ID") return false;
  for (const std::string& f : fields)
    if (f == "Kernel Name") return true;
  return false;
}

// Lines ncu writes among its CSV (to the same stdout): "==PROF== ...", "==WARNING== ...", "==ERROR== ...".
constexpr std::string_view kNcuMessage = "==";

// `s` as one word of a shell command line.
std::string ShellWord(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ',' || c == ':';
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string At(const std::string& name, uint64_t offset, const std::string& what) {
  return name + ": byte " + std::to_string(offset) + ": " + what;
}

// "(32, 4, 1)" -> {32, 4, 1}.
bool ParseDims(std::string_view text, uint32_t out[3]) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
  text = text.substr(1, text.size() - 2);
  for (int i = 0; i < 3; ++i) {
    const size_t comma = text.find(',');
    if ((i < 2) != (comma != std::string_view::npos)) return false;
    const std::optional<double> v = ncu::ParseNcuNumber(text.substr(0, comma));
    if (!v || !(*v >= 0 && *v <= 4294967295.0) || *v != std::trunc(*v)) return false;
    out[i] = static_cast<uint32_t>(*v);
    if (comma != std::string_view::npos) text.remove_prefix(comma + 1);
  }
  return true;
}

std::optional<int64_t> ParseInt(std::string_view text) {
  const std::optional<double> v = ncu::ParseNcuNumber(text);
  // Whole numbers inside int64's range only; 2^63 itself does not fit.
  if (!v || !(*v >= -9223372036854775808.0 && *v < 9223372036854775808.0) || *v != std::trunc(*v)) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// An id column as int32: -1 when absent or outside int32 (an id that does not fit names nothing).
int32_t NarrowId(std::optional<int64_t> v) {
  return v && *v >= std::numeric_limits<int32_t>::min() && *v <= std::numeric_limits<int32_t>::max()
             ? static_cast<int32_t>(*v) : -1;
}

// Column positions of the header (-1: absent).
struct Columns {
  int id = -1, process_id = -1, process_name = -1, kernel_name = -1, context = -1, stream = -1, block = -1,
      grid = -1, device = -1, cc = -1, section = -1, metric = -1, unit = -1, value = -1, rule_name = -1,
      rule_type = -1, rule_description = -1, speedup_type = -1, speedup = -1;
  std::vector<bool> identity;  // per column: one of the above (not a metric, in the wide form)

  explicit Columns(const std::vector<std::string>& header) : identity(header.size(), false) {
    const std::pair<const char*, int*> names[] = {
        {"ID", &id},           {"Process ID", &process_id}, {"Process Name", &process_name},
        {"Kernel Name", &kernel_name}, {"Context", &context}, {"Stream", &stream},
        {"Block Size", &block}, {"Grid Size", &grid},       {"Device", &device},
        {"CC", &cc},           {"Section Name", &section},  {"Metric Name", &metric},
        {"Metric Unit", &unit}, {"Metric Value", &value},   {"Rule Name", &rule_name},
        {"Rule Type", &rule_type}, {"Rule Description", &rule_description},
        {"Estimated Speedup Type", &speedup_type}, {"Estimated Speedup", &speedup}};
    static const std::set<std::string, std::less<>> kOtherIdentity = {"Host Name", "Kernel Time"};
    for (size_t i = 0; i < header.size(); ++i) {
      for (const auto& [name, col] : names)
        if (header[i] == name && *col < 0) {
          *col = static_cast<int>(i);
          identity[i] = true;
        }
      if (kOtherIdentity.count(header[i])) identity[i] = true;
    }
  }
  bool long_form() const { return metric >= 0 && value >= 0; }
};

std::string_view Cell(const std::vector<std::string>& f, int col) {
  return col >= 0 && static_cast<size_t>(col) < f.size() ? std::string_view(f[col]) : std::string_view();
}

class Reader {
 public:
  Reader(std::unique_ptr<ByteSource> source, std::string name) : csv_(std::move(source)), name_(std::move(name)) {
    report_.path = name_;
  }

  StatusOr<NcuReport> Read() {
    std::vector<std::string> header;
    uint64_t header_offset = 0;
    AMPSCOPE_RETURN_IF_ERROR(FindHeader(&header, &header_offset));
    report_.shape = Columns(header).long_form() ? NcuShape::kLong : NcuShape::kWide;
    // Each header starts the rows of one ncu output. A header again is the next output of
    // several concatenated (`cat kernel_*.csv`): its launches are numbered from 0 again, so
    // IDs are looked up among its own launches only, and its columns are its own.
    while (true) {
      const Columns cols(header);
      by_id_.clear();
      AMPSCOPE_RETURN_IF_ERROR(cols.long_form() ? ReadLong(header, cols) : ReadWide(header, cols));
      if (next_header_.empty()) break;
      header = std::move(next_header_);
      next_header_.clear();
    }
    report_.preamble_lines = skipped_lines_;
    if (skipped_lines_ > 0)
      report_.diagnostics.AddCount(DiagCode::kNcuPreamble, skipped_lines_, first_skipped_,
                                   std::to_string(skipped_lines_) + " lines that are not ncu's CSV (==PROF== messages, program output) skipped");
    if (report_.launches.empty())
      return Status::Error(At(name_, csv_.offset(), "an Nsight Compute CSV header but no kernel launch rows"));
    for (size_t i = 0; i < report_.launches.size(); ++i) pending_[i].values.Finish(report_.launches[i], report_.field_sources);
    report_.bytes = csv_.offset();
    report_.parts = {name_};
    return std::move(report_);
  }

 private:
  struct Pending {
    LaunchValues values;
    std::unordered_set<std::string> seen;  // long form: section + metric names already read
  };

  void Skipped(uint64_t offset) {
    if (skipped_lines_++ == 0) first_skipped_ = static_cast<int64_t>(offset);
  }

  Status FindHeader(std::vector<std::string>* header, uint64_t* offset) {
    std::string line;
    while (true) {
      StatusOr<bool> more = csv_.NextLine(&line, offset, kMaxHeaderLine);
      if (!more.ok()) return Status::Error(name_ + ": " + more.status().message());
      if (!*more)
        return Status::Error(At(name_, csv_.offset(),
                                "not Nsight Compute CSV output: no header row with \"ID\" and \"Kernel Name\" columns "
                                "(expected `ncu --csv` output)"));
      if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 byte-order mark
      if (ncu::SplitCsvLine(line, header) && IsHeader(*header)) return Status::Ok();
      const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
      if (!blank) Skipped(*offset);
    }
  }

  // The next CSV record, skipping ncu's own messages and blank lines. false at the end.
  StatusOr<bool> NextRecord(std::vector<std::string>* fields, uint64_t* offset) {
    while (true) {
      StatusOr<bool> message = csv_.AtLineStartingWith(kNcuMessage);
      if (!message.ok()) return message.status();
      if (*message) {
        std::string line;
        StatusOr<bool> read = csv_.NextLine(&line, offset, 256);
        if (!read.ok()) return read.status();
        Skipped(*offset);
        continue;
      }
      bool unterminated = false;
      StatusOr<bool> more = csv_.NextRecord(fields, offset, &unterminated);
      if (!more.ok()) return more.status();
      if (!*more) return false;
      if (unterminated) {
        report_.diagnostics.Add(DiagCode::kNcuRaggedRow, static_cast<int64_t>(*offset),
                                "the file ends inside a quoted field; its last row was skipped");
        return false;
      }
      if (fields->empty()) continue;  // a blank line
      if (IsHeader(*fields)) {          // the next output of several concatenated: Read starts it
        next_header_ = std::move(*fields);
        return false;
      }
      ++report_.rows;
      return true;
    }
  }

  void Ragged(uint64_t offset, size_t got, size_t header) {
    report_.diagnostics.Add(DiagCode::kNcuRaggedRow, static_cast<int64_t>(offset),
                            "a row of " + std::to_string(got) + " fields under a header of " + std::to_string(header));
  }

  // The launch with this ID (created from the row's identity columns on first sight).
  size_t LaunchFor(int64_t id, const std::vector<std::string>& f, const Columns& c, uint64_t offset) {
    const auto [it, fresh] = by_id_.emplace(id, report_.launches.size());
    if (!fresh) return it->second;
    NcuLaunch l;
    l.id = id;
    l.name = std::string(Cell(f, c.kernel_name));
    l.process_id = ParseInt(Cell(f, c.process_id)).value_or(-1);
    l.process_name = std::string(Cell(f, c.process_name));
    l.context = NarrowId(ParseInt(Cell(f, c.context)));
    l.stream = NarrowId(ParseInt(Cell(f, c.stream)));
    l.device = NarrowId(ParseInt(Cell(f, c.device)));
    l.cc = std::string(Cell(f, c.cc));
    l.dims_known = ParseDims(Cell(f, c.grid), l.grid) && ParseDims(Cell(f, c.block), l.block);
    l.first_offset = static_cast<int64_t>(offset);
    report_.launches.push_back(std::move(l));
    pending_.emplace_back();
    return it->second;
  }

  void NoteMetric(std::string_view section, std::string_view name, std::string_view unit) {
    std::string key(section);
    key.push_back('\x1f');
    key.append(name);
    if (!metric_index_.emplace(std::move(key), report_.metrics.size()).second) return;
    report_.metrics.push_back({std::string(name), std::string(section), std::string(unit)});
  }

  // One metric value of a launch; `unit` parsed by the caller (once per column in the wide form).
  void Value(size_t launch, std::string_view name, std::string_view text, std::string_view unit_text,
             const UnitScale& unit, bool read_metric, uint64_t offset) {
    if (name == "device__attribute_display_name" && report_.device_name.empty()) report_.device_name = std::string(text);
    if (ncu::IsNotAvailable(text)) return;
    const std::optional<double> v = ncu::ParseNcuNumber(text);
    if (!v) {
      if (read_metric)
        report_.diagnostics.Add(DiagCode::kNcuBadValue, static_cast<int64_t>(offset),
                                std::string(name) + " = '" + std::string(text.substr(0, 40)) + "' is not a number");
      return;
    }
    if (!unit.known && unknown_units_.insert(std::string(name)).second)
      report_.diagnostics.Add(DiagCode::kNcuUnknownUnit, static_cast<int64_t>(offset),
                              std::string(name) + " is in '" + std::string(unit_text) + "'");
    if (!pending_[launch].values.Offer(name, *v, unit))
      report_.diagnostics.Add(DiagCode::kNcuBadValue, static_cast<int64_t>(offset),
                              std::string(name) + ": unit '" + std::string(unit_text) + "' cannot be scaled");
  }

  Status ReadLong(const std::vector<std::string>& header, const Columns& c) {
    std::vector<std::string> f;
    uint64_t offset = 0;
    const size_t need = static_cast<size_t>(std::max(c.id, c.kernel_name)) + 1;
    while (true) {
      StatusOr<bool> more = NextRecord(&f, &offset);
      if (!more.ok()) return Status::Error(name_ + ": " + more.status().message());
      if (!*more) return Status::Ok();
      const std::optional<int64_t> id = ParseInt(Cell(f, c.id));
      const std::string_view metric = Cell(f, c.metric);
      const std::string_view rule = Cell(f, c.rule_name);
      const bool has_value = !metric.empty() && f.size() > static_cast<size_t>(c.value);
      if (f.size() > header.size() || f.size() < need || !id || (!has_value && rule.empty())) {
        Ragged(offset, f.size(), header.size());
        continue;
      }
      const size_t launch = LaunchFor(*id, f, c, offset);
      if (has_value) {
        const std::string_view section = Cell(f, c.section);
        const std::string_view unit = Cell(f, c.unit);
        NoteMetric(section, metric, unit);
        std::string key(section);
        key.push_back('\x1f');
        key.append(metric);
        if (!pending_[launch].seen.insert(std::move(key)).second) {
          report_.diagnostics.Add(DiagCode::kNcuDuplicateMetric, static_cast<int64_t>(offset),
                                  "launch " + std::to_string(*id) + ": " + std::string(metric) + " twice");
          continue;
        }
        Value(launch, metric, Cell(f, c.value), unit, ncu::ParseUnit(unit), ncu::IsReadMetric(metric), offset);
      }
      if (!rule.empty()) {
        NcuRule r;
        r.section = std::string(Cell(f, c.section));
        r.name = std::string(rule);
        r.type = std::string(Cell(f, c.rule_type));
        r.description = std::string(Cell(f, c.rule_description));
        r.speedup_type = std::string(Cell(f, c.speedup_type));
        r.est_speedup_pct = ncu::ParseNcuNumber(Cell(f, c.speedup));
        report_.launches[launch].rules.push_back(std::move(r));
      }
    }
  }

  Status ReadWide(const std::vector<std::string>& header, const Columns& c) {
    if (c.kernel_name < 0) return Status::Error(At(name_, csv_.offset(), "an ncu header without a \"Kernel Name\" column"));
    std::vector<std::string> f, units(header.size());
    uint64_t offset = 0;
    bool first = true;
    std::vector<UnitScale> scale(header.size());
    std::vector<bool> read(header.size(), false);
    auto prepare = [&] {
      for (size_t j = 0; j < header.size(); ++j) {
        if (c.identity[j]) continue;
        scale[j] = ncu::ParseUnit(units[j]);
        read[j] = ncu::IsReadMetric(header[j]);
        NoteMetric("", header[j], units[j]);
      }
    };
    while (true) {
      StatusOr<bool> more = NextRecord(&f, &offset);
      if (!more.ok()) return Status::Error(name_ + ": " + more.status().message());
      if (!*more) {
        if (first) prepare();
        return Status::Ok();
      }
      if (first) {  // the units row: its ID cell is empty
        first = false;
        const bool units_row = Cell(f, c.id).empty();
        if (units_row && f.size() <= header.size())
          for (size_t j = 0; j < f.size(); ++j) units[j] = f[j];
        prepare();
        if (units_row) continue;
      }
      const std::optional<int64_t> id = ParseInt(Cell(f, c.id));
      if (f.size() > header.size() || f.size() <= static_cast<size_t>(std::max(c.id, c.kernel_name)) || !id) {
        Ragged(offset, f.size(), header.size());
        continue;
      }
      if (f.size() < header.size()) Ragged(offset, f.size(), header.size());  // read what is there
      const size_t launch = LaunchFor(*id, f, c, offset);
      for (size_t j = 0; j < f.size(); ++j)
        if (!c.identity[j]) Value(launch, header[j], f[j], units[j], scale[j], read[j], offset);
    }
  }

  CsvReader csv_;
  std::string name_;
  NcuReport report_;
  std::vector<Pending> pending_;  // parallel to report_.launches
  std::map<int64_t, size_t> by_id_;      // the launches of the current output (since its header)
  std::vector<std::string> next_header_;  // the header that ended the current output (empty: none)
  std::unordered_map<std::string, size_t> metric_index_;
  std::unordered_set<std::string> unknown_units_;
  uint64_t skipped_lines_ = 0;
  int64_t first_skipped_ = -1;
};

}  // namespace

NcuInputKind SniffNcuInput(const std::string& path) {
  // Only regular files: a pipe read here would lose its bytes for the reader that follows.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return NcuInputKind::kNotNcu;
  const bool csv_name = EndsWithNoCase(path, ".csv") || EndsWithNoCase(path, ".csv.gz");
  const bool rep_name = EndsWithNoCase(path, ".ncu-rep");
  {
    // JSON starts with '{' or '[': say so from its first bytes, without reading a trace whose
    // first "line" may be the whole file.
    StatusOr<std::unique_ptr<ByteSource>> head = OpenByteSource(path);
    if (!head.ok()) return NcuInputKind::kNotNcu;  // the reader that opens it says why
    char buf[4096];
    StatusOr<size_t> n = (*head)->Read(buf, sizeof buf);
    if (!n.ok()) return NcuInputKind::kNotNcu;
    const std::string_view text(buf, *n);
    const size_t start = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (start != std::string_view::npos && (text[start] == '{' || text[start] == '[')) return NcuInputKind::kNotNcu;
  }
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return NcuInputKind::kNotNcu;
  CsvReader csv(std::move(source).value());
  std::string line;
  std::vector<std::string> fields;
  uint64_t offset = 0;
  // A .ncu-rep is binary: only its first lines are looked at. Other input is scanned to its end
  // (a 5,000-line preamble is usual when the program prints), each line read at most 1 MiB.
  for (size_t lines = 0; !rep_name || lines < 64; ++lines) {
    StatusOr<bool> more = csv.NextLine(&line, &offset, kMaxHeaderLine);
    if (!more.ok() || !*more) break;
    const size_t start = line.find_first_not_of(" \t\r\xEF\xBB\xBF");
    if (start == std::string::npos) continue;
    if (line.find("\"ID\"") == std::string::npos && line.compare(start, 3, "ID,") != 0) continue;
    if (ncu::SplitCsvLine(line.substr(start), &fields) && IsHeader(fields)) return NcuInputKind::kCsv;
  }
  if (rep_name) return NcuInputKind::kReport;
  return csv_name ? NcuInputKind::kOtherCsv : NcuInputKind::kNotNcu;
}

std::string NcuRefusalMessage(const std::string& path, NcuInputKind kind) {
  if (kind == NcuInputKind::kReport) {
    std::string csv = path.substr(0, path.size() - std::string_view(".ncu-rep").size()) + ".csv";
    return path + ": an Nsight Compute report, which ampscope cannot read directly; export it with `ncu -i " +
           ShellWord(path) + " --csv --page raw > " + ShellWord(csv) + "` and analyze the .csv file";
  }
  // Windows PowerShell's `>` writes UTF-16: say so rather than "not ncu output".
  unsigned char bom[2] = {0, 0};
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    if (std::fread(bom, 1, 2, f) != 2) bom[0] = bom[1] = 0;
    std::fclose(f);
  }
  if ((bom[0] == 0xFF && bom[1] == 0xFE) || (bom[0] == 0xFE && bom[1] == 0xFF))
    return path + ": byte 0: UTF-16 text (PowerShell's `>` writes it): convert it with `iconv -f UTF-16 -t UTF-8 " +
           ShellWord(path) + "` or write the CSV with `ncu ... | Out-File -Encoding utf8`";
  return path + ": byte 0: not Nsight Compute CSV output: no header row with \"ID\" and \"Kernel Name\" columns "
                "(expected `ncu --csv` output)";
}

StatusOr<NcuReport> ReadNcuCsv(std::unique_ptr<ByteSource> source, const std::string& name) {
  return Reader(std::move(source), name).Read();
}

NcuReport MergeNcuReports(std::vector<NcuReport> parts) {
  if (parts.empty()) return {};
  NcuReport out = std::move(parts.front());
  std::set<std::pair<std::string, std::string>> seen;
  for (const NcuMetric& m : out.metrics) seen.emplace(m.section, m.name);
  for (size_t p = 1; p < parts.size(); ++p) {
    NcuReport& r = parts[p];
    const uint32_t part = static_cast<uint32_t>(out.parts.size());
    out.parts.insert(out.parts.end(), r.parts.begin(), r.parts.end());
    for (NcuLaunch& l : r.launches) {
      l.part += part;
      out.launches.push_back(std::move(l));
    }
    for (NcuMetric& m : r.metrics)
      if (seen.emplace(m.section, m.name).second) out.metrics.push_back(std::move(m));
    for (size_t i = 0; i < kNcuFieldCount; ++i)
      if (out.field_sources[i].empty()) out.field_sources[i] = r.field_sources[i];
    if (out.device_name.empty()) out.device_name = r.device_name;
    out.preamble_lines += r.preamble_lines;
    out.rows += r.rows;
    out.bytes += r.bytes;
    for (const auto& [code, e] : r.diagnostics.entries())
      if (const DiagnosticInfo* info = FindDiagnostic(code))
        out.diagnostics.AddCount(info->code, e.count, e.first_offset, r.path + ": " + e.first_message);
  }
  return out;
}

StatusOr<NcuReport> ReadNcuCsv(const std::string& path) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  return ReadNcuCsv(std::move(source).value(), path);
}

}  // namespace ampscope

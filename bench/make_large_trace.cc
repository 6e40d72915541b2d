// make_large_trace: writes a large, realistic Kineto trace by repeating the step structure
// of a real one (default: the tensorboard plugin's ResNet50 trace, ProfilerStep#5..#10).
//
// The event text of the template is copied as-is; per repetition only these change:
// - times ("ts", "external ts") move by a whole number of µs per repetition, so the copies
//   follow one another without overlapping (fractional digits are kept verbatim);
// - ids ("correlation", "external id", "External id", flow "id") move by a power of ten
//   above the template's largest id, so joins stay unique;
// - ProfilerStep#N is renumbered so the steps keep counting up.
// Metadata events ("ph": "M") and the profiler's own spans are written once.
//
// Usage: make_large_trace [--template PATH] --out PATH [--size-mb N | --repeat N] [--gzip]
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trace/io/input_stream.h"
#include "trace/io/json_scanner.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace {

using ampscope::json::Kind;
using ampscope::json::Result;
using ampscope::json::Scanner;
using ampscope::json::Value;

#ifndef AMPSCOPE_SHARED_DIR
#define AMPSCOPE_SHARED_DIR "../shared"
#endif
constexpr char kDefaultTemplate[] = AMPSCOPE_SHARED_DIR "/traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz";
constexpr int64_t kGapBetweenRepetitionsUs = 1000;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "make_large_trace: %s\n", message.c_str());
  std::exit(2);
}

// A piece of an event's text: literal bytes, or a value rewritten per repetition.
struct Piece {
  enum Type : uint8_t { kLiteral, kTime, kId, kStepNumber } type = kLiteral;
  std::string_view literal;  // kLiteral; for kTime: the fractional suffix (".288" or "")
  int64_t value = 0;         // kTime: whole µs; kId / kStepNumber: the template's number
};

struct TemplateEvent {
  std::vector<Piece> pieces;
};

bool IsNumberChar(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// Splits one event's raw text at the values that change between repetitions.
struct TemplateStats {
  int64_t max_id = 0;
  int64_t min_ts_us = INT64_MAX;
  int64_t max_ts_us = INT64_MIN;
  int64_t min_step = INT64_MAX;
  int64_t max_step = INT64_MIN;
};

TemplateEvent Split(std::string_view text, TemplateStats* stats) {
  TemplateEvent ev;
  size_t literal_start = 0;
  auto flush = [&](size_t upto) {
    if (upto > literal_start) ev.pieces.push_back({Piece::kLiteral, text.substr(literal_start, upto - literal_start), 0});
  };
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '"') {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    std::string_view str = text.substr(i + 1, end - i - 1);
    size_t after = end + 1;
    size_t colon = after;
    while (colon < text.size() && (text[colon] == ' ' || text[colon] == '\n' || text[colon] == '\t')) ++colon;
    if (colon >= text.size() || text[colon] != ':') {
      // A string value. "ProfilerStep#N" names are renumbered.
      if (str.rfind("ProfilerStep#", 0) == 0) {
        size_t digits = i + 1 + 13;
        int64_t n = 0;
        auto [p, ec] = std::from_chars(text.data() + digits, text.data() + end, n);
        if (ec == std::errc() && p == text.data() + end) {
          flush(digits);
          ev.pieces.push_back({Piece::kStepNumber, {}, n});
          stats->min_step = std::min(stats->min_step, n);
          stats->max_step = std::max(stats->max_step, n);
          literal_start = end;
        }
      }
      i = after;
      continue;
    }
    // A key: is its value a number that changes?
    size_t v = colon + 1;
    while (v < text.size() && (text[v] == ' ' || text[v] == '\n' || text[v] == '\t')) ++v;
    size_t v_end = v;
    while (v_end < text.size() && IsNumberChar(text[v_end])) ++v_end;
    const bool is_time = str == "ts" || str == "external ts";
    const bool is_id = str == "correlation" || str == "external id" || str == "External id" || str == "id";
    if (v_end > v && (is_time || is_id)) {
      std::string_view number = text.substr(v, v_end - v);
      size_t dot = number.find_first_of(".eE");
      int64_t whole = 0;
      auto [p, ec] = std::from_chars(number.data(), number.data() + (dot == std::string_view::npos ? number.size() : dot), whole);
      if (ec == std::errc() && (dot == std::string_view::npos || number[dot] == '.')) {
        flush(v);
        if (is_time) {
          ev.pieces.push_back({Piece::kTime, dot == std::string_view::npos ? std::string_view() : number.substr(dot), whole});
          if (str == "ts") {
            stats->min_ts_us = std::min(stats->min_ts_us, whole);
            stats->max_ts_us = std::max(stats->max_ts_us, whole);
          }
        } else {
          ev.pieces.push_back({Piece::kId, {}, whole});
          stats->max_id = std::max(stats->max_id, whole);
        }
        literal_start = v_end;
      }
    }
    i = v_end > v ? v_end : v;
  }
  flush(text.size());
  return ev;
}

class Output {
 public:
  Output(const std::string& path, bool gzip) {
    if (gzip) {
      gz_ = gzopen(path.c_str(), "wb6");
      if (gz_ == nullptr) Die("cannot write " + path);
      gzbuffer(gz_, 1 << 20);
    } else {
      file_ = std::fopen(path.c_str(), "wb");
      if (file_ == nullptr) Die("cannot write " + path);
      std::setvbuf(file_, nullptr, _IOFBF, 8 << 20);
    }
    buf_.reserve(kFlushBytes + 65536);
  }
  ~Output() { Close(); }
  void Append(std::string_view s) {
    buf_.append(s.data(), s.size());
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void AppendInt(int64_t v) {
    char tmp[24];
    auto [p, ec] = std::to_chars(tmp, tmp + sizeof(tmp), v);
    (void)ec;
    buf_.append(tmp, static_cast<size_t>(p - tmp));
  }
  uint64_t written() const { return written_ + buf_.size(); }
  void Close() {
    Flush();
    if (file_ != nullptr && std::fclose(file_) != 0) Die("write error");
    if (gz_ != nullptr && gzclose(gz_) != Z_OK) Die("write error");
    file_ = nullptr;
    gz_ = nullptr;
  }

 private:
  static constexpr size_t kFlushBytes = 4 << 20;
  void Flush() {
    if (buf_.empty()) return;
    if (file_ != nullptr && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) Die("write error");
    if (gz_ != nullptr && gzwrite(gz_, buf_.data(), static_cast<unsigned>(buf_.size())) != static_cast<int>(buf_.size()))
      Die("write error");
    written_ += buf_.size();
    buf_.clear();
  }
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  std::string buf_;
  uint64_t written_ = 0;
};

std::string ReadAll(const std::string& path) {
  auto source = ampscope::OpenByteSource(path);
  if (!source.ok()) Die(path + ": " + source.status().message());
  std::string text;
  std::vector<char> chunk(4 << 20);
  while (true) {
    auto n = (*source)->Read(chunk.data(), chunk.size());
    if (!n.ok()) Die(path + ": " + n.status().message());
    if (*n == 0) break;
    text.append(chunk.data(), *n);
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string template_path = kDefaultTemplate, out_path;
  double size_mb = 0;
  int64_t repeat = 0;
  bool gzip = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--template") template_path = next();
    else if (a == "--out" || a == "-o") out_path = next();
    else if (a == "--size-mb") size_mb = std::atof(next().c_str());
    else if (a == "--repeat") repeat = std::atoll(next().c_str());
    else if (a == "--gzip") gzip = true;
    else if (a == "-h" || a == "--help") {
      std::printf("usage: make_large_trace [--template PATH] --out PATH [--size-mb N | --repeat N] [--gzip]\n"
                  "default template: %s\n", kDefaultTemplate);
      return 0;
    } else Die("unknown argument " + a);
  }
  if (out_path.empty()) Die("--out PATH is required");
  if (size_mb <= 0 && repeat <= 0) size_mb = 1024;

  const std::string text = ReadAll(template_path);
  // Walk the top-level object with the reader's tokenizer (the whole template is in memory).
  Scanner sc(text.data(), text.data() + text.size());
  char c;
  if (sc.Peek(&c) != Result::kOk || c != '{') Die(template_path + ": expected a Kineto trace object");
  sc.Advance();
  std::vector<std::string_view> top_members;  // raw `"key": value` other than traceEvents
  std::vector<std::string_view> once_events;  // metadata and profiler spans: written once
  std::vector<TemplateEvent> body;
  TemplateStats stats;
  bool first = true;
  while (true) {
    Value key;
    bool done = false;
    if (sc.NextMember(first, &key, &done) != Result::kOk) Die(template_path + ": bad JSON: " + sc.error());
    if (done) break;
    first = false;
    if (key.text != "traceEvents") {
      Value v;
      if (sc.ParseValue(&v) != Result::kOk) Die(template_path + ": bad JSON: " + sc.error());
      top_members.push_back(std::string_view(key.where, static_cast<size_t>(v.text.data() + v.text.size() - key.where)));
      if (v.kind == Kind::kString) top_members.back() = std::string_view(key.where, static_cast<size_t>(v.text.data() + v.text.size() + 1 - key.where));
      continue;
    }
    if (sc.Peek(&c) != Result::kOk || c != '[') Die("traceEvents is not an array");
    sc.Advance();
    bool first_event = true;
    while (true) {
      bool end = false;
      if (sc.NextElement(first_event, &end) != Result::kOk) Die(template_path + ": bad JSON: " + sc.error());
      if (end) break;
      first_event = false;
      Value ev;
      if (sc.ParseValue(&ev) != Result::kOk || ev.kind != Kind::kObject) Die(template_path + ": bad event");
      std::string_view raw = ev.text;
      // Written once: metadata, and the profiler's own rows whose pid is a label.
      bool once = raw.find("\"ph\": \"M\"") != std::string_view::npos ||
                  raw.find("\"pid\": \"") != std::string_view::npos;
      if (once) {
        once_events.push_back(raw);
        continue;
      }
      body.push_back(Split(raw, &stats));
    }
  }
  if (body.empty()) Die(template_path + ": no events to repeat");
  const int64_t steps = stats.max_step >= stats.min_step ? stats.max_step - stats.min_step + 1 : 0;
  int64_t id_stride = 10;
  while (id_stride <= stats.max_id) id_stride *= 10;
  // Whole-µs period: the template's span (last start + the longest possible tail) plus a gap.
  int64_t longest_dur_us = 0;
  {
    ampscope::KinetoReadOptions options;
    auto parsed = ampscope::ReadKinetoTraceFromString(text, template_path, options);
    if (!parsed.ok()) Die(parsed.status().message());
    for (const auto& k : parsed->kernels) longest_dur_us = std::max(longest_dur_us, (k.end_ns - k.start_ns) / 1000 + 1);
    for (const auto& r : parsed->ranges) longest_dur_us = std::max(longest_dur_us, (r.end_ns - r.start_ns) / 1000 + 1);
    for (const auto& o : parsed->other_events) longest_dur_us = std::max(longest_dur_us, (o.end_ns - o.start_ns) / 1000 + 1);
  }
  const int64_t period_us = (stats.max_ts_us - stats.min_ts_us) + longest_dur_us + kGapBetweenRepetitionsUs;

  Output out(out_path, gzip);
  out.Append("{\n");
  for (std::string_view m : top_members) {
    out.Append("  ");
    out.Append(m);
    out.Append(",\n");
  }
  out.Append("  \"traceEvents\": [\n");
  bool need_comma = false;
  for (std::string_view e : once_events) {
    out.Append(need_comma ? ",\n  " : "  ");
    out.Append(e);
    need_comma = true;
  }
  const uint64_t target_bytes = static_cast<uint64_t>(size_mb * 1e6);
  int64_t reps = 0;
  uint64_t events = once_events.size();
  for (;; ++reps) {
    if (repeat > 0 ? reps >= repeat : out.written() >= target_bytes) break;
    const int64_t dt = reps * period_us, did = reps * id_stride, dstep = reps * steps;
    for (const TemplateEvent& ev : body) {
      out.Append(need_comma ? ",\n  " : "  ");
      need_comma = true;
      for (const Piece& p : ev.pieces) {
        switch (p.type) {
          case Piece::kLiteral: out.Append(p.literal); break;
          case Piece::kTime:
            out.AppendInt(p.value + dt);
            out.Append(p.literal);
            break;
          case Piece::kId: out.AppendInt(p.value >= 0 ? p.value + did : p.value); break;
          case Piece::kStepNumber: out.AppendInt(p.value + dstep); break;
        }
      }
    }
    events += body.size();
  }
  out.Append("\n  ]\n}\n");
  out.Close();
  std::fprintf(stderr,
               "make_large_trace: wrote %s: %.1f MB uncompressed, %lld repetitions of %zu events (%lld steps each), "
               "%llu events\n",
               out_path.c_str(), static_cast<double>(out.written()) / 1e6, static_cast<long long>(reps), body.size(),
               static_cast<long long>(steps), static_cast<unsigned long long>(events));
  return 0;
}

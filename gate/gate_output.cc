#include "gate/gate_output.h"

#include <fmt/format.h>

#include "render/markdown_report.h"
#include "render/text_table.h"

namespace ampscope::gate {
namespace {

using render::TextTable;

const char* VerdictLabel(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kWarn:
      return "WARN";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kSkipped:
      return "SKIP";
  }
  return "?";
}

const char* VerdictMarkdown(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "✅ pass";
    case Verdict::kWarn:
      return "⚠️ warn";
    case Verdict::kFail:
      return "❌ fail";
    case Verdict::kSkipped:
      return "⏭️ skipped";
  }
  return "?";
}

std::string Headline(const GateResult& result) {
  const int passed = static_cast<int>(result.checks.size()) - result.failures() - result.warnings() - result.skipped();
  return fmt::format("{} ({} failed, {} warning{}, {} passed, {} skipped)", VerdictLabel(result.overall),
                     result.failures(), result.warnings(), result.warnings() == 1 ? "" : "s", passed,
                     result.skipped());
}

// Markdown text (GitHub-flavoured, render/markdown_report.h): escaped, names as code spans.
std::string MarkdownCell(const std::string& text) { return render::MarkdownEscape(text); }

// GitHub workflow commands: message data escapes %, CR, LF; property values also ':' and ','.
std::string GithubEscapeData(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (c < 0x20) break;  // not allowed in XML 1.0 at all
        out += ch;
    }
  }
  return out;
}

std::string FormatGateTable(const GateResult& result, size_t width) {
  using Column = TextTable::Column;
  using Overflow = TextTable::Overflow;
  auto col = [](const char* header, size_t min_width, bool head = false, int priority = 1) {
    Column c;
    c.header = header;
    c.overflow = Overflow::kWrap;
    c.min_width = min_width;
    c.block_head = head;
    c.priority = priority;
    return c;
  };
  Column verdict;
  verdict.header = "verdict";
  verdict.block_head = true;
  TextTable table({col("metric", 16, true), col("baseline", 10), col("current", 10), col("change", 10),
                   col("threshold", 14, false, 0), verdict});  // prose wraps first, names last
  for (const GateCheck& c : result.checks)
    table.AddRow({c.name, c.baseline, c.current, c.change, c.threshold, VerdictLabel(c.verdict)});
  render::TableStyle style;
  style.width = width;
  style.rule = true;
  std::string out = render::WrapParagraph(
      fmt::format("ampscope gate: baseline {} vs current {}", result.baseline_name, result.current_name), width, "", "  ");
  out += "\n" + table.Render(style);
  out += "\n" + render::WrapParagraph("ampscope gate: " + Headline(result), width, "", "  ");
  for (const GateCheck& c : result.checks) {
    if (c.verdict == Verdict::kPass) continue;
    out += render::WrapParagraph(c.name + ": " + c.message, width, fmt::format("  {} ", VerdictLabel(c.verdict)), "       ");
  }
  return out;
}

std::string FormatGateMarkdown(const GateResult& result) {
  std::string out = fmt::format("### ampscope gate: {}\n\n", Headline(result));
  out += fmt::format("Baseline {} vs current {}.\n\n", render::MarkdownCode(result.baseline_name),
                     render::MarkdownCode(result.current_name));
  out += "| metric | baseline | current | change | threshold | verdict |\n";
  out += "| --- | --- | --- | --- | --- | --- |\n";
  for (const GateCheck& c : result.checks) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", render::MarkdownCode(c.name, true), MarkdownCell(c.baseline),
                       MarkdownCell(c.current), MarkdownCell(c.change), MarkdownCell(c.threshold),
                       VerdictMarkdown(c.verdict));
  }
  bool any_note = false;
  for (const GateCheck& c : result.checks) {
    if (c.verdict == Verdict::kPass) continue;
    if (!any_note) out += "\n**Details**\n\n";
    any_note = true;
    out += fmt::format("- {} {}: {}\n", VerdictMarkdown(c.verdict), render::MarkdownCode(c.name), MarkdownCell(c.message));
  }
  return out;
}

std::string FormatGateJUnit(const GateResult& result) {
  const size_t tests = result.checks.size();
  const int failures = result.failures();
  const int skipped = result.skipped();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"ampscope gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n", tests,
                     failures, skipped);
  out += fmt::format("  <testsuite name=\"ampscope.gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\">\n",
                     tests, failures, skipped);
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n", XmlEscape(result.baseline_name));
  out += fmt::format("      <property name=\"current\" value=\"{}\"/>\n", XmlEscape(result.current_name));
  out += fmt::format("      <property name=\"verdict\" value=\"{}\"/>\n", VerdictName(result.overall));
  out += "    </properties>\n";
  for (const GateCheck& c : result.checks) {
    out += fmt::format("    <testcase classname=\"ampscope.gate\" name=\"{}\" time=\"0\">\n", XmlEscape(c.name));
    out += "      <properties>\n";
    out += fmt::format("        <property name=\"verdict\" value=\"{}\"/>\n", VerdictName(c.verdict));
    out += fmt::format("        <property name=\"baseline\" value=\"{}\"/>\n", XmlEscape(c.baseline));
    out += fmt::format("        <property name=\"current\" value=\"{}\"/>\n", XmlEscape(c.current));
    out += fmt::format("        <property name=\"change\" value=\"{}\"/>\n", XmlEscape(c.change));
    out += fmt::format("        <property name=\"threshold\" value=\"{}\"/>\n", XmlEscape(c.threshold));
    out += "      </properties>\n";
    if (c.verdict == Verdict::kFail) {
      out += fmt::format("      <failure type=\"regression\" message=\"{}\">{}: baseline {}, current {}, change {}, threshold {}</failure>\n",
                         XmlEscape(c.message), XmlEscape(c.name), XmlEscape(c.baseline), XmlEscape(c.current),
                         XmlEscape(c.change), XmlEscape(c.threshold));
    } else if (c.verdict == Verdict::kSkipped) {
      out += fmt::format("      <skipped message=\"{}\"/>\n", XmlEscape(c.message));
    }
    const char* prefix = c.verdict == Verdict::kWarn ? "WARNING: " : "";
    out += fmt::format("      <system-out>{}{}</system-out>\n", prefix, XmlEscape(c.message));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string FormatGithubAnnotations(const GateResult& result) {
  std::string out;
  for (const GateCheck& c : result.checks) {
    const char* level = c.verdict == Verdict::kFail ? "error" : c.verdict == Verdict::kWarn ? "warning" : nullptr;
    if (level == nullptr) continue;
    out += fmt::format("::{} title=ampscope gate::{}\n", level,
                       GithubEscapeData(fmt::format("{}: {} (baseline {}, current {}, change {})", c.name, c.message,
                                                    c.baseline, c.current, c.change)));
  }
  return out;
}

nlohmann::json GateResultToJson(const GateResult& result) {
  nlohmann::json out;
  out["schema"] = "ampscope.gate/1";
  out["baseline"] = result.baseline_name;
  out["current"] = result.current_name;
  out["verdict"] = VerdictName(result.overall);
  out["exit_code"] = result.ExitCode();
  out["counts"] = {{"tests", result.checks.size()},
                   {"failures", result.failures()},
                   {"warnings", result.warnings()},
                   {"skipped", result.skipped()}};
  out["checks"] = nlohmann::json::array();
  for (const GateCheck& c : result.checks) {
    out["checks"].push_back({{"name", c.name},
                             {"verdict", VerdictName(c.verdict)},
                             {"baseline", c.baseline},
                             {"current", c.current},
                             {"change", c.change},
                             {"threshold", c.threshold},
                             {"message", c.message},
                             {"details", c.details}});
  }
  return out;
}

}  // namespace ampscope::gate

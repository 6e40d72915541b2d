// Cutting, wrapping and colour (render/format.h); display widths are base/strings.h's.
#include <algorithm>
#include <cstdint>

#include "render/format.h"

namespace ampscope::render {

namespace {

bool IsBreakAfter(char c) { return c == ',' || c == '<' || c == '(' || c == '_' || c == '.' || c == '/' || c == ':' || c == '-'; }

// Where to cut a word that is wider than `columns`: after a break character (see Wrap) at
// least a third of the way in, else (when `hard`) at the column limit. 0: nowhere.
size_t BreakPoint(std::string_view word, size_t columns, bool hard) {
  const size_t limit = DisplayPrefixBytes(word, columns);
  if (limit >= word.size()) return word.size();
  const size_t min_bytes = DisplayPrefixBytes(word, columns / 3);
  for (size_t i = limit; i > min_bytes; --i) {
    // A "::" is never split in the middle.
    if (IsBreakAfter(word[i - 1]) && !(word[i - 1] == ':' && i < word.size() && word[i] == ':')) return i;
  }
  return hard ? std::max<size_t>(limit, 1) : 0;
}

void WrapOne(std::string_view text, size_t width, std::vector<std::string>& lines) {
  std::string cur;
  size_t cur_w = 0;
  auto flush = [&] {
    lines.push_back(cur);
    cur.clear();
    cur_w = 0;
  };
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view word = text.substr(i, j - i);
    i = j;
    any = true;
    while (DisplayWidth(word) > width) {
      // Fill the rest of the current line with a piece of the word when a break point fits.
      const size_t room = cur.empty() ? width : (width > cur_w + 1 ? width - cur_w - 1 : 0);
      if (!cur.empty() && room >= 10) {
        if (size_t cut = BreakPoint(word, room, false)) {
          cur += " " + std::string(word.substr(0, cut));
          flush();
          word.remove_prefix(cut);
          continue;
        }
      }
      if (!cur.empty()) flush();
      size_t cut = BreakPoint(word, width, true);
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    if (word.empty()) continue;
    const size_t ww = DisplayWidth(word);
    if (cur.empty()) {
      cur = std::string(word);
      cur_w = ww;
    } else if (cur_w + 1 + ww <= width) {
      cur += " " + std::string(word);
      cur_w += 1 + ww;
    } else {
      flush();
      cur = std::string(word);
      cur_w = ww;
    }
  }
  if (!cur.empty() || !any) lines.push_back(cur);
}

}  // namespace

std::string Truncate(std::string_view s, size_t columns) {
  if (DisplayWidth(s) <= columns) return std::string(s);
  if (columns == 0) return "";
  return std::string(s.substr(0, DisplayPrefixBytes(s, columns - 1))) + "\xE2\x80\xA6";  // …
}

std::vector<std::string> Wrap(std::string_view text, size_t width) {
  if (width == 0) width = 1;
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    std::string_view para = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!para.empty() && para.back() == '\r') para.remove_suffix(1);
    // Leading spaces (an indented name in a table cell) indent every line of the paragraph.
    size_t lead = 0;
    while (lead < para.size() && para[lead] == ' ') ++lead;
    if (lead > 0 && lead + 4 <= width) {
      std::vector<std::string> inner;
      WrapOne(para.substr(lead), width - lead, inner);
      for (std::string& l : inner) lines.push_back(std::string(lead, ' ') + l);
    } else {
      WrapOne(para, width, lines);
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

std::string WrapParagraph(std::string_view text, size_t width, std::string_view first_prefix,
                          std::string_view rest_prefix) {
  const size_t first_w = DisplayWidth(first_prefix), rest_w = DisplayWidth(rest_prefix);
  if (std::max(first_w, rest_w) + 8 > width) {
    // No room for a hanging indent: the prefix is part of the paragraph.
    std::string out;
    for (const std::string& l : Wrap(std::string(first_prefix) + std::string(text), width)) out += l + "\n";
    return out;
  }
  // Lines after the first get the indent; wrap to the narrower of the two so both fit.
  // (Only a width below prefix + 4 can be exceeded: a line needs some room for text.)
  const size_t prefix = std::max(first_w, rest_w);
  const size_t inner = width >= prefix + 4 ? width - prefix : 4;
  std::vector<std::string> lines = Wrap(text, inner);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += std::string(i == 0 ? first_prefix : rest_prefix) + lines[i] + "\n";
  return out;
}

std::string Paint(const std::string& text, Color c, bool enabled) {
  if (!enabled || c == Color::kNone || text.empty()) return text;
  const char* code = "";
  switch (c) {
    case Color::kGreen: code = "\x1b[32m"; break;
    case Color::kYellow: code = "\x1b[33m"; break;
    case Color::kRed: code = "\x1b[31m"; break;
    case Color::kDim: code = "\x1b[2m"; break;
    case Color::kCyan: code = "\x1b[36m"; break;
    case Color::kBold: code = "\x1b[1m"; break;
    case Color::kNone: break;
  }
  return std::string(code) + text + "\x1b[0m";
}

Color StatusColor(const std::string& status) {
  switch (StatusClass(status)) {
    case 0: return Color::kGreen;
    case 1: return Color::kYellow;
    case 2: return Color::kRed;
    default: return Color::kDim;
  }
}

Color SeverityColor(const std::string& severity) {
  if (severity == "critical") return Color::kRed;
  if (severity == "warning") return Color::kYellow;
  return Color::kCyan;
}

}  // namespace ampscope::render

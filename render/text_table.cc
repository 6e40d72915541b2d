#include "render/text_table.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace ampscope::render {

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align) {
  for (size_t i = 0; i < header.size(); ++i) {
    Column c;
    c.header = std::move(header[i]);
    c.align = i < align.size() ? align[i] : Align::kLeft;
    c.overflow = Overflow::kWrap;
    c.block_head = i == 0;
    columns_.push_back(std::move(c));
  }
}

void TextTable::AddRow(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  rows_.push_back({false, std::move(cells)});
}

void TextTable::AddSection(std::string title) { rows_.push_back({true, {{std::move(title)}}}); }

namespace {

bool HasHeader(const std::vector<TextTable::Column>& columns, const TableStyle& style) {
  return style.header && std::any_of(columns.begin(), columns.end(), [](const auto& c) { return !c.header.empty(); });
}

// `head<args>` cut to `width` columns: the head gives up columns first ("vectorized_el…<FillFunctor
// <float>>"), keeping at least a few characters of it; when the arguments alone do not fit, the
// head's start and the end of the name are kept around one "…".
std::string TruncateHead(const std::string& text, size_t width) {
  const size_t open = text.find('<');
  constexpr size_t kMinHead = 6;
  if (open == std::string::npos || open == 0 || width < kMinHead + 2) return Truncate(text, width);
  const std::string args = text.substr(open);
  const size_t args_width = DisplayWidth(args);
  size_t head_width = 0;
  std::string tail;
  if (args_width + 1 + kMinHead <= width) {
    head_width = width - 1 - args_width;
    tail = args;
  } else {
    // Keep a third for the head, the rest for the name's end (its innermost arguments).
    head_width = std::max(kMinHead, width / 3);
    const size_t tail_width = width - head_width - 1;
    size_t start = text.size();
    while (start > open && DisplayWidth(std::string_view(text).substr(start - 1)) <= tail_width) --start;
    // Not inside a UTF-8 sequence.
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
    tail = text.substr(start);
  }
  std::string head = Truncate(text.substr(0, open), head_width + 1);  // ends in "…" (it is longer)
  return head + tail;
}

// For names that TruncateHead cut to the same text: 4 columns of the start, "…", then the name from
// just before `differs` (where the names part; back to a '_', ':' or '<' close before it), cut at
// the end if it still does not fit.
std::string TruncateAtDifference(const std::string& text, size_t width, size_t differs) {
  constexpr size_t kStart = 4;
  if (width < kStart + 6 || differs <= kStart + 1) return TruncateHead(text, width);
  size_t from = differs;
  for (size_t back = 0; back < 8 && from > kStart; ++back) {
    const char c = text[from - 1];
    if (c == '_' || c == ':' || c == '<') break;
    --from;
  }
  if (from <= kStart + 1 || (text[from - 1] != '_' && text[from - 1] != ':' && text[from - 1] != '<'))
    from = std::max(kStart + 1, differs > 2 ? differs - 2 : differs);
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  const std::string rest = text.substr(from);
  const size_t rest_width = width - kStart - 1;
  return Truncate(text, kStart + 1) + (DisplayWidth(rest) <= rest_width ? rest : Truncate(rest, rest_width));
}

// The lines of one cell at `width` columns.
std::vector<std::string> CellLines(const std::string& text, size_t width, TextTable::Overflow overflow) {
  if (text.find('\n') != std::string::npos) {
    // Each line of a multi-line cell on its own (a whole text that fits is still several lines:
    // padding it as one put the next columns on its last line).
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl = text.find('\n'); ; start = nl + 1, nl = text.find('\n', start)) {
      for (std::string& l : CellLines(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start), width, overflow))
        lines.push_back(std::move(l));
      if (nl == std::string::npos) break;
    }
    return lines;
  }
  if (DisplayWidth(text) <= width) return {text};
  if (overflow == TextTable::Overflow::kTruncate) return {Truncate(text, width)};
  if (overflow == TextTable::Overflow::kTruncateHead) return {TruncateHead(text, width)};
  return Wrap(text, width);
}

std::string Pad(const std::string& text, size_t width, TextTable::Align align) {
  const size_t w = DisplayWidth(text);
  const std::string pad(width > w ? width - w : 0, ' ');
  return align == TextTable::Align::kRight ? pad + text : text + pad;
}

// The width of a cell's widest line.
size_t WidestLine(const std::string& text) {
  size_t widest = 0, start = 0;
  for (size_t nl = text.find('\n'); ; start = nl + 1, nl = text.find('\n', start)) {
    widest = std::max(widest, DisplayWidth(std::string_view(text).substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
    if (nl == std::string::npos) break;
  }
  return widest;
}

void TrimRight(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::vector<size_t> TextTable::FitWidths(const TableStyle& style) const {
  const size_t n = columns_.size();
  std::vector<size_t> natural(n, 0);
  const bool header = HasHeader(columns_, style);
  for (size_t i = 0; i < n; ++i) natural[i] = header ? DisplayWidth(columns_[i].header) : 0;
  for (const Row& row : rows_) {
    if (row.section) continue;
    for (size_t i = 0; i < n && i < row.cells.size(); ++i) natural[i] = std::max(natural[i], WidestLine(row.cells[i].text));
  }
  const size_t indent = DisplayWidth(style.indent);
  const size_t gaps = n > 0 ? style.gap * (n - 1) : 0;
  const size_t avail = style.width > indent + gaps ? style.width - indent - gaps : 0;
  if (std::accumulate(natural.begin(), natural.end(), size_t{0}) <= avail) return natural;

  // Shrinkable columns give up width until the table fits: the lowest priority first, and
  // within a priority the widest column first (levelling), never below its minimum.
  size_t fixed = 0, min_total = 0;
  std::vector<size_t> flex;
  for (size_t i = 0; i < n; ++i) {
    if (columns_[i].overflow == Overflow::kKeep) {
      fixed += natural[i];
    } else {
      flex.push_back(i);
      min_total += std::min(natural[i], columns_[i].min_width);
    }
  }
  if (flex.empty() || fixed + min_total > avail) return {};
  std::vector<size_t> width = natural;
  size_t excess = std::accumulate(natural.begin(), natural.end(), size_t{0}) - avail;
  std::vector<int> levels;
  for (size_t i : flex) levels.push_back(columns_[i].priority);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  for (int level : levels) {
    while (excess > 0) {
      size_t widest = n;
      for (size_t i : flex) {
        if (columns_[i].priority != level || width[i] <= std::min(natural[i], columns_[i].min_width)) continue;
        if (widest == n || width[i] > width[widest]) widest = i;
      }
      if (widest == n) break;  // this level is at its minimum: the next one gives
      --width[widest];
      --excess;
    }
  }
  if (excess > 0) return {};
  return width;
}

std::string TextTable::RenderBlocks(const TableStyle& style) const {
  // Every row as a block: its head columns on one line, the others as "header: value" below.
  std::string out;
  const std::string inner = style.indent + "    ";
  bool any_head = std::any_of(columns_.begin(), columns_.end(), [](const Column& c) { return c.block_head; });
  for (const Row& row : rows_) {
    if (row.section) {
      out += WrapParagraph(row.cells[0].text, style.width, style.indent, style.indent);
      continue;
    }
    std::string head;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (!(columns_[i].block_head || (!any_head && i == 0)) || row.cells[i].text.empty()) continue;
      head += (head.empty() ? "" : "  ") + Paint(row.cells[i].text, row.cells[i].color, style.color);
    }
    // The head is wrapped as plain text when it is too wide (colour codes have no width).
    out += DisplayWidth(style.indent + head) <= style.width ? style.indent + head + "\n"
                                                            : WrapParagraph(head, style.width, style.indent, style.indent);
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].block_head || (!any_head && i == 0) || row.cells[i].text.empty()) continue;
      std::string label = columns_[i].header.empty() ? "" : columns_[i].header + ": ";
      out += WrapParagraph(label + row.cells[i].text, style.width, inner, inner + "  ");
    }
  }
  return out;
}

std::map<std::string, std::string> TextTable::HeadCuts(size_t column, size_t width) const {
  // Each distinct name too wide for the column, first cut by TruncateHead.
  std::map<std::string, std::string> cuts;
  for (const Row& row : rows_) {
    if (row.section || column >= row.cells.size()) continue;
    const std::string& text = row.cells[column].text;
    if (text.find('\n') != std::string::npos || DisplayWidth(text) <= width) continue;
    cuts.emplace(text, TruncateHead(text, width));
  }
  auto common_prefix = [](const std::string& a, const std::string& b) {
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    return n;
  };
  // Names that read the same once cut are cut again around where they differ: first from where
  // the group parts, then (if two still read the same) each from where it parts from its closest
  // other. A few rounds, since a new cut may meet another group's.
  for (int round = 0; round < 3; ++round) {
    std::map<std::string, std::vector<std::string>> by_cut;
    for (const auto& [text, cut] : cuts) by_cut[cut].push_back(text);
    bool changed = false;
    for (const auto& [cut, full] : by_cut) {
      if (full.size() < 2) continue;
      changed = true;
      size_t group_differs = std::string::npos;
      for (size_t a = 0; a < full.size(); ++a)
        for (size_t b = a + 1; b < full.size(); ++b) group_differs = std::min(group_differs, common_prefix(full[a], full[b]));
      std::set<std::string> seen;
      bool distinct = true;
      for (const std::string& text : full) {
        cuts[text] = TruncateAtDifference(text, width, group_differs);
        distinct &= seen.insert(cuts[text]).second;
      }
      if (distinct) continue;
      for (const std::string& text : full) {
        size_t differs = 0;
        for (const std::string& other : full)
          if (&other != &text) differs = std::max(differs, common_prefix(text, other));
        cuts[text] = TruncateAtDifference(text, width, differs);
      }
    }
    if (!changed) break;
  }
  return cuts;
}

std::string TextTable::Render(const TableStyle& style) const {
  std::vector<size_t> width = FitWidths(style);
  if (width.empty() && !columns_.empty()) return RenderBlocks(style);
  const std::string gap(style.gap, ' ');
  std::string out;
  // Names cut in their head: two that would read the same keep their ends instead.
  std::vector<std::map<std::string, std::string>> head_cuts(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].overflow == Overflow::kTruncateHead) head_cuts[i] = HeadCuts(i, width[i]);
  auto emit = [&](const std::vector<Cell>& cells, bool is_header) {
    std::vector<std::vector<std::string>> lines(columns_.size());
    size_t height = 1;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const std::string& text = i < cells.size() ? cells[i].text : std::string();
      const auto cut = is_header ? head_cuts[i].end() : head_cuts[i].find(text);
      lines[i] = cut != head_cuts[i].end() ? std::vector<std::string>{cut->second}
                                            : CellLines(text, width[i], is_header ? Overflow::kWrap : columns_[i].overflow);
      height = std::max(height, lines[i].size());
    }
    for (size_t l = 0; l < height; ++l) {
      std::string line = style.indent;
      for (size_t i = 0; i < columns_.size(); ++i) {
        const std::string text = l < lines[i].size() ? lines[i][l] : std::string();
        const Color color = is_header ? Color::kDim : (i < cells.size() ? cells[i].color : Color::kNone);
        const std::string padded = Pad(text, width[i], columns_[i].align);
        // Paint the text only, never the padding, so the columns stay where they are.
        if (style.color && color != Color::kNone && !text.empty()) {
          size_t lead = columns_[i].align == Align::kRight ? padded.size() - text.size() : 0;
          line += padded.substr(0, lead) + Paint(text, color, true) + padded.substr(lead + text.size());
        } else {
          line += padded;
        }
        if (i + 1 < columns_.size()) line += gap;
      }
      TrimRight(line);
      out += line + "\n";
    }
  };
  if (HasHeader(columns_, style)) {
    std::vector<Cell> head;
    for (const Column& c : columns_) head.push_back({c.header});
    emit(head, true);
    if (style.rule) {
      std::vector<Cell> rule;
      for (size_t w : width) rule.push_back({std::string(w, '-')});
      std::string line = style.indent;
      for (size_t i = 0; i < rule.size(); ++i) line += rule[i].text + (i + 1 < rule.size() ? gap : "");
      TrimRight(line);
      out += line + "\n";
    }
  }
  const size_t total = std::accumulate(width.begin(), width.end(), size_t{0}) +
                       (columns_.empty() ? 0 : style.gap * (columns_.size() - 1)) + DisplayWidth(style.indent);
  for (const Row& row : rows_) {
    if (row.section) {
      out += WrapParagraph(row.cells[0].text, std::min(style.width, std::max(total, size_t{20})), style.indent,
                           style.indent);
    } else {
      emit(row.cells, false);
    }
  }
  return out;
}

}  // namespace ampscope::render

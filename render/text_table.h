// The one aligned text table of the terminal outputs (analyze summary, gate verdicts, diff,
// kernels). It fits a width: columns keep their natural width while the table fits; when it does
// not, the columns that may shrink (Overflow::kWrap / kTruncate) give up width, the lowest
// priority first and the widest first within a priority (prose before names), and their cells wrap at word boundaries (long tokens such as kernel names break after "::", ","
// or "<") or are cut with "…". When even that cannot fit, every row is printed as a block
// ("head" columns on one line, then "header: value" lines), so no line is ever wider than the
// width. Colour codes are added after padding, so they never shift the alignment.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "render/format.h"

namespace ampscope::render {

struct TableStyle {
  size_t width = 100;       // total columns available, indent included
  std::string indent;       // prefix of every line
  size_t gap = 2;           // spaces between columns
  bool header = true;       // print the header row (skipped anyway when every header is empty)
  bool rule = false;        // a dashed rule under the header
  bool color = false;       // ANSI colours (cells' colours, the header dim)
};

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  enum class Overflow {
    kKeep,      // never narrower than its widest cell (numbers, statuses)
    kWrap,      // wraps at word boundaries
    kTruncate,  // cut with "…" (one line per row)
    kTruncateHead,  // a name: cut in its head, keeping its template arguments (what tells
                    // vectorized_elementwise_kernel<FillFunctor<float>> from <MulFunctor<float>>)
  };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
    Overflow overflow = Overflow::kKeep;
    size_t min_width = 8;    // a shrinking column is never narrower (else: the block layout)
    bool block_head = false;  // in the block layout, shown on the row's first line
    int priority = 0;         // when space is short, lower-priority columns give up width first
  };
  struct Cell {
    Cell(std::string t = "", Color c = Color::kNone) : text(std::move(t)), color(c) {}  // NOLINT: implicit
    Cell(const char* t, Color c = Color::kNone) : text(t), color(c) {}                   // NOLINT: implicit
    std::string text;
    Color color = Color::kNone;
  };

  explicit TextTable(std::vector<Column> columns);
  // Plain columns that all wrap, with the given alignment (left by default).
  TextTable(std::vector<std::string> header, std::vector<Align> align);
  explicit TextTable(std::vector<std::string> header) : TextTable(std::move(header), {}) {}

  void AddRow(std::vector<Cell> cells);
  // A caption line between rows (a section name in the diff); it wraps to the width.
  void AddSection(std::string title);
  bool empty() const { return rows_.empty(); }

  std::string Render(const TableStyle& style) const;

 private:
  struct Row {
    bool section = false;
    std::vector<Cell> cells;
  };
  // Column widths that fit style.width, or an empty vector when only the block layout fits.
  std::vector<size_t> FitWidths(const TableStyle& style) const;
  std::string RenderBlocks(const TableStyle& style) const;
  // For a kTruncateHead column `width` wide: each too-wide cell text -> what it is cut to.
  std::map<std::string, std::string> HeadCuts(size_t column, size_t width) const;

  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

}  // namespace ampscope::render

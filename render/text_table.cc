#include "render/text_table.h"

#include <algorithm>

#include "render/format.h"

namespace ampscope::render {

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::kLeft);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back({false, std::move(cells)});
}

void TextTable::AddSection(std::string title) { rows_.push_back({true, {std::move(title)}}); }

std::string TextTable::Render(const std::string& indent) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t i = 0; i < header_.size(); ++i) width[i] = DisplayWidth(header_[i]);
  for (const Row& row : rows_) {
    if (row.section) continue;
    for (size_t i = 0; i < row.cells.size(); ++i) width[i] = std::max(width[i], DisplayWidth(row.cells[i]));
  }
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line = indent;
    for (size_t i = 0; i < cells.size(); ++i) {
      const size_t pad = width[i] - DisplayWidth(cells[i]);
      const bool last = i + 1 == cells.size();
      if (align_[i] == Align::kRight) {
        line.append(pad, ' ');
        line += cells[i];
      } else {
        line += cells[i];
        if (!last) line.append(pad, ' ');
      }
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out = render_row(header_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  out += render_row(rule);
  for (const Row& row : rows_) {
    if (row.section)
      out += indent + row.cells[0] + "\n";
    else
      out += render_row(row.cells);
  }
  return out;
}

}  // namespace ampscope::render

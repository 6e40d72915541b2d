// A plain aligned text table for terminal output (gate verdicts, diff columns).
#pragma once

#include <string>
#include <vector>

namespace ampscope::render {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void AddRow(std::vector<std::string> cells);
  // A full-width caption line between rows (e.g. a section name in the diff).
  void AddSection(std::string title);
  bool empty() const { return rows_.empty(); }
  // Columns separated by two spaces, a dashed rule under the header, every line prefixed by indent.
  std::string Render(const std::string& indent = "") const;

 private:
  struct Row {
    bool section = false;
    std::vector<std::string> cells;
  };
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<Row> rows_;
};

}  // namespace ampscope::render

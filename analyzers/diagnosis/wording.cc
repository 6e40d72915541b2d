#include "analyzers/diagnosis/wording.h"

#include <utility>
#include <variant>

namespace ampscope::diagnosis {

namespace {

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

void Reword(FieldList& fields) {
  for (Field& f : fields) {
    if (auto* text = std::get_if<std::string>(&f.value)) *text = WindowWording(*text);
    else if (auto* record = std::get_if<FieldList>(&f.value)) Reword(*record);
    else if (auto* records = std::get_if<std::vector<FieldList>>(&f.value))
      for (FieldList& r : *records) Reword(r);
  }
}

}  // namespace

std::string WindowWording(std::string_view text) {
  std::string s(text);
  // Longest first: "of each step" before "each step", "% of the step" before "of the step".
  static constexpr std::pair<std::string_view, std::string_view> kWords[] = {
      {"per step", "in the window"},     {"per-step", "whole-window"},     {"/step", " in the window"},
      {"of each step", "of the window"}, {"Each step", "The window"},      {"each step", "the window"},
      {"of the step", "of the window"},  {"% of step", "% of the window"}, {"of step time", "of the window"},
  };
  for (const auto& [from, to] : kWords) ReplaceAll(s, from, to);
  return s;
}

void SayWindowNotStep(RankAnalysis& ra) {
  for (Finding& f : ra.findings) {
    f.title = WindowWording(f.title);
    f.recommendation = WindowWording(f.recommendation);
    Reword(f.evidence);
  }
  for (ChecklistItem& c : ra.checklist) {
    c.evidence = WindowWording(c.evidence);
    c.threshold = WindowWording(c.threshold);
  }
}

}  // namespace ampscope::diagnosis

#include "base/step_range.h"

#include <limits>
#include <string>

#include "base/numeric_option.h"

namespace ampscope {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void SkipSpaces(std::string_view s, size_t* i) {
  while (*i < s.size() && IsSpace(s[*i])) ++*i;
}

std::string_view Digits(std::string_view s, size_t* i) {
  const size_t begin = *i;
  while (*i < s.size() && IsDigit(s[*i])) ++*i;
  return s.substr(begin, *i - begin);
}

Status ShapeError(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string shown = text.size() <= kMaxShown ? std::string(text) : std::string(text.substr(0, kMaxShown)) + "...";
  return Status::Error("expected N..M, N.., ..M or N, got '" + shown + "'");
}

StatusOr<int64_t> StepNumber(std::string_view digits) {
  StatusOr<int64_t> v = ParseInt64Option(digits, "step", 0);
  if (!v.ok())
    return Status::Error("step " + std::string(digits.substr(0, 40)) + " is out of range (at most " +
                         std::to_string(std::numeric_limits<int64_t>::max()) + ")");
  return v;
}

}  // namespace

StatusOr<StepRange> ParseStepRange(std::string_view text) {
  // Grammar: \s* digits? \s* ( ".." \s* digits? )? \s*, and "N" alone needs its digits.
  size_t i = 0;
  SkipSpaces(text, &i);
  const std::string_view a = Digits(text, &i);
  SkipSpaces(text, &i);
  bool dots = false;
  std::string_view b;
  if (text.substr(i, 2) == "..") {
    dots = true;
    i += 2;
    SkipSpaces(text, &i);
    b = Digits(text, &i);
    SkipSpaces(text, &i);
  }
  if (i != text.size() || (!dots && a.empty())) return ShapeError(text);

  StepRange range;
  if (!a.empty()) {
    StatusOr<int64_t> v = StepNumber(a);
    if (!v.ok()) return v.status();
    range.first = *v;
  }
  if (!b.empty()) {
    StatusOr<int64_t> v = StepNumber(b);
    if (!v.ok()) return v.status();
    range.last = *v;
  }
  if (!dots) range.last = range.first;
  if (range.first && range.last && *range.last < *range.first)
    return Status::Error("the last step " + std::to_string(*range.last) + " comes before the first " +
                         std::to_string(*range.first));
  return range;
}

}  // namespace ampscope

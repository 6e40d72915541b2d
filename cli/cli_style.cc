#include "cli/cli_style.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "base/numeric_option.h"
#include "render/format.h"
#include "render/terminal.h"

namespace ampscope::cli {

namespace {

constexpr size_t kNameColumn = 30;      // option names, then their descriptions
constexpr size_t kMinDescription = 30;  // narrower terminals put descriptions on their own lines

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i];
  }
  return out;
}

// Wraps each paragraph of `text` (paragraphs are separated by '\n') to `width`.
std::string WrapText(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view paragraph(text.data() + start, end - start);
    if (paragraph.empty()) {
      lines.emplace_back();
    } else {
      for (std::string& l : render::Wrap(paragraph, width)) lines.push_back(std::move(l));
    }
    start = end + 1;
  }
  return JoinLines(lines);
}

// CLI11's layout with the text wrapped to the terminal, so that every command's --help reads
// the same and fits (record's hand-written usage predates this).
class Formatter : public CLI::Formatter {
 public:
  Formatter(size_t width, std::string usage_tail) : width_(width), usage_tail_(std::move(usage_tail)) {
    column_width(kNameColumn);
    label("REQUIRED", "(required)");
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    const size_t room = width_ > kNameColumn + kMinDescription ? width_ - kNameColumn : kMinDescription;
    return WrapText(CLI::Formatter::make_option_desc(opt), room);
  }
  std::string make_description(const CLI::App* app) const override {
    std::string text = CLI::Formatter::make_description(app);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text.empty() ? text : WrapText(text, width_) + "\n";
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    if (usage_tail_.empty()) return usage;
    const size_t end = usage.find_last_not_of('\n');
    return usage.substr(0, end + 1) + " " + usage_tail_ + usage.substr(end + 1);
  }
  std::string make_footer(const CLI::App* app) const override {
    std::string text = app->get_footer();
    return text.empty() ? text : WrapText(text, width_) + "\n";
  }

 private:
  size_t width_;
  std::string usage_tail_;  // after "[OPTIONS]", e.g. record's "-- CMD ARGS..."
};

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours ("--tpo" is one edit from "--top") each cost 1.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

void StyleApp(CLI::App& app, const std::string& command, const std::string& usage_tail) {
  app.name("ampscope " + command);
  app.formatter(std::make_shared<Formatter>(render::TerminalWidth(STDOUT_FILENO), usage_tail));
}

std::vector<std::string> CloseMatches(std::string_view word, const std::vector<std::string>& candidates) {
  // A word that is only dashes has nothing to compare.
  std::string_view bare = word.substr(std::min(word.find_first_not_of('-'), word.size()));
  std::vector<std::pair<size_t, std::string>> scored;
  if (bare.empty()) return {};
  // One- and two-letter words are one edit from every short option: only their prefixes count.
  const size_t limit = bare.size() >= 3 ? std::max<size_t>(1, bare.size() / 3) : 0;
  for (const std::string& c : candidates) {
    if (c == word) continue;
    size_t d = EditDistance(word, c);
    const bool prefix = word.size() >= 2 + (word.size() - bare.size()) && c.compare(0, word.size(), word) == 0;
    if (d <= limit || prefix) scored.emplace_back(prefix ? 0 : d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [d, c] : scored)
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  return out;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::string> close = CloseMatches(word, candidates);
  if (close.empty()) return "";
  if (close.size() > 3) close.resize(3);
  std::string out = " (did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) out += i + 1 == close.size() ? " or " : ", ";
    out += "'" + close[i] + "'";
  }
  return out + "?)";
}

std::optional<int> RefuseEmptyPaths(const CLI::App& app, const std::string& command,
                                    const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const CLI::Option* opt = app.get_option_no_throw(name);
    if (opt == nullptr || opt->count() == 0) continue;
    for (const std::string& value : opt->results())
      if (value.empty())
        return UsageError(command, name + ": an empty path (name a file, or leave the option out)");
  }
  return std::nullopt;
}

int UsageError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "ampscope %s: %s\n", command.c_str(), OneLine(message).c_str());
  return kExitUsage;
}

std::optional<int> ParseArgs(CLI::App& app, const std::string& command, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // An unknown option explains most other errors ("traces is required" after `--htm x`):
    // name it first, with the option it was probably meant to be.
    const std::vector<std::string> names = OptionNames(app);
    const std::string try_help = " (try 'ampscope " + command + " --help')";
    for (const std::string& extra : app.remaining(true)) {
      if (extra.size() < 2 || extra[0] != '-') continue;
      const std::string word = extra.substr(0, extra.find('='));
      return UsageError(command, "unknown option '" + word + "'" + DidYouMean(word, names) + try_help);
    }
    return UsageError(command, std::string(e.what()) + try_help);
  }
}

bool ParseIntOption(const std::string& command, const std::string& text, std::string_view what, int64_t min,
                    int64_t max, int64_t* value) {
  StatusOr<int64_t> parsed = ParseInt64Option(text, what, min, max);
  if (!parsed.ok()) {
    UsageError(command, parsed.status().message());
    return false;
  }
  *value = *parsed;
  return true;
}

}  // namespace ampscope::cli

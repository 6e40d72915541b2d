// One command-line style for every subcommand: the same --help layout (CLI11's formatter,
// fitted to the terminal), one-line errors prefixed "ampscope <cmd>: ", "did you mean" for
// mistyped options and commands, and range-checked numeric options that never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace ampscope::cli {

inline constexpr int kExitUsage = 2;

// Gives `app` the shared help formatter (option descriptions wrapped to the terminal width)
// and names it "ampscope <command>". `usage_tail` follows "[OPTIONS]" on the usage line (for a
// command that takes words CLI11 does not parse, as record's "-- CMD ARGS...").
void StyleApp(CLI::App& app, const std::string& command, const std::string& usage_tail = "");

// Parses argv. Returns nullopt when the command should go on; otherwise the exit code: 0 after
// --help (printed on stdout), kExitUsage after a parse error, printed on stderr as one line:
// "ampscope <command>: <what> (did you mean '--html'?) (try 'ampscope <command> --help')".
std::optional<int> ParseArgs(CLI::App& app, const std::string& command, int argc, char** argv);

// Candidates close to `word` (edit distance at most max(1, |word|/3), or `word` is a prefix of
// at least 2 characters), closest first.
std::vector<std::string> CloseMatches(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'a' or 'b'?)" for CloseMatches, or "" when none is close.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// Prints "ampscope <command>: <message>" on stderr and returns kExitUsage.
int UsageError(const std::string& command, const std::string& message);

// An exit code (after the one-line error) when one of the options `names` ("-o", "--html")
// was given an empty path: `-o ""` names no file, and leaving the report unwritten without a
// word would look like success. nullopt when none was.
std::optional<int> RefuseEmptyPaths(const CLI::App& app, const std::string& command,
                                    const std::vector<std::string>& names);

// An integer option given as text (so that CLI11 never prints its own 300-digit ranges),
// range-checked by base/numeric_option.h. False after printing the one-line error.
bool ParseIntOption(const std::string& command, const std::string& text, std::string_view what, int64_t min,
                    int64_t max, int64_t* value);

}  // namespace ampscope::cli

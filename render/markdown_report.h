// The Markdown summary (`ampscope analyze --markdown out.md`): compact, for CI job summaries
// ($GITHUB_STEP_SUMMARY) and pull-request comments. Rendered from the JSON report.
//
// It follows GitHub-flavoured Markdown as GitHub renders it: no raw HTML (only entities),
// ids and kernel names in code spans with nothing escaped inside them (a code span shows its
// content literally; only "|" needs "\|" inside a table row), every other string escaped, and
// tables whose rows have as many cells as their header.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ampscope::render {

std::string RenderMarkdown(const nlohmann::json& report);

// Escapes text for a Markdown paragraph or table cell: HTML-sensitive characters become
// entities, Markdown syntax characters get a backslash, newlines a space.
std::string MarkdownEscape(std::string_view s);

// `text` as a code span: fenced with one more backtick than the longest run inside it,
// padded with a space when it starts or ends with a backtick; inside a table row ("|" ends a
// cell there, even in a code span) each "|" becomes "\|". Newlines become spaces.
std::string MarkdownCode(std::string_view text, bool in_table = false);

}  // namespace ampscope::render

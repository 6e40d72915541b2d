// The Markdown summary (`ampscope analyze --markdown out.md`): compact, for CI job summaries
// ($GITHUB_STEP_SUMMARY) and pull-request comments. Rendered from the JSON report.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ampscope::render {

std::string RenderMarkdown(const nlohmann::json& report);

// Escapes text for a Markdown table cell or paragraph (GitHub-flavoured): HTML-sensitive
// characters become entities, Markdown syntax characters get a backslash, newlines a space.
std::string MarkdownEscape(std::string_view s);

}  // namespace ampscope::render

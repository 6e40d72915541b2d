// render/ reads only the report JSON (DESIGN.md: "render -> analyzers" is an arrow that must
// never exist): its files include the standard library, nlohmann/json, fmt, base/, render/
// itself and the report contract's reading side (reports/contract/), never the writer. (The architecture_layering test checks the arrows of every folder; this one also
// keeps third-party libraries render/ does not link out of it.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "support/test_support.h"

namespace ampscope {
namespace layout_test {
namespace {

// The project headers a file includes that render/ may not: anything but "render/...", "base/..."
// and "reports/contract/...".
std::vector<std::string> ForbiddenIncludes(const std::string& source) {
  std::vector<std::string> bad;
  static const std::regex kInclude(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    const std::string path = m[2];
    if (m[1] == "\"") {
      if (path.rfind("render/", 0) != 0 && path.rfind("base/", 0) != 0 && path.rfind("reports/contract/", 0) != 0)
        bad.push_back(path);
    } else if (path.find('/') != std::string::npos && path.rfind("nlohmann/", 0) != 0 && path.rfind("fmt/", 0) != 0 &&
               path.rfind("sys/", 0) != 0) {
      bad.push_back(path);  // a library render/ does not link
    }
  }
  return bad;
}

TEST(RenderLayout, TheScanCatchesForbiddenIncludes) {
  EXPECT_THAT(ForbiddenIncludes("#include \"analyzers/analyze.h\"\n#include <string>\n"),
              ::testing::ElementsAre("analyzers/analyze.h"));
  EXPECT_THAT(ForbiddenIncludes("  #  include \"trace/model.h\"\n"), ::testing::ElementsAre("trace/model.h"));
  EXPECT_THAT(ForbiddenIncludes("#include <CLI/CLI.hpp>\n"), ::testing::ElementsAre("CLI/CLI.hpp"));
  EXPECT_THAT(ForbiddenIncludes("#include \"render/format.h\"\n#include <nlohmann/json.hpp>\n#include <fmt/format.h>\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(ForbiddenIncludes("#include \"base/strings.h\"\n"), ::testing::IsEmpty());
  EXPECT_THAT(ForbiddenIncludes("#include \"reports/json_report.h\"\n"), ::testing::ElementsAre("reports/json_report.h"));
  EXPECT_THAT(ForbiddenIncludes("#include \"reports/contract/report_reader.h\"\n"), ::testing::IsEmpty());
}

TEST(RenderLayout, RenderIncludesOnlyItselfAndItsLibraries) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SourcePath("render"))) {
    const std::string ext = entry.path().extension();
    if (ext != ".h" && ext != ".cc") continue;
    ++files;
    EXPECT_THAT(ForbiddenIncludes(testing::ReadFile(entry.path())), ::testing::IsEmpty()) << entry.path();
  }
  EXPECT_GE(files, 10u);
}

}  // namespace
}  // namespace layout_test
}  // namespace ampscope

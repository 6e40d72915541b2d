// ampscope_fuzz_replay TARGET PATH...: runs every file (PATH may be a folder) through a fuzz
// target's pipeline, in this process, the way the fuzzer ran it. The test suite runs it on
// fuzz/regressions/<target>/ so every input a fuzzer once crashed on stays fixed, in every
// build (sanitized or not, gcc or clang).
//
// Exit codes: 0 every file ran (accepted or rejected by the reader); 1 no input file was found
// (a replay of nothing must not pass); 2 usage error. A crash is a signal, which ctest reports.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/pipeline.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: ampscope_fuzz_replay TARGET PATH...\ntargets:");
    for (const auto& t : ampscope::fuzz::Targets()) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  const ampscope::fuzz::Target* target = ampscope::fuzz::FindTarget(argv[1]);
  if (target == nullptr) {
    std::fprintf(stderr, "ampscope_fuzz_replay: no target named '%s'\n", argv[1]);
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    std::error_code ec;
    if (std::filesystem::is_directory(argv[i], ec)) {
      for (const auto& e : std::filesystem::directory_iterator(argv[i], ec))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path().string());
    } else if (std::filesystem::is_regular_file(argv[i], ec)) {
      files.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "ampscope_fuzz_replay: %s: no such file or folder\n", argv[i]);
      return 1;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "ampscope_fuzz_replay: no input files in the given paths\n");
    return 1;
  }
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "ampscope_fuzz_replay: cannot read %s\n", path.c_str());
      return 1;
    }
    std::printf("%s: ", path.c_str());
    std::fflush(stdout);  // the name is out before a crash
    ampscope::fuzz::Outcome outcome =
        target->run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    std::printf("%s\n", outcome == ampscope::fuzz::kAccepted ? "accepted" : "rejected");
  }
  std::printf("%zu file(s) replayed through %s\n", files.size(), target->name);
  return 0;
}

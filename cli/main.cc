// ampscope: profile and diagnose mixed-precision training. Thin dispatcher over subcommands.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/process_allocator.h"
#include "cli/cli_style.h"
#include "cli/command.h"

namespace ampscope::cli {
std::map<std::string, CommandInfo>& Commands() {
  static std::map<std::string, CommandInfo> commands;
  return commands;
}
}  // namespace ampscope::cli

static void PrintUsage(FILE* out) {
  std::fprintf(out, "ampscope %s: find out why mixed-precision training is slower than it should be\n\n",
               AMPSCOPE_VERSION);
  std::fprintf(out, "usage: ampscope <command> [options]\n\ncommands:\n");
  for (const auto& [name, info] : ampscope::cli::Commands())
    std::fprintf(out, "  %-10s %s\n", name.c_str(), info.summary.c_str());
  std::fprintf(out, "\n'ampscope help <command>' or 'ampscope <command> --help' shows a command's options.\n");
}

// Allocation (huge pages, malloc's settings) is base/process_allocator.cc's, linked in.
int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  auto& commands = ampscope::cli::Commands();
  std::vector<std::string> names;
  for (const auto& entry : commands) names.push_back(entry.first);
  if (cmd == "help" && argc >= 3) {
    // `ampscope help CMD` is `ampscope CMD --help`.
    std::string topic = argv[2];
    auto it = commands.find(topic);
    if (it == commands.end()) {
      std::fprintf(stderr, "ampscope help: unknown command '%s'%s (try 'ampscope --help')\n", topic.c_str(),
                   ampscope::cli::DidYouMean(topic, names).c_str());
      return 2;
    }
    std::string help = "--help";
    char* help_argv[] = {argv[2], help.data(), nullptr};
    return it->second.run(2, help_argv);
  }
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("ampscope %s\n", AMPSCOPE_VERSION);
    return 0;
  }
  // The commands that read whole traces or many summaries start once more with huge pages
  // for malloc's heaps (base/process_allocator.h); the environment is put back before they run.
  if (cmd == "analyze" || cmd == "merge" || cmd == "kernels") ampscope::StartWithMallocHugePages(argv);
  auto it = commands.find(cmd);
  if (it == commands.end()) {
    std::fprintf(stderr, "ampscope: unknown command '%s'%s (try 'ampscope --help')\n", cmd.c_str(),
                 ampscope::cli::DidYouMean(cmd, names).c_str());
    return 2;
  }
  return it->second.run(argc - 1, argv + 1);
}

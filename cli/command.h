// Subcommand registry: each cli/<name>_cmd.cc registers itself with AMPSCOPE_REGISTER_COMMAND,
// so adding a subcommand never touches main.cc.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ampscope::cli {

// argv[0] is the subcommand name; returns the process exit code
// (0 ok, 1 a finding/regression where the command defines one, 2 usage or input error).
using CommandFn = std::function<int(int argc, char** argv)>;

struct CommandInfo {
  std::string summary;
  CommandFn run;
};

std::map<std::string, CommandInfo>& Commands();

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, const std::string& summary, CommandFn fn) {
    Commands()[name] = CommandInfo{summary, std::move(fn)};
  }
};

// For the big results a command is done with just before it returns: freeing a thousand ranks'
// analyses costs more than writing them, and the system takes the memory back at exit anyway.
// The objects stay reachable from a static, so a leak checker does not report them.
template <typename T> void KeepUntilExit(T&& value) {
  static auto* kept = new std::vector<std::shared_ptr<void>>();
  kept->push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(value)));
}

#define AMPSCOPE_REGISTER_COMMAND(name, summary, fn) \
  static ::ampscope::cli::CommandRegistrar ampscope_command_registrar_##fn(name, summary, fn)

}  // namespace ampscope::cli

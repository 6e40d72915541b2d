#include "doctor/doctor.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

#if AMPSCOPE_DOCTOR_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

#include "base/monotonic_clock.h"
#include "doctor/checks.h"

namespace ampscope::doctor {

namespace {

CommandOutput RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, int timeout_ms) {
  CommandOutput r;
  if (argv.empty()) return r;
  int out_pipe[2], exec_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return r;
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]), close(out_pipe[1]);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) dup2(devnull, 2), dup2(devnull, 0);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    execvp(args[0], args.data());
    char failed = 1;
    ssize_t ignored = write(exec_pipe[1], &failed, 1);
    (void)ignored;
    _exit(127);
  }
  close(out_pipe[1]);
  close(exec_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]), close(exec_pipe[0]);
    return r;
  }
  char failed = 0;
  r.started = read(exec_pipe[0], &failed, 1) != 1;  // closed by a successful exec
  close(exec_pipe[0]);
  const int64_t deadline = MonotonicMs() + timeout_ms;
  char buf[4096];
  while (true) {
    const int64_t left = deadline - MonotonicMs();
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{out_pipe[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    ssize_t got = read(out_pipe[0], buf, sizeof(buf));
    if (got <= 0) break;
    if (r.out.size() < (1u << 20)) r.out.append(buf, static_cast<size_t>(got));
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return r;
}

}  // namespace

const char* CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "pass";
    case CheckStatus::kWarn: return "warn";
    case CheckStatus::kFail: return "fail";
  }
  return "fail";
}

DoctorEnvironment RealEnvironment() {
  DoctorEnvironment env;
  env.open_library = [](const std::string& name) { return dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL); };
  env.find_symbol = [](void* handle, const char* symbol) { return dlsym(handle, symbol); };
  env.run = &RunCommand;
  env.getenv = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  env.is_root = geteuid() == 0;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) env.self_exe.assign(exe, static_cast<size_t>(n));
  const char* tmp = std::getenv("TMPDIR");
  env.temp_dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  return env;
}

std::vector<DoctorCheck> RunDoctor(const DoctorEnvironment& env) {
  std::vector<DoctorCheck> out;
  DoctorFacts facts;
  CheckDriver(env, facts, out);
  CheckGpus(env, facts, out);
  CheckCudaRuntime(env, out);
  CheckCudaToolkit(env, out);
  CheckCupti(env, out);
  CheckProfilingCounters(env, out);
  CheckInjection(env, out);
  CheckPyTorch(env, facts, out);
  CheckLibTorch(env, out);
  CheckTf32(facts, out);
  return out;
}

nlohmann::json DoctorToJson(const std::vector<DoctorCheck>& checks) {
  nlohmann::json list = nlohmann::json::array();
  int counts[3] = {0, 0, 0};
  for (const DoctorCheck& c : checks) {
    list.push_back({{"id", c.id}, {"status", CheckStatusName(c.status)}, {"value", c.value}, {"fix", c.fix}});
    counts[static_cast<int>(c.status)]++;
  }
  return {{"schema", "ampscope.doctor/1"},
          {"checks", list},
          {"summary", {{"pass", counts[0]}, {"warn", counts[1]}, {"fail", counts[2]}}}};
}

namespace {

// Lines of at most `columns` bytes (the doctor's texts are ASCII paths and words), broken at
// spaces; a word longer than a line (a path) is broken after its last '/' or ',' that fits, else cut.
std::vector<std::string> WrapWords(const std::string& text, size_t columns) {
  columns = std::max<size_t>(columns, 8);
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(i, end - i);
    i = end;
    while (!word.empty()) {
      const size_t room = line.empty() ? columns : (line.size() + 1 < columns ? columns - line.size() - 1 : 0);
      if (word.size() <= room) {
        line += (line.empty() ? "" : " ") + word;
        word.clear();
      } else if (!line.empty() && word.size() <= columns) {
        lines.push_back(std::move(line));
        line.clear();
      } else if (room >= 8 || line.empty()) {
        // Too long for any line: break after a '/' or ',' that fits in what is left of this one.
        size_t cut = word.find_last_of("/,", room - 1);
        cut = (cut == std::string::npos || cut < room / 3) ? room : cut + 1;
        line += (line.empty() ? "" : " ") + word.substr(0, cut);
        word.erase(0, cut);
        lines.push_back(std::move(line));
        line.clear();
      } else {
        lines.push_back(std::move(line));
        line.clear();
      }
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

// `first` then the wrapped `text`, the following lines indented to `first`'s width.
void AppendWrapped(std::string& out, const std::string& first, const std::string& text, size_t width) {
  const std::string indent(first.size(), ' ');
  const std::vector<std::string> lines = WrapWords(text, width > first.size() ? width - first.size() : 0);
  for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? first : indent) + lines[i] + "\n";
}

}  // namespace

std::string FormatDoctorText(const std::vector<DoctorCheck>& checks, size_t width) {
  std::string out;
  size_t id_width = 0;
  for (const DoctorCheck& c : checks) id_width = std::max(id_width, c.id.size());
  int counts[3] = {0, 0, 0};
  for (const DoctorCheck& c : checks) {
    counts[static_cast<int>(c.status)]++;
    std::string id = c.id;
    id.resize(id_width, ' ');
    AppendWrapped(out, std::string(CheckStatusName(c.status)) + "  " + id + "  ", c.value, width);
    if (!c.fix.empty() && c.status != CheckStatus::kPass)
      AppendWrapped(out, std::string(6 + id_width, ' ') + "fix: ", c.fix, width);
  }
  out += std::to_string(counts[0]) + " pass, " + std::to_string(counts[1]) + " warn, " + std::to_string(counts[2]) +
         " fail\n";
  return out;
}

int DoctorExitCode(const std::vector<DoctorCheck>& checks) {
  for (const DoctorCheck& c : checks)
    if (c.status == CheckStatus::kFail) return 1;
  return 0;
}

int SelfTestLoadLibrary(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = dlerror();
    std::printf("%s\n", e != nullptr ? e : "dlopen failed");
    return 1;
  }
  for (const char* symbol : {"InitializeInjection", "InitializeInjectionNvtx2"}) {
    if (dlsym(h, symbol) == nullptr) {
      std::printf("%s does not export %s\n", path.c_str(), symbol);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}

int SelfTestNvtxRange() {
#if AMPSCOPE_DOCTOR_HAVE_NVTX
  nvtxRangePushA(kSelfTestRange);
  nvtxRangePop();
  return 0;  // the collector writes the file at exit
#else
  return 3;
#endif
}

}  // namespace ampscope::doctor

#include "cli/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace ampscope::cli {

namespace {

std::atomic<pid_t> g_child{-1};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void Forward(int sig, siginfo_t* info, void*) {
  // Terminal-generated signals (Ctrl-C, Ctrl-\) already reached the whole foreground process
  // group, child included; forwarding them would deliver them twice.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  pid_t child = g_child.load();
  if (child > 0) kill(child, sig);
}

// 0 if `path` is an executable regular file, else the errno execve would give: ENOENT when
// nothing is there, EACCES for a file without the exec bit or a directory.
int ExecError(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno == ENOTDIR ? ENOENT : errno;
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) return EACCES;
  return 0;
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

int ShellExitCode(const LaunchResult& r) {
  if (!r.started) return r.exec_errno == ENOENT ? 127 : 126;
  if (r.signal > 0) return 128 + r.signal;
  return r.exit_code;
}

bool FindProgram(const std::string& program, std::string* resolved, int* error) {
  int ignored_error = 0;
  if (error == nullptr) error = &ignored_error;
  *error = ENOENT;
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) {
    *resolved = program;
    *error = ExecError(program);
    return *error == 0;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    const int e = ExecError(candidate);
    if (e == 0) {
      *resolved = candidate;
      *error = 0;
      return true;
    }
    // Like execvp: a match without the exec bit is remembered, and reported if nothing
    // executable comes later in PATH.
    if (e == EACCES) {
      *resolved = candidate;
      *error = EACCES;
    }
    start = end + 1;
  }
  return false;
}

LaunchResult RunAndWait(const std::vector<std::string>& argv,
                        const std::vector<std::pair<std::string, std::string>>& env) {
  LaunchResult result;
  if (argv.empty()) {
    result.exec_errno = ENOENT;
    result.error = "no command given";
    return result;
  }
  // The child reports a failed execvp through this pipe; a successful exec closes it.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.exec_errno = errno;
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  struct sigaction previous[NSIG];
  for (int sig : kForwarded) {
    struct sigaction sa = {};
    sa.sa_sigaction = &Forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &previous[sig]);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    result.exec_errno = errno;
    result.error = std::string("fork: ") + std::strerror(errno);
  } else if (pid == 0) {
    close(exec_pipe[0]);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    for (int sig : kForwarded) sigaction(sig, &previous[sig], nullptr);
    execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = write(exec_pipe[1], &err, sizeof(err));
    (void)ignored;
    _exit(127);
  } else {
    g_child.store(pid);
    result.pid = pid;
    close(exec_pipe[1]);
    exec_pipe[1] = -1;
    int err = 0;
    ssize_t n;
    do {
      n = read(exec_pipe[0], &err, sizeof(err));
    } while (n < 0 && errno == EINTR);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child.store(-1);
    if (n == static_cast<ssize_t>(sizeof(err))) {
      result.exec_errno = err;
      result.error = std::strerror(err);
    } else {
      result.started = true;
      if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
      } else {
        result.exit_code = WEXITSTATUS(status);
      }
    }
  }
  close(exec_pipe[0]);
  if (exec_pipe[1] >= 0) close(exec_pipe[1]);
  for (int sig : kForwarded) sigaction(sig, &previous[sig], nullptr);
  return result;
}

std::string FindInjectionLibrary(std::string* tried) {
  constexpr const char* kName = "libampscope_inject.so";
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("AMPSCOPE_INJECT_PATH"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
      exe[n] = '\0';
      const std::string dir = Dirname(exe);
      candidates.push_back(dir + "/" + kName);
      candidates.push_back(dir + "/../collector/" + kName);
      candidates.push_back(dir + "/../lib/ampscope/" + kName);
    }
  }
  for (const std::string& c : candidates) {
    if (!tried->empty()) *tried += ", ";
    *tried += c;
    char real[PATH_MAX];
    struct stat st;
    if (stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode) && realpath(c.c_str(), real) != nullptr) return real;
  }
  return "";
}

}  // namespace ampscope::cli

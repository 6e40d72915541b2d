#include "cli/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ampscope::cli {

namespace {

std::atomic<pid_t> g_child{-1};
std::atomic<int> g_received{0};
std::atomic<int> g_after_exit{0};  // a terminating signal that came when there was no program to forward it to
// Ending this process by default: forwarded, remembered, and blocked after the program exits.
constexpr int kTerminating[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// Meant for the program (Slurm's --signal=USR1@60, timers): forwarded, never fatal here.
constexpr int kForwardedOnly[] = {SIGUSR1, SIGUSR2, SIGALRM};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};

// What each signal did before RunAndWait; put back by ReleaseSignals.
struct sigaction g_previous[NSIG];
sigset_t g_previous_mask;
bool g_installed = false;

bool IsTerminating(int sig) {
  for (int s : kTerminating)
    if (s == sig) return true;
  return false;
}

void Forward(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  if (IsTerminating(sig)) g_received.store(sig);
  // Terminal-generated signals (Ctrl-C, Ctrl-\) already reached the whole foreground process
  // group, child included; forwarding them would deliver them twice.
  const bool from_terminal = info != nullptr && info->si_code == SI_KERNEL && IsTerminating(sig);
  pid_t child = g_child.load();
  // No program to forward to any more (not yet started is impossible: the signals are blocked
  // until g_child is set): this process dies by it once it has written about the run.
  if (IsTerminating(sig) && (child <= 0 || (kill(child, 0) != 0 && errno == ESRCH))) g_after_exit.store(sig);
  if (!from_terminal && child > 0) kill(child, sig);
  errno = saved_errno;
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
  g_installed = false;
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
  g_received.store(0);
  g_after_exit.store(0);
  // Blocked from here until the parent knows the child's pid (and, in the child, until its
  // own dispositions are back): a signal in between is held, never lost.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int sig : kForwarded) sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &g_previous_mask);
  g_installed = true;
  for (int sig : kForwarded) {
    struct sigaction sa = {};
    sa.sa_sigaction = &Forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &g_previous[sig]);
  }
  const pid_t parent = getpid();
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    result.exec_errno = errno;
    result.error = std::string("fork: ") + std::strerror(errno);
    sigprocmask(SIG_SETMASK, &g_previous_mask, nullptr);
  } else if (pid == 0) {
    close(exec_pipe[0]);
    // Not orphaned if this process is killed without a chance to forward (SIGKILL, OOM).
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);  // already gone before prctl took effect
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    for (int sig : kForwarded) sigaction(sig, &g_previous[sig], nullptr);
    sigprocmask(SIG_SETMASK, &g_previous_mask, nullptr);  // a signal sent to it meanwhile arrives now
    execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = write(exec_pipe[1], &err, sizeof(err));
    (void)ignored;
    _exit(127);
  } else {
    g_child.store(pid);
    sigprocmask(SIG_SETMASK, &g_previous_mask, nullptr);  // held signals are forwarded now
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
  // Hold the signals while the caller writes about the run (see the header).
  sigset_t terminating;
  sigemptyset(&terminating);
  for (int sig : kTerminating) sigaddset(&terminating, sig);
  sigprocmask(SIG_BLOCK, &terminating, nullptr);
  result.received = g_received.load();
  for (int sig : kTerminating) sigaction(sig, &g_previous[sig], nullptr);
  for (int sig : kForwardedOnly) {
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(sig, &ignore, nullptr);
  }
  return result;
}

void ReleaseSignals(const LaunchResult& r) {
  if (!g_installed) return;
  g_installed = false;
  std::fflush(stdout);
  std::fflush(stderr);
  for (int sig : kForwardedOnly) sigaction(sig, &g_previous[sig], nullptr);
  sigprocmask(SIG_SETMASK, &g_previous_mask, nullptr);  // a signal held since the program exited arrives now
  // The program died by the signal this process was sent, or one came when the program was
  // already gone: die by it, as the default action would have.
  int sig = g_after_exit.load();
  if (sig == 0 && r.received != 0 && r.signal == r.received) sig = r.received;
  if (sig == 0) return;
  if ((g_previous[sig].sa_flags & SA_SIGINFO) == 0 && g_previous[sig].sa_handler == SIG_IGN) return;  // nohup
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
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

#include "collector/process.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ampscope::collector {

namespace {

std::atomic<Session*> g_session{nullptr};
std::atomic<bool> g_forked_child{false};
std::atomic<bool> g_hooks_installed{false};
bool g_creation_failed = false;  // guarded by g_start_mu: try (and complain) once per process
std::mutex g_start_mu;  // only taken on the creation path, never in a signal handler
const CuptiApi* g_test_api = nullptr;
CuptiApi g_real_api;

// How long a signal handler waits for the writer thread's flush. The signal may have
// interrupted a thread that holds a lock the flush needs; then the program goes on (or dies)
// after this bound, with what was flushed before.
constexpr int kSignalFlushTimeoutMs = 2000;
constexpr int kHandledSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[NSIG];

void OnExit() {
  Session* s = g_session.load();
  if (s != nullptr && s->pid() == static_cast<uint32_t>(getpid())) s->Shutdown();
}

void OnForkChild() {
  // The parent's session lives on in this address space, but its threads do not and its
  // mutexes may be held forever: never touch it again.
  g_session.store(nullptr);
  g_forked_child.store(true);
  SetCallbackSession(nullptr);
}

void OnSignal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction& prev = g_previous[sig];
  const bool prev_is_handler = (prev.sa_flags & SA_SIGINFO) ? prev.sa_sigaction != nullptr
                                                            : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  const bool prev_ignores = !(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN;
  const bool terminating = !prev_is_handler && !prev_ignores;  // SIG_DFL: SIGINT/SIGTERM end the process
  Session* s = g_session.load();
  if (s != nullptr && !prev_ignores && s->pid() == static_cast<uint32_t>(getpid()))
    s->FlushFromSignalHandler(terminating, kSignalFlushTimeoutMs);
  if (terminating) {
    // Behave exactly as without ampscope: restore the default action and die of the same
    // signal (it is blocked inside this handler, so it lands when the handler returns).
    sigaction(sig, &prev, nullptr);
    raise(sig);
    errno = saved_errno;
    return;
  }
  errno = saved_errno;
  if (prev_ignores) return;
  if (prev.sa_flags & SA_SIGINFO)
    prev.sa_sigaction(sig, info, context);
  else
    prev.sa_handler(sig);
}

void InstallHooks() {
  if (g_hooks_installed.exchange(true)) return;
  std::atexit(&OnExit);
  pthread_atfork(nullptr, nullptr, &OnForkChild);
  for (int sig : kHandledSignals) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) != 0) continue;
    // A signal the program ignores stays ignored (nohup, or a parent that asked for it).
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    g_previous[sig] = current;
    struct sigaction mine = {};
    mine.sa_sigaction = &OnSignal;
    mine.sa_flags = SA_SIGINFO | SA_RESTART | (current.sa_flags & SA_ONSTACK);
    sigemptyset(&mine.sa_mask);
    sigaction(sig, &mine, nullptr);
  }
}

// Creates and opens the session; null (with one stderr line) when the file cannot be created.
Session* CreateSession() {
  if (g_creation_failed) return nullptr;
  std::vector<std::string> problems;
  SessionConfig config = ConfigFromEnvironment(&problems);
  auto owned = std::make_unique<Session>(config);
  Status st = owned->Open();
  if (!st.ok()) {
    std::string line = "ampscope: recording disabled: " + st.message() + "\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    g_creation_failed = true;
    return nullptr;
  }
  // Never deleted from here on: it must outlive every callback, thread and atexit handler.
  Session* s = owned.release();
  for (const std::string& p : problems) s->Warn("bad_setting", p, false);
  if (config.install_process_hooks) InstallHooks();
  g_session.store(s);
  return s;
}

}  // namespace

bool CollectorDisabled() {
  const char* v = std::getenv("AMPSCOPE_DISABLE");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

Session* CurrentSession() { return g_session.load(); }

void SetCuptiApiForTesting(const CuptiApi* api) { g_test_api = api; }

Session* EnsureSessionForNvtx() {
  Session* s = g_session.load();
  if (s != nullptr || g_forked_child.load() || CollectorDisabled()) return s;
  std::lock_guard<std::mutex> lock(g_start_mu);
  s = g_session.load();
  if (s == nullptr) s = CreateSession();
  return s;
}

void StartFromCudaInjection() {
  if (CollectorDisabled()) return;
  std::lock_guard<std::mutex> lock(g_start_mu);
  Session* s = g_session.load();
  if (s != nullptr && s->pid() != static_cast<uint32_t>(getpid())) s = nullptr;
  if (s == nullptr) s = CreateSession();
  if (s == nullptr) return;
  const CuptiApi* api = g_test_api;
  if (api == nullptr) {
    CuptiLoadResult loaded = LoadCupti(&g_real_api);
    if (!loaded.ok) {
      s->Warn("cupti_load_failed", "CUDA activity is not recorded: " + loaded.error, true);
      return;
    }
    api = &g_real_api;
  }
  s->StartCupti(api);
}

}  // namespace ampscope::collector

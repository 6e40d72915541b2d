#include "base/temp_files.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace ampscope {

namespace {

constexpr int kSignalCount = static_cast<int>(sizeof(kTempCleanupSignals) / sizeof(kTempCleanupSignals[0]));
// Sets alive at once: one per WriteOutputs in flight, so a handful at most.
constexpr int kSlots = 32;

std::atomic<TempFileSet*> g_sets[kSlots];
std::atomic<int> g_in_handler{0};

std::mutex g_install_mutex;
int g_users = 0;                            // TempFileSets alive (guarded by g_install_mutex)
struct sigaction g_previous[kSignalCount];  // what each signal did before the first set
bool g_installed[kSignalCount] = {};        // false: it was ignored, and is left alone

int IndexOf(int sig) {
  for (int i = 0; i < kSignalCount; ++i)
    if (kTempCleanupSignals[i] == sig) return i;
  return -1;
}

void RemoveTemporaries() {
  for (std::atomic<TempFileSet*>& slot : g_sets) {
    TempFileSet* set = slot.load(std::memory_order_acquire);
    if (set == nullptr) continue;
    // A commit in progress on another thread finishes first (it has the signals blocked):
    // the set is then either all in place or all rolled back, and nothing is left to remove.
    while (set->committing()) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, nullptr);
    }
    for (size_t i = 0; i < set->size(); ++i)
      if (set->alive(i)) unlink(set->path(i));
  }
}

void OnSignal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  g_in_handler.fetch_add(1, std::memory_order_acq_rel);
  RemoveTemporaries();
  const int index = IndexOf(sig);
  struct sigaction previous;
  std::memset(&previous, 0, sizeof(previous));
  previous.sa_handler = SIG_DFL;
  if (index >= 0) previous = g_previous[index];
  g_in_handler.fetch_sub(1, std::memory_order_acq_rel);
  if ((previous.sa_flags & SA_SIGINFO) != 0) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else if (previous.sa_handler == SIG_DFL) {
    // Die by the same signal: the default action, re-raised with the signal unblocked.
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(sig);
  }
  errno = saved_errno;
}

void Install() {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (g_users++ > 0) return;
  for (int i = 0; i < kSignalCount; ++i) {
    struct sigaction current;
    sigaction(kTempCleanupSignals[i], nullptr, &current);
    g_installed[i] = false;
    if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN) continue;  // nohup: stays ignored
    g_previous[i] = current;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = &OnSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int s : kTempCleanupSignals) sigaddset(&sa.sa_mask, s);  // one cleanup at a time
    sigaction(kTempCleanupSignals[i], &sa, nullptr);
    g_installed[i] = true;
  }
}

void Uninstall() {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (--g_users > 0) return;
  for (int i = 0; i < kSignalCount; ++i)
    if (g_installed[i]) sigaction(kTempCleanupSignals[i], &g_previous[i], nullptr);
}

}  // namespace

TempFileSet::TempFileSet(const std::vector<std::string>& paths) : count_(paths.size()) {
  size_t bytes = 0;
  for (const std::string& p : paths) bytes += p.size() + 1;
  block_.reset(new char[bytes > 0 ? bytes : 1]);
  offsets_.reset(new size_t[count_ > 0 ? count_ : 1]);
  alive_.reset(new std::atomic<unsigned char>[count_ > 0 ? count_ : 1]);
  size_t at = 0;
  for (size_t i = 0; i < count_; ++i) {
    offsets_[i] = at;
    std::memcpy(block_.get() + at, paths[i].c_str(), paths[i].size() + 1);
    at += paths[i].size() + 1;
    alive_[i].store(1, std::memory_order_relaxed);
  }
  Install();
  for (int s = 0; s < kSlots; ++s) {
    TempFileSet* expected = nullptr;
    if (g_sets[s].compare_exchange_strong(expected, this, std::memory_order_acq_rel)) {
      slot_ = s;
      break;
    }
  }
}

TempFileSet::~TempFileSet() {
  if (blocked_) EndCommit();
  if (slot_ >= 0) g_sets[slot_].store(nullptr, std::memory_order_release);
  // A handler that already picked this set up on another thread finishes with it first.
  while (g_in_handler.load(std::memory_order_acquire) > 0) {
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
  }
  Uninstall();
}

void TempFileSet::BeginCommit() {
  sigset_t block;
  sigemptyset(&block);
  for (int s : kTempCleanupSignals) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &saved_mask_);
  blocked_ = true;
  committing_.store(true, std::memory_order_release);
}

void TempFileSet::EndCommit() {
  committing_.store(false, std::memory_order_release);
  if (blocked_) pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);  // a pending signal arrives now
  blocked_ = false;
}

}  // namespace ampscope

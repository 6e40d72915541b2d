// Temporary files that must not outlive an interrupted command (base/atomic_write.cc's).
//
// A TempFileSet names every temporary a set of outputs will use before any is created. While
// one exists, SIGINT, SIGTERM and SIGHUP remove the set's temporaries that are still there and
// then do what they would have done without it: a signal whose action was the default kills the
// process by that same signal (so a shell sees 128+N and stops its loop), one the process ignored
// stays ignored (nohup), and a handler the process had installed runs after the removal.
//
// The handler is async-signal-safe: the paths live in one block allocated up front, and it only
// calls unlink(2), nanosleep(2), sigaction(2), sigprocmask(2) and raise(3).
#pragma once

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ampscope {

class TempFileSet {
 public:
  explicit TempFileSet(const std::vector<std::string>& paths);
  ~TempFileSet();
  TempFileSet(const TempFileSet&) = delete;
  TempFileSet& operator=(const TempFileSet&) = delete;

  size_t size() const { return count_; }
  const char* path(size_t i) const { return block_.get() + offsets_[i]; }
  // The file no longer needs removing on a signal (renamed into place, or removed already).
  void Forget(size_t i) { alive_[i].store(0, std::memory_order_release); }
  // Between Begin and EndCommit a signal handler running on another thread waits for the
  // commit (a few renames) to finish instead of removing files under it; the calling thread
  // blocks the three signals meanwhile, so the set is committed or rolled back whole.
  void BeginCommit();
  void EndCommit();

  // For the handler.
  bool alive(size_t i) const { return alive_[i].load(std::memory_order_acquire) != 0; }
  bool committing() const { return committing_.load(std::memory_order_acquire); }

 private:
  size_t count_ = 0;
  std::unique_ptr<char[]> block_;
  std::unique_ptr<size_t[]> offsets_;
  std::unique_ptr<std::atomic<unsigned char>[]> alive_;
  std::atomic<bool> committing_{false};
  int slot_ = -1;  // in the registry the handler walks; -1: registry full (no cleanup)
  bool blocked_ = false;
  sigset_t saved_mask_;  // the thread's signal mask before BeginCommit
};

// The signals a TempFileSet handles.
inline constexpr int kTempCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace ampscope

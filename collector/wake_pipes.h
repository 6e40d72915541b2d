// The writer thread's two self-pipes: wake-ups to it (one byte per reason; writing one byte is
// async-signal-safe, so signal handlers use it too) and "done" back from it to a signal
// handler that waits for a flush. Both are non-blocking and close-on-exec.
#pragma once

#include <cstddef>
#include <sys/types.h>

namespace ampscope::collector {

class WakePipes {
 public:
  WakePipes() = default;
  ~WakePipes();
  WakePipes(const WakePipes&) = delete;
  WakePipes& operator=(const WakePipes&) = delete;

  bool Open();  // false (errno set) when a pipe cannot be created
  bool is_open() const { return done_[0] >= 0; }

  // To the writer thread. A full pipe drops the byte: the writer has wake-ups queued already.
  void Wake(char reason) const;
  // The writer thread: waits up to timeout_ms for a wake-up; true if there may be bytes.
  bool Poll(int timeout_ms) const;
  // The writer thread: reads pending wake-up bytes (<= 0 when none are left).
  ssize_t Read(char* buf, size_t size) const;

  // Writer thread -> waiter.
  void SignalDone() const;
  void DiscardDone() const;  // drops stale "done" bytes before a new request
  void WaitDone(int timeout_ms) const;

 private:
  int wake_[2] = {-1, -1};
  int done_[2] = {-1, -1};
};

}  // namespace ampscope::collector

#include "collector/wake_pipes.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <initializer_list>

#include "base/monotonic_clock.h"

namespace ampscope::collector {

WakePipes::~WakePipes() {
  for (int fd : {wake_[0], wake_[1], done_[0], done_[1]})
    if (fd >= 0) close(fd);
}

bool WakePipes::Open() {
  return pipe2(wake_, O_CLOEXEC | O_NONBLOCK) == 0 && pipe2(done_, O_CLOEXEC | O_NONBLOCK) == 0;
}

void WakePipes::Wake(char reason) const {
  if (wake_[1] < 0) return;
  ssize_t ignored = write(wake_[1], &reason, 1);
  (void)ignored;
}

bool WakePipes::Poll(int timeout_ms) const {
  pollfd p{wake_[0], POLLIN, 0};
  return poll(&p, 1, timeout_ms) > 0;
}

ssize_t WakePipes::Read(char* buf, size_t size) const { return read(wake_[0], buf, size); }

void WakePipes::SignalDone() const {
  char done = 'D';
  ssize_t ignored = write(done_[1], &done, 1);
  (void)ignored;
}

void WakePipes::DiscardDone() const {
  char stale[64];
  while (read(done_[0], stale, sizeof(stale)) > 0) {
  }
}

void WakePipes::WaitDone(int timeout_ms) const {
  const int64_t deadline = MonotonicMs() + timeout_ms;
  while (true) {
    const int64_t left_ms = deadline - MonotonicMs();
    if (left_ms <= 0) return;
    pollfd p{done_[0], POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(left_ms));
    if (n > 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

}  // namespace ampscope::collector

// Milliseconds on CLOCK_MONOTONIC, for deadlines and timeouts (never for trace times).
#pragma once

#include <time.h>

#include <cstdint>

namespace ampscope {

inline int64_t MonotonicMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace ampscope

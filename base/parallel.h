// ParallelFor: body(i) for every i in [0, n), on up to `threads` threads (the caller's one
// among them), each taking the next index as it finishes one. body must not throw.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ampscope {

// 0 threads: one per core.
inline size_t ThreadsOrCores(size_t threads) {
  return threads > 0 ? threads : std::max<size_t>(1, std::thread::hardware_concurrency());
}

template <typename Body> void ParallelFor(size_t n, size_t threads, Body&& body) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) body(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(ThreadsOrCores(threads), n); ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace ampscope

// ParallelFor: body(i) for every i in [0, n), on up to `threads` threads (the caller's one
// among them), each taking the next index as it finishes one. body must not throw.
// Beside: one task on a thread of its own while the caller goes on.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <utility>
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

// Runs `task` on a thread of its own while the calling thread goes on, or at once on the
// calling thread when `use_thread` is false or no thread can be started. Join() waits for it
// and rethrows what it threw; the destructor waits too (and drops what it threw).
class Beside {
 public:
  template <typename Task> Beside(bool use_thread, Task&& task) {
    if (use_thread) {
      try {
        thread_ = std::thread([this, t = std::forward<Task>(task)]() mutable { Guarded(t); });
        return;
      } catch (const std::system_error&) {
        // no thread: run it here
      }
    }
    Guarded(task);
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  ~Beside() {
    if (thread_.joinable()) thread_.join();
  }

  void Join() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  template <typename Task> void Guarded(Task& task) {
    try {
      task();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  std::thread thread_;
  std::exception_ptr error_;
};

}  // namespace ampscope

// The bounded pool of CUPTI activity buffers and the queue of completed ones.
//
// CUPTI's threads take buffers (Acquire) and hand them back full (Complete); the writer
// thread takes the completed ones (TakeCompleted), converts them and returns them (Release).
// Nothing here blocks beyond a short mutex: Acquire runs on CUPTI's thread, possibly inside a
// CUDA call, so an exhausted pool refuses (and counts the refusal) instead of waiting.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ampscope::collector {

class BufferPool {
 public:
  struct Completed {
    uint8_t* buffer;
    size_t valid_size;
  };

  // At most `max_buffers` buffers of `buffer_bytes` each, allocated on demand.
  BufferPool(size_t buffer_bytes, size_t max_buffers) : buffer_bytes_(buffer_bytes), max_buffers_(max_buffers) {}
  // Frees the buffers that came back. Buffers still lent to CUPTI cannot be freed safely; a
  // forced flush before destruction returns them in practice.
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  size_t buffer_bytes() const { return buffer_bytes_; }
  // A free buffer (8-byte aligned, as CUPTI needs), or nullptr when the pool is exhausted.
  uint8_t* Acquire();
  // Queues a buffer CUPTI filled with `valid_size` bytes.
  void Complete(uint8_t* buffer, size_t valid_size);
  // Every buffer completed since the last call, in completion order.
  std::vector<Completed> TakeCompleted();
  // Returns a converted buffer to the pool.
  void Release(uint8_t* buffer);

  uint64_t refused() const { return refused_.load(); }
  uint64_t completed() const { return completed_count_.load(); }

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  std::mutex mu_;  // guards the three vectors
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;
  std::vector<Completed> completed_;
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> completed_count_{0};
};

}  // namespace ampscope::collector

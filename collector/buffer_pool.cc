#include "collector/buffer_pool.h"

#include <cstdlib>

namespace ampscope::collector {

BufferPool::~BufferPool() {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint8_t* b : free_) std::free(b);
}

uint8_t* BufferPool::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  uint8_t* b = nullptr;
  if (!free_.empty()) {
    b = free_.back();
    free_.pop_back();
  } else if (all_.size() < max_buffers_) {
    void* p = nullptr;
    if (posix_memalign(&p, 8, buffer_bytes_) == 0) {
      b = static_cast<uint8_t*>(p);
      all_.push_back(b);
    }
  }
  if (b == nullptr) refused_.fetch_add(1);
  return b;
}

void BufferPool::Complete(uint8_t* buffer, size_t valid_size) {
  completed_count_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  completed_.push_back(Completed{buffer, valid_size});
}

std::vector<BufferPool::Completed> BufferPool::TakeCompleted() {
  std::vector<Completed> batch;
  std::lock_guard<std::mutex> lock(mu_);
  batch.swap(completed_);
  return batch;
}

void BufferPool::Release(uint8_t* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(buffer);
}

}  // namespace ampscope::collector

#include "trace/io/shared_input.h"

#include <atomic>
#include <string>

#include "trace/io/block_stream.h"

namespace ampscope {
namespace {

// A reader that could not be opened (the input stopped allowing it): its read fails.
class Unreadable final : public ByteSource {
 public:
  Unreadable(uint64_t offset, uint64_t total) : offset_(offset), total_(total) {}
  StatusOr<size_t> Read(char*, size_t) override {
    return Status::Error("byte " + std::to_string(offset_) + ": cannot open the input again to read it from here");
  }
  uint64_t raw_bytes_done() const override { return offset_; }
  uint64_t raw_bytes_total() const override { return total_; }

 private:
  uint64_t offset_, total_;
};

// Each reader reads the input itself, from its own offset (ByteSource::OpenAt): nothing runs
// ahead, so there is nothing to release, cancel or prioritise.
class PositionalInput final : public SharedInput {
 public:
  explicit PositionalInput(const ByteSource& source) : source_(source) {}

  std::unique_ptr<ByteSource> Reader(uint64_t offset, int64_t /*rank*/) override {
    std::unique_ptr<ByteSource> reader = source_.OpenAt(offset);
    if (reader == nullptr) return std::make_unique<Unreadable>(offset, source_.raw_bytes_total());
    return reader;
  }
  void set_privileged_rank(int64_t /*rank*/) override {}
  void Release(uint64_t offset) override {
    uint64_t done = done_.load(std::memory_order_relaxed);
    while (offset > done && !done_.compare_exchange_weak(done, offset, std::memory_order_relaxed)) {
    }
  }
  void Cancel() override {}
  // The read is done with everything it released.
  uint64_t raw_bytes_done() const override { return done_.load(std::memory_order_relaxed); }
  uint64_t raw_bytes_total() const override { return source_.raw_bytes_total(); }
  bool direct() const override { return true; }

 private:
  const ByteSource& source_;
  std::atomic<uint64_t> done_{0};
};

}  // namespace

std::unique_ptr<SharedInput> MakeSharedInput(ByteSource& source, const SharedInputOptions& options) {
  if (source.OpenAt(0) != nullptr) return std::make_unique<PositionalInput>(source);
  return std::make_unique<BlockStream>(source, options);
}

}  // namespace ampscope

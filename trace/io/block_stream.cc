#include "trace/io/block_stream.h"

#include <algorithm>
#include <cstring>

namespace ampscope {

class BlockStream::BlockReader final : public ByteSource {
 public:
  BlockReader(BlockStream& stream, uint64_t offset, int64_t rank) : stream_(stream), pos_(offset), rank_(rank) {}

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (capacity == 0) return size_t{0};
    const size_t block_bytes = stream_.options_.block_bytes;
    const uint64_t index = pos_ / block_bytes;
    if (current_.data == nullptr || index != current_index_) {
      Status end;
      if (!stream_.WaitForBlock(index, rank_, &current_, &end)) {
        current_ = Block{};
        if (!end.ok()) return end;
        return size_t{0};
      }
      current_index_ = index;
    }
    const size_t in_block = static_cast<size_t>(pos_ - index * block_bytes);
    if (in_block >= current_.size) {  // the short last block, read to its end
      Status end;
      current_ = Block{};
      if (!stream_.WaitForBlock(index + 1, rank_, &current_, &end)) {
        if (!end.ok()) return end;
        return size_t{0};
      }
      current_index_ = index + 1;
      return Read(dst, capacity);
    }
    const size_t n = std::min(capacity, current_.size - in_block);
    std::memcpy(dst, current_.data.get() + in_block, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_done() const override { return stream_.raw_bytes_done(); }
  uint64_t raw_bytes_total() const override { return stream_.raw_bytes_total(); }
  bool compressed() const override { return stream_.compressed(); }
  double expected_uncompressed_bytes() const override { return stream_.expected_bytes(); }

 private:
  BlockStream& stream_;
  uint64_t pos_;
  int64_t rank_;
  Block current_;  // keeps the block alive while it is read, even once released
  uint64_t current_index_ = 0;
};

BlockStream::BlockStream(ByteSource& source, const Options& options)
    : source_(source),
      options_(options),
      raw_total_(source.raw_bytes_total()),
      compressed_(source.compressed()) {
  allowance_.limit_bytes = options.ahead_bytes;  // before the producer starts
  producer_ = std::thread([this] { Produce(); });
}

BlockStream::~BlockStream() {
  Cancel();
  if (producer_.joinable()) producer_.join();
}

void BlockStream::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  produced_cv_.notify_all();
  room_cv_.notify_all();
}

std::unique_ptr<ByteSource> BlockStream::Reader(uint64_t offset, int64_t rank) {
  return std::make_unique<BlockReader>(*this, offset, rank);
}

void BlockStream::set_privileged_rank(int64_t rank) {
  std::lock_guard<std::mutex> lock(mu_);
  allowance_.privileged_rank = rank;
  produced_cv_.notify_all();  // a waiting reader may now push the limit
}

void BlockStream::Release(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  if (offset <= allowance_.released) return;
  allowance_.released = offset;
  const uint64_t keep_from = offset / options_.block_bytes;
  while (!published_.blocks.empty() && published_.first_block < keep_from) {
    published_.blocks.pop_front();
    ++published_.first_block;
  }
  allowance_.limit_bytes = std::max(allowance_.limit_bytes, offset + options_.ahead_bytes);
  room_cv_.notify_all();
}

uint64_t BlockStream::peak_buffered_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_.peak_bytes;
}

uint64_t BlockStream::raw_bytes_done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_.raw_done;
}

double BlockStream::expected_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (published_.raw_done == 0) return 0;
  if (published_.ended) return static_cast<double>(published_.bytes);
  return static_cast<double>(raw_total_) * static_cast<double>(published_.bytes) / static_cast<double>(published_.raw_done);
}

bool BlockStream::WaitForBlock(uint64_t index, int64_t rank, Block* block, Status* end_status) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (cancelled_) {
      *end_status = Status::Error("byte " + std::to_string(index * options_.block_bytes) + ": reading was cancelled");
      return false;
    }
    if (index < published_.first_block) {
      *end_status = Status::Error("internal: block " + std::to_string(index) + " was released while still needed");
      return false;
    }
    if (index < published_.first_block + published_.blocks.size()) {
      *block = published_.blocks[static_cast<size_t>(index - published_.first_block)];
      return true;
    }
    if (published_.ended) {
      *end_status = published_.error;
      return false;
    }
    // The read waits on this reader: let the producer go as far as it needs.
    const uint64_t want = (index + 1) * options_.block_bytes;
    if (rank <= allowance_.privileged_rank && allowance_.limit_bytes < want) {
      allowance_.limit_bytes = want;
      room_cv_.notify_all();
    }
    produced_cv_.wait(lock);
  }
}

void BlockStream::Produce() {
  const size_t block_bytes = options_.block_bytes;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      room_cv_.wait(lock, [&] { return cancelled_ || published_.bytes < allowance_.limit_bytes; });
      if (cancelled_) return;
    }
    std::shared_ptr<char[]> data(new char[block_bytes]);
    size_t filled = 0;
    Status error;
    bool eof = false;
    while (filled < block_bytes) {
      StatusOr<size_t> n = source_.Read(data.get() + filled, block_bytes - filled);
      if (!n.ok()) {
        error = n.status();
        break;
      }
      if (*n == 0) {
        eof = true;
        break;
      }
      filled += *n;
    }
    const uint64_t raw_done = source_.raw_bytes_done();
    std::lock_guard<std::mutex> lock(mu_);
    if (filled > 0) {
      published_.blocks.push_back(Block{std::move(data), filled});
      published_.bytes += filled;
      published_.peak_bytes = std::max<uint64_t>(published_.peak_bytes, published_.blocks.size() * options_.block_bytes);
    }
    published_.raw_done = raw_done;
    if (!error.ok() || eof) {
      published_.ended = true;
      published_.error = error;
    }
    produced_cv_.notify_all();
    if (published_.ended) return;
  }
}

}  // namespace ampscope

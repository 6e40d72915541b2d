// The uncompressed bytes of one input, produced in order on a thread of their own (reading the
// file, or inflating gzip) into fixed-size blocks, and read from any offset by several readers
// at once. This is how the Kineto reader overlaps inflating with parsing, and how several
// threads parse pieces of one file (trace/formats/kineto/kineto_parallel.cc).
//
// Memory is bounded: the producer stays at most `ahead_bytes` past the lowest offset still
// needed (Release), so a few MiB are in flight whatever the size of the input. A reader whose
// rank is at most the privileged rank (the one the whole read is waiting on) may push the
// producer further, so that a single event larger than the allowance cannot stall the read.
//
// Block k holds bytes [k * block_bytes, (k + 1) * block_bytes): the producer fills each block
// completely before publishing it (only the last is short). An error of the source is returned
// to a reader once it has read every byte before it, as from the source itself.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "base/status.h"
#include "trace/io/input_stream.h"
#include "trace/io/shared_input.h"

namespace ampscope {

class BlockStream final : public SharedInput {
 public:
  using Options = SharedInputOptions;

  // Starts the producer thread; `source` must outlive the stream.
  BlockStream(ByteSource& source, const Options& options);
  ~BlockStream() override;  // cancels and joins the producer
  BlockStream(const BlockStream&) = delete;
  BlockStream& operator=(const BlockStream&) = delete;

  std::unique_ptr<ByteSource> Reader(uint64_t offset, int64_t rank) override;
  // Readers of rank <= `rank` may make the producer run past the ahead allowance.
  void set_privileged_rank(int64_t rank) override;
  // Blocks before `offset` may be freed, and the allowance moves on.
  void Release(uint64_t offset) override;
  // Also stops the producer.
  void Cancel() override;

  uint64_t raw_bytes_done() const override;
  uint64_t raw_bytes_total() const override { return raw_total_; }
  bool direct() const override { return false; }
  uint64_t peak_buffered_bytes() const override;
  bool compressed() const { return compressed_; }
  // An estimate of the whole input's uncompressed size from the ratio so far (0 before the
  // first block).
  double expected_bytes() const;

 private:
  class BlockReader;
  struct Block {
    std::shared_ptr<char[]> data;
    size_t size = 0;
  };

  void Produce();
  // Waits until block `index` exists or the stream ended there; false when cancelled, when
  // the block was released, or at the end (then *end_status says which).
  bool WaitForBlock(uint64_t index, int64_t rank, Block* block, Status* end_status);

  ByteSource& source_;
  const Options options_;
  const uint64_t raw_total_;
  const bool compressed_;

  mutable std::mutex mu_;
  std::condition_variable produced_cv_;  // a block was added, or the stream ended / was cancelled
  std::condition_variable room_cv_;      // the allowance moved (release, privileged request)
  // What the producer has published (under mu_).
  struct Published {
    std::deque<Block> blocks;            // blocks first_block .. first_block + size - 1
    uint64_t first_block = 0;
    uint64_t bytes = 0;                  // uncompressed bytes in blocks published so far
    uint64_t raw_done = 0;               // source_.raw_bytes_done() after the last block
    uint64_t peak_bytes = 0;             // the most bytes the published blocks held at once
    bool ended = false;                  // no more blocks: end of input, or error
    Status error;
  } published_;
  // How far ahead the producer may go (under mu_).
  struct Allowance {
    uint64_t limit_bytes = 0;            // the producer may start a block below this offset
    uint64_t released = 0;
    int64_t privileged_rank = 0;
  } allowance_;
  bool cancelled_ = false;
  std::thread producer_;
};

}  // namespace ampscope

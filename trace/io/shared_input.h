// The bytes of one input, read from any offset by several threads at once: how the parallel
// Kineto reader hands each thread the piece it parses (trace/formats/kineto/kineto_parallel.cc).
//
// Two kinds, chosen by MakeSharedInput:
// - an input that can be read anywhere (a plain file, a string: ByteSource::OpenAt) gives each
//   reader a source of its own, reading straight into the reader's buffer with pread(): no
//   thread in between, one copy of each byte;
// - any other (gzip, a pipe) is produced in order by one thread into a BlockStream
//   (block_stream.h), which the readers copy from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "trace/io/input_stream.h"

namespace ampscope {

class SharedInput {
 public:
  virtual ~SharedInput() = default;

  // A source of the input's uncompressed bytes from `offset` on, which must not have been
  // released. `rank` orders readers by how urgently the read needs them (see
  // set_privileged_rank).
  virtual std::unique_ptr<ByteSource> Reader(uint64_t offset, int64_t rank) = 0;
  // Readers of rank <= `rank` are the ones the whole read waits on.
  virtual void set_privileged_rank(int64_t rank) = 0;
  // No reader will ask for bytes before `offset` again.
  virtual void Release(uint64_t offset) = 0;
  // Readers waiting for data return an error.
  virtual void Cancel() = 0;

  // Progress through the underlying input (raw bytes: compressed for gzip) for a progress bar.
  virtual uint64_t raw_bytes_done() const = 0;
  virtual uint64_t raw_bytes_total() const = 0;
  // True when each reader reads the input itself (the first kind above).
  virtual bool direct() const = 0;
  // The most bytes held in memory at once for the readers (0 for direct readers).
  virtual uint64_t peak_buffered_bytes() const { return 0; }
};

struct SharedInputOptions {
  // For a BlockStream: its block size, and how far the producer may run ahead of the lowest
  // offset still needed.
  size_t block_bytes = size_t{2} << 20;
  size_t ahead_bytes = size_t{16} << 20;
};

// Readers straight from `source` when it can be opened at any offset, else a BlockStream that
// reads `source` on a thread of its own. `source` must outlive the result.
std::unique_ptr<SharedInput> MakeSharedInput(ByteSource& source, const SharedInputOptions& options);

}  // namespace ampscope

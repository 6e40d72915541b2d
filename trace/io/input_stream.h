// Byte sources for the streaming readers: a plain file, a gzip stream (detected by its
// magic bytes, never by the file extension) and an in-memory string.
//
// A source hands out the *uncompressed* bytes in chunks of whatever size the caller asks
// for; the readers above never assume where a chunk ends. Memory use is bounded by the
// caller's buffer plus a fixed inflate window, whatever the size of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ampscope {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to `capacity` bytes into `dst`. Returns 0 only at the clean end of the input.
  // Errors (I/O, corrupt or truncated gzip) are one-line messages of the form
  // "byte <offset>: <what>"; the caller prefixes the file name.
  virtual StatusOr<size_t> Read(char* dst, size_t capacity) = 0;
  // Progress through the underlying input: bytes of the file consumed (compressed bytes for
  // gzip) and its total size. Suitable for a progress bar, not for error offsets.
  virtual uint64_t raw_bytes_done() const = 0;
  virtual uint64_t raw_bytes_total() const = 0;
  virtual bool compressed() const { return false; }
};

// Opens `path`; if it starts with the gzip magic (1f 8b) the result inflates it.
// Error messages are "byte 0: cannot open: <reason>" and the like (no file name).
StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);

// A source over `data` (which must outlive it); gzip'd data is inflated, as for files.
std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data);

// Wraps `inner` so that each Read returns at most `max_chunk` bytes. Tests use it to check
// that parsing does not depend on where chunk boundaries fall.
std::unique_ptr<ByteSource> MakeChunkLimitedByteSource(std::unique_ptr<ByteSource> inner, size_t max_chunk);

}  // namespace ampscope

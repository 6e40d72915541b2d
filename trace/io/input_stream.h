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
  // The size of the whole uncompressed input as far as the source can tell, or < 0 when it
  // cannot (readers then extrapolate from raw_bytes_done themselves).
  virtual double expected_uncompressed_bytes() const { return -1; }
  // Another source over the same bytes, from the start; nullptr when that is not possible.
  // The gzip source uses it to name damage with zlib (gzip_source.cc).
  virtual std::unique_ptr<ByteSource> Reopen() const { return nullptr; }
  // Another source over the same uncompressed bytes, from `offset` on (its raw_bytes_done
  // starts there), when the input can be read anywhere: a plain file or a string, not gzip or
  // a pipe (nullptr). Each such source reads on its own, so several threads may read one
  // input at once (trace/io/shared_input.h).
  virtual std::unique_ptr<ByteSource> OpenAt(uint64_t offset) const {
    (void)offset;
    return nullptr;
  }
};

// Which library inflates gzip input. kDefault is ISA-L's igzip when the build found it
// (libisal-dev; not with -DAMPSCOPE_FORCE_ZLIB=ON), zlib otherwise. Both give the same bytes and,
// for damaged input, the same error (gzip_source.cc).
enum class GzipDecoder : uint8_t { kDefault, kZlib, kIsal };
bool GzipDecoderAvailable(GzipDecoder decoder);
bool GzipDecoderForcedToZlib();  // built with -DAMPSCOPE_FORCE_ZLIB=ON
const char* GzipDecoderName(GzipDecoder decoder);  // "isal" | "zlib" (kDefault: the one it picks)
// Inflates `inner` (which starts with the gzip magic). kIsal falls back to zlib when absent.
std::unique_ptr<ByteSource> MakeGzipByteSource(std::unique_ptr<ByteSource> inner, GzipDecoder decoder);
bool StartsWithGzipMagic(const void* data, size_t n);

// Opens `path`; if it starts with the gzip magic (1f 8b) the result inflates it.
// Error messages are "byte 0: cannot open: <reason>" and the like (no file name).
StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);
StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path, GzipDecoder decoder);

// A source over an open descriptor that can only be read front to back (a pipe, a FIFO, a
// terminal, `-` for stdin), whose first bytes the caller has already read to tell the format:
// `prefix` is handed out first, then the rest of the stream, so nothing is read twice and
// nothing is lost. Gzip'd data (the prefix starts with 1f 8b) is inflated. Owns `fd`.
std::unique_ptr<ByteSource> MakeStreamByteSource(int fd, std::string prefix);

// Reads up to `n` bytes from the front of a stream descriptor (fewer only at its end): what
// MakeStreamByteSource's `prefix` is. Errors are "byte <offset>: read error: ...".
StatusOr<std::string> ReadStreamPrefix(int fd, size_t n);

// A source over `data` (which must outlive it); gzip'd data is inflated, as for files.
std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data);
std::unique_ptr<ByteSource> MakeStringByteSource(std::string_view data, GzipDecoder decoder);

// Wraps `inner` so that each Read returns at most `max_chunk` bytes. Tests use it to check
// that parsing does not depend on where chunk boundaries fall.
std::unique_ptr<ByteSource> MakeChunkLimitedByteSource(std::unique_ptr<ByteSource> inner, size_t max_chunk);

}  // namespace ampscope

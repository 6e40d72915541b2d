// The chunk framing of an .amptrace file (docs/amptrace.md): the header, then chunks each with
// its own header and CRC. Used only by the reader (amptrace_reader.cc); kept apart so that the
// framing and the record conversion can be read and tested on their own.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "base/status.h"
#include "trace/formats/amptrace/amptrace_format.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope::amptrace_detail {

// "PATH: byte N: what", the one-line form of every error of this reader.
std::string At(const std::string& path, uint64_t offset, const std::string& what);

// Walks the chunks of one file. Problems after the header are recorded as diagnostics and end
// (or skip) the walk; only the header can fail the read.
class ChunkFile {
 public:
  ChunkFile() = default;
  ChunkFile(const ChunkFile&) = delete;
  ChunkFile& operator=(const ChunkFile&) = delete;
  ~ChunkFile();

  // Opens `path` and checks its header (magic, version, lengths, checksum).
  Status Open(const std::string& path);

  // Reads the next chunk header. Returns false at the end of the walk; `diag` says why when it
  // is not a clean end.
  bool Next(AmpChunkHeader* h, Diagnostics& diag);

  // Reads the current chunk's payload and checks its CRC. False (with a diagnostic) if the
  // payload is damaged: the caller skips the chunk and goes on.
  bool ReadPayload(const AmpChunkHeader& h, std::vector<uint8_t>* out, Diagnostics& diag);

  const AmpFileHeader& header() const { return header_; }
  const std::string& host() const { return host_; }
  const std::string& command_line() const { return command_line_; }
  uint64_t size() const { return size_; }
  uint64_t chunk_offset() const { return chunk_offset_; }
  uint32_t chunks() const { return chunks_; }
  bool clean_end() const { return footer_seen_ && !truncated_ && done_; }
  bool footer_seen() const { return footer_seen_; }
  bool truncated() const { return truncated_; }
  bool corrupt() const { return corrupt_; }

 private:
  bool HasMagic();

  std::string path_;
  FILE* f_ = nullptr;
  uint64_t size_ = 0;
  uint64_t offset_ = 0;
  uint64_t chunk_offset_ = 0;
  uint32_t chunks_ = 0;
  AmpFileHeader header_ = {};
  std::string host_;
  std::string command_line_;
  bool done_ = false;
  bool footer_seen_ = false;
  bool truncated_ = false;
  bool corrupt_ = false;
};

// Parses a warnings chunk; returns false if an entry runs past the payload.
bool ParseWarnings(const std::vector<uint8_t>& p, std::vector<AmptraceWarning>* out);

}  // namespace ampscope::amptrace_detail

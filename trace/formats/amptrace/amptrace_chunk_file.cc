#include "trace/formats/amptrace/amptrace_chunk_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace ampscope::amptrace_detail {

namespace {

// Size of the record struct a chunk type carries; 0 for variable-length chunks and for types
// this reader does not know (those are skipped).
size_t KnownRecordSize(uint16_t type) {
  switch (static_cast<AmpChunkType>(type)) {
    case AmpChunkType::kStats: return sizeof(AmpStatsRecord);
    case AmpChunkType::kClock: return sizeof(AmpClockRecord);
    case AmpChunkType::kDevice: return sizeof(AmpDeviceRecord);
    case AmpChunkType::kContext: return sizeof(AmpContextRecord);
    case AmpChunkType::kName: return sizeof(AmpNameRecord);
    case AmpChunkType::kKernel: return sizeof(AmpKernelRecord);
    case AmpChunkType::kMemcpy: return sizeof(AmpMemcpyRecord);
    case AmpChunkType::kMemset: return sizeof(AmpMemsetRecord);
    case AmpChunkType::kApi: return sizeof(AmpApiRecord);
    case AmpChunkType::kSync: return sizeof(AmpSyncRecord);
    case AmpChunkType::kMemory: return sizeof(AmpMemoryRecord);
    case AmpChunkType::kOverhead: return sizeof(AmpOverheadRecord);
    case AmpChunkType::kNvtx: return sizeof(AmpNvtxEvent);
    case AmpChunkType::kCounter: return sizeof(AmpCounterRecord);
    case AmpChunkType::kFooter: return sizeof(AmpFooterRecord);
    default: return 0;
  }
}

bool IsVariableChunk(uint16_t type) {
  return type == static_cast<uint16_t>(AmpChunkType::kStrings) || type == static_cast<uint16_t>(AmpChunkType::kWarnings);
}

}  // namespace

std::string At(const std::string& path, uint64_t offset, const std::string& what) {
  return path + ": byte " + std::to_string(offset) + ": " + what;
}

ChunkFile::~ChunkFile() {
  if (f_ != nullptr) std::fclose(f_);
}

Status ChunkFile::Open(const std::string& path) {
  path_ = path;
  f_ = std::fopen(path.c_str(), "rb");
  if (f_ == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(f_), &st) != 0) return Status::Error(path + ": cannot stat: " + std::strerror(errno));
  size_ = static_cast<uint64_t>(st.st_size);

  if (size_ < sizeof(AmpFileHeader)) {
    if (size_ >= sizeof(kAmptraceMagic) && !HasMagic())
      return Status::Error(At(path, 0, "not an .amptrace file (bad magic)"));
    return Status::Error(At(path, size_, "file ends inside the .amptrace header (" + std::to_string(size_) +
                                             " bytes, the fixed header alone is " +
                                             std::to_string(sizeof(AmpFileHeader)) + ")"));
  }
  if (std::fread(&header_, sizeof(header_), 1, f_) != 1) return Status::Error(At(path, 0, "cannot read the header"));
  if (std::memcmp(header_.magic, kAmptraceMagic, sizeof(kAmptraceMagic)) != 0)
    return Status::Error(At(path, 0, "not an .amptrace file (bad magic, expected \"AMPTRACE\")"));
  if (header_.version_major != kAmptraceVersionMajor)
    return Status::Error(At(path, offsetof(AmpFileHeader, version_major),
                            "unsupported .amptrace version " + std::to_string(header_.version_major) + "." +
                                std::to_string(header_.version_minor) + " (this reader reads " +
                                std::to_string(kAmptraceVersionMajor) + ".x)"));
  const uint64_t variable = uint64_t{header_.host_bytes} + header_.command_line_bytes;
  if (header_.header_bytes < sizeof(AmpFileHeader) || header_.header_bytes % 8 != 0 ||
      header_.header_bytes > (1u << 20) || sizeof(AmpFileHeader) + variable > header_.header_bytes)
    return Status::Error(At(path, offsetof(AmpFileHeader, header_bytes),
                            "bad header length " + std::to_string(header_.header_bytes) + " (host " +
                                std::to_string(header_.host_bytes) + " bytes, command line " +
                                std::to_string(header_.command_line_bytes) + " bytes)"));
  if (size_ < header_.header_bytes)
    return Status::Error(At(path, size_, "file ends inside the .amptrace header (header is " +
                                             std::to_string(header_.header_bytes) + " bytes)"));
  std::vector<uint8_t> bytes(header_.header_bytes);
  std::memcpy(bytes.data(), &header_, sizeof(header_));
  if (std::fread(bytes.data() + sizeof(header_), 1, bytes.size() - sizeof(header_), f_) !=
      bytes.size() - sizeof(header_))
    return Status::Error(At(path, sizeof(header_), "cannot read the header"));
  const uint32_t stored_crc = header_.header_crc32;
  std::memset(bytes.data() + offsetof(AmpFileHeader, header_crc32), 0, sizeof(uint32_t));
  if (AmptraceCrc32(bytes.data(), bytes.size()) != stored_crc)
    return Status::Error(At(path, offsetof(AmpFileHeader, header_crc32), "header checksum mismatch (corrupt header)"));
  host_.assign(reinterpret_cast<const char*>(bytes.data()) + sizeof(header_), header_.host_bytes);
  command_line_.assign(reinterpret_cast<const char*>(bytes.data()) + sizeof(header_) + header_.host_bytes,
                       header_.command_line_bytes);
  offset_ = header_.header_bytes;
  return Status::Ok();
}

bool ChunkFile::Next(AmpChunkHeader* h, Diagnostics& diag) {
  if (done_) return false;
  if (offset_ == size_) {
    done_ = true;
    if (!footer_seen_) {
      truncated_ = true;
      diag.Add(DiagCode::kTruncatedFile, static_cast<int64_t>(offset_),
               "file ends at byte " + std::to_string(offset_) +
                   " without a footer: the process did not finish writing it (killed, crashed, or still running)");
    }
    return false;
  }
  if (footer_seen_) {
    done_ = true;
    diag.Add(DiagCode::kTrailingBytes, static_cast<int64_t>(offset_),
             std::to_string(size_ - offset_) + " bytes after the footer were ignored");
    return false;
  }
  if (size_ - offset_ < sizeof(AmpChunkHeader)) {
    done_ = true;
    truncated_ = true;
    diag.Add(DiagCode::kTruncatedFile, static_cast<int64_t>(offset_),
             "file ends inside a chunk header at byte " + std::to_string(offset_));
    return false;
  }
  if (std::fseek(f_, static_cast<long>(offset_), SEEK_SET) != 0 || std::fread(h, sizeof(*h), 1, f_) != 1) {
    done_ = true;
    truncated_ = true;
    diag.Add(DiagCode::kTruncatedFile, static_cast<int64_t>(offset_), "cannot read a chunk header");
    return false;
  }
  if (h->magic != kAmptraceChunkMagic ||
      AmptraceCrc32(h, offsetof(AmpChunkHeader, header_crc32)) != h->header_crc32 ||
      h->payload_bytes > kAmptraceMaxChunkPayload) {
    // The framing cannot be trusted, so nothing after this point can be located.
    done_ = true;
    corrupt_ = true;
    diag.Add(DiagCode::kCorruptChunk, static_cast<int64_t>(offset_),
             "bad chunk header at byte " + std::to_string(offset_) + "; the rest of the file (" +
                 std::to_string(size_ - offset_) + " bytes) was not read");
    return false;
  }
  if (size_ - offset_ - sizeof(AmpChunkHeader) < h->payload_bytes) {
    done_ = true;
    truncated_ = true;
    diag.Add(DiagCode::kTruncatedFile, static_cast<int64_t>(offset_),
             "file ends inside a " + std::string(AmpChunkTypeName(static_cast<AmpChunkType>(h->type))) +
                 " chunk at byte " + std::to_string(offset_) + " (payload " + std::to_string(h->payload_bytes) +
                 " bytes, " + std::to_string(size_ - offset_ - sizeof(AmpChunkHeader)) + " present)");
    return false;
  }
  chunk_offset_ = offset_;
  offset_ += sizeof(AmpChunkHeader) + h->payload_bytes;
  ++chunks_;
  if (h->type == static_cast<uint16_t>(AmpChunkType::kFooter)) footer_seen_ = true;
  return true;
}

bool ChunkFile::ReadPayload(const AmpChunkHeader& h, std::vector<uint8_t>* out, Diagnostics& diag) {
  out->resize(h.payload_bytes);
  if (h.payload_bytes > 0 && std::fread(out->data(), 1, h.payload_bytes, f_) != h.payload_bytes) {
    diag.Add(DiagCode::kCorruptChunk, static_cast<int64_t>(chunk_offset_), "cannot read chunk payload");
    corrupt_ = true;
    return false;
  }
  if (AmptraceCrc32(out->data(), out->size()) != h.payload_crc32) {
    corrupt_ = true;
    if (h.type == static_cast<uint16_t>(AmpChunkType::kFooter)) footer_seen_ = false;
    diag.Add(DiagCode::kCorruptChunk, static_cast<int64_t>(chunk_offset_),
             std::string(AmpChunkTypeName(static_cast<AmpChunkType>(h.type))) + " chunk at byte " +
                 std::to_string(chunk_offset_) + " fails its checksum; its " + std::to_string(h.record_count) +
                 " records were skipped");
    return false;
  }
  // Fixed-size chunks must be exactly record_size * record_count, and records must be at
  // least as large as the structs this reader knows (newer writers may append fields).
  if (!IsVariableChunk(h.type)) {
    const size_t known = KnownRecordSize(h.type);
    if (uint64_t{h.record_size} * h.record_count != h.payload_bytes || (known != 0 && h.record_size < known)) {
      corrupt_ = true;
      diag.Add(DiagCode::kBadRecordSize, static_cast<int64_t>(chunk_offset_),
               std::string(AmpChunkTypeName(static_cast<AmpChunkType>(h.type))) + " chunk at byte " +
                   std::to_string(chunk_offset_) + " has record size " + std::to_string(h.record_size) + " x " +
                   std::to_string(h.record_count) + " for " + std::to_string(h.payload_bytes) +
                   " payload bytes; skipped");
      return false;
    }
  }
  // The footer is exactly one record: one with none has nothing to read (and a reader that
  // took record 0 anyway read past the payload, as the fuzzers found).
  if (h.type == static_cast<uint16_t>(AmpChunkType::kFooter) && h.record_count != 1) {
    corrupt_ = true;
    footer_seen_ = false;
    diag.Add(DiagCode::kBadRecordSize, static_cast<int64_t>(chunk_offset_),
             "footer chunk at byte " + std::to_string(chunk_offset_) + " has " + std::to_string(h.record_count) +
                 " records, not 1; skipped");
    return false;
  }
  return true;
}

bool ChunkFile::HasMagic() {
  char magic[8];
  return std::fread(magic, sizeof(magic), 1, f_) == 1 && std::memcmp(magic, kAmptraceMagic, sizeof(magic)) == 0;
}

bool ParseWarnings(const std::vector<uint8_t>& p, std::vector<AmptraceWarning>* out) {
  size_t pos = 0;
  while (pos < p.size()) {
    if (p.size() - pos < 8) return false;
    uint16_t severity, code_len;
    uint32_t message_len;
    std::memcpy(&severity, p.data() + pos, 2);
    std::memcpy(&code_len, p.data() + pos + 2, 2);
    std::memcpy(&message_len, p.data() + pos + 4, 4);
    pos += 8;
    if (p.size() - pos < uint64_t{code_len} + message_len) return false;
    AmptraceWarning w;
    w.severity = static_cast<AmpSeverity>(std::min<uint16_t>(severity, 2));
    w.code.assign(reinterpret_cast<const char*>(p.data() + pos), code_len);
    w.message.assign(reinterpret_cast<const char*>(p.data() + pos + code_len), message_len);
    pos += code_len + message_len;
    out->push_back(std::move(w));
  }
  return true;
}

}  // namespace ampscope::amptrace_detail

#include "trace/formats/amptrace/amptrace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ampscope {

namespace {

struct Crc32Table {
  uint32_t entries[256];
  constexpr Crc32Table() : entries() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
  }
};
constexpr Crc32Table kCrcTable;

template <typename T>
void AppendPod(std::vector<uint8_t>& out, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

}  // namespace

uint32_t AmptraceCrc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kCrcTable.entries[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

StatusOr<std::unique_ptr<AmptraceWriter>> AmptraceWriter::Create(const std::string& path,
                                                                  const AmptraceHeaderInfo& info) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error(path + ": cannot create: " + std::strerror(errno));
  std::unique_ptr<AmptraceWriter> writer(new AmptraceWriter(path, fd));

  // Host names and command lines are capped so a header stays small and its length fields
  // can never overflow (a 64 KiB command line is already absurd).
  std::string host = info.host.substr(0, 255);
  std::string command_line = info.command_line.substr(0, 65536);
  AmpFileHeader h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, kAmptraceMagic, sizeof(h.magic));
  h.version_major = kAmptraceVersionMajor;
  h.version_minor = kAmptraceVersionMinor;
  size_t total = sizeof(AmpFileHeader) + host.size() + command_line.size();
  total = (total + 7) & ~size_t{7};
  h.header_bytes = static_cast<uint32_t>(total);
  h.cupti_version = info.cupti_version;
  h.pid = info.pid;
  h.rank = info.rank;
  h.local_rank = info.local_rank;
  h.world_size = info.world_size;
  h.flags = kAmpHeaderFlagNvtxRealtime;
  h.start_cupti_ns = info.start_clock.cupti_ns;
  h.start_monotonic_ns = info.start_clock.monotonic_ns;
  h.start_realtime_ns = info.start_clock.realtime_ns;
  h.driver_version = info.driver_version;
  h.host_bytes = static_cast<uint32_t>(host.size());
  h.command_line_bytes = static_cast<uint32_t>(command_line.size());

  std::vector<uint8_t> bytes(total, 0);
  std::memcpy(bytes.data(), &h, sizeof(h));
  std::memcpy(bytes.data() + sizeof(h), host.data(), host.size());
  std::memcpy(bytes.data() + sizeof(h) + host.size(), command_line.data(), command_line.size());
  uint32_t crc = AmptraceCrc32(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + offsetof(AmpFileHeader, header_crc32), &crc, sizeof(crc));
  Status st = writer->WriteAll(bytes.data(), bytes.size());
  if (!st.ok()) return st;
  writer->bytes_written_ = bytes.size();
  return writer;
}

AmptraceWriter::~AmptraceWriter() {
  if (fd_ >= 0) ::close(fd_);
}

uint32_t AmptraceWriter::InternString(std::string_view s) {
  if (s.empty()) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = string_ids_.find(s);
  if (it != string_ids_.end()) return it->second;
  uint32_t id = next_string_id_++;
  string_storage_.emplace_back(s);
  string_ids_.emplace(std::string_view(string_storage_.back()), id);
  uint32_t len = static_cast<uint32_t>(std::min<size_t>(s.size(), kAmptraceMaxChunkPayload / 2));
  AppendPod(pending_.strings, id);
  AppendPod(pending_.strings, len);
  pending_.strings.insert(pending_.strings.end(), s.data(), s.data() + len);
  ++pending_.string_count;
  return id;
}

void AmptraceWriter::AppendRaw(AmpChunkType type, uint16_t record_size, const void* record) {
  std::lock_guard<std::mutex> lock(mu_);
  Pending& p = pending_.records[static_cast<uint16_t>(type)];
  p.record_size = record_size;
  const auto* bytes = static_cast<const uint8_t*>(record);
  p.bytes.insert(p.bytes.end(), bytes, bytes + record_size);
  ++p.count;
  ++pending_records_;
}

void AmptraceWriter::AddWarning(AmpSeverity severity, std::string_view code, std::string_view message) {
  std::lock_guard<std::mutex> lock(mu_);
  code = code.substr(0, 200);
  message = message.substr(0, 4000);
  AppendPod(pending_.warnings, static_cast<uint16_t>(severity));
  AppendPod(pending_.warnings, static_cast<uint16_t>(code.size()));
  AppendPod(pending_.warnings, static_cast<uint32_t>(message.size()));
  pending_.warnings.insert(pending_.warnings.end(), code.begin(), code.end());
  pending_.warnings.insert(pending_.warnings.end(), message.begin(), message.end());
  ++pending_.warning_count;
}

Status AmptraceWriter::WriteAll(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed_ = true;
      return Status::Error(path_ + ": write failed: " + std::strerror(errno));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status AmptraceWriter::WriteChunk(AmpChunkType type, uint16_t record_size, uint32_t count, const uint8_t* payload,
                                  size_t payload_bytes) {
  AmpChunkHeader h;
  h.magic = kAmptraceChunkMagic;
  h.type = static_cast<uint16_t>(type);
  h.record_size = record_size;
  h.record_count = count;
  h.payload_bytes = static_cast<uint32_t>(payload_bytes);
  h.payload_crc32 = AmptraceCrc32(payload, payload_bytes);
  h.header_crc32 = AmptraceCrc32(&h, offsetof(AmpChunkHeader, header_crc32));
  // One buffer, one write(): a reader racing the writer (or a crash) sees whole chunk headers
  // far more often, and the cost is one copy of at most kAmptraceWriterChunkPayload bytes.
  std::vector<uint8_t> buf(sizeof(h) + payload_bytes);
  std::memcpy(buf.data(), &h, sizeof(h));
  if (payload_bytes > 0) std::memcpy(buf.data() + sizeof(h), payload, payload_bytes);
  AMPSCOPE_RETURN_IF_ERROR(WriteAll(buf.data(), buf.size()));
  bytes_written_ += buf.size();
  ++chunks_written_;
  if (record_size > 0) records_written_ += count;
  return Status::Ok();
}

Status AmptraceWriter::Flush() {
  std::lock_guard<std::mutex> io_lock(io_mu_);
  if (finished_) return Status::Error(path_ + ": already finished");
  if (failed_) return Status::Error(path_ + ": an earlier write failed");
  Batch batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(batch, pending_);
    pending_records_ = 0;
  }
  // Strings first: every record in this batch interned its strings before it was appended,
  // so they are all in this strings chunk or an earlier one.
  if (batch.string_count > 0) {
    // Split at entry boundaries so no chunk exceeds the writer's target size by much.
    size_t pos = 0, chunk_start = 0;
    uint32_t in_chunk = 0;
    while (pos < batch.strings.size()) {
      uint32_t len;
      std::memcpy(&len, batch.strings.data() + pos + 4, 4);
      pos += 8 + len;
      ++in_chunk;
      if (pos - chunk_start >= kAmptraceWriterChunkPayload || pos == batch.strings.size()) {
        AMPSCOPE_RETURN_IF_ERROR(WriteChunk(AmpChunkType::kStrings, 0, in_chunk, batch.strings.data() + chunk_start,
                                            pos - chunk_start));
        chunk_start = pos;
        in_chunk = 0;
      }
    }
  }
  if (batch.warning_count > 0)
    AMPSCOPE_RETURN_IF_ERROR(WriteChunk(AmpChunkType::kWarnings, 0, batch.warning_count, batch.warnings.data(),
                                        batch.warnings.size()));
  for (auto& [type, p] : batch.records) {
    if (p.count == 0) continue;
    const uint32_t per_chunk = std::max<uint32_t>(1, kAmptraceWriterChunkPayload / p.record_size);
    for (uint32_t first = 0; first < p.count; first += per_chunk) {
      uint32_t n = std::min(per_chunk, p.count - first);
      AMPSCOPE_RETURN_IF_ERROR(WriteChunk(static_cast<AmpChunkType>(type), p.record_size, n,
                                          p.bytes.data() + size_t{first} * p.record_size, size_t{n} * p.record_size));
    }
  }
  return Status::Ok();
}

Status AmptraceWriter::Sync() {
  std::lock_guard<std::mutex> io_lock(io_mu_);
  if (fd_ < 0) return Status::Ok();
  if (::fdatasync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    return Status::Error(path_ + ": fdatasync failed: " + std::strerror(errno));
  return Status::Ok();
}

Status AmptraceWriter::Finish(const AmpFooterRecord& footer) {
  AMPSCOPE_RETURN_IF_ERROR(Flush());
  std::lock_guard<std::mutex> io_lock(io_mu_);
  if (finished_) return Status::Error(path_ + ": already finished");
  AmpFooterRecord f = footer;
  f.chunk_count = chunks_written_;
  AMPSCOPE_RETURN_IF_ERROR(WriteChunk(AmpChunkType::kFooter, sizeof(f), 1, reinterpret_cast<const uint8_t*>(&f),
                                      sizeof(f)));
  finished_ = true;
  Status st = Status::Ok();
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    st = Status::Error(path_ + ": fsync failed: " + std::strerror(errno));
  ::close(fd_);
  fd_ = -1;
  return st;
}

uint64_t AmptraceWriter::bytes_written() const {
  std::lock_guard<std::mutex> io_lock(io_mu_);
  return bytes_written_;
}
uint32_t AmptraceWriter::chunks_written() const {
  std::lock_guard<std::mutex> io_lock(io_mu_);
  return chunks_written_;
}
uint64_t AmptraceWriter::records_written() const {
  std::lock_guard<std::mutex> io_lock(io_mu_);
  return records_written_;
}
size_t AmptraceWriter::pending_records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_records_;
}

}  // namespace ampscope

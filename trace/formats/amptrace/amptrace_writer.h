// Writes .amptrace files (layout: trace/formats/amptrace/amptrace_format.h, docs/amptrace.md).
//
// Used by the collector inside a training process, so it is built for that setting:
// - Thread-safe. Any thread may intern strings and append records (a short critical section:
//   a hash lookup and a memcpy into the pending chunk). Only Flush()/Finish() do I/O, and the
//   collector calls them from its writer thread.
// - A crash loses at most what was not flushed yet: each Flush() writes whole chunks, strings
//   first, so a file cut after any chunk is readable up to that chunk.
// - It never throws and never aborts: I/O errors come back as Status and the caller decides
//   (the collector disables itself).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/formats/amptrace/amptrace_format.h"
#include "base/status.h"

namespace ampscope {

struct AmptraceHeaderInfo {
  uint32_t cupti_version = 0;
  uint32_t pid = 0;
  int32_t rank = -1;
  int32_t local_rank = -1;
  int32_t world_size = -1;
  uint32_t driver_version = 0;
  AmpClockRecord start_clock = {0, 0, 0};
  std::string host;
  std::string command_line;
};

class AmptraceWriter {
 public:
  // Creates (truncates) `path` and writes the header. The file is created with O_CLOEXEC so a
  // child started with exec does not inherit it.
  static StatusOr<std::unique_ptr<AmptraceWriter>> Create(const std::string& path, const AmptraceHeaderInfo& header);
  // Closes the file without a footer if Finish() was not called: readers then report
  // 'truncated_file', which is the truth.
  ~AmptraceWriter();
  AmptraceWriter(const AmptraceWriter&) = delete;
  AmptraceWriter& operator=(const AmptraceWriter&) = delete;

  // Returns the file-global id of `s` (0 for the empty string), queueing it for the next
  // strings chunk the first time it is seen.
  uint32_t InternString(std::string_view s);

  template <typename Record>
  void Append(const Record& record) {
    AppendRaw(AmpChunkTypeOf<Record>::kType, sizeof(Record), &record);
  }
  void AppendRaw(AmpChunkType type, uint16_t record_size, const void* record);
  void AddWarning(AmpSeverity severity, std::string_view code, std::string_view message);

  // Writes everything pending as chunks: strings, then warnings, then records by type.
  Status Flush();
  // fdatasync: what was flushed survives a machine crash.
  Status Sync();
  // Flush, then the footer chunk, fsync and close. Later calls return an error.
  Status Finish(const AmpFooterRecord& footer);

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const;
  uint32_t chunks_written() const;
  uint64_t records_written() const;       // records in fixed-size chunks written so far
  size_t pending_records() const;         // appended, not yet flushed

 private:
  AmptraceWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  struct Pending {
    uint16_t record_size = 0;
    uint32_t count = 0;
    std::vector<uint8_t> bytes;
  };
  struct Batch {  // what one Flush() writes, taken out of the pending state under mu_
    std::vector<uint8_t> strings;
    uint32_t string_count = 0;
    std::vector<uint8_t> warnings;
    uint32_t warning_count = 0;
    std::map<uint16_t, Pending> records;
  };
  Status WriteChunk(AmpChunkType type, uint16_t record_size, uint32_t count, const uint8_t* payload,
                    size_t payload_bytes);
  Status WriteAll(const void* data, size_t size);

  const std::string path_;
  int fd_ = -1;

  mutable std::mutex mu_;  // guards the pending state and the string index
  std::deque<std::string> string_storage_;  // deque: stable addresses for the views below
  std::unordered_map<std::string_view, uint32_t> string_ids_;
  uint32_t next_string_id_ = 1;
  Batch pending_;
  size_t pending_records_ = 0;

  mutable std::mutex io_mu_;  // serializes Flush/Finish so chunks never interleave
  uint64_t bytes_written_ = 0;
  uint32_t chunks_written_ = 0;
  uint64_t records_written_ = 0;
  bool finished_ = false;
  bool failed_ = false;
};

}  // namespace ampscope

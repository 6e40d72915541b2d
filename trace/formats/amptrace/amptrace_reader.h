// Reads .amptrace files (layout: trace/formats/amptrace/amptrace_format.h, docs/amptrace.md) into the trace model.
//
// - Streams chunk by chunk: memory grows with the events kept, not with the file size.
// - A file cut off anywhere (a crash, SIGKILL, a copy of a file still being written) reads up
//   to its last complete chunk and carries a 'truncated_file' data_loss diagnostic.
// - A damaged chunk is skipped when its framing is intact ('corrupt_chunk'), and ends the read
//   when it is not.
// - Only a damaged or foreign header is an error: "<file>: byte <offset>: <what>".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/formats/amptrace/amptrace_format.h"
#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

// Reads the whole file. Fills metadata (format kAmptrace, rank, pid, host, command line, CUPTI
// and driver versions, clock calibration), devices, kernels, memcpys, memsets, api_calls,
// syncs, ranges (NVTX, kNvtx / kNvtxMark), memory_events, counters, other_events (CUPTI
// overhead) and diagnostics, then calls FinalizeTrace.
StatusOr<Trace> ReadAmptrace(const std::string& path);

// What `ampscope record` needs for session.json, without reading the records: it seeks past
// record payloads and reads only the header, warnings, stats and footer.
struct AmptraceWarning {
  AmpSeverity severity = AmpSeverity::kWarning;
  std::string code;
  std::string message;
};

struct AmptraceSummary {
  std::string path;
  uint64_t file_bytes = 0;
  uint32_t pid = 0;
  int32_t rank = -1;
  int32_t local_rank = -1;
  int32_t world_size = -1;
  uint32_t cupti_version = 0;
  std::string host;
  std::string command_line;
  bool clean_end = false;   // a valid footer closes the file
  bool truncated = false;   // the file ends inside a chunk or without a footer
  bool corrupt = false;     // a chunk with bad framing or checksum was met
  uint32_t footer_flags = 0;
  uint32_t chunks = 0;
  uint64_t records = 0;     // records in fixed-size chunks
  std::map<AmpChunkType, uint64_t> records_by_type;
  bool have_stats = false;
  AmpStatsRecord stats = {};  // the footer's, else the last stats chunk's
  std::vector<AmptraceWarning> warnings;
};
StatusOr<AmptraceSummary> ReadAmptraceSummary(const std::string& path);

// Human-readable names used in reports and diagnostics ("kernel", "nvtx", ...).
const char* AmpChunkTypeName(AmpChunkType type);

}  // namespace ampscope

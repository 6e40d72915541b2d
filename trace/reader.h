// Reads any supported trace file: sniffs the format from the first bytes, not the extension.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

struct ReadOptions {
  // Called now and then with (bytes read, total bytes); may be empty.
  std::function<void(uint64_t, uint64_t)> progress;
  // Threads for one Kineto file (KinetoReadOptions::threads): 0 one per core, at most 8; 1 the
  // calling thread only (what `analyze -j N` uses when it reads N files at once).
  int threads = 0;
  // Events only the timeline exporters draw (KinetoReadOptions::keep_other_events and
  // keep_export_only_flows): false leaves them out of the Trace. No analysis result changes;
  // `analyze` keeps them only when it writes a Chrome, Perfetto or SQLite timeline.
  bool keep_export_only_events = true;
  // A Kineto file with more ProfilerSteps than this keeps the events of at most this many
  // (KinetoReadOptions::detail_steps); 0: every step. `analyze` sets it (--detail-steps).
  size_t detail_steps = 0;
};

// What an input file is, from its first bytes (a gzip'd file from its first inflated bytes):
// a PyTorch memory snapshot (a pickle: PROTO 0x80 and a protocol number, protocol 1's "}q\0",
// or a file named *.pickle / *.pkl; trace/formats/memory_snapshot/, whose reader refuses
// protocols other than 2..5) or a trace (every other format below).
enum class InputKind : uint8_t { kTrace, kMemorySnapshot };
InputKind DetectInputKind(const std::string& path);

// .amptrace (magic "AMPTRACE"), an Nsight Systems SQLite export (SQLite header), Kineto JSON,
// or gzip'd Kineto JSON. A memory snapshot is refused (read it with ReadMemorySnapshot). A .nsys-rep / .qdrep
// report is refused with the command that exports it; so is an .ncu-rep, and an Nsight Compute CSV is named as
// one (read it with ReadNcuCsv).
// `path` may be a pipe, a FIFO or `<(...)`, and "-" is stdin (`zcat t.json.gz | ampscope
// analyze -`): the format is told from the stream's own first bytes, which the reader then
// gets with the rest (Kineto JSON, plain or gzip'd; .amptrace and SQLite need a file).
StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options = {});

}  // namespace ampscope

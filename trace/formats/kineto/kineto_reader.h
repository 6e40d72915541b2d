// The streaming reader for PyTorch-profiler (Kineto) Chrome-trace JSON, .json or .json.gz.
//
// The input is read in chunks and tokenized without ever building a DOM of the file, so
// memory grows with the events kept in the Trace, not with the file size. Both the 2021
// format (cats Kernel/Runtime/Operator/Memcpy/Memset, "external id") and the current one
// (kernel, cuda_runtime, cpu_op, gpu_memcpy, user_annotation, ac2g flows, ...) are read.
// See shared/reference/kineto_format.md and docs/bench.md.
//
// Errors: a one-line message "<file>: byte <offset>: <what was expected>" for input that
// cannot be a trace (missing file, not JSON, truncated JSON or gzip, wrong types in
// essential fields, nonsense times). Survivable oddities are counted in Trace::diagnostics.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "trace/formats/kineto/kineto_time.h"
#include "trace/io/input_stream.h"
#include "trace/model.h"

namespace ampscope {

// What a parallel read did (for tests and benchmarks).
struct KinetoReadStats {
  int parse_threads = 1;          // threads that parsed (1: the sequential reader)
  uint64_t pieces_merged = 0;     // pieces parsed ahead (by a helper or the calling thread) and merged
  uint64_t pieces_reparsed = 0;   // pieces whose guessed start was wrong (or that gave up)
  uint64_t pieces_by_caller = 0;  // pieces no helper had started, parsed by the calling thread
  uint64_t pieces_ahead_by_caller = 0;  // pieces the calling thread parsed ahead while a helper had its next one
  bool direct_reads = false;      // each thread read its pieces itself (plain file, string), not through one producer
  uint64_t peak_buffered_bytes = 0;  // the most input bytes held at once for the threads (through one producer)
};

struct KinetoReadOptions {
  bool keep_other_events = true;  // python_function etc. into Trace::other_events
  // Flows other than "fwdbwd" (the launch flows "ac2g"/"async" and the rest) into
  // Trace::flows. Only the timeline exporters draw them; the analysis reads "fwdbwd" flows
  // alone (analyzers/context/op_tree.cc). Dropped flows are still parsed and checked.
  bool keep_export_only_flows = true;
  // May be empty. Called every few MB with bytes of the file consumed (compressed bytes for
  // .gz) and the file size, and once at the end with bytes_done == bytes_total.
  std::function<void(uint64_t bytes_done, uint64_t bytes_total)> progress;
  // Bytes of distinct names kept in full before new names longer than
  // StringTable::kCappedBytes are capped (trace/string_table.h; a text_capped diagnostic counts
  // them). 0: max(16 MiB, 1/16 of the input), the input being the file size (4x it for gzip).
  uint64_t name_text_budget_bytes = 0;
  // Threads for this one file. 1: everything on the calling thread. More: `threads` threads
  // parse pieces of it, merged in input order (kineto_parallel.h), each reading its pieces from
  // the file itself (a gzip'd or piped input: one more thread inflates or reads it ahead for
  // them); the result is the same as with 1. 0: one per core, at most 8.
  // Inputs under 4 MiB (1 MiB gzip'd) are read with 1.
  int threads = 0;
  // The size of those pieces; 0: 4 MiB. Tests make it tiny, to put piece boundaries
  // everywhere; any non-zero value also lifts the minimum input size.
  size_t parallel_piece_bytes = 0;
  KinetoReadStats* stats = nullptr;  // filled in when not null
  // More ProfilerStep#N ranges than this in a file (not a pipe): it is read in two passes, and
  // only the events of a chosen set of at most this many steps are kept
  // (kineto_step_sample.h; TraceMetadata::step_sampling says which). 0: every step is kept.
  size_t detail_steps = 0;
  // Set by that second pass: the tables double as they fill instead of growing to what the
  // whole file would need (most of its events are left out).
  bool filtered = false;
};

StatusOr<Trace> ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options = {});
// `json` may also be gzip'd data. `display_name` replaces the file name in messages.
StatusOr<Trace> ReadKinetoTraceFromString(std::string_view json, const std::string& display_name,
                                          const KinetoReadOptions& options = {});

// The lower layer both functions above use: reads a trace from any ByteSource. Tests wrap a
// source with MakeChunkLimitedByteSource to check that chunk boundaries do not matter.
StatusOr<Trace> ReadKinetoTraceFromSource(ByteSource& source, const std::string& display_name,
                                          const KinetoReadOptions& options = {});

// The one conversion of Kineto microseconds to int64 ns, ParseMicrosToNs, is declared in
// kineto_time.h (included here for the code that used to find it in this header).

}  // namespace ampscope

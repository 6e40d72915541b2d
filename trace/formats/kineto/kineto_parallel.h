// Reading one Kineto trace with several threads (internal to trace/formats/kineto/).
//
// Each thread reads the bytes it parses through a SharedInput (trace/io/shared_input.h): a
// plain file straight from the file, a gzip'd one from the blocks that one thread inflates
// ahead (trace/io/block_stream.h).
// The traceEvents array is cut into pieces of `chunk_bytes` at guessed event boundaries: piece
// k starts at the first ',' at or after k * chunk_bytes that looks like one (a '}' before it
// and a '{' after it, whitespace aside). Helper threads parse pieces ahead on builders of their
// own; the calling thread parses the start of the file and checks each guess against the
// truth: the sequential parse, paused at the first event boundary at or after k * chunk_bytes,
// must be at that very ','. Only then is piece k merged (TraceBuilder::MergeChunk); otherwise
// (the ',' was inside a string, the piece failed to find one, or gave up on a runaway unit)
// the calling thread parses that stretch itself. So the result - tables, their order,
// diagnostics with their first offsets, the first error - is the sequential reader's, by
// construction; tests/trace/kineto_parallel_test.cc compares the two on every shared trace and
// on inputs built to put boundaries everywhere.
#pragma once

#include <string>

#include "base/status.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/io/input_stream.h"
#include "trace/model.h"

namespace ampscope::kineto {

struct ParallelPlan {
  int parse_threads = 2;            // the calling thread and parse_threads - 1 helpers
  size_t chunk_bytes = size_t{4} << 20;
  // A gzip'd input's blocks (BlockStream). 2 MiB: a block is then a huge page of its own
  // (base/process_allocator.cc), given back when the readers are done with it; 1 MiB blocks
  // stayed in malloc's heaps, 7-10 MB more peak RSS on docs/bench.md's gzip trace.
  size_t block_bytes = size_t{2} << 20;
};

// A gzip'd or piped `source` is read by one thread of its own. `budget` is the name text budget
// (KinetoReadOptions::name_text_budget_bytes, resolved).
StatusOr<Trace> ReadKinetoParallel(ByteSource& source, const std::string& display_name,
                                   const KinetoReadOptions& options, const ParallelPlan& plan, uint64_t budget);

}  // namespace ampscope::kineto

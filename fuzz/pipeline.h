// The pipelines the fuzz targets drive, in one place: when an API moves, only pipeline.cc
// changes. The same functions replay the committed regression inputs in the normal test
// suite (fuzz/replay_main.cc), so every crash a fuzzer found stays fixed in every build.
//
// Each function takes the raw bytes of one input and runs everything `ampscope` would run on
// such a file, without writing any file. It returns kAccepted when the reader took the input
// and every stage ran, kRejected when the reader refused it with an error message (the CLI's
// exit 2). A crash, a sanitizer report, an uncaught exception, or a broken output property
// (a report or Chrome trace that is not valid JSON) aborts the process: that is the bug the
// fuzzer reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope::fuzz {

enum Outcome : int { kAccepted = 0, kRejected = 2 };

// Kineto Chrome-trace JSON (or gzip'd JSON): read -> analyse (one rank, and two ranks of one job
// for inputs of odd length) -> JSON report, HTML, Markdown, terminal summary (with and without
// colour), the kernel table -> Chrome trace JSON and Perfetto protobuf -> the report through
// the gate and diff loaders.
Outcome RunKinetoPipeline(const uint8_t* data, size_t size);

// An .amptrace file (through a memfd, since the reader takes a path): the summary `record`
// reads, the full reader, format sniffing, then the same stages as above.
Outcome RunAmptracePipeline(const uint8_t* data, size_t size);

// An Nsight Systems SQLite export (through a temporary file; SQLite opens it read-only and
// immutable):
// the nsys reader, format sniffing, then the same stages as above.
Outcome RunNsysPipeline(const uint8_t* data, size_t size);

// An Nsight Compute CSV (long or wide form, any preamble): read in one piece and in 7-byte
// pieces (the same launches and fields), analysed alone, the JSON report, HTML, Markdown and
// terminal summary.
Outcome RunNcuPipeline(const uint8_t* data, size_t size);

// A report JSON through every loader: the gate's and diff's validation, the gate against a
// fixed real report in both directions and against itself, every gate output, the diff in
// text and JSON.
Outcome RunReportPipeline(const uint8_t* data, size_t size);

// A gate config JSON: parsing, the effective config printed back, and the gate run with it on
// two fixed real reports, with every gate output.
Outcome RunGateConfigPipeline(const uint8_t* data, size_t size);

// A PyTorch memory snapshot (a pickle of builtin values): the reader (a refusal must be one
// line naming a byte offset), the snapshot's analysis attached to a rank of its own, the JSON
// report, HTML, Markdown and terminal summary.
Outcome RunMemorySnapshotPipeline(const uint8_t* data, size_t size);

// The readers alone, many times faster than the whole pipeline, so that each reader gets
// millions of inputs: read the bytes, then check the reader's contract on what it accepted
// (no event ends before it starts, times within the bounds of trace/time_bounds.h) and that a
// refusal has a message.
Outcome RunKinetoReader(const uint8_t* data, size_t size);
Outcome RunAmptraceReader(const uint8_t* data, size_t size);
Outcome RunNsysReader(const uint8_t* data, size_t size);

struct Target {
  const char* name;  // "kineto", "amptrace", "nsys", "ncu", "report", "gate_config", "memory_snapshot", "<format>_reader"
  Outcome (*run)(const uint8_t* data, size_t size);
};
// All targets, in a fixed order.
const std::vector<Target>& Targets();
// nullptr when no target has that name.
const Target* FindTarget(std::string_view name);

}  // namespace ampscope::fuzz

// Nsight Compute CSV exports (`ncu --csv`, `ncu -i report.ncu-rep --csv --page raw|details`):
// the long form (`--page details`, one row per metric, with rule rows) and the wide form
// (`--page raw`, one row per launch, a units row under the header), after any lines that are not
// CSV (==PROF== messages, the program's own output). docs/ncu.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "trace/formats/ncu/ncu_model.h"
#include "trace/io/input_stream.h"

namespace ampscope {

enum class NcuInputKind : uint8_t {
  kNotNcu,     // not an Nsight Compute export (JSON, SQLite, ...): another reader's
  kCsv,        // a CSV with ncu's header ("ID", ..., "Kernel Name", ...) after optional preamble lines
  kOtherCsv,   // named *.csv but no ncu header: refused ("not Nsight Compute CSV output")
  kReport,     // a binary .ncu-rep report: refused with the command that exports it
};
// Looks at `path`'s content (and, for .csv and .ncu-rep, its name). Input that starts with '{' or
// '[' (JSON) is never ncu; other text is scanned line by line for the header.
NcuInputKind SniffNcuInput(const std::string& path);
// The one-line refusal for kReport / kOtherCsv inputs.
std::string NcuRefusalMessage(const std::string& path, NcuInputKind kind);

// Reads the whole export (plain or gzip'd). Errors name the file and the byte offset: no header,
// no launches, unreadable input. Survivable oddities are counted in NcuReport::diagnostics.
StatusOr<NcuReport> ReadNcuCsv(const std::string& path);
// The same from any byte source (tests, the fuzzer); `name` prefixes error messages.
StatusOr<NcuReport> ReadNcuCsv(std::unique_ptr<ByteSource> source, const std::string& name);

// Several exports of one profile (ncu writes one CSV per kernel with some workflows) as one: the
// launches in file order (each with its `part`), the metric sets' union, the diagnostics summed.
// The shape is the first file's when they differ.
NcuReport MergeNcuReports(std::vector<NcuReport> parts);

}  // namespace ampscope

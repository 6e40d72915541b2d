// What `ampscope record` says about a recording when the program has finished: every warning
// the collector wrote into the files, plus the ones only the whole run shows (no file at all,
// no kernel although CUPTI was active). Each becomes one stderr line and one entry in
// session.json's "warnings".
#pragma once

#include <string>
#include <vector>

#include "trace/formats/amptrace/amptrace_reader.h"
#include "base/status.h"

namespace ampscope::cli {

struct RecordedFile {
  std::string name;                   // file name inside the output directory
  StatusOr<AmptraceSummary> summary;  // an error when the file cannot be read
};

struct RecordWarning {
  std::string id;        // stable, e.g. "cupti_unavailable" (docs/collector.md lists them)
  std::string severity;  // "info" | "warning" | "error"
  std::string message;   // what happened and how to fix it
  std::vector<std::string> files;  // the files that carry it (empty: about the whole run)
  bool empty_recording = false;    // the recording lacks what it was for: --fail-on-empty fails
};

// In a stable order: the files' warnings by first appearance (one entry per id, with every
// file that had it), then the run-level ones.
std::vector<RecordWarning> CollectRecordWarnings(const std::vector<RecordedFile>& files);

// "ampscope record: <id>: <message> (in 3 of 8 files)".
std::string WarningLine(const RecordWarning& w, size_t total_files);

}  // namespace ampscope::cli

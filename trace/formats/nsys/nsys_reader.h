// The reader of Nsight Systems SQLite exports (`nsys export --type sqlite`), into the trace
// model. See docs/nsys.md for what is read from which table.
//
// Recognised by content: the 16-byte SQLite header, then nsys's tables (StringIds,
// CUPTI_ACTIVITY_KIND_*, TARGET_INFO_*, NVTX_EVENTS, META_DATA_EXPORT). The file is opened
// read-only and immutable: nothing is ever written next to it.
//
// Errors (one line naming the file, the table and the row where there is one): not an
// nsys export, truncated or corrupt SQLite, neither a kernel nor a CUDA API table, a
// table without a column the reader cannot do without. A .nsys-rep or .qdrep report is
// refused with the `nsys export` command that turns it into an export. Survivable oddities
// (NULLs, wrong types, missing optional tables or columns, times out of range) are counted
// in Trace::diagnostics; base/diagnostic_codes_table.h declares them all (the nsys_* rows).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

struct NsysReadOptions {
  // May be empty. Called after each table with an estimate of the bytes done and the file size.
  std::function<void(uint64_t bytes_done, uint64_t bytes_total)> progress;
};

// True if the file is for this reader: its first bytes (`head`, `n` of them) are a SQLite
// header, or its name ends in .nsys-rep / .qdrep and its bytes are not JSON or gzip.
bool IsNsysInput(const std::string& path, const unsigned char* head, size_t n);

// Reads an export, or returns the "run nsys export" error for a .nsys-rep / .qdrep report.
StatusOr<Trace> ReadNsysInput(const std::string& path, const NsysReadOptions& options = {});

// Reads an export. Several processes in one export are read into one Trace (see docs/nsys.md).
StatusOr<Trace> ReadNsysExport(const std::string& path, const NsysReadOptions& options = {});

// The one-line message for a .nsys-rep / .qdrep file: the nsys command that exports it.
std::string NsysReportMessage(const std::string& path);

}  // namespace ampscope

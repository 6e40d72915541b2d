// The memory snapshot's tables of `--sqlite` (docs/sqlite_schema.md): memory_segments (segsum's
// sums per segment), memory_blocks and memory_events (the snapshot's own rows; present when the
// analysis kept them).
#pragma once

#include <cstdint>

#include "analyzers/results/memory_snapshot_result.h"
#include "export/sqlite/sqlite_db.h"

namespace ampscope::sqlite_export {

// CREATE TABLE statements of the three tables (always created, empty without a snapshot).
extern const char* const kMemorySnapshotSchema;

// Inserts one rank's rows.
void WriteMemorySnapshotRows(Db& db, int64_t rank, const MemorySnapshotResult& r);

}  // namespace ampscope::sqlite_export

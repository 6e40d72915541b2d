// `ampscope analyze` with PyTorch memory snapshots among its inputs (docs/memory_snapshot.md):
// which input is a snapshot (trace/reader.h's DetectInputKind), which rank each one attaches
// to, and their analysis.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyzers/results/memory_snapshot_result.h"
#include "base/status.h"
#include "trace/model.h"

namespace ampscope::cli {

struct SnapshotPairing {
  // What the rank runner reads: the traces, or the snapshots themselves when no trace is given
  // (each then is a rank with an empty trace of format memory_snapshot).
  std::vector<std::string> rank_inputs;
  bool snapshots_alone = false;
  std::vector<std::string> snapshot_of;  // per rank input: the snapshot attached to it ("" none)
};

// Snapshots alone: each is a rank. With traces: as many snapshots as traces, the i-th snapshot
// (in command-line order) attached to the i-th trace; one snapshot and one trace is the usual
// case. Any other mix is a usage error that says so.
StatusOr<SnapshotPairing> PairSnapshots(const std::vector<std::string>& inputs);

// Reads and analyses every snapshot (per rank input; null where none). An unreadable snapshot is
// an error of one line naming the file and the byte offset. `keep_rows`: the results keep the
// snapshots' blocks and events (for --sqlite).
StatusOr<std::vector<std::shared_ptr<const MemorySnapshotResult>>> AnalyzeSnapshots(const SnapshotPairing& pairing,
                                                                                     bool keep_rows);

// The trace of a rank read from a snapshot alone: empty, named after the snapshot.
Trace SnapshotOnlyTrace(const std::string& path);

}  // namespace ampscope::cli

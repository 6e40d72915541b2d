#include "cli/snapshot_inputs.h"

#include <fmt/format.h>

#include "analyzers/memory/memory_snapshot.h"
#include "trace/reader.h"

namespace ampscope::cli {

StatusOr<SnapshotPairing> PairSnapshots(const std::vector<std::string>& inputs) {
  std::vector<std::string> traces, snapshots;
  for (const std::string& in : inputs)
    (DetectInputKind(in) == InputKind::kMemorySnapshot ? snapshots : traces).push_back(in);
  SnapshotPairing p;
  if (snapshots.empty()) {
    p.rank_inputs = std::move(traces);
    p.snapshot_of.assign(p.rank_inputs.size(), "");
    return p;
  }
  if (traces.empty()) {
    p.snapshots_alone = true;
    p.rank_inputs = snapshots;
    p.snapshot_of = std::move(snapshots);
    return p;
  }
  if (snapshots.size() != traces.size())
    return Status::Error(fmt::format(
        "{} memory snapshot{} and {} trace{}: give the snapshots alone, or one snapshot per trace (the i-th snapshot "
        "goes with the i-th trace, in command-line order)",
        snapshots.size(), snapshots.size() == 1 ? "" : "s", traces.size(), traces.size() == 1 ? "" : "s"));
  p.rank_inputs = std::move(traces);
  p.snapshot_of = std::move(snapshots);
  return p;
}

StatusOr<std::vector<std::shared_ptr<const MemorySnapshotResult>>> AnalyzeSnapshots(const SnapshotPairing& pairing,
                                                                                     bool keep_rows) {
  std::vector<std::shared_ptr<const MemorySnapshotResult>> out(pairing.snapshot_of.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (pairing.snapshot_of[i].empty()) continue;
    StatusOr<MemorySnapshot> snap = ReadMemorySnapshot(pairing.snapshot_of[i]);
    if (!snap.ok()) return snap.status();
    auto rows = std::make_shared<const MemorySnapshot>(std::move(snap).value());
    out[i] = std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(std::move(rows), keep_rows));
  }
  return out;
}

Trace SnapshotOnlyTrace(const std::string& path) {
  Trace t;
  t.metadata.path = path;
  t.metadata.format = SourceFormat::kMemorySnapshot;
  return t;
}

}  // namespace ampscope::cli

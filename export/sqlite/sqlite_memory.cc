#include "export/sqlite/sqlite_memory.h"

#include <algorithm>
#include <string>

#include "trace/formats/memory_snapshot/memory_snapshot.h"

namespace ampscope::sqlite_export {

const char* const kMemorySnapshotSchema = R"sql(
CREATE TABLE memory_segments (rank INTEGER NOT NULL, device INTEGER, address INTEGER NOT NULL, total_size INTEGER NOT NULL,
  allocated_bytes INTEGER, free_internal_bytes INTEGER, free_external_bytes INTEGER, largest_free_block_bytes INTEGER,
  blocks INTEGER, active_blocks INTEGER, stream INTEGER, segment_type TEXT, pool_id TEXT, is_expandable INTEGER);
CREATE TABLE memory_blocks (rank INTEGER NOT NULL, segment_address INTEGER NOT NULL, address INTEGER NOT NULL,
  size INTEGER NOT NULL, requested_size INTEGER, state TEXT NOT NULL, site TEXT);
CREATE TABLE memory_events (rank INTEGER NOT NULL, device INTEGER, seq INTEGER NOT NULL, action TEXT NOT NULL,
  addr INTEGER, size INTEGER, stream INTEGER, time_us INTEGER, device_free INTEGER, site TEXT, autocast_cast INTEGER);
)sql";

namespace {

std::string InsertSql(const char* table, int columns) {
  std::string sql = std::string("INSERT INTO ") + table + " VALUES (";
  for (int i = 0; i < columns; ++i) sql += i ? ",?" : "?";
  return sql + ")";
}

// Addresses and sizes are below 2^63 in practice; a larger one (a saturated big int) is stored as is.
int64_t I(uint64_t v) { return static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX)); }

}  // namespace

void WriteMemorySnapshotRows(Db& db, int64_t rank, const MemorySnapshotResult& r) {
  {
    Insert s = db.Prepare(InsertSql("memory_segments", 14));
    for (const SnapshotSegmentSummary& g : r.segments) {
      // Text is bound without a copy (SQLITE_STATIC): every string lives until Run().
      const std::string pool = std::to_string(g.pool_id[0]) + "," + std::to_string(g.pool_id[1]);
      s.Int(rank).Int(g.device).Int(I(g.address)).Int(I(g.total_size)).Int(g.allocated_bytes).Int(g.free_internal_bytes);
      s.Int(g.free_external_bytes).Int(I(g.largest_free_block_bytes)).Int(g.blocks).Int(g.active_blocks).Int(g.stream);
      s.OptText(g.segment_type).Text(pool).Int(g.is_expandable ? 1 : 0);
      s.Run();
    }
  }
  if (r.rows == nullptr) return;
  const MemorySnapshot& snap = *r.rows;
  static const std::string kNone;
  auto site = [&](int32_t frames) -> const std::string& {
    return frames >= 0 && static_cast<size_t>(frames) < r.stack_sites.size() ? r.stack_sites[frames] : kNone;
  };
  {
    Insert s = db.Prepare(InsertSql("memory_blocks", 7));
    for (const SnapshotSegment& seg : snap.segments) {
      for (uint32_t b = seg.first_block; b < seg.first_block + seg.block_count; ++b) {
        const SnapshotBlock& blk = snap.blocks[b];
        s.Int(rank).Int(I(seg.address)).Int(I(blk.address)).Int(I(blk.size)).Int(I(blk.requested_size));
        s.Text(BlockStateName(blk.state)).OptText(site(blk.frames));
        s.Run();
      }
    }
  }
  Insert s = db.Prepare(InsertSql("memory_events", 11));
  for (size_t i = 0; i < snap.events.size(); ++i) {
    const SnapshotEvent& e = snap.events[i];
    s.Int(rank).Int(e.device).Int(static_cast<int64_t>(i)).Text(SnapshotActionName(e.action)).Int(I(e.addr)).Int(I(e.size));
    s.Int(e.stream);
    if (e.time_us) {
      s.Int(*e.time_us);
    } else {
      s.Null();
    }
    s.OptInt(e.action == SnapshotAction::kOom, I(e.device_free)).OptText(site(e.frames));
    s.OptInt(e.frames >= 0 && static_cast<size_t>(e.frames) < r.stack_cast.size(), e.frames >= 0 && static_cast<size_t>(e.frames) < r.stack_cast.size() ? r.stack_cast[e.frames] : 0);
    s.Run();
  }
}

}  // namespace ampscope::sqlite_export

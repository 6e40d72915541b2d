// PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot("snap.pickle")): the
// caching allocator's segments and blocks at the time of the dump, and, when history was
// recorded (_record_memory_history), its alloc/free/segment events with stack frames.
//
// The file is a pickle of builtin values (pickle_reader.h, which refuses anything else). Rows
// are recognised by their keys, not by where they sit, so that snapshots of other PyTorch
// versions read alike: a dict with `action` is a trace event, one with `total_size` and
// `blocks` a segment, one with `state` and `size` a block, one with `filename`, `line` and
// `name` a stack frame, one with `real_size` an entry of a block's `history` (older versions),
// one with `stage` an external annotation. What is odd is counted in `diagnostics`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "base/status.h"

namespace ampscope {

enum class SnapshotAction : uint8_t {
  kAlloc,          // "alloc": a block handed to a tensor
  kFreeRequested,  // "free_requested": the tensor let go (the block may wait for its stream)
  kFreeCompleted,  // "free_completed": the block is back in the cache
  kSegmentAlloc,   // "segment_alloc": cudaMalloc of a new segment
  kSegmentFree,    // "segment_free": cudaFree of a segment (empty_cache, or memory pressure)
  kSegmentMap,     // "segment_map": expandable segments grew
  kSegmentUnmap,   // "segment_unmap": expandable segments shrank
  kOom,            // "oom": an allocation failed (size = the request, device_free = free memory)
  kSnapshot,       // "snapshot": a snapshot was taken (a marker)
};
const char* SnapshotActionName(SnapshotAction a);
std::optional<SnapshotAction> ParseSnapshotAction(std::string_view name);

enum class BlockState : uint8_t { kActiveAllocated, kActivePending, kInactive, kOther };
const char* BlockStateName(BlockState s);  // "active_allocated" | "active_pending_free" | "inactive" | "other"

struct SnapshotFrame {
  std::string filename;
  int64_t line = 0;
  std::string name;
};

inline constexpr int32_t kNoFrames = -1;

struct SnapshotEvent {
  SnapshotAction action = SnapshotAction::kAlloc;
  int32_t device = 0;         // position of its list in device_traces
  uint64_t addr = 0;
  uint64_t size = 0;          // bytes (for oom: the request)
  int64_t stream = 0;
  std::optional<int64_t> time_us;  // absent in snapshots without timestamps
  uint64_t device_free = 0;   // oom: free device memory the driver reported
  int32_t frames = kNoFrames; // index into MemorySnapshot::frame_lists
};

struct SnapshotBlock {
  uint64_t address = 0;
  uint64_t size = 0;            // the block's size (rounded by the allocator)
  uint64_t requested_size = 0;  // what the tensor asked for (segsum's "allocated" of an active block)
  BlockState state = BlockState::kOther;
  int32_t frames = kNoFrames;
};

struct SnapshotSegment {
  int32_t device = 0;
  uint64_t address = 0;
  uint64_t total_size = 0;
  int64_t stream = 0;
  std::string segment_type;     // "large" | "small" (as the snapshot says; "" when absent)
  int64_t pool_id[2] = {0, 0};  // segment_pool_id: (0, 0) is the default pool, else a CUDA graph / mem pool
  bool is_expandable = false;
  uint32_t first_block = 0;     // blocks[first_block .. first_block + block_count)
  uint32_t block_count = 0;
};

struct SnapshotAnnotation {  // external_annotations: record_function ranges seen by the allocator
  int32_t device = 0;
  bool start = true;           // stage "START" (else "END")
  std::string name;
  std::optional<int64_t> time_us;
};

struct AllocatorSettings {
  bool present = false;                        // the snapshot has allocator_settings
  std::optional<bool> expandable_segments;
  std::optional<int64_t> max_split_size;       // bytes; absent or <= 0: no limit (the default)
  std::optional<double> garbage_collection_threshold;
  std::string alloc_conf;                      // PYTORCH_CUDA_ALLOC_CONF as the process saw it
};

struct MemorySnapshot {
  std::string path;
  uint64_t file_bytes = 0;   // bytes of the pickle read (uncompressed)
  int protocol = 0;          // pickle protocol
  std::vector<SnapshotSegment> segments;
  std::vector<SnapshotBlock> blocks;
  bool has_device_traces = false;  // the snapshot recorded history (device_traces present)
  int32_t device_traces = 0;       // lists in device_traces (one per device)
  std::vector<SnapshotEvent> events;  // device by device, each in recorded order
  std::vector<SnapshotFrame> frames;  // distinct frames
  std::vector<std::vector<uint32_t>> frame_lists;  // distinct stacks: frame indices, innermost first
  std::vector<SnapshotAnnotation> annotations;
  AllocatorSettings settings;
  Diagnostics diagnostics;
};

// The first bytes of a pickle, where no other input can start so: PROTO (0x80) and a protocol
// number (any: the reader refuses one other than 2 to 5 with its own message), or protocol 1's
// EMPTY_DICT / EMPTY_LIST and BINPUT 0 ("}q\0", "]q\0").
bool LooksLikePickle(const unsigned char* head, size_t n);
// A file (plain or gzip'd) that starts as a pickle does, or one named *.pickle / *.pkl (.gz):
// protocol 0's first bytes ('(', 'c', ...) could be text, so only the name tells it, and the
// reader then says that it reads protocols 2 to 5.
bool IsMemorySnapshotInput(const std::string& path);

// Errors are one line "<path>: byte N: what" (a refused opcode, a truncated file, a pickle that
// is not a snapshot).
StatusOr<MemorySnapshot> ReadMemorySnapshot(const std::string& path);
StatusOr<MemorySnapshot> ReadMemorySnapshotBytes(std::string_view bytes, const std::string& name);

}  // namespace ampscope

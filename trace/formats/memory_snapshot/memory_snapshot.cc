#include "trace/formats/memory_snapshot/memory_snapshot.h"

#include <sys/stat.h>

#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "trace/formats/memory_snapshot/pickle_reader.h"
#include "trace/io/input_stream.h"

namespace ampscope {

const char* SnapshotActionName(SnapshotAction a) {
  switch (a) {
    case SnapshotAction::kAlloc: return "alloc";
    case SnapshotAction::kFreeRequested: return "free_requested";
    case SnapshotAction::kFreeCompleted: return "free_completed";
    case SnapshotAction::kSegmentAlloc: return "segment_alloc";
    case SnapshotAction::kSegmentFree: return "segment_free";
    case SnapshotAction::kSegmentMap: return "segment_map";
    case SnapshotAction::kSegmentUnmap: return "segment_unmap";
    case SnapshotAction::kOom: return "oom";
    case SnapshotAction::kSnapshot: return "snapshot";
  }
  return "?";
}

std::optional<SnapshotAction> ParseSnapshotAction(std::string_view n) {
  for (SnapshotAction a : {SnapshotAction::kAlloc, SnapshotAction::kFreeRequested, SnapshotAction::kFreeCompleted,
                           SnapshotAction::kSegmentAlloc, SnapshotAction::kSegmentFree, SnapshotAction::kSegmentMap,
                           SnapshotAction::kSegmentUnmap, SnapshotAction::kOom, SnapshotAction::kSnapshot})
    if (n == SnapshotActionName(a)) return a;
  return std::nullopt;
}

const char* BlockStateName(BlockState s) {
  switch (s) {
    case BlockState::kActiveAllocated: return "active_allocated";
    case BlockState::kActivePending: return "active_pending_free";
    case BlockState::kInactive: return "inactive";
    case BlockState::kOther: return "other";
  }
  return "other";
}

bool LooksLikePickle(const unsigned char* head, size_t n) {
  // PROTO and a protocol number (any: the reader names one it does not know). No text format
  // starts with 0x80, a UTF-8 continuation byte.
  if (n >= 2 && head[0] == 0x80 && head[1] < 16) return true;
  // Protocol 1 has no PROTO: EMPTY_DICT or EMPTY_LIST, then BINPUT 0, whose NUL no text input
  // has. Protocol 0 ("(dp0\n") and other starts ('(', ']', '}', 'c') could be text: they are
  // told by the file's name (IsMemorySnapshotInput).
  return n >= 3 && (head[0] == '}' || head[0] == ']') && head[1] == 'q' && head[2] == 0;
}

static bool HasPickleName(const std::string& path) {
  auto ends = [&path](std::string_view suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (std::string_view s : {".pickle", ".pkl", ".pickle.gz", ".pkl.gz"})
    if (ends(s)) return true;
  return false;
}

bool IsMemorySnapshotInput(const std::string& path) {
  // Only regular files: a pipe, a FIFO or stdin ("-") read here would lose its first bytes for the
  // trace reader that follows (which refuses a pickle from the stream's own first bytes).
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  StatusOr<std::unique_ptr<ByteSource>> src = OpenByteSource(path);
  if (!src.ok()) return false;
  unsigned char head[3] = {0, 0, 0};
  size_t got = 0;
  while (got < sizeof(head)) {
    StatusOr<size_t> n = (*src)->Read(reinterpret_cast<char*>(head) + got, sizeof(head) - got);
    if (!n.ok() || *n == 0) break;
    got += *n;
  }
  return LooksLikePickle(head, got) || HasPickleName(path);
}

namespace {

using pickle::Document;
using pickle::Kind;
using pickle::Value;

// A reduced container's handle: the kind of row in the top 3 bits, its index below.
enum Tag : uint32_t { kFrame = 1, kFrameList = 2, kBlock = 3, kEvent = 4, kSegment = 5, kHistory = 6, kAnnotation = 7 };
constexpr uint32_t kIndexBits = 29;
constexpr uint32_t Handle(Tag t, size_t i) { return (static_cast<uint32_t>(t) << kIndexBits) | static_cast<uint32_t>(i); }
constexpr uint32_t TagOf(uint32_t h) { return h >> kIndexBits; }
constexpr uint32_t IndexOf(uint32_t h) { return h & ((1u << kIndexBits) - 1); }

struct HistoryEntry {  // one entry of a block's history (older snapshots)
  uint64_t real_size = 0;
  bool has_real_size = false;
  int32_t frames = kNoFrames;
};

struct PendingSegment {
  SnapshotSegment seg;
  std::vector<uint32_t> blocks;  // block rows, in order
};

class SnapshotBuilder : public pickle::Consumer {
 public:
  explicit SnapshotBuilder(MemorySnapshot& out) : out_(out) {}

  void OnComplete(Document& doc, const Value& v) override {
    if (v.kind == Kind::kList) return OnList(doc, v);
    if (v.kind != Kind::kDict) return;
    if (doc.Find(v, "action") != nullptr) return OnEvent(doc, v);
    if (doc.Find(v, "total_size") != nullptr && doc.Find(v, "blocks") != nullptr) return OnSegment(doc, v);
    if (doc.Find(v, "state") != nullptr && doc.Find(v, "size") != nullptr) return OnBlock(doc, v);
    if (doc.Find(v, "real_size") != nullptr) return OnHistory(doc, v);
    if (doc.Find(v, "stage") != nullptr && doc.Find(v, "name") != nullptr) return OnAnnotation(doc, v);
    if (doc.Find(v, "filename") != nullptr && doc.Find(v, "name") != nullptr) return OnFrame(doc, v);
  }

  Status Finish(const Document& doc);
  size_t rows_made() const { return events_.size() + blocks_made_; }

 private:
  void Missing(const char* what, const char* field) {
    out_.diagnostics.Add(DiagCode::kSnapshotMissingField, -1, fmt::format("a {} without a usable '{}'", what, field));
  }
  // An int field (missing or of another type: nullopt).
  std::optional<int64_t> Int(const Document& doc, const Value& d, std::string_view key) {
    const Value* x = doc.Find(d, key);
    if (x == nullptr || (x->kind != Kind::kInt && x->kind != Kind::kBool)) return std::nullopt;
    if (x->big) out_.diagnostics.Add(DiagCode::kSnapshotBigInt, -1, fmt::format("'{}' beyond 64 bits", key));
    return x->i;
  }
  uint64_t Size(const Document& doc, const Value& d, std::string_view key, const char* what, bool* ok = nullptr) {
    std::optional<int64_t> x = Int(doc, d, key);
    if (!x || *x < 0) {
      Missing(what, std::string(key).c_str());
      if (ok != nullptr) *ok = false;
      return 0;
    }
    return static_cast<uint64_t>(*x);
  }
  std::string_view Str(const Document& doc, const Value& d, std::string_view key) {
    const Value* x = doc.Find(d, key);
    return x == nullptr ? std::string_view() : doc.str(*x);
  }
  // The frame list of a dict's "frames" (kNoFrames: absent or empty).
  int32_t FramesOf(const Document& doc, const Value& d) {
    const Value* f = doc.Find(d, "frames");
    if (f == nullptr) return kNoFrames;
    const uint32_t h = doc.handle(*f);
    return h != Document::kNoHandle && TagOf(h) == kFrameList ? static_cast<int32_t>(IndexOf(h)) : kNoFrames;
  }

  void OnFrame(Document& doc, const Value& v) {
    SnapshotFrame f;
    f.filename = std::string(Str(doc, v, "filename"));
    f.name = std::string(Str(doc, v, "name"));
    f.line = Int(doc, v, "line").value_or(0);
    std::string key = fmt::format("{}\n{}\n{}", f.filename, f.line, f.name);
    auto [it, fresh] = frame_ids_.try_emplace(std::move(key), static_cast<uint32_t>(out_.frames.size()));
    if (fresh) out_.frames.push_back(std::move(f));
    doc.Reduce(v, Handle(kFrame, it->second));
  }

  void OnList(Document& doc, const Value& v) {
    // A list of frames (every item a frame) becomes one distinct stack.
    pickle::Items items = doc.items(v);
    if (items.empty()) return;
    ids_.clear();
    for (const Value& x : items) {
      const uint32_t h = doc.handle(x);
      if (h == Document::kNoHandle || TagOf(h) != kFrame) return;
      ids_.push_back(IndexOf(h));
    }
    uint64_t hash = 1469598103934665603ull;
    for (uint32_t id : ids_) hash = (hash ^ id) * 1099511628211ull;
    auto range = list_ids_.equal_range(hash);
    for (auto it = range.first; it != range.second; ++it) {
      if (out_.frame_lists[it->second] == ids_) {
        doc.Reduce(v, Handle(kFrameList, it->second));
        return;
      }
    }
    const uint32_t id = static_cast<uint32_t>(out_.frame_lists.size());
    out_.frame_lists.push_back(ids_);
    list_ids_.emplace(hash, id);
    doc.Reduce(v, Handle(kFrameList, id));
  }

  void OnEvent(Document& doc, const Value& v) {
    const Value* a = doc.Find(v, "action");
    std::optional<SnapshotAction> action = a != nullptr ? ParseSnapshotAction(doc.str(*a)) : std::nullopt;
    if (!action) {
      out_.diagnostics.Add(DiagCode::kSnapshotUnknownAction, -1,
                           fmt::format("action '{}'", a != nullptr ? std::string(doc.str(*a)) : std::string("?")));
      doc.Reduce(v, Handle(kEvent, kSkipped));
      return;
    }
    SnapshotEvent e;
    e.action = *action;
    e.addr = static_cast<uint64_t>(Int(doc, v, "addr").value_or(0));
    e.size = Size(doc, v, "size", "trace event");
    e.stream = Int(doc, v, "stream").value_or(0);
    e.time_us = Int(doc, v, "time_us");
    if (e.action == SnapshotAction::kOom) e.device_free = static_cast<uint64_t>(std::max<int64_t>(0, Int(doc, v, "device_free").value_or(0)));
    e.frames = FramesOf(doc, v);
    events_.push_back(e);
    doc.Reduce(v, Handle(kEvent, events_.size() - 1));
  }

  void OnHistory(Document& doc, const Value& v) {
    HistoryEntry h;
    std::optional<int64_t> r = Int(doc, v, "real_size");
    h.has_real_size = r.has_value() && *r >= 0;
    h.real_size = h.has_real_size ? static_cast<uint64_t>(*r) : 0;
    h.frames = FramesOf(doc, v);
    history_.push_back(h);
    doc.Reduce(v, Handle(kHistory, history_.size() - 1));
  }

  void OnBlock(Document& doc, const Value& v);
  void OnSegment(Document& doc, const Value& v);

  void OnAnnotation(Document& doc, const Value& v) {
    SnapshotAnnotation a;
    a.device = static_cast<int32_t>(Int(doc, v, "device").value_or(0));
    a.start = Str(doc, v, "stage") != "END";
    a.name = std::string(Str(doc, v, "name"));
    a.time_us = Int(doc, v, "time_us");
    annotations_.push_back(std::move(a));
    doc.Reduce(v, Handle(kAnnotation, annotations_.size() - 1));
  }

  void ReadSettings(const Document& doc, const Value& s);

  static constexpr uint32_t kSkipped = (1u << kIndexBits) - 1;  // an event row that was not kept

  MemorySnapshot& out_;
  std::unordered_map<std::string, uint32_t> frame_ids_;
  std::unordered_multimap<uint64_t, uint32_t> list_ids_;
  std::vector<uint32_t> ids_;
  std::vector<SnapshotEvent> events_;
  std::vector<HistoryEntry> history_;
  std::vector<SnapshotBlock> block_rows_;
  std::vector<PendingSegment> segments_;
  std::vector<SnapshotAnnotation> annotations_;
  size_t blocks_made_ = 0;
};

void SnapshotBuilder::OnBlock(Document& doc, const Value& v) {
  SnapshotBlock b;
  std::optional<int64_t> addr = Int(doc, v, "address");
  if (!addr) addr = Int(doc, v, "addr");
  b.address = static_cast<uint64_t>(addr.value_or(0));
  b.size = Size(doc, v, "size", "block");
  const std::string_view state = Str(doc, v, "state");
  if (state == "active_allocated") {
    b.state = BlockState::kActiveAllocated;
  } else if (state == "active_pending_free") {
    b.state = BlockState::kActivePending;
  } else if (state == "inactive") {
    b.state = BlockState::kInactive;
  } else {
    out_.diagnostics.Add(DiagCode::kSnapshotUnknownBlockState, -1, fmt::format("block state '{}'", state));
  }
  // PyTorch's _block_extra: a block with `frames` has its requested_size; an older one has a
  // history whose first entry's real_size is the allocated size, else requested_size, else size.
  const Value* frames = doc.Find(v, "frames");
  std::optional<int64_t> requested = Int(doc, v, "requested_size");
  if (frames != nullptr) {
    b.frames = FramesOf(doc, v);
    if (requested && *requested >= 0) {
      b.requested_size = static_cast<uint64_t>(*requested);
    } else {
      Missing("block", "requested_size");
      b.requested_size = b.size;
    }
  } else {
    const Value* hist = doc.Find(v, "history");
    pickle::Items entries = hist != nullptr ? doc.items(*hist) : pickle::Items();
    const uint32_t h0 = entries.empty() ? Document::kNoHandle : doc.handle(entries.front());
    if (h0 != Document::kNoHandle && TagOf(h0) == kHistory && history_[IndexOf(h0)].has_real_size) {
      b.requested_size = history_[IndexOf(h0)].real_size;
      b.frames = history_[IndexOf(h0)].frames;
    } else if (requested && *requested >= 0) {
      b.requested_size = static_cast<uint64_t>(*requested);
    } else {
      out_.diagnostics.Add(DiagCode::kSnapshotNoRequestedSize, -1, "a block without requested_size or history");
      b.requested_size = b.size;
    }
  }
  block_rows_.push_back(b);
  ++blocks_made_;
  doc.Reduce(v, Handle(kBlock, block_rows_.size() - 1));
}

void SnapshotBuilder::OnSegment(Document& doc, const Value& v) {
  PendingSegment p;
  SnapshotSegment& s = p.seg;
  s.device = static_cast<int32_t>(Int(doc, v, "device").value_or(0));
  s.address = static_cast<uint64_t>(Int(doc, v, "address").value_or(0));
  s.total_size = Size(doc, v, "total_size", "segment");
  s.stream = Int(doc, v, "stream").value_or(0);
  s.segment_type = std::string(Str(doc, v, "segment_type"));
  s.is_expandable = Int(doc, v, "is_expandable").value_or(0) != 0;
  if (const Value* pool = doc.Find(v, "segment_pool_id"); pool != nullptr) {
    pickle::Items ids = doc.items(*pool);
    for (size_t i = 0; i < ids.size() && i < 2; ++i)
      if (ids[i].kind == Kind::kInt) s.pool_id[i] = ids[i].i;
  }
  for (const Value& b : doc.items(*doc.Find(v, "blocks"))) {
    const uint32_t h = doc.handle(b);
    if (h != Document::kNoHandle && TagOf(h) == kBlock) {
      p.blocks.push_back(IndexOf(h));
    } else {
      Missing("segment", "blocks");
    }
  }
  segments_.push_back(std::move(p));
  doc.Reduce(v, Handle(kSegment, segments_.size() - 1));
}

void SnapshotBuilder::ReadSettings(const Document& doc, const Value& s) {
  AllocatorSettings& a = out_.settings;
  a.present = true;
  if (const Value* x = doc.Find(s, "expandable_segments"); x != nullptr && (x->kind == Kind::kBool || x->kind == Kind::kInt))
    a.expandable_segments = x->i != 0;
  if (std::optional<int64_t> m = Int(doc, s, "max_split_size"); m) a.max_split_size = *m;
  if (const Value* g = doc.Find(s, "garbage_collection_threshold"); g != nullptr) {
    if (g->kind == Kind::kFloat) a.garbage_collection_threshold = g->f;
    if (g->kind == Kind::kInt) a.garbage_collection_threshold = static_cast<double>(g->i);
  }
  a.alloc_conf = std::string(Str(doc, s, "PYTORCH_CUDA_ALLOC_CONF"));
}

Status SnapshotBuilder::Finish(const Document& doc) {
  const Value& root = doc.root();
  // The snapshot is a dict (segments, device_traces, ...); torch.cuda.memory_snapshot() of old
  // versions returned the list of segments alone.
  const Value* segs = nullptr;
  if (root.kind == Kind::kDict) {
    segs = doc.Find(root, "segments");
  } else if (root.kind == Kind::kList) {
    segs = &root;
  }
  if (segs == nullptr || segs->kind != Kind::kList)
    return Status::Error(fmt::format("the pickle holds a {} without 'segments': not a PyTorch memory snapshot",
                                     pickle::KindName(root.kind)));
  // An entry of `segments` that is not a segment (a dict with total_size and blocks): in a list
  // root the pickle is not the old list-of-segments snapshot; in a dict root it is counted
  // (snapshot_missing_field, as a block that is not a block), unless no entry is a segment.
  std::vector<uint8_t> used_block(block_rows_.size(), 0);
  uint64_t not_segments = 0;
  const char* first_kind = nullptr;
  for (const Value& sv : doc.items(*segs)) {
    const uint32_t h = doc.handle(sv);
    if (h == Document::kNoHandle || TagOf(h) != kSegment) {
      if (root.kind == Kind::kList) return Status::Error("the pickle holds a list of something else than segments: not a PyTorch memory snapshot");
      if (not_segments++ == 0) first_kind = pickle::KindName(sv.kind);
      continue;
    }
    PendingSegment& p = segments_[IndexOf(h)];
    p.seg.first_block = static_cast<uint32_t>(out_.blocks.size());
    p.seg.block_count = static_cast<uint32_t>(p.blocks.size());
    for (uint32_t b : p.blocks) {
      out_.blocks.push_back(block_rows_[b]);
      used_block[b] = 1;
    }
    out_.segments.push_back(p.seg);
  }
  if (not_segments > 0) {
    if (out_.segments.empty())
      return Status::Error(fmt::format("'segments' holds {} entr{} and none is a segment (the first is of type {}): not a "
                                       "PyTorch memory snapshot",
                                       not_segments, not_segments == 1 ? "y" : "ies", first_kind));
    out_.diagnostics.AddCount(DiagCode::kSnapshotMissingField, not_segments, -1,
                              fmt::format("an entry of 'segments' that is not a segment (of type {})", first_kind));
  }
  size_t orphans = 0;
  for (uint8_t u : used_block) orphans += u == 0;
  if (root.kind == Kind::kDict) {
    if (const Value* s = doc.Find(root, "allocator_settings"); s != nullptr && s->kind == Kind::kDict) ReadSettings(doc, *s);
    if (const Value* traces = doc.Find(root, "device_traces"); traces != nullptr && traces->kind == Kind::kList) {
      out_.has_device_traces = true;
      // (event row, device) in device_traces order; usually the rows' own order, then they move.
      std::vector<std::pair<uint32_t, int32_t>> order;
      order.reserve(events_.size());
      int32_t device = 0;
      for (const Value& list : doc.items(*traces)) {
        for (const Value& ev : doc.items(list)) {
          const uint32_t h = doc.handle(ev);
          if (h == Document::kNoHandle || TagOf(h) != kEvent) {
            Missing("device trace", "action");
            continue;
          }
          if (IndexOf(h) != kSkipped) order.emplace_back(IndexOf(h), device);
        }
        ++device;
      }
      out_.device_traces = device;
      bool in_order = order.size() == events_.size();
      for (size_t i = 0; i < order.size() && in_order; ++i) in_order = order[i].first == i;
      if (in_order) {
        out_.events = std::move(events_);
        for (size_t i = 0; i < order.size(); ++i) out_.events[i].device = order[i].second;
      } else {
        std::vector<uint8_t> used(events_.size(), 0);
        out_.events.reserve(order.size());
        for (const auto& [row, dev] : order) {
          out_.events.push_back(events_[row]);
          out_.events.back().device = dev;
          used[row] = 1;
        }
        for (uint8_t u : used) orphans += u == 0;
      }
    } else {
      orphans += events_.size();
    }
    if (const Value* ann = doc.Find(root, "external_annotations"); ann != nullptr) {
      for (const Value& a : doc.items(*ann)) {
        const uint32_t h = doc.handle(a);
        if (h != Document::kNoHandle && TagOf(h) == kAnnotation) out_.annotations.push_back(annotations_[IndexOf(h)]);
      }
    }
  }
  if (orphans > 0)
    out_.diagnostics.AddCount(DiagCode::kSnapshotOrphanRows, orphans, -1, "blocks or events outside segments / device_traces");
  return Status::Ok();
}

StatusOr<MemorySnapshot> ReadFrom(ByteSource& source, const std::string& name) {
  MemorySnapshot out;
  out.path = name;
  SnapshotBuilder builder(out);
  pickle::PickleStats stats;
  StatusOr<Document> doc = pickle::ReadPickle(source, &builder, &stats);
  if (!doc.ok()) return Status::Error(name + ": " + doc.status().message());
  out.protocol = stats.protocol;
  out.file_bytes = stats.bytes;
  if (Status s = builder.Finish(*doc); !s.ok()) return Status::Error(name + ": byte 0: " + s.message());
  return out;
}

}  // namespace

StatusOr<MemorySnapshot> ReadMemorySnapshot(const std::string& path) {
  StatusOr<std::unique_ptr<ByteSource>> src = OpenByteSource(path);
  if (!src.ok()) return Status::Error(path + ": " + src.status().message());
  return ReadFrom(**src, path);
}

StatusOr<MemorySnapshot> ReadMemorySnapshotBytes(std::string_view bytes, const std::string& name) {
  std::unique_ptr<ByteSource> src = MakeStringByteSource(bytes);
  return ReadFrom(*src, name);
}

}  // namespace ampscope

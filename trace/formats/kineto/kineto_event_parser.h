// The parsing layer of the Kineto reader: turns each RawEvent the tokenizer hands it into rows
// of the Trace tables (kineto_event_parser.cc), reads the trace-level metadata
// (kineto_metadata.cc) and, after the last event, links what needs the whole trace
// (kineto_linker.cc). Perfetto keeps the same parts apart (json_trace_parser, json_trace_utils).
// Internal to trace/formats/kineto/.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/diagnostics.h"
#include "base/status.h"
#include "trace/formats/kineto/kineto_keys.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/kineto/kineto_tokenizer.h"
#include "trace/model.h"
#include "trace/time_bounds.h"

namespace ampscope::kineto {

// Launch parameters that ROCm traces put on the runtime call instead of the GPU event.
struct RuntimeLaunchInfo {
  int64_t size_bytes = -1;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  bool has_dims = false;
};


// StringTable::Intern behind a small direct-mapped cache: the same few hundred names
// (kernels, ops, runtime calls) repeat millions of times, and the cache compares bytes
// instead of hashing the whole (often 100+ byte) name.
class StringInterner {
 public:
  explicit StringInterner(StringTable& table) : table_(table) {}
  StringId Intern(std::string_view s) {
    if (s.empty()) return kNoString;
    uint64_t head = 0, tail = 0, mid = 0;
    if (s.size() >= 8) {
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + s.size() - 8, 8);
      std::memcpy(&mid, s.data() + (s.size() - 8) / 2, 8);
    } else {
      std::memcpy(&head, s.data(), s.size());
    }
    uint64_t h = (s.size() * 0x9E3779B97F4A7C15ull) ^ head ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ (mid * 0x165667B19E3779F9ull);
    h ^= h >> 29;
    Entry& e = cache_[(h * 0xBF58476D1CE4E5B9ull) >> (64 - kCacheBits)];
    if (e.size == s.size() && e.data != nullptr && std::memcmp(e.data, s.data(), s.size()) == 0) return e.id;
    const StringId id = table_.Intern(s);
    const std::string_view stored = table_.get(id);  // deque storage: the view stays valid
    e.data = stored.data();
    e.size = stored.size();
    e.id = id;
    return id;
  }

 private:
  struct Entry {
    const char* data = nullptr;
    size_t size = 0;
    StringId id = kNoString;
  };
  static constexpr int kCacheBits = 12;
  StringTable& table_;
  std::vector<Entry> cache_ = std::vector<Entry>(size_t{1} << kCacheBits);
};

class TraceBuilder final : public EventSink {
 public:
  // A builder of the whole trace, or (`chunk`) of one piece of traceEvents that a thread of
  // the parallel reader parses on its own and MergeChunk later adds to the whole trace's
  // builder, in input order (kineto_parallel.cc). A chunk keeps full names (the text budget is
  // the whole trace's) and defers metadata events, whose effect depends on what came before.
  TraceBuilder(const std::string& display_name, const KinetoReadOptions& options, const Tokenizer& input,
               bool chunk = false)
      : name_(display_name), options_(options), input_(&input), chunk_(chunk) {
    trace_.metadata.format = SourceFormat::kKineto;
    trace_.metadata.path = display_name;
  }

  // The tokenizer whose window the events' views point into (the parallel reader resumes
  // with new tokenizers).
  void set_input(const Tokenizer& input) { input_ = &input; }
  void SetNameTextBudget(uint64_t bytes) { trace_.strings.set_long_text_budget(bytes); }
  Status OnEvent(const RawEvent& ev) override;                                       // kineto_event_parser.cc
  void OnTopLevelMember(std::string_view key, const json::Value& value) override;    // kineto_metadata.cc
  // Appends a chunk parsed from the input right after everything this builder has seen, as if
  // this builder had parsed it (kineto_merge.cc). `chunk_end`: the input offset where the
  // chunk ended (how far the tables now reach, for Grow).
  void MergeChunk(TraceBuilder&& chunk, uint64_t chunk_end);
  // After the last event: the span and total of all accepted times (trace/time_bounds.h).
  Status CheckTimes() const { return bounds_.Check(name_); }
  // After the last event: joins and checks that need the whole trace (kineto_linker.cc).
  // `threads`: for the final sort (FinalizeTrace).
  Trace Finish(uint64_t input_bytes, int threads = 1);

 private:
  // Reused buffers for decoded strings (escapes) and compacted JSON arrays.
  struct Scratch {
    std::string name, cat, arg, json;
  };
  // What the trace says about its vendor and rank, gathered while parsing.
  struct Evidence {
    bool amd = false;
    bool cuda = false;
    bool have_rank = false;
  };
  // What the linker needs after the last event.
  struct LinkState {
    std::vector<uint64_t> kernel_offsets, memcpy_offsets, memset_offsets;  // for unmatched_correlation
    std::unordered_map<int64_t, RuntimeLaunchInfo> runtime_launch_info;    // ROCm only
    // ProfilerStep#N ranges: (index in trace_.ranges, byte offset), for the step checks.
    std::vector<std::pair<uint32_t, uint64_t>> step_ranges;
    std::unordered_map<StringId, bool> is_step_name;  // ClassifyHostRange memo
  };
  // Only the first occurrence of a code keeps its message and offset. `order` is the input
  // offset of the event that raised it: merged chunks may raise, after the fact, a diagnostic
  // that comes earlier in the input than one the chunk already holds (a deferred metadata
  // event), and the earlier one must win, as in a single pass.
  struct PendingDiagnostic {
    DiagCode code;
    uint64_t count;
    int64_t offset;
    uint64_t order;
    std::string message;
  };
  struct RawJsonCacheEntry {
    std::string raw;
    StringId id = kNoString;
  };
  // A metadata event kept by a chunk for MergeChunk: its text, and the event parsed over it.
  struct DeferredEvent {
    std::unique_ptr<std::string> text;  // the views of `event` point into it
    RawEvent event;
    uint64_t offset = 0;
  };
  // What a chunk keeps for MergeChunk besides its tables.
  struct ChunkState {
    std::vector<DeferredEvent> metadata_events;
    std::vector<uint64_t> string_first_use;  // by chunk StringId: offset of the event that interned it
  };
  // Where the events being handled are in the input (see Off).
  struct Position {
    uint64_t event_offset = 0;       // the event being parsed or replayed
    const DeferredEvent* replaying = nullptr;
  };

  // ---- kineto_event_parser.cc: events -> tables
  Status OnComplete(const RawEvent& ev);
  // A complete ("X") event's fields, read once by OnComplete for the table it goes to.
  struct CompleteFields {
    std::string_view name;
    int64_t start = 0, end = 0, pid = 0, tid = 0;
  };
  void AddKernel(const RawEvent& ev, const CompleteFields& f);
  void AddMemcpy(const RawEvent& ev, const CompleteFields& f);
  void AddMemset(const RawEvent& ev, const CompleteFields& f);
  // The fields a copy and a memset share (times, ids, bytes, device and stream), read once.
  template <class Event>
  void FillCopyFields(const RawEvent& ev, const CompleteFields& f, Event& m);
  void AddApiCall(const RawEvent& ev, EventClass cls, const CompleteFields& f);
  void AddRange(const RawEvent& ev, EventClass cls, const CompleteFields& f);
  Status OnInstant(const RawEvent& ev);
  Status OnFlow(const RawEvent& ev, char phase);
  Status OnCounter(const RawEvent& ev);
  Status Time(const RawEvent& ev, const json::Value& v, const char* field, int64_t* ns) const;
  std::string_view Text(const json::Value& v, std::string* scratch, const RawEvent& ev, const char* field);
  int64_t Id(const json::Value& v, const RawEvent& ev, const char* field);
  int64_t ArgInt(const RawEvent& ev, ArgKey k, int64_t fallback);
  double ArgDouble(const RawEvent& ev, ArgKey k, double fallback);
  std::string_view ArgText(const RawEvent& ev, ArgKey k);
  StringId ArgCompactJson(const RawEvent& ev, ArgKey k);
  bool ArgDim3(const RawEvent& ev, ArgKey k, uint32_t out[3]);
  void BadType(const RawEvent& ev, const json::Value& v, const std::string& what);
  template <typename T>
  void Append(std::vector<T>& table, const T& row) {
    if (table.size() == table.capacity()) Grow(table, 1);
    table.push_back(row);
  }
  template <typename T>
  void Grow(std::vector<T>& table, size_t more);

  // ---- kineto_metadata.cc: 'M' events and trace-level keys
  void OnMetadata(const RawEvent& ev);
  void DeferMetadata(const RawEvent& ev);
  void ReadDeviceProperties(const nlohmann::json& list, bool old_keys);
  void ReadDistributedInfo(const nlohmann::json& info);
  void ReadProfilerLog(const nlohmann::json& lines, const char* at);  // "INFO"/"WARNING"/"ERROR"
  void FinishDevices();  // vendors, and devices inferred from GPU work when none were listed

  // ---- kineto_merge.cc
  template <typename T, typename Remap>
  void AppendRows(std::vector<T>& dst, std::vector<T>& src, Remap&& remap);

  // ---- kineto_linker.cc
  void LinkCorrelations();
  void CheckProfilerSteps();

  // Input offset of a byte of the event being handled: in the tokenizer's window, or in the
  // copy of a deferred event being replayed.
  uint64_t Off(const char* p) const {
    if (position_.replaying != nullptr) {
      const DeferredEvent& d = *position_.replaying;
      return d.offset + static_cast<uint64_t>(p - d.text->data());
    }
    return input_->OffsetOf(p);
  }
  StringId Intern(std::string_view s) {
    const size_t before = trace_.strings.size();
    const StringId id = interner_.Intern(s);
    if (chunk_) {
      if (trace_.strings.size() != before) chunk_state_.string_first_use.push_back(position_.event_offset);
    } else if (trace_.strings.capped_count() != capped_seen_) {  // this string was just capped
      capped_seen_ = trace_.strings.capped_count();
      NoteCapped(s.size(), position_.event_offset);
    }
    return id;
  }
  void NoteCapped(size_t bytes, uint64_t event_offset) {
    DiagAt(DiagCode::kTextCapped, static_cast<int64_t>(event_offset), event_offset,
           "a name of " + std::to_string(bytes) + " bytes was stored as its first bytes and a hash (" +
               std::to_string(trace_.strings.text_bytes() >> 20) + " MiB of distinct names kept so far)");
  }
  Status Fatal(const char* at, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(Off(at)) + ": " + what);
  }
  // Counts a diagnostic. Some codes (zero_duration) occur for a large share of all events, so
  // only the first occurrence of a code keeps its message and offset; the rest are counted
  // here and handed to Trace::diagnostics once, at the end (FlushDiagnostics).
  template <typename Message>
  void Diag(DiagCode code, const char* at, Message&& message) {
    DiagAt(code, at ? static_cast<int64_t>(Off(at)) : -1, position_.event_offset, std::forward<Message>(message));
  }
  template <typename Message>
  void DiagAt(DiagCode code, int64_t offset, uint64_t order, Message&& message, uint64_t n = 1) {
    for (PendingDiagnostic& d : pending_diagnostics_) {
      if (d.code == code) {
        d.count += n;
        if (order < d.order) {
          d.offset = offset;
          d.order = order;
          d.message = std::string(std::forward<Message>(message));
        }
        return;
      }
    }
    pending_diagnostics_.push_back({code, n, offset, order, std::string(std::forward<Message>(message))});
  }
  void FlushDiagnostics() {
    for (const PendingDiagnostic& d : pending_diagnostics_)
      trace_.diagnostics.AddCount(d.code, d.count, d.offset, d.message);
    pending_diagnostics_.clear();
  }

  const std::string& name_;
  const KinetoReadOptions& options_;
  const Tokenizer* input_;
  const bool chunk_;
  Trace trace_;
  StringInterner interner_{trace_.strings};
  std::vector<RawJsonCacheEntry> raw_json_cache_ = std::vector<RawJsonCacheEntry>(1024);
  Scratch scratch_;
  uint64_t event_count_ = 0;
  uint64_t capped_seen_ = 0;
  uint64_t merged_through_ = 0;  // input offset where the last merged chunk ended
  Position position_;
  Evidence evidence_;
  LinkState links_;
  std::vector<PendingDiagnostic> pending_diagnostics_;
  TimeBounds bounds_;
  ChunkState chunk_state_;
};

// Rank from a file name: "rank-0.Apr_03...", "rank0.json", "a_rank_3.json", "worker0.1623...".
int32_t RankFromFileName(const std::string& path);

}  // namespace ampscope::kineto

// The parsing layer of the Kineto reader: turns each RawEvent the tokenizer hands it into rows
// of the Trace tables (kineto_event_parser.cc), reads the trace-level metadata
// (kineto_metadata.cc) and, after the last event, links what needs the whole trace
// (kineto_linker.cc). Perfetto keeps the same parts apart (json_trace_parser, json_trace_utils).
// Internal to trace/formats/kineto/.
#pragma once

#include <cstdint>
#include <cstring>
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
  TraceBuilder(const std::string& display_name, const KinetoReadOptions& options, const Tokenizer& input)
      : name_(display_name), options_(options), input_(input) {
    trace_.metadata.format = SourceFormat::kKineto;
    trace_.metadata.path = display_name;
  }

  Status OnEvent(const RawEvent& ev) override;                                       // kineto_event_parser.cc
  void OnTopLevelMember(std::string_view key, const json::Value& value) override;    // kineto_metadata.cc
  // After the last event: joins and checks that need the whole trace (kineto_linker.cc).
  Trace Finish(uint64_t input_bytes);

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
  };
  struct PendingDiagnostic {
    DiagCode code;
    uint64_t count;
    int64_t offset;
    std::string message;
  };
  struct RawJsonCacheEntry {
    std::string raw;
    StringId id = kNoString;
  };

  // ---- kineto_event_parser.cc: events -> tables
  Status OnComplete(const RawEvent& ev);
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
    if (table.size() == table.capacity()) Grow(table);
    table.push_back(row);
  }
  template <typename T>
  void Grow(std::vector<T>& table);

  // ---- kineto_metadata.cc: 'M' events and trace-level keys
  void OnMetadata(const RawEvent& ev);
  void ReadDeviceProperties(const nlohmann::json& list, bool old_keys);
  void ReadDistributedInfo(const nlohmann::json& info);
  void FinishDevices();  // vendors, and devices inferred from GPU work when none were listed

  // ---- kineto_linker.cc
  void LinkCorrelations();

  StringId Intern(std::string_view s) { return interner_.Intern(s); }
  Status Fatal(const char* at, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(input_.OffsetOf(at)) + ": " + what);
  }
  // Counts a diagnostic. Some codes (zero_duration) occur for a large share of all events, so
  // only the first occurrence of a code keeps its message and offset; the rest are counted
  // here and handed to Trace::diagnostics once, at the end (FlushDiagnostics).
  template <typename Message>
  void Diag(DiagCode code, const char* at, Message&& message) {
    for (PendingDiagnostic& d : pending_diagnostics_) {
      if (d.code == code) {
        ++d.count;
        return;
      }
    }
    pending_diagnostics_.push_back(
        {code, 1, at ? static_cast<int64_t>(input_.OffsetOf(at)) : -1, std::string(std::forward<Message>(message))});
  }
  void FlushDiagnostics() {
    for (const PendingDiagnostic& d : pending_diagnostics_)
      trace_.diagnostics.AddCount(d.code, d.count, d.offset, d.message);
    pending_diagnostics_.clear();
  }

  const std::string& name_;
  const KinetoReadOptions& options_;
  const Tokenizer& input_;
  Trace trace_;
  StringInterner interner_{trace_.strings};
  std::vector<RawJsonCacheEntry> raw_json_cache_ = std::vector<RawJsonCacheEntry>(1024);
  Scratch scratch_;
  uint64_t event_count_ = 0;
  Evidence evidence_;
  LinkState links_;
  std::vector<PendingDiagnostic> pending_diagnostics_;
};

// Rank from a file name: "rank-0.Apr_03...", "rank0.json", "a_rank_3.json", "worker0.1623...".
int32_t RankFromFileName(const std::string& path);

}  // namespace ampscope::kineto

// Streaming Kineto reader. Pipeline: ByteSource (plain / gzip) -> a growable window of the
// uncompressed bytes -> json::Scanner, one unit (event or top-level member) at a time ->
// RawEvent (views into the window) -> the Trace tables.
#include "trace/kineto_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/json_scanner.h"

namespace ampscope {

// ---------------------------------------------------------------------------------------
// The one µs -> ns conversion.

bool ParseMicrosToNs(std::string_view t, int64_t* ns) {
  // Fast path, the common Kineto form: up to 16 integer digits (µs since the epoch have
  // 16), an optional fraction, no exponent. kMaxFastWhole keeps whole*1000 + 1000 in int64.
  {
    size_t i = 0;
    const size_t n = t.size();
    const bool negative = n > 0 && t[0] == '-';
    i = negative ? 1 : 0;
    int64_t whole = 0;
    const size_t int_begin = i;
    while (i < n && t[i] >= '0' && t[i] <= '9' && i - int_begin < 16) whole = whole * 10 + (t[i++] - '0');
    const size_t int_len = i - int_begin;
    constexpr int64_t kMaxFastWhole = INT64_MAX / 1000 - 1;
    if (int_len > 0 && whole <= kMaxFastWhole && (i == n || (t[i] == '.' && i + 1 < n))) {
      int64_t frac = 0;
      int frac_digits = 0, round_digit = 0;
      bool ok = true;
      if (i < n) {
        for (++i; i < n; ++i) {
          const char c = t[i];
          if (c < '0' || c > '9') {
            ok = false;
            break;
          }
          if (frac_digits < 3) {
            frac = frac * 10 + (c - '0');
            ++frac_digits;
          } else if (frac_digits == 3) {
            round_digit = c - '0';
            ++frac_digits;
          }
        }
      }
      if (ok) {
        for (int k = frac_digits; k < 3; ++k) frac *= 10;
        int64_t v = whole * 1000 + frac + (round_digit >= 5 ? 1 : 0);
        *ns = negative ? -v : v;
        return true;
      }
    }
  }
  // General path: exponents, long digit strings, and everything invalid.
  const size_t n = t.size();
  size_t i = 0;
  bool negative = false;
  if (i < n && t[i] == '-') {
    negative = true;
    ++i;
  }
  const size_t int_begin = i;
  while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
  const size_t int_len = i - int_begin;
  if (int_len == 0) return false;  // JSON needs a digit before '.' (also rejects NaN/Infinity)
  size_t frac_begin = i, frac_len = 0;
  if (i < n && t[i] == '.') {
    frac_begin = ++i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    frac_len = i - frac_begin;
    if (frac_len == 0) return false;
  }
  int64_t exponent = 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
    size_t exp_begin = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') {
      if (exponent < 1000000) exponent = exponent * 10 + (t[i] - '0');  // clamp; huge = overflow/zero anyway
      ++i;
    }
    if (i == exp_begin) return false;
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return false;

  // The number is D * 10^(exponent - frac_len) µs, D being all its digits as one integer, so
  // it is D * 10^shift ns.
  const int64_t total_digits = static_cast<int64_t>(int_len + frac_len);
  const int64_t shift = exponent - static_cast<int64_t>(frac_len) + 3;
  auto digit = [&](int64_t k) -> int {
    size_t idx = static_cast<size_t>(k);
    return (idx < int_len ? t[int_begin + idx] : t[frac_begin + idx - int_len]) - '0';
  };
  // Digits kept (weight >= 1 ns) and the first dropped one, which decides the rounding.
  const int64_t keep = shift >= 0 ? total_digits : total_digits + shift;
  int64_t acc = 0;
  bool all_zero = true;
  for (int64_t k = 0; k < keep; ++k) {
    int d = digit(k);
    if (d != 0) all_zero = false;
    if (all_zero) continue;
    if (__builtin_mul_overflow(acc, int64_t{10}, &acc) || __builtin_add_overflow(acc, int64_t{d}, &acc)) return false;
  }
  if (shift > 0 && !all_zero) {
    for (int64_t k = 0; k < shift; ++k)
      if (__builtin_mul_overflow(acc, int64_t{10}, &acc)) return false;
  }
  if (shift < 0 && keep >= 0 && keep < total_digits && digit(keep) >= 5) {
    if (__builtin_add_overflow(acc, int64_t{1}, &acc)) return false;
  }
  *ns = negative ? -acc : acc;
  return true;
}

namespace {

using json::Kind;
using json::Result;
using json::Scanner;
using json::Value;

// The input window: 4 MiB for large inputs (smaller for small ones), grown only for a single
// unit (event, top-level member) larger than that.
constexpr size_t kWindowBytes = size_t{4} << 20;
constexpr size_t kMinWindowBytes = size_t{4} << 10;
constexpr uint64_t kProgressEveryBytes = uint64_t{4} << 20;
// A full table grows to what the whole file will need, extrapolated from the bytes parsed so
// far (plus a margin), instead of doubling: a multi-GB trace then copies each table about
// once, not ~20 times. Below kExtrapolateAfterBytes the estimate is too noisy; tables double.
constexpr uint64_t kExtrapolateAfterBytes = uint64_t{4} << 20;
constexpr double kExtrapolationMargin = 1.1;
constexpr size_t kMaxExtraValueChars = 256;                  // top-level strings kept in metadata.extra

// ---------------------------------------------------------------------------------------
// Lookup tables: short keys bucketed by length, compared with memcmp.

template <typename T>
class KeyTable {
 public:
  struct Entry {
    std::string_view key;
    T value;
  };
  KeyTable(std::initializer_list<Entry> entries) {
    for (const Entry& e : entries)
      if (!e.key.empty()) slots_[Slot(e.key)].push_back(e);
  }
  bool Find(std::string_view key, T* out) const {
    if (key.empty()) return false;
    for (const Entry& e : slots_[Slot(key)]) {
      if (e.key.size() == key.size() && std::memcmp(e.key.data(), key.data(), key.size()) == 0) {
        *out = e.value;
        return true;
      }
    }
    return false;
  }

 private:
  // Length, first and last byte: distinct for nearly every key we know, and unknown keys
  // mostly land on an empty slot.
  static size_t Slot(std::string_view k) {
    return (k.size() * 131u + static_cast<unsigned char>(k.front()) * 31u + static_cast<unsigned char>(k.back())) &
           (kSlots - 1);
  }
  static constexpr size_t kSlots = 256;
  std::array<std::vector<Entry>, kSlots> slots_;
};

// Arguments the reader uses ("args" of an event).
enum ArgKey : uint8_t {
  kArgCorrelation,
  kArgExternalId,
  kArgDevice,
  kArgStream,
  kArgGrid,
  kArgBlock,
  kArgRegisters,
  kArgSharedMemory,
  kArgBlocksPerSm,
  kArgOccupancy,
  kArgBytes,
  kArgCbid,
  kArgSyncKind,
  kArgInputDims,
  kArgInputType,
  kArgSequenceNumber,
  kArgFwdThreadId,
  kArgKernelBackend,
  kArgCollective,
  kArgInNelems,
  kArgOutNelems,
  kArgGroupSize,
  kArgDtype,
  kArgPgName,
  kArgPgDesc,
  kArgAddr,
  kArgMemBytes,
  kArgTotalAllocated,
  kArgTotalReserved,
  kArgDeviceType,
  kArgDeviceId,
  kArgMetaName,
  kArgMetaLabels,
  kArgRocmSize,
  kArgCount
};
static_assert(kArgCount <= 64, "arg presence is a 64-bit mask");

const char* const kArgDisplayNames[kArgCount] = {
    "correlation", "External id", "device", "stream", "grid", "block", "registers per thread", "shared memory",
    "blocks per SM", "est. achieved occupancy %", "bytes", "cbid", "cuda_sync_kind", "Input Dims", "Input type",
    "Sequence number", "Fwd thread id", "kernel_backend", "Collective name", "In msg nelems", "Out msg nelems",
    "Group size", "dtype", "Process Group Name", "Process Group Description", "Addr", "Bytes", "Total Allocated",
    "Total Reserved", "Device Type", "Device Id", "name", "labels", "size"};

const KeyTable<ArgKey>& ArgKeys() {
  static const KeyTable<ArgKey> table = {
      {"correlation", kArgCorrelation},
      {"External id", kArgExternalId},
      {"external id", kArgExternalId},  // 2021 format
      {"device", kArgDevice},
      {"stream", kArgStream},
      {"grid", kArgGrid},
      {"block", kArgBlock},
      {"registers per thread", kArgRegisters},
      {"shared memory", kArgSharedMemory},
      {"blocks per SM", kArgBlocksPerSm},
      {"est. achieved occupancy %", kArgOccupancy},
      {"bytes", kArgBytes},
      {"cbid", kArgCbid},
      {"cid", kArgCbid},  // ROCm
      {"cuda_sync_kind", kArgSyncKind},
      {"Input Dims", kArgInputDims},
      {"Input type", kArgInputType},
      {"Sequence number", kArgSequenceNumber},
      {"Fwd thread id", kArgFwdThreadId},
      {"kernel_backend", kArgKernelBackend},
      {"Collective name", kArgCollective},
      {"In msg nelems", kArgInNelems},
      {"Out msg nelems", kArgOutNelems},
      {"Group size", kArgGroupSize},
      {"dtype", kArgDtype},
      {"Process Group Name", kArgPgName},
      {"Process Group Description", kArgPgDesc},
      {"Addr", kArgAddr},
      {"Bytes", kArgMemBytes},
      {"Total Allocated", kArgTotalAllocated},
      {"Total Reserved", kArgTotalReserved},
      {"Device Type", kArgDeviceType},
      {"Device Id", kArgDeviceId},
      {"name", kArgMetaName},
      {"labels", kArgMetaLabels},
      {"size", kArgRocmSize},  // ROCm runtime calls carry the copy size here
  };
  return table;
}

// What an event's "cat" makes it.
enum class EventClass : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,
  kDriver,
  kSync,
  kCpuOp,
  kUserAnnotation,
  kGpuAnnotation,
  kKnownOther,  // known categories that no table models (python_function, Trace spans, ...)
  kUnknown
};

const KeyTable<EventClass>& EventClasses() {
  static const KeyTable<EventClass> table = {
      {"kernel", EventClass::kKernel},
      {"Kernel", EventClass::kKernel},
      {"gpu_memcpy", EventClass::kMemcpy},
      {"Memcpy", EventClass::kMemcpy},
      {"gpu_memset", EventClass::kMemset},
      {"Memset", EventClass::kMemset},
      {"cuda_runtime", EventClass::kRuntime},
      {"Runtime", EventClass::kRuntime},
      {"cuda_driver", EventClass::kDriver},
      {"Driver", EventClass::kDriver},
      {"cuda_sync", EventClass::kSync},
      {"cpu_op", EventClass::kCpuOp},
      {"Operator", EventClass::kCpuOp},
      {"user_annotation", EventClass::kUserAnnotation},
      {"gpu_user_annotation", EventClass::kGpuAnnotation},
      {"python_function", EventClass::kKnownOther},
      {"Python", EventClass::kKnownOther},
      {"Trace", EventClass::kKnownOther},
      {"cpu_instant_event", EventClass::kKnownOther},
      {"overhead", EventClass::kKnownOther},
      {"Overhead", EventClass::kKnownOther},
      {"cuda_profiler_range", EventClass::kKnownOther},
      {"ac2g", EventClass::kKnownOther},
      {"fwdbwd", EventClass::kKnownOther},
      {"async", EventClass::kKnownOther},
  };
  return table;
}

const KeyTable<SyncType>& SyncKinds() {
  static const KeyTable<SyncType> table = {
      {"Event Sync", SyncType::kEventSync},
      {"Stream Wait Event", SyncType::kStreamWaitEvent},
      {"Stream Sync", SyncType::kStreamSync},
      {"Context Sync", SyncType::kContextSync},
  };
  return table;
}

const KeyTable<MemcpyKind>& MemcpyKinds() {
  static const KeyTable<MemcpyKind> table = {
      {"HtoD", MemcpyKind::kHtoD}, {"DtoH", MemcpyKind::kDtoH}, {"DtoD", MemcpyKind::kDtoD},
      {"HtoH", MemcpyKind::kHtoH}, {"PtoP", MemcpyKind::kPtoP},
  };
  return table;
}

const KeyTable<MemoryKind>& MemoryKinds() {
  static const KeyTable<MemoryKind> table = {
      {"Pageable", MemoryKind::kPageable}, {"Pinned", MemoryKind::kPinned}, {"Device", MemoryKind::kDevice},
      {"Managed", MemoryKind::kManaged},   {"Array", MemoryKind::kArray},
  };
  return table;
}

// Operator/cpu_op names that are really record_function ranges in 2021 traces.
bool IsAnnotationOpName(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"ProfilerStep#", "enumerate(DataLoader)", "Optimizer.", "## "};
  for (std::string_view p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsAmdDeviceName(std::string_view name) {
  if (Contains(name, "AMD") || Contains(name, "Instinct") || Contains(name, "Radeon") || Contains(name, "gfx"))
    return true;
  // MI100 / MI250X / MI300X ...
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i + 5 <= name.size(); ++i) {
    if (name[i] == 'M' && name[i + 1] == 'I' && name[i + 2] >= '1' && name[i + 2] <= '3' && digit(name[i + 3]) &&
        digit(name[i + 4]))
      return true;
  }
  return false;
}

bool IsNvidiaDeviceName(std::string_view name) {
  static constexpr std::string_view kMarkers[] = {"NVIDIA", "Tesla", "GeForce", "Quadro", "TITAN", "RTX"};
  for (std::string_view m : kMarkers)
    if (Contains(name, m)) return true;
  return false;
}

// Rank from a file name: "rank-0.Apr_03...", "rank0.json", "a_rank_3.json", "worker0.1623...".
int32_t RankFromFileName(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const std::string_view word : {std::string_view("rank"), std::string_view("worker")}) {
    size_t from = 0;
    while (true) {
      size_t at = base.find(word, from);
      if (at == std::string::npos) break;
      from = at + 1;
      if (at > 0 && std::isalpha(static_cast<unsigned char>(base[at - 1]))) continue;
      size_t k = at + word.size();
      if (k < base.size() && (base[k] == '-' || base[k] == '_')) ++k;
      size_t digits = k;
      while (digits < base.size() && std::isdigit(static_cast<unsigned char>(base[digits]))) ++digits;
      if (digits == k || digits - k > 6) continue;
      return static_cast<int32_t>(std::stol(base.substr(k, digits - k)));
    }
  }
  return -1;
}

// One traceEvents element, as views into the input window.
struct RawEvent {
  const char* begin = nullptr;
  Value ph, cat, name, pid, tid, ts, dur, id, bp;
  Value args;  // only its kind and position (kNone if absent)
  uint64_t arg_mask = 0;
  std::array<Value, kArgCount> arg;
  std::vector<std::pair<Value, Value>> all_args;  // (key, value), kept only for counter events

  void Reset() {
    ph.kind = cat.kind = name.kind = pid.kind = tid.kind = ts.kind = dur.kind = id.kind = bp.kind = args.kind =
        Kind::kNone;
    arg_mask = 0;
    all_args.clear();
  }
  bool Has(ArgKey k) const { return (arg_mask >> k) & 1; }
};

enum class EventField : uint8_t { kPh, kCat, kName, kPid, kTid, kTs, kDur, kId, kBp, kArgs, kOther };

inline EventField LookupEventField(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (k[0] == 'p' && k[1] == 'h') return EventField::kPh;
      if (k[0] == 't' && k[1] == 's') return EventField::kTs;
      if (k[0] == 'i' && k[1] == 'd') return EventField::kId;
      if (k[0] == 'b' && k[1] == 'p') return EventField::kBp;
      return EventField::kOther;
    case 3:
      if (k[0] == 'c' && k[1] == 'a' && k[2] == 't') return EventField::kCat;
      if (k[0] == 'p' && k[1] == 'i' && k[2] == 'd') return EventField::kPid;
      if (k[0] == 't' && k[1] == 'i' && k[2] == 'd') return EventField::kTid;
      if (k[0] == 'd' && k[1] == 'u' && k[2] == 'r') return EventField::kDur;
      return EventField::kOther;
    case 4:
      if (std::memcmp(k.data(), "name", 4) == 0) return EventField::kName;
      if (std::memcmp(k.data(), "args", 4) == 0) return EventField::kArgs;
      return EventField::kOther;
    default: return EventField::kOther;
  }
}

// Launch parameters that ROCm traces put on the runtime call instead of the GPU event.
struct RuntimeLaunchInfo {
  int64_t size_bytes = -1;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  bool has_dims = false;
};

class KinetoParser {
 public:
  KinetoParser(ByteSource& source, const std::string& display_name, const KinetoReadOptions& options)
      : source_(source), name_(display_name), options_(options) {
    trace_.metadata.format = SourceFormat::kKineto;
    trace_.metadata.path = display_name;
  }

  StatusOr<Trace> Run();

 private:
  enum class Stage : uint8_t {
    kStart,           // before the top-level value
    kTopMember,       // in the top-level object: expecting a member or '}'
    kEvents,          // in traceEvents: expecting an event or ']'
    kTrailing,        // after the top-level value: only whitespace may follow
    kDone
  };

  // Window management.
  Status Fill();
  uint64_t OffsetOf(const char* p) const { return window_offset_ + static_cast<uint64_t>(p - window_.data()); }
  Status Fatal(const char* at, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(OffsetOf(at)) + ": " + what);
  }
  Status FatalAt(uint64_t offset, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(offset) + ": " + what);
  }
  Status Truncated() const;
  template <typename T>
  void Append(std::vector<T>& table, const T& row) {
    if (table.size() == table.capacity()) Grow(table);
    table.push_back(row);
  }
  template <typename T>
  void Grow(std::vector<T>& table);

  // Parsing. Each returns kNeedMore when the window ends inside the unit.
  Result Step(Scanner& sc, Status* fatal);
  Result ParseEvent(Scanner& sc, RawEvent* ev);
  Result ParseArgs(Scanner& sc, RawEvent* ev);

  // Building the trace.
  Status OnEvent(const RawEvent& ev);
  Status OnComplete(const RawEvent& ev);
  Status OnInstant(const RawEvent& ev);
  Status OnFlow(const RawEvent& ev, char phase);
  Status OnCounter(const RawEvent& ev);
  void OnMetadata(const RawEvent& ev);
  void OnTopLevelMember(std::string_view key, const Value& value);
  void ReadDeviceProperties(const nlohmann::json& list, bool old_keys);
  void ReadDistributedInfo(const nlohmann::json& info);
  void Finish();

  Status Time(const RawEvent& ev, const Value& v, const char* field, int64_t* ns) const;
  std::string_view Text(const Value& v, std::string* scratch, const RawEvent& ev, const char* field);
  int64_t Id(const Value& v, const RawEvent& ev, const char* field);
  int64_t ArgInt(const RawEvent& ev, ArgKey k, int64_t fallback);
  double ArgDouble(const RawEvent& ev, ArgKey k, double fallback);
  std::string_view ArgText(const RawEvent& ev, ArgKey k);
  StringId ArgCompactJson(const RawEvent& ev, ArgKey k);
  bool ArgDim3(const RawEvent& ev, ArgKey k, uint32_t out[3]);
  void BadType(const RawEvent& ev, const Value& v, const std::string& what);
  // StringTable::Intern behind a small direct-mapped cache: the same few hundred names
  // (kernels, ops, runtime calls) repeat millions of times, and the cache compares bytes
  // instead of hashing the whole (often 100+ byte) name.
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
    InternCacheEntry& e = intern_cache_[(h * 0xBF58476D1CE4E5B9ull) >> (64 - kInternCacheBits)];
    if (e.size == s.size() && e.data != nullptr && std::memcmp(e.data, s.data(), s.size()) == 0) return e.id;
    const StringId id = trace_.strings.Intern(s);
    const std::string_view stored = trace_.strings.get(id);  // deque storage: the view stays valid
    e.data = stored.data();
    e.size = stored.size();
    e.id = id;
    return id;
  }
  // Counts a diagnostic. Some codes (zero_duration) occur for a large share of all events, so
  // only the first occurrence of a code keeps its message and offset; the rest are counted
  // here and handed to Trace::diagnostics once, at the end (FlushDiagnostics).
  template <typename Message>
  void Diag(const char* code, Severity severity, const char* at, Message&& message) {
    for (PendingDiagnostic& d : pending_diagnostics_) {
      if (d.code == code || std::strcmp(d.code, code) == 0) {
        ++d.count;
        if (severity > d.severity) d.severity = severity;
        return;
      }
    }
    pending_diagnostics_.push_back(
        {code, severity, 1, at ? static_cast<int64_t>(OffsetOf(at)) : -1, std::string(std::forward<Message>(message))});
  }
  void FlushDiagnostics() {
    for (const PendingDiagnostic& d : pending_diagnostics_)
      trace_.diagnostics.AddCount(d.code, d.severity, d.count, d.offset, d.message);
    pending_diagnostics_.clear();
  }

  ByteSource& source_;
  std::string name_;
  const KinetoReadOptions& options_;
  Trace trace_;

  // The window's storage. Not a std::vector: no zero-filling of bytes that read() overwrites.
  class Window {
   public:
    char* data() const { return data_.get(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void Resize(size_t size, size_t keep) {  // keeps the first `keep` bytes
      std::unique_ptr<char[]> bigger(new char[size]);
      if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep);
      data_ = std::move(bigger);
      size_ = size;
    }

   private:
    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
  };
  Window window_;
  size_t begin_ = 0;            // first unparsed byte in window_
  size_t end_ = 0;              // end of buffered bytes in window_
  uint64_t window_offset_ = 0;  // input offset of window_[0]
  bool eof_ = false;
  uint64_t last_progress_ = 0;
  double expected_input_bytes_ = 0;  // uncompressed size of the whole input, extrapolated for gzip

  Stage stage_ = Stage::kStart;
  bool top_is_array_ = false;
  bool saw_trace_events_ = false;
  bool first_in_container_ = true;
  bool events_first_ = true;
  RawEvent event_;

  std::string scratch_name_, scratch_cat_, scratch_arg_, scratch_json_;
  uint64_t event_count_ = 0;
  bool amd_evidence_ = false;
  bool cuda_evidence_ = false;
  bool have_rank_ = false;
  std::vector<uint64_t> kernel_offsets_, memcpy_offsets_, memset_offsets_;  // for unmatched_correlation
  struct PendingDiagnostic {
    const char* code;
    Severity severity;
    uint64_t count;
    int64_t offset;
    std::string message;
  };
  std::vector<PendingDiagnostic> pending_diagnostics_;
  struct InternCacheEntry {
    const char* data = nullptr;
    size_t size = 0;
    StringId id = kNoString;
  };
  struct RawJsonCacheEntry {
    std::string raw;
    StringId id = kNoString;
  };
  std::vector<RawJsonCacheEntry> raw_json_cache_ = std::vector<RawJsonCacheEntry>(1024);
  static constexpr int kInternCacheBits = 12;
  std::vector<InternCacheEntry> intern_cache_ = std::vector<InternCacheEntry>(size_t{1} << kInternCacheBits);
  std::unordered_map<int64_t, RuntimeLaunchInfo> runtime_launch_info_;      // ROCm only
};

Status KinetoParser::Fill() {
  if (begin_ > 0) {
    std::memmove(window_.data(), window_.data() + begin_, end_ - begin_);
    window_offset_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (window_.empty()) {
    // Small inputs get a small window (tests read thousands of them); gzip may expand ~10x.
    const uint64_t total = source_.raw_bytes_total() * (source_.compressed() ? 10 : 1) + 16;
    window_.Resize(static_cast<size_t>(std::clamp<uint64_t>(total, kMinWindowBytes, kWindowBytes)), 0);
  }
  if (end_ == window_.size()) window_.Resize(window_.size() * 2, end_);  // a unit larger than the window
  StatusOr<size_t> n = source_.Read(window_.data() + end_, window_.size() - end_);
  if (!n.ok()) return Status::Error(name_ + ": " + n.status().message());
  if (*n == 0) eof_ = true;
  end_ += *n;
  if (source_.raw_bytes_done() > 0) {
    // Uncompressed bytes per raw byte so far: 1 for plain input, the ratio for gzip.
    const double ratio = static_cast<double>(window_offset_ + end_) / static_cast<double>(source_.raw_bytes_done());
    expected_input_bytes_ = static_cast<double>(source_.raw_bytes_total()) * ratio;
  }
  if (options_.progress) {
    uint64_t done = source_.raw_bytes_done();
    if (done - last_progress_ >= kProgressEveryBytes) {
      last_progress_ = done;
      options_.progress(done, source_.raw_bytes_total());
    }
  }
  return Status::Ok();
}

template <typename T>
void KinetoParser::Grow(std::vector<T>& table) {
  const size_t size = table.size();
  size_t want = std::max<size_t>(64, size + size / 2);
  const double parsed = static_cast<double>(window_offset_ + begin_);
  if (parsed >= static_cast<double>(kExtrapolateAfterBytes) && expected_input_bytes_ > parsed) {
    const double projected = static_cast<double>(size) * (expected_input_bytes_ / parsed) * kExtrapolationMargin;
    want = std::max(want, static_cast<size_t>(projected));
  } else {
    want = std::max<size_t>(want, 2 * size);
  }
  table.reserve(want);
}

Status KinetoParser::Truncated() const {
  uint64_t at = window_offset_ + end_;
  switch (stage_) {
    case Stage::kStart:
      return FatalAt(at, "no JSON data: expected a Kineto trace (a JSON object), found end of input");
    case Stage::kTopMember:
      return FatalAt(at, "truncated JSON: the input ends inside the top-level object (expected a member or '}')");
    case Stage::kEvents:
      return FatalAt(at, "truncated JSON: the input ends inside traceEvents (expected an event, ',' or ']')");
    default: return FatalAt(at, "truncated JSON");
  }
}

Result KinetoParser::ParseArgs(Scanner& sc, RawEvent* ev) {
  char c;
  if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
  if (c != '{') {
    Value skipped;
    Result r = sc.ParseValue(&skipped);
    if (r == Result::kOk) ev->args = skipped;
    return r;
  }
  ev->args.kind = Kind::kObject;
  ev->args.where = sc.pos();
  sc.Advance();
  const bool keep_all = !(ev->ph.kind == Kind::kString && ev->ph.text != "C");
  const KeyTable<ArgKey>& keys = ArgKeys();
  bool first = true;
  while (true) {
    Value key;
    bool done = false;
    Result r = sc.NextMember(first, &key, &done);
    if (r != Result::kOk) return r;
    if (done) return Result::kOk;
    first = false;
    Value v;
    r = sc.ParseValue(&v);
    if (r != Result::kOk) return r;
    ArgKey k;
    if (keys.Find(key.text, &k)) {
      ev->arg[k] = v;
      ev->arg_mask |= uint64_t{1} << k;
    }
    if (keep_all) ev->all_args.emplace_back(key, v);
  }
}

Result KinetoParser::ParseEvent(Scanner& sc, RawEvent* ev) {
  char c;
  if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
  if (c != '{') return sc.Fail(sc.pos(), "expected an event object ('{') in traceEvents, found " + sc.Describe(sc.pos()));
  ev->Reset();
  ev->begin = sc.pos();
  sc.Advance();
  bool first = true;
  while (true) {
    Value key;
    bool done = false;
    Result r = sc.NextMember(first, &key, &done);
    if (r != Result::kOk) return r;
    if (done) return Result::kOk;
    first = false;
    Value* dst = nullptr;
    switch (LookupEventField(key.text)) {
      case EventField::kPh: dst = &ev->ph; break;
      case EventField::kCat: dst = &ev->cat; break;
      case EventField::kName: dst = &ev->name; break;
      case EventField::kPid: dst = &ev->pid; break;
      case EventField::kTid: dst = &ev->tid; break;
      case EventField::kTs: dst = &ev->ts; break;
      case EventField::kDur: dst = &ev->dur; break;
      case EventField::kId: dst = &ev->id; break;
      case EventField::kBp: dst = &ev->bp; break;
      case EventField::kArgs: r = ParseArgs(sc, ev); break;
      case EventField::kOther: {
        Value skipped;
        r = sc.ParseValue(&skipped);
        break;
      }
    }
    if (dst != nullptr) r = sc.ParseValue(dst);
    if (r != Result::kOk) return r;
  }
}

// Parses as many units as the window holds. begin_ moves past each completed unit, so a
// kNeedMore restarts the unit that was cut.
Result KinetoParser::Step(Scanner& sc, Status* fatal) {
  auto commit = [&] { begin_ = static_cast<size_t>(sc.pos() - window_.data()); };
  while (true) {
    switch (stage_) {
      case Stage::kStart: {
        // A UTF-8 byte order mark is tolerated (some editors add one); JSON itself has none.
        static constexpr char kBom[] = "\xEF\xBB\xBF";
        const size_t avail = static_cast<size_t>(sc.end() - sc.pos());
        if (avail > 0 && sc.pos()[0] == kBom[0]) {
          if (avail < 3 && !eof_ && std::memcmp(sc.pos(), kBom, avail) == 0) return Result::kNeedMore;
          if (avail >= 3 && std::memcmp(sc.pos(), kBom, 3) == 0) sc.set_pos(sc.pos() + 3);
        }
        char c;
        if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
        if (c == '{') {
          stage_ = Stage::kTopMember;
        } else if (c == '[') {  // Chrome's "JSON Array Format": the array is the event list
          top_is_array_ = true;
          saw_trace_events_ = true;
          events_first_ = true;
          stage_ = Stage::kEvents;
        } else {
          std::string found = c == '"'                                     ? "a string"
                              : (c == '-' || (c >= '0' && c <= '9'))        ? "a number"
                              : (c == 't' || c == 'f' || c == 'n')          ? "a JSON literal"
                                                                            : sc.Describe(sc.pos());
          *fatal = Fatal(sc.pos(), "expected a Kineto trace (a JSON object starting with '{'), found " + found);
          return Result::kError;
        }
        sc.Advance();
        first_in_container_ = true;
        commit();
        break;
      }
      case Stage::kTopMember: {
        Value key;
        bool done = false;
        Result r = sc.NextMember(first_in_container_, &key, &done);
        if (r != Result::kOk) return r;
        if (done) {
          if (!saw_trace_events_) {
            *fatal = Fatal(sc.pos() - 1, "expected a \"traceEvents\" array in the top-level object; this is not a Kineto trace");
            return Result::kError;
          }
          stage_ = Stage::kTrailing;
          commit();
          break;
        }
        if (key.text == "traceEvents") {
          char c;
          if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
          if (c != '[') {
            Value v;
            Result vr = sc.ParseValue(&v);
            std::string found = vr == Result::kOk ? json::KindName(v.kind) : sc.Describe(sc.pos());
            *fatal = Fatal(v.where ? v.where : sc.pos(), "expected traceEvents to be an array ('['), found " + found);
            return Result::kError;
          }
          sc.Advance();
          saw_trace_events_ = true;
          first_in_container_ = false;  // for the enclosing object, once we return to it
          stage_ = Stage::kEvents;
          events_first_ = true;
          commit();
          break;
        }
        Value v;
        r = sc.ParseValue(&v);
        if (r != Result::kOk) return r;
        OnTopLevelMember(key.text, v);
        first_in_container_ = false;
        commit();
        break;
      }
      case Stage::kEvents: {
        bool done = false;
        Result r = sc.NextElement(events_first_, &done);
        if (r != Result::kOk) return r;
        if (done) {
          stage_ = top_is_array_ ? Stage::kTrailing : Stage::kTopMember;
          first_in_container_ = false;
          commit();
          break;
        }
        r = ParseEvent(sc, &event_);
        if (r != Result::kOk) return r;
        Status st = OnEvent(event_);
        if (!st.ok()) {
          *fatal = st;
          return Result::kError;
        }
        events_first_ = false;
        commit();
        break;
      }
      case Stage::kTrailing: {
        if (!sc.SkipWs()) {
          commit();
          if (eof_) {
            stage_ = Stage::kDone;
            return Result::kOk;
          }
          return Result::kNeedMore;
        }
        *fatal = Fatal(sc.pos(), "expected the end of the input after the top-level JSON value, found " +
                                     sc.Describe(sc.pos()));
        return Result::kError;
      }
      case Stage::kDone: return Result::kOk;
    }
  }
}

StatusOr<Trace> KinetoParser::Run() {
  AMPSCOPE_RETURN_IF_ERROR(Fill());
  while (stage_ != Stage::kDone) {
    Scanner sc(window_.data() + begin_, window_.data() + end_);
    Status fatal;
    Result r = Step(sc, &fatal);
    if (r == Result::kError) {
      if (!fatal.ok()) return fatal;
      return Fatal(sc.error_at(), sc.error());
    }
    if (r == Result::kNeedMore) {
      if (eof_) return Truncated();
      AMPSCOPE_RETURN_IF_ERROR(Fill());
    }
  }
  // Drain the source so a damaged gzip tail (CRC, truncation) is still reported.
  while (!eof_) {
    AMPSCOPE_RETURN_IF_ERROR(Fill());
    Scanner sc(window_.data() + begin_, window_.data() + end_);
    if (sc.SkipWs()) return Fatal(sc.pos(), "expected the end of the input after the top-level JSON value, found " +
                                                sc.Describe(sc.pos()));
    begin_ = end_;
  }
  trace_.metadata.input_bytes = window_offset_ + end_;
  trace_.metadata.event_count = event_count_;
  Finish();
  if (options_.progress) options_.progress(source_.raw_bytes_total(), source_.raw_bytes_total());
  return std::move(trace_);
}

// ---------------------------------------------------------------------------------------
// Field conversion

Status KinetoParser::Time(const RawEvent& ev, const Value& v, const char* field, int64_t* ns) const {
  if (v.kind != Kind::kNumber) {
    return Fatal(v.where ? v.where : ev.begin,
                 std::string("expected a number (microseconds) for \"") + field + "\", found " + json::KindName(v.kind));
  }
  if (!ParseMicrosToNs(v.text, ns) || !IsTraceTime(*ns)) {
    std::string shown(v.text.substr(0, 40));
    return Fatal(v.where, std::string("nonsense time: \"") + field + "\" = " + shown +
                              " us is not a finite time within -2^60..2^62 ns");
  }
  return Status::Ok();
}

void KinetoParser::BadType(const RawEvent& ev, const Value& v, const std::string& what) {
  Diag("bad_field_type", Severity::kDataLoss, v.where ? v.where : ev.begin, what + ", found " + json::KindName(v.kind));
}

std::string_view KinetoParser::Text(const Value& v, std::string* scratch, const RawEvent& ev, const char* field) {
  if (v.kind == Kind::kNone) return {};
  if (v.kind != Kind::kString) {
    BadType(ev, v, std::string("expected a string for \"") + field + "\"");
    return {};
  }
  if (!v.escaped) return v.text;
  if (!json::DecodeString(v.text, scratch)) {
    Diag("bad_field_type", Severity::kDataLoss, v.where, std::string("invalid escape in the string \"") + field + "\"");
    return v.text;
  }
  return *scratch;
}

// pid / tid: a number, a numeric string ("25738"), "stream 7" (2021 GPU rows) -> 7, or a
// label such as "Spans" -> -1.
int64_t KinetoParser::Id(const Value& v, const RawEvent& ev, const char* field) {
  int64_t out = -1;
  if (v.kind == Kind::kNumber) {
    if (!json::ParseInt64(v.text, &out)) {
      BadType(ev, v, std::string("expected an integer for \"") + field + "\"");
      return -1;
    }
    return out;
  }
  if (v.kind == Kind::kString) {
    std::string_view s = v.text;
    if (StartsWith(s, "stream ")) s.remove_prefix(7);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (!s.empty() && json::ParseInt64(s, &out) && s.find_first_of(".eE") == std::string_view::npos) return out;
    return -1;
  }
  if (v.kind != Kind::kNone) BadType(ev, v, std::string("expected a number or string for \"") + field + "\"");
  return -1;
}

int64_t KinetoParser::ArgInt(const RawEvent& ev, ArgKey k, int64_t fallback) {
  if (!ev.Has(k)) return fallback;
  const Value& v = ev.arg[k];
  int64_t out;
  if (v.kind == Kind::kNumber && json::ParseInt64(v.text, &out)) return out;
  // ROCm writes some numbers as strings ("size": "2560").
  if (v.kind == Kind::kString && !v.text.empty() && json::ParseInt64(v.text, &out)) return out;
  if (v.kind == Kind::kNull) return fallback;
  BadType(ev, v, std::string("expected an integer for args.\"") + kArgDisplayNames[k] + "\"");
  return fallback;
}

double KinetoParser::ArgDouble(const RawEvent& ev, ArgKey k, double fallback) {
  if (!ev.Has(k)) return fallback;
  const Value& v = ev.arg[k];
  double out;
  if (v.kind == Kind::kNumber && json::ParseDouble(v.text, &out)) return out;
  if (v.kind == Kind::kNull) return fallback;
  BadType(ev, v, std::string("expected a number for args.\"") + kArgDisplayNames[k] + "\"");
  return fallback;
}

std::string_view KinetoParser::ArgText(const RawEvent& ev, ArgKey k) {
  if (!ev.Has(k)) return {};
  return Text(ev.arg[k], &scratch_arg_, ev, kArgDisplayNames[k]);
}

StringId KinetoParser::ArgCompactJson(const RawEvent& ev, ArgKey k) {
  if (!ev.Has(k)) return kNoString;
  const Value& v = ev.arg[k];
  if (v.kind != Kind::kArray) {
    BadType(ev, v, std::string("expected an array for args.\"") + kArgDisplayNames[k] + "\"");
    return kNoString;
  }
  // Shapes and types repeat: remember raw text -> id so most events skip the compaction.
  RawJsonCacheEntry& e = raw_json_cache_[std::hash<std::string_view>()(v.text) & (raw_json_cache_.size() - 1)];
  if (e.raw == v.text) return e.id;
  json::CompactJson(v.text, &scratch_json_);
  e.raw.assign(v.text.data(), v.text.size());
  e.id = Intern(scratch_json_);
  return e.id;
}

// "grid": [50, 1, 1]
bool KinetoParser::ArgDim3(const RawEvent& ev, ArgKey k, uint32_t out[3]) {
  if (!ev.Has(k)) return false;
  const Value& v = ev.arg[k];
  if (v.kind == Kind::kArray) {
    std::string_view s = v.text.substr(1, v.text.size() - 2);
    uint32_t dims[3] = {0, 0, 0};
    int n = 0;
    bool ok = true;
    while (ok) {
      size_t a = s.find_first_not_of(" \t\r\n");
      if (a == std::string_view::npos) break;
      size_t b = s.find(',', a);
      std::string_view item = s.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\n' || item.back() == '\t' || item.back() == '\r'))
        item.remove_suffix(1);
      int64_t x;
      if (n >= 3 || !json::ParseInt64(item, &x) || x < 0 || x > UINT32_MAX) ok = false;
      else dims[n++] = static_cast<uint32_t>(x);
      if (b == std::string_view::npos) break;
      s.remove_prefix(b + 1);
    }
    if (ok && n > 0) {
      std::copy(dims, dims + 3, out);
      return true;
    }
  }
  BadType(ev, v, std::string("expected an array of up to 3 integers for args.\"") + kArgDisplayNames[k] + "\"");
  return false;
}

// ---------------------------------------------------------------------------------------
// Events -> tables

Status KinetoParser::OnEvent(const RawEvent& ev) {
  ++event_count_;
  if (ev.ph.kind != Kind::kString || ev.ph.text.empty()) {
    if (ev.ph.kind == Kind::kNone) {
      Diag("missing_field", Severity::kDataLoss, ev.begin, "event without \"ph\" (phase) skipped");
    } else {
      BadType(ev, ev.ph, "expected a string for \"ph\"");
    }
    return Status::Ok();
  }
  switch (ev.ph.text[0]) {
    case 'X': return OnComplete(ev);
    case 'i':
    case 'I': return OnInstant(ev);
    case 's':
    case 'f':
    case 't': return OnFlow(ev, ev.ph.text[0]);
    case 'C': return OnCounter(ev);
    case 'M': OnMetadata(ev); return Status::Ok();
    default:
      Diag("unsupported_phase", Severity::kInfo, ev.begin,
           "events with phase \"" + std::string(ev.ph.text.substr(0, 8)) + "\" are not modelled; skipped");
      return Status::Ok();
  }
}

Status KinetoParser::OnComplete(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "complete event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t start = 0, dur = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &start));
  if (ev.dur.kind == Kind::kNone) {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "complete event without \"dur\" read as zero-length");
  } else {
    AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.dur, "dur", &dur));
  }
  if (dur < 0) {
    Diag("negative_duration", Severity::kDataLoss, ev.dur.where,
         "negative \"dur\" " + std::string(ev.dur.text.substr(0, 24)) + " us; the event was read as zero-length");
    dur = 0;
  } else if (dur == 0) {
    Diag("zero_duration", Severity::kInfo, ev.begin, "event with zero duration");
  }
  // dur is within 0..2^62, so kMaxTraceTimeNs - dur cannot overflow, and neither can the sum.
  if (start > kMaxTraceTimeNs - dur) {
    return Fatal(ev.dur.where ? ev.dur.where : ev.begin,
                 "nonsense time: \"ts\" + \"dur\" ends beyond 2^62 ns (about year 2116)");
  }
  const int64_t end = start + dur;

  std::string_view cat = Text(ev.cat, &scratch_cat_, ev, "cat");
  EventClass cls = EventClass::kUnknown;
  if (!EventClasses().Find(cat, &cls)) {
    Diag("unknown_category", Severity::kInfo, ev.begin,
         "complete event with unknown category \"" + std::string(cat.substr(0, 64)) + "\" kept as an other event");
  }
  std::string_view name = Text(ev.name, &scratch_name_, ev, "name");
  const int64_t pid = Id(ev.pid, ev, "pid");
  const int64_t tid = Id(ev.tid, ev, "tid");

  if (cls == EventClass::kCpuOp && IsAnnotationOpName(name)) cls = EventClass::kUserAnnotation;

  switch (cls) {
    case EventClass::kKernel: {
      KernelEvent k;
      k.start_ns = start;
      k.end_ns = end;
      k.correlation = ArgInt(ev, kArgCorrelation, -1);
      k.external_id = ArgInt(ev, kArgExternalId, -1);
      k.name = Intern(name);
      k.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, pid));
      k.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, tid));
      ArgDim3(ev, kArgGrid, k.grid);
      ArgDim3(ev, kArgBlock, k.block);
      k.registers_per_thread = static_cast<int32_t>(ArgInt(ev, kArgRegisters, -1));
      // Kineto's "shared memory" is static + dynamic; the static part is not known.
      k.dynamic_shared_bytes = static_cast<int32_t>(ArgInt(ev, kArgSharedMemory, -1));
      k.blocks_per_sm = static_cast<float>(ArgDouble(ev, kArgBlocksPerSm, -1.0));
      k.est_occupancy_pct = static_cast<float>(ArgDouble(ev, kArgOccupancy, -1.0));
      if (ev.Has(kArgCollective) || ev.Has(kArgInNelems) || ev.Has(kArgOutNelems) || ev.Has(kArgPgName) ||
          ev.Has(kArgGroupSize)) {
        CommInfo c;
        c.collective = Intern(ArgText(ev, kArgCollective));
        c.dtype = Intern(ArgText(ev, kArgDtype));
        c.process_group = Intern(ArgText(ev, kArgPgName));
        c.process_group_desc = Intern(ArgText(ev, kArgPgDesc));
        c.in_nelems = ArgInt(ev, kArgInNelems, -1);
        c.out_nelems = ArgInt(ev, kArgOutNelems, -1);
        c.group_size = static_cast<int32_t>(ArgInt(ev, kArgGroupSize, -1));
        k.comm_index = static_cast<int32_t>(trace_.comm_infos.size());
        Append(trace_.comm_infos, c);
      }
      if (StartsWith(name, "Cijk_")) amd_evidence_ = true;
      Append(trace_.kernels, k);
      Append<uint64_t>(kernel_offsets_, OffsetOf(ev.begin));
      return Status::Ok();
    }
    case EventClass::kMemcpy: {
      MemcpyEvent m;
      m.start_ns = start;
      m.end_ns = end;
      m.correlation = ArgInt(ev, kArgCorrelation, -1);
      m.external_id = ArgInt(ev, kArgExternalId, -1);
      m.bytes = static_cast<uint64_t>(std::max<int64_t>(0, ArgInt(ev, kArgBytes, 0)));
      m.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, pid));
      m.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, tid));
      // "Memcpy HtoD (Pageable -> Device)"
      std::string_view rest = name;
      if (StartsWith(rest, "Memcpy ")) rest.remove_prefix(7);
      size_t sp = rest.find(' ');
      MemcpyKinds().Find(rest.substr(0, sp), &m.kind);
      size_t open = name.find('('), arrow = name.find(" -> "), close = name.rfind(')');
      if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
          open < arrow && arrow < close) {
        MemoryKinds().Find(name.substr(open + 1, arrow - open - 1), &m.src_kind);
        MemoryKinds().Find(name.substr(arrow + 4, close - arrow - 4), &m.dst_kind);
      }
      Append(trace_.memcpys, m);
      Append<uint64_t>(memcpy_offsets_, OffsetOf(ev.begin));
      return Status::Ok();
    }
    case EventClass::kMemset: {
      MemsetEvent m;
      m.start_ns = start;
      m.end_ns = end;
      m.correlation = ArgInt(ev, kArgCorrelation, -1);
      m.external_id = ArgInt(ev, kArgExternalId, -1);
      m.bytes = static_cast<uint64_t>(std::max<int64_t>(0, ArgInt(ev, kArgBytes, 0)));
      m.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, pid));
      m.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, tid));
      // "Memset (Device)"
      size_t open = name.find('('), close = name.rfind(')');
      if (open != std::string_view::npos && close != std::string_view::npos && open < close)
        MemoryKinds().Find(name.substr(open + 1, close - open - 1), &m.memory_kind);
      Append(trace_.memsets, m);
      Append<uint64_t>(memset_offsets_, OffsetOf(ev.begin));
      return Status::Ok();
    }
    case EventClass::kRuntime:
    case EventClass::kDriver: {
      ApiCall a;
      a.start_ns = start;
      a.end_ns = end;
      a.correlation = ArgInt(ev, kArgCorrelation, -1);
      a.external_id = ArgInt(ev, kArgExternalId, -1);
      a.pid = pid;
      a.tid = tid;
      a.name = Intern(name);
      a.cbid = static_cast<int32_t>(ArgInt(ev, kArgCbid, -1));
      // Driver calls are cu*, runtime calls cuda* (hip* on ROCm).
      a.domain = cls == EventClass::kDriver || (StartsWith(name, "cu") && !StartsWith(name, "cuda"))
                     ? ApiDomain::kDriver
                     : ApiDomain::kRuntime;
      if (StartsWith(name, "hip")) {
        amd_evidence_ = true;
        // ROCm puts the copy size and launch dimensions on the runtime call.
        if (a.correlation >= 0 && (ev.Has(kArgRocmSize) || ev.Has(kArgGrid))) {
          RuntimeLaunchInfo info;
          info.size_bytes = ArgInt(ev, kArgRocmSize, -1);
          info.has_dims = ArgDim3(ev, kArgGrid, info.grid) && ArgDim3(ev, kArgBlock, info.block);
          runtime_launch_info_[a.correlation] = info;
        }
      } else if (StartsWith(name, "cu")) {
        cuda_evidence_ = true;
      }
      if (trace_.metadata.pid < 0) trace_.metadata.pid = pid;
      Append(trace_.api_calls, a);
      return Status::Ok();
    }
    case EventClass::kSync: {
      SyncEvent s;
      s.start_ns = start;
      s.end_ns = end;
      s.correlation = ArgInt(ev, kArgCorrelation, -1);
      s.pid = pid;
      s.tid = tid;
      s.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, pid));
      s.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, tid));
      std::string_view kind = ev.Has(kArgSyncKind) ? ArgText(ev, kArgSyncKind) : name;
      if (!SyncKinds().Find(kind, &s.type) && !SyncKinds().Find(name, &s.type)) {
        Diag("unknown_sync_kind", Severity::kInfo, ev.begin,
             "cuda_sync event of unknown kind \"" + std::string(kind.substr(0, 64)) + "\"");
      }
      Append(trace_.syncs, s);
      return Status::Ok();
    }
    case EventClass::kCpuOp: {
      CpuOp op;
      op.start_ns = start;
      op.end_ns = end;
      op.pid = pid;
      op.tid = tid;
      op.external_id = ArgInt(ev, kArgExternalId, -1);
      op.sequence_number = ArgInt(ev, kArgSequenceNumber, -1);
      op.fwd_thread_id = ArgInt(ev, kArgFwdThreadId, -1);
      op.name = Intern(name);
      op.input_types = ArgCompactJson(ev, kArgInputType);
      op.input_dims = ArgCompactJson(ev, kArgInputDims);
      op.kernel_backend = Intern(ArgText(ev, kArgKernelBackend));
      if (trace_.metadata.pid < 0) trace_.metadata.pid = pid;
      Append(trace_.cpu_ops, op);
      return Status::Ok();
    }
    case EventClass::kUserAnnotation:
    case EventClass::kGpuAnnotation: {
      Range r;
      r.start_ns = start;
      r.end_ns = end;
      r.pid = pid;
      r.tid = tid;
      r.external_id = ArgInt(ev, kArgExternalId, -1);
      r.name = Intern(name);
      if (cls == EventClass::kGpuAnnotation) {
        r.kind = RangeKind::kGpuAnnotation;
        r.device = static_cast<int32_t>(pid);  // GPU rows: pid = device, tid = stream
      } else {
        r.kind = RangeKind::kCpuAnnotation;
      }
      Append(trace_.ranges, r);
      return Status::Ok();
    }
    case EventClass::kKnownOther:
    case EventClass::kUnknown: {
      if (!options_.keep_other_events) return Status::Ok();
      OtherEvent o;
      o.start_ns = start;
      o.end_ns = end;
      o.pid = pid;
      o.tid = tid;
      o.name = Intern(name);
      o.category = Intern(cat);
      o.phase = 'X';
      Append(trace_.other_events, o);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status KinetoParser::OnInstant(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "instant event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t ts = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &ts));
  std::string_view name = Text(ev.name, &scratch_name_, ev, "name");
  if (name == "[memory]") {
    MemoryEvent m;
    m.time_ns = ts;
    m.address = static_cast<uint64_t>(ArgInt(ev, kArgAddr, 0));
    m.bytes = ArgInt(ev, kArgMemBytes, 0);
    m.total_allocated = ArgInt(ev, kArgTotalAllocated, -1);
    m.total_reserved = ArgInt(ev, kArgTotalReserved, -1);
    // Device Type 0 is the CPU (c10::DeviceType::CPU); the rest name a GPU by "Device Id".
    int64_t device_type = ArgInt(ev, kArgDeviceType, 0);
    m.device = device_type == 0 ? -1 : static_cast<int32_t>(ArgInt(ev, kArgDeviceId, -1));
    m.op = m.bytes < 0 ? MemoryOp::kFree : MemoryOp::kAlloc;
    Append(trace_.memory_events, m);
    return Status::Ok();
  }
  if (!options_.keep_other_events) return Status::Ok();
  OtherEvent o;
  o.start_ns = ts;
  o.end_ns = ts;
  o.pid = Id(ev.pid, ev, "pid");
  o.tid = Id(ev.tid, ev, "tid");
  o.name = Intern(name);
  o.category = Intern(Text(ev.cat, &scratch_cat_, ev, "cat"));
  o.phase = 'i';
  Append(trace_.other_events, o);
  return Status::Ok();
}

Status KinetoParser::OnFlow(const RawEvent& ev, char phase) {
  if (ev.ts.kind == Kind::kNone) {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "flow event without \"ts\" skipped");
    return Status::Ok();
  }
  FlowEvent f;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &f.time_ns));
  if (ev.id.kind == Kind::kNumber || ev.id.kind == Kind::kString) {
    std::string_view t = ev.id.text;
    bool ok = json::ParseInt64(t, &f.id);
    if (!ok && ev.id.kind == Kind::kString && StartsWith(t, "0x") && t.size() > 2 && t.size() <= 18) {
      uint64_t v = 0;
      ok = true;
      for (char c : t.substr(2)) {
        int h = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (h < 0) ok = false;
        v = (v << 4) | static_cast<uint64_t>(h < 0 ? 0 : h);
      }
      f.id = static_cast<int64_t>(v);
    }
    if (!ok) BadType(ev, ev.id, "expected an integer flow \"id\"");
  } else {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "flow event without a usable \"id\"");
  }
  f.pid = Id(ev.pid, ev, "pid");
  f.tid = Id(ev.tid, ev, "tid");
  f.category = Intern(Text(ev.cat, &scratch_cat_, ev, "cat"));
  f.name = Intern(Text(ev.name, &scratch_name_, ev, "name"));
  f.phase = phase;
  f.bind_enclosing = ev.bp.kind == Kind::kString && ev.bp.text == "e";
  Append(trace_.flows, f);
  return Status::Ok();
}

Status KinetoParser::OnCounter(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag("missing_field", Severity::kDataLoss, ev.begin, "counter event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t ts = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &ts));
  std::string name(Text(ev.name, &scratch_name_, ev, "name"));
  size_t numeric = 0;
  for (const auto& [key, value] : ev.all_args) numeric += value.kind == Kind::kNumber;
  for (const auto& [key, value] : ev.all_args) {
    double v;
    if (value.kind != Kind::kNumber || !json::ParseDouble(value.text, &v)) {
      BadType(ev, value, "expected a number for a counter value");
      continue;
    }
    CounterSample c;
    c.time_ns = ts;
    // One series: the counter's name; several: "name.series".
    std::string series(key.text);
    c.name = Intern(numeric == 1 && !name.empty() ? name : (name.empty() ? series : name + "." + series));
    c.value = v;
    Append(trace_.counters, c);
  }
  return Status::Ok();
}

void KinetoParser::OnMetadata(const RawEvent& ev) {
  std::string_view what = Text(ev.name, &scratch_name_, ev, "name");
  const int64_t pid = Id(ev.pid, ev, "pid");
  const bool is_process_name = what == "process_name", is_labels = what == "process_labels",
             is_thread_name = what == "thread_name";
  if (!is_process_name && !is_labels && !is_thread_name) return;  // sort indexes and the like
  // Labelled pseudo-processes ("Spans", "Traces") have no numeric pid: nothing to name.
  if (pid < 0 && !(ev.pid.kind == Kind::kNumber)) return;
  std::string_view value = ArgText(ev, is_labels ? kArgMetaLabels : kArgMetaName);
  ProcessInfo& proc = trace_.processes[pid];
  std::string* slot = nullptr;
  if (is_thread_name) {
    int64_t tid = Id(ev.tid, ev, "tid");
    auto [it, inserted] = proc.thread_names.emplace(tid, std::string());
    if (!inserted) {
      Diag("duplicate_metadata", Severity::kInfo, ev.begin,
           "thread_name given again for pid " + std::to_string(pid) + " tid " + std::to_string(tid) + "; first kept");
      return;
    }
    slot = &it->second;
  } else {
    slot = is_labels ? &proc.labels : &proc.name;
    if (!slot->empty()) {
      Diag("duplicate_metadata", Severity::kInfo, ev.begin,
           std::string(what) + " given again for pid " + std::to_string(pid) + "; first kept");
      return;
    }
  }
  slot->assign(value.data(), value.size());
}

void KinetoParser::OnTopLevelMember(std::string_view key, const Value& value) {
  auto parse = [&](const char* what) -> nlohmann::json {
    nlohmann::json j = nlohmann::json::parse(value.text.begin(), value.text.end(), nullptr, false);
    if (j.is_discarded())
      Diag("bad_field_type", Severity::kDataLoss, value.where, std::string("unreadable ") + what + "; ignored");
    return j;
  };
  if (key == "deviceProperties" || key == "computeProperties") {
    if (value.kind != Kind::kArray) {
      Diag("bad_field_type", Severity::kDataLoss, value.where,
           std::string(key) + " should be an array, found " + json::KindName(value.kind));
      return;
    }
    nlohmann::json j = parse("deviceProperties");
    if (!j.is_discarded()) ReadDeviceProperties(j, key == "computeProperties");
    return;
  }
  if (key == "distributedInfo") {
    if (value.kind != Kind::kObject) {
      Diag("bad_field_type", Severity::kDataLoss, value.where,
           "distributedInfo should be an object, found " + std::string(json::KindName(value.kind)));
      return;
    }
    nlohmann::json j = parse("distributedInfo");
    if (!j.is_discarded()) ReadDistributedInfo(j);
    return;
  }
  // Scalars: versions, host and the like.
  std::string text;
  if (value.kind == Kind::kString) {
    if (!value.escaped || !json::DecodeString(value.text, &text)) text = std::string(value.text);
  } else if (value.kind == Kind::kNumber || value.kind == Kind::kBool) {
    text = std::string(value.text);
  } else {
    return;  // arrays/objects such as "INFO" logs are not kept
  }
  if (key == "cuda_runtime_version") {
    trace_.metadata.cuda_runtime_version = text;
  } else if (key == "cupti_version") {
    trace_.metadata.cupti_version = text;
  } else if (key == "cuda_driver_version") {
    trace_.metadata.driver_version = text;
  } else if (key == "host_name" || key == "hostname") {
    trace_.metadata.host = text;
  } else if (text.size() <= kMaxExtraValueChars) {
    trace_.metadata.extra[std::string(key)] = text;
  }
}

void KinetoParser::ReadDeviceProperties(const nlohmann::json& list, bool old_keys) {
  auto get_int = [](const nlohmann::json& o, std::initializer_list<const char*> keys, int64_t fallback) -> int64_t {
    for (const char* k : keys) {
      auto it = o.find(k);
      if (it != o.end() && it->is_number_integer()) return it->get<int64_t>();
    }
    return fallback;
  };
  for (const nlohmann::json& p : list) {
    if (!p.is_object()) continue;
    Device d;
    d.id = static_cast<int32_t>(get_int(p, {"id"}, -1));
    auto name = p.find("name");
    if (name != p.end() && name->is_string()) d.name = name->get<std::string>();
    d.cc_major = static_cast<int32_t>(get_int(p, {"computeMajor", "major"}, -1));
    d.cc_minor = static_cast<int32_t>(get_int(p, {"computeMinor", "minor"}, -1));
    d.sm_count = static_cast<int32_t>(get_int(p, {"numSms", "multiProcessorCount"}, -1));
    d.total_memory_bytes = get_int(p, {"totalGlobalMem"}, -1);
    d.max_threads_per_sm =
        static_cast<int32_t>(get_int(p, {"maxThreadsPerMultiprocessor", "maxThreadsPerMultiProcessor"}, -1));
    d.regs_per_sm = static_cast<int32_t>(get_int(p, {"regsPerMultiprocessor", "regsPerMultiProcessor"}, -1));
    d.shared_mem_per_sm =
        get_int(p, {"sharedMemPerMultiprocessor", "sharedMemPerMultiProcessor", "maxSharedMemoryPerMultiProcessor"}, -1);
    (void)old_keys;
    if (trace_.FindDevice(d.id) != nullptr) {
      Diag("duplicate_metadata", Severity::kInfo, nullptr, "deviceProperties lists device " + std::to_string(d.id) + " twice");
      continue;
    }
    trace_.devices.push_back(std::move(d));
  }
}

void KinetoParser::ReadDistributedInfo(const nlohmann::json& info) {
  auto rank = info.find("rank");
  if (rank != info.end() && rank->is_number_integer()) {
    trace_.metadata.rank = rank->get<int32_t>();
    have_rank_ = true;
  }
  auto ws = info.find("world_size");
  if (ws != info.end() && ws->is_number_integer()) trace_.metadata.world_size = ws->get<int32_t>();
  auto backend = info.find("backend");
  if (backend != info.end() && backend->is_string()) trace_.metadata.distributed_backend = backend->get<std::string>();
  auto nccl = info.find("nccl_version");
  if (nccl != info.end()) trace_.metadata.nccl_version = nccl->is_string() ? nccl->get<std::string>() : nccl->dump();
  auto pg_count = info.find("pg_count");
  if (pg_count != info.end() && pg_count->is_number_integer())
    trace_.metadata.extra["pg_count"] = std::to_string(pg_count->get<int64_t>());
}

// After the last event: joins and checks that need the whole trace.
void KinetoParser::Finish() {
  FlushDiagnostics();
  // correlation -> runtime call, for unmatched_correlation and synchronous copies.
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  by_corr.reserve(trace_.api_calls.size());
  for (size_t i = 0; i < trace_.api_calls.size(); ++i)
    if (trace_.api_calls[i].correlation >= 0)
      by_corr.emplace_back(trace_.api_calls[i].correlation, static_cast<uint32_t>(i));
  std::sort(by_corr.begin(), by_corr.end());
  auto find_call = [&](int64_t corr) -> const ApiCall* {
    auto it = std::lower_bound(by_corr.begin(), by_corr.end(), std::make_pair(corr, uint32_t{0}));
    return it != by_corr.end() && it->first == corr ? &trace_.api_calls[it->second] : nullptr;
  };
  auto unmatched = [&](const char* what, int64_t corr, uint64_t offset) {
    trace_.diagnostics.Add("unmatched_correlation", Severity::kDataLoss, static_cast<int64_t>(offset),
                           std::string(what) + " with correlation " + std::to_string(corr) +
                               " has no runtime call in the trace");
  };
  for (size_t i = 0; i < trace_.kernels.size(); ++i) {
    KernelEvent& k = trace_.kernels[i];
    if (find_call(k.correlation) == nullptr) unmatched("kernel", k.correlation, kernel_offsets_[i]);
    if (!runtime_launch_info_.empty() && k.grid[0] == 0) {
      auto it = runtime_launch_info_.find(k.correlation);
      if (it != runtime_launch_info_.end() && it->second.has_dims) {
        std::copy(it->second.grid, it->second.grid + 3, k.grid);
        std::copy(it->second.block, it->second.block + 3, k.block);
      }
    }
  }
  for (size_t i = 0; i < trace_.memcpys.size(); ++i) {
    MemcpyEvent& m = trace_.memcpys[i];
    const ApiCall* call = find_call(m.correlation);
    if (call == nullptr) {
      unmatched("memcpy", m.correlation, memcpy_offsets_[i]);
      continue;
    }
    std::string_view api = trace_.str(call->name);
    // cudaMemcpy / cuMemcpyDtoH / hipMemcpy... without "Async" block the host.
    if ((StartsWith(api, "cudaMemcpy") || StartsWith(api, "cuMemcpy") || StartsWith(api, "hipMemcpy")) &&
        !Contains(api, "Async"))
      m.async = false;
    if (m.bytes == 0 && !runtime_launch_info_.empty()) {
      auto it = runtime_launch_info_.find(m.correlation);
      if (it != runtime_launch_info_.end() && it->second.size_bytes > 0)
        m.bytes = static_cast<uint64_t>(it->second.size_bytes);
    }
  }
  for (size_t i = 0; i < trace_.memsets.size(); ++i)
    if (find_call(trace_.memsets[i].correlation) == nullptr)
      unmatched("memset", trace_.memsets[i].correlation, memset_offsets_[i]);
  kernel_offsets_ = {};
  memcpy_offsets_ = {};
  memset_offsets_ = {};

  // Vendor: from the device name; else from ROCm markers (hip* calls, Cijk_ kernels).
  for (Device& d : trace_.devices) {
    if (IsAmdDeviceName(d.name)) amd_evidence_ = true;
  }
  for (Device& d : trace_.devices) {
    if (IsAmdDeviceName(d.name) || (amd_evidence_ && !IsNvidiaDeviceName(d.name))) {
      d.vendor = GpuVendor::kAmd;
    } else {
      d.vendor = GpuVendor::kNvidia;
    }
  }
  // No deviceProperties (e.g. sampled traces): one entry per device that ran GPU work.
  if (trace_.devices.empty()) {
    std::set<int32_t> ids;
    for (const KernelEvent& k : trace_.kernels) ids.insert(k.device);
    for (const MemcpyEvent& m : trace_.memcpys) ids.insert(m.device);
    for (const MemsetEvent& m : trace_.memsets) ids.insert(m.device);
    ids.erase(-1);
    if (!ids.empty()) {
      trace_.diagnostics.Add("missing_device_properties", Severity::kInfo, -1,
                             "no deviceProperties in the trace; devices inferred from GPU events");
    }
    for (int32_t id : ids) {
      Device d;
      d.id = id;
      d.vendor = amd_evidence_ ? GpuVendor::kAmd : cuda_evidence_ ? GpuVendor::kNvidia : GpuVendor::kUnknown;
      trace_.devices.push_back(d);
    }
  }
  if (!have_rank_) trace_.metadata.rank = RankFromFileName(name_);

  FinalizeTrace(trace_);
}

}  // namespace

StatusOr<Trace> ReadKinetoTraceFromSource(ByteSource& source, const std::string& display_name,
                                          const KinetoReadOptions& options) {
  KinetoParser parser(source, display_name, options);
  return parser.Run();
}

StatusOr<Trace> ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  return ReadKinetoTraceFromSource(**source, path, options);
}

StatusOr<Trace> ReadKinetoTraceFromString(std::string_view json, const std::string& display_name,
                                          const KinetoReadOptions& options) {
  std::unique_ptr<ByteSource> source = MakeStringByteSource(json);
  return ReadKinetoTraceFromSource(*source, display_name, options);
}

}  // namespace ampscope

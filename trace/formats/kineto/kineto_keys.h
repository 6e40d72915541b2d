// Kineto keys and the raw event, shared by the tokenizer (which fills RawEvent with views into
// its window) and the event parser (which turns it into Trace rows). Internal to
// trace/formats/kineto/.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/io/json_scanner.h"
#include "trace/model.h"

namespace ampscope::kineto {

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
  kArgInputStrides,
  kArgConcreteInputs,
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
  kArgSeq,
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

// How "args" keys are named in messages, by ArgKey.
extern const char* const kArgDisplayNames[kArgCount];
const KeyTable<ArgKey>& ArgKeys();

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

// "cat" -> what the event is.
const KeyTable<EventClass>& EventClasses();
// cuda_sync "cuda_sync_kind" / name -> SyncType.
const KeyTable<SyncType>& SyncKinds();
// "HtoD", "DtoH", ... in "Memcpy HtoD (Pageable -> Device)".
const KeyTable<MemcpyKind>& MemcpyKinds();
// "Pageable", "Device", ... in the same names and in "Memset (Device)".
const KeyTable<MemoryKind>& MemoryKinds();

// One traceEvents element, as views into the input window.
struct RawEvent {
  const char* begin = nullptr;
  const char* end = nullptr;  // one past the closing '}'; set once the event is complete
  json::Value ph, cat, name, pid, tid, ts, dur, id, bp;
  json::Value args;  // only its kind and position (kNone if absent)
  uint64_t arg_mask = 0;
  std::array<json::Value, kArgCount> arg;
  std::vector<std::pair<json::Value, json::Value>> all_args;  // (key, value), kept only for counter events

  void Reset() {
    ph.kind = cat.kind = name.kind = pid.kind = tid.kind = ts.kind = dur.kind = id.kind = bp.kind = args.kind =
        json::Kind::kNone;
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


}  // namespace ampscope::kineto

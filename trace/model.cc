#include "trace/model.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_map>

#include "base/parallel.h"

namespace ampscope {

const char* SourceFormatName(SourceFormat f) {
  switch (f) {
    case SourceFormat::kKineto: return "kineto";
    case SourceFormat::kAmptrace: return "amptrace";
    case SourceFormat::kNsys: return "nsys";
    case SourceFormat::kMemorySnapshot: return "memory_snapshot";
    case SourceFormat::kNcu: return "ncu";
    default: return "unknown";
  }
}

const char* GpuVendorName(GpuVendor v) {
  switch (v) {
    case GpuVendor::kNvidia: return "nvidia";
    case GpuVendor::kAmd: return "amd";
    default: return "unknown";
  }
}

const char* MemcpyKindName(MemcpyKind k) {
  switch (k) {
    case MemcpyKind::kHtoD: return "HtoD";
    case MemcpyKind::kDtoH: return "DtoH";
    case MemcpyKind::kDtoD: return "DtoD";
    case MemcpyKind::kHtoH: return "HtoH";
    case MemcpyKind::kPtoP: return "PtoP";
    default: return "unknown";
  }
}

const char* MemoryKindName(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kArray: return "array";
    default: return "unknown";
  }
}

namespace {

uint64_t HashLaunch(const LaunchConfig& c) {
  uint32_t words[sizeof(LaunchConfig) / 4];
  std::memcpy(words, &c, sizeof words);
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (uint32_t w : words) {
    h ^= w;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  return h;
}

// Same bits: LaunchConfig has no padding (4-byte fields only, static_assert on its size).
bool SameLaunch(const LaunchConfig& a, const LaunchConfig& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The slot where `c` is, or the empty slot where it would go. `slots.size()` is a power of two.
size_t FindLaunchSlot(const std::vector<uint32_t>& slots, const std::vector<LaunchConfig>& configs,
                      const LaunchConfig& c) {
  const size_t mask = slots.size() - 1;
  size_t i = static_cast<size_t>(HashLaunch(c)) & mask;
  while (slots[i] != 0 && !SameLaunch(configs[slots[i] - 1], c)) i = (i + 1) & mask;
  return i;
}

}  // namespace

uint32_t Trace::InternLaunch(const LaunchConfig& c) {
  if (launch_configs.empty()) launch_configs.emplace_back();  // entry 0 stays the all-unknown one
  // Keep the table at most half full; (re)build it from launch_configs when it is missing
  // (after FinalizeTrace) or too small.
  if (launch_slots.size() < 2 * (launch_configs.size() + 1)) {
    size_t n = 16;
    while (n < 2 * (launch_configs.size() + 1)) n *= 2;
    launch_slots.assign(n, 0);
    for (size_t j = 0; j < launch_configs.size(); ++j) {
      const size_t at = FindLaunchSlot(launch_slots, launch_configs, launch_configs[j]);
      if (launch_slots[at] == 0) launch_slots[at] = static_cast<uint32_t>(j + 1);  // first of equal ones wins
    }
  }
  const size_t at = FindLaunchSlot(launch_slots, launch_configs, c);
  if (launch_slots[at] != 0) return launch_slots[at] - 1;
  launch_configs.push_back(c);
  launch_slots[at] = static_cast<uint32_t>(launch_configs.size());
  return static_cast<uint32_t>(launch_configs.size() - 1);
}

const char* SyncTypeName(SyncType t) {
  switch (t) {
    case SyncType::kEventSync: return "event_sync";
    case SyncType::kStreamWaitEvent: return "stream_wait_event";
    case SyncType::kStreamSync: return "stream_sync";
    case SyncType::kContextSync: return "context_sync";
    default: return "unknown";
  }
}

Device* Trace::AddDevice(Device d) {
  if (device_index.size() != devices.size()) {  // `devices` was edited directly: index it again
    device_index.clear();
    for (size_t i = 0; i < devices.size(); ++i) device_index.emplace(devices[i].id, static_cast<uint32_t>(i));
  }
  if (!device_index.emplace(d.id, static_cast<uint32_t>(devices.size())).second) return nullptr;
  devices.push_back(std::move(d));
  return &devices.back();
}

const Device* Trace::FindDevice(int32_t id) const {
  if (device_index.size() == devices.size()) {
    auto it = device_index.find(id);
    if (it == device_index.end()) return nullptr;
    if (it->second < devices.size() && devices[it->second].id == id) return &devices[it->second];
  }
  for (const Device& d : devices)
    if (d.id == id) return &d;
  return nullptr;
}

namespace {

// Tables shorter than this are sorted on one thread.
constexpr size_t kHalvesSortMinRows = size_t{1} << 16;

// std::stable_sort, or with 2+ threads and a large table: each half stably sorted (one beside
// the caller), then merged stably - the same order.
template <typename T, typename Less>
void StableSort(std::vector<T>& v, Less less, int threads) {
  if (threads < 2 || v.size() < kHalvesSortMinRows) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  {
    Beside upper(true, [&] { std::stable_sort(mid, v.end(), less); });
    std::stable_sort(v.begin(), mid, less);
    upper.Join();
  }
  std::inplace_merge(v.begin(), mid, v.end(), less);
}

template <typename T, typename Key>
bool SortIfNeeded(std::vector<T>& v, Key key, int threads) {
  auto less = [&](const T& a, const T& b) { return key(a) < key(b); };
  bool sorted = std::is_sorted(v.begin(), v.end(), less);
  if (!sorted) StableSort(v, less, threads);
  return !sorted;
}

}  // namespace

void FinalizeTrace(Trace& trace, int threads) {
  uint64_t resorted = 0;
  resorted += SortIfNeeded(trace.kernels, [](const KernelEvent& e) { return e.start_ns; }, threads);
  resorted += SortIfNeeded(trace.memcpys, [](const MemcpyEvent& e) { return e.start_ns; }, threads);
  resorted += SortIfNeeded(trace.memsets, [](const MemsetEvent& e) { return e.start_ns; }, threads);
  resorted += SortIfNeeded(trace.api_calls, [](const ApiCall& e) { return e.start_ns; }, threads);
  resorted += SortIfNeeded(trace.syncs, [](const SyncEvent& e) { return e.start_ns; }, threads);
  // Ranges and ops: by start, longer (enclosing) first so depth can be computed with a stack.
  const EnclosingFirst enclosing_first;
  if (!std::is_sorted(trace.ranges.begin(), trace.ranges.end(), enclosing_first)) {
    StableSort(trace.ranges, enclosing_first, threads);
    ++resorted;
  }
  if (!std::is_sorted(trace.cpu_ops.begin(), trace.cpu_ops.end(), enclosing_first)) {
    StableSort(trace.cpu_ops, enclosing_first, threads);
    ++resorted;
  }
  resorted += SortIfNeeded(trace.memory_events, [](const MemoryEvent& e) { return e.time_ns; }, threads);
  resorted += SortIfNeeded(trace.counters, [](const CounterSample& e) { return e.time_ns; }, threads);
  if (resorted > 0)
    trace.diagnostics.Add(DiagCode::kUnsortedEvents, -1,
                          "input events were not in time order; sorted after reading");
  // A kernel without a name (Kineto "" or a number, an unresolved nsys or .amptrace string id)
  // is kept with "": counted here, once for every format.
  uint64_t unnamed = 0;
  for (const KernelEvent& k : trace.kernels) unnamed += trace.str(k.name).empty() ? 1 : 0;
  trace.diagnostics.AddCount(DiagCode::kUnnamedKernel, unnamed, -1,
                             std::to_string(unnamed) + " kernels without a usable name, kept with the name \"\"");

  // The launch configurations are all in; their lookup table is only needed while reading.
  trace.launch_slots = {};

  // Nesting depth per (pid, tid, kind): a stack of open end times.
  std::unordered_map<uint64_t, std::vector<TimeNs>> open;
  for (Range& r : trace.ranges) {
    uint64_t key = (static_cast<uint64_t>(r.pid) * 1000003u) ^ (static_cast<uint64_t>(r.tid) << 3) ^
                   static_cast<uint64_t>(r.kind);
    std::vector<TimeNs>& stack = open[key];
    while (!stack.empty() && stack.back() <= r.start_ns) stack.pop_back();
    r.depth = static_cast<int16_t>(std::min<size_t>(stack.size(), static_cast<size_t>(kMaxRangeDepth)));
    stack.push_back(r.end_ns);
  }
}

}  // namespace ampscope

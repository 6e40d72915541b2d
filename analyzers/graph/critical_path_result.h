// The typed results of the dependency graph's replay (analyzers/graph/whatif.h): the critical
// path of each step and of the window with its breakdown, and how well the unchanged replay
// reproduces the measured steps. reports/ serialises it as the report's `critical_path` section
// (reports/critical_path_json.h); export/ draws its segments as a track. Times are int64 ns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/by_value_iterator.h"
#include "base/units.h"

namespace ampscope::graph {

// The breakdown's categories, in the report's order (dep_graph.h's PathCategory).
inline constexpr size_t kBreakdownCategories = 7;
// "gpu_compute", "gpu_memory", "communication", "kernel_launch_delay", "host_bound",
// "unrecorded_host", "sync_wait"
const char* BreakdownName(size_t category);

struct PathBreakdown {
  std::array<TimeNs, kBreakdownCategories> ns{};
  TimeNs gpu_gap_ns = 0;   // the part of gpu_compute and gpu_memory that is idle between activities on a stream
  TimeNs length_ns = 0;    // sum of ns
};

// The same path in HTA's `bound_by` names (hta/analyzers/critical_path_analysis.py), % of the
// path: host time (ops, calls, unrecorded time, waits) is cpu_bound; idle between activities on a
// stream is gpu_kernel_kernel_overhead; launch delay is gpu_kernel_launch_overhead; copies and
// memsets count as compute, as HTA counts them (docs/whatif.md compares the two).
struct HtaBoundBy {
  double cpu_bound = 0;
  double gpu_compute_bound = 0;
  double gpu_communication_bound = 0;
  double gpu_kernel_kernel_overhead = 0;
  double gpu_kernel_launch_overhead = 0;
};
HtaBoundBy HtaBoundByOf(const PathBreakdown& b);

struct CriticalPathStep {
  int64_t number = -1;        // the step's number (ProfilerStep#N), -1: the window without steps
  TimeNs measured_ns = 0;     // the step's duration (analyzers/context/steps.cc)
  TimeNs replayed_ns = 0;     // the unchanged replay's
  PathBreakdown path;         // length_ns == replayed_ns
};

// The steps' paths, one a step, kept sparse: a step's path has time in two or three of its
// seven categories (96 B dense), its length is its replayed time, its measured time is close to
// that or equal, and the steps are numbered in a row. A step keeps its replayed time and its
// first piece (12 B); a piece is a value that is not what those give (a category with time, the
// gpu gap, a length, measured time or number that differ): 9 B. A step is read whole, by value
// (operator[], the iterators), exactly as it was added.
class CriticalPathSteps {
 public:
  void Add(const CriticalPathStep& step);
  // Room for `steps` steps of two pieces each.
  void Reserve(size_t steps);
  // Frees the pieces' growth slack when more than a quarter of it is unused.
  void TrimSlack();

  size_t size() const { return replayed_ns_.size(); }
  bool empty() const { return replayed_ns_.empty(); }
  CriticalPathStep operator[](size_t i) const;
  size_t pieces() const { return piece_value_.size(); }
  size_t allocated_bytes() const;

  using Iterator = ByValueIterator<CriticalPathSteps, CriticalPathStep>;
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  // A piece's slot: 0..6 the categories, then these.
  enum Slot : uint8_t { kGpuGap = kBreakdownCategories, kLength, kMeasured, kNumber };
  int64_t first_number_ = 0;            // step i's number is first_number_ + i unless a piece says
  std::vector<TimeNs> replayed_ns_;     // per step
  std::vector<uint32_t> first_piece_;   // per step: its first piece (the next step's ends it)
  std::vector<uint8_t> piece_slot_;     // per piece
  std::vector<int64_t> piece_value_;    // per piece
};

// One stretch of the critical path, for the trace export. `ref` indexes the trace table of `what`.
struct CriticalPathSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  uint8_t category = 0;       // index into the breakdown categories
  uint8_t what = 0;           // 0 host time, 1 runtime call, 2 kernel, 3 memcpy, 4 memset, 5 a delay before
                              // a node (launch, stream gap, wake-up), 6 work of an earlier step
  uint32_t ref = 0xFFFFFFFFu; // kernels / memcpys / memsets / api_calls index (0xFFFFFFFF: none)
};

struct CriticalPathResult {
  bool available = false;
  std::string reason;                    // when not available: why
  CriticalPathSteps steps;               // one per analysed step, or one for the window
  PathBreakdown window;                  // summed over the steps
  TimeNs measured_window_ns = 0;
  TimeNs replayed_window_ns = 0;
  double replay_error_pct = 0;           // the worst step's |replayed - measured| / measured x 100
  int64_t worst_step = -1;               // its number
  uint64_t nodes = 0;                    // over all steps' graphs
  uint64_t edges = 0;
  TimeNs launch_latency_ns = 0;          // kept on launch edges (graph_builder.cc)
  uint64_t hidden_waits = 0;             // host gaps that waited for GPU work with no recorded sync
  std::vector<CriticalPathSegment> segments;  // merged, in time order, at most kMaxSegments
  bool segments_truncated = false;
  static constexpr size_t kMaxSegments = 20000;
};

}  // namespace ampscope::graph

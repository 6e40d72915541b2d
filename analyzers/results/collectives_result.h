// Typed results of the collective analysis (analyzers/collectives/collectives.h): each rank's collective
// calls with the time before each one, and the cross-rank view (matched collectives, arrival
// skew, bus bandwidth, per-rank balance, the straggler). The report writes them as the job's
// `collectives` block (reports/collectives_json.h, docs/report_schema.md).
// Times are int64 ns (fields end in _ns); bytes are bytes, -1 when not known.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/units.h"
#include "trace/classify/collective_roles.h"

namespace ampscope {

// Where a rank's time went between the end of its previous collective (or the start of the
// step, for the first collective of a step) and the start of the next one, on its main GPU.
enum class PreCollectiveBucket : uint8_t {
  kCompute,         // non-communication kernels running
  kCommunication,   // other communication kernels running (another stream, another group)
  kDataLoader,      // GPU idle while the host fetched a batch (DataLoader ranges)
  kHostSync,        // GPU idle while the host was blocked in a sync (not GradScaler's)
  kGradScalerSync,  // GPU idle behind GradScaler's found_inf check
  kLaunchGaps,      // GPU idle because the host did not launch fast enough (host_launch gaps, kernel_wait)
  kOther,           // the rest of the window (copies, allocator, other idle)
  kCount
};
inline constexpr size_t kPreCollectiveBuckets = static_cast<size_t>(PreCollectiveBucket::kCount);
// "compute", "communication", "data_loader", "host_sync", "grad_scaler_sync", "launch_gaps", "other"
const char* PreCollectiveBucketName(PreCollectiveBucket b);

struct PreCollectiveTime {
  TimeNs window_start_ns = 0;     // end of the previous collective, or the step start
  bool from_step_start = false;   // the window starts at the step start (first collective of the step)
  std::array<TimeNs, kPreCollectiveBuckets> ns{};  // sums to the window length
};

// One collective kernel on one rank.
struct CollectiveCall {
  CollectiveType type = CollectiveType::kUnknown;
  std::string process_group;   // Kineto "Process Group Name" (or description); "" unknown
  int64_t seq = -1;            // NCCL/c10d sequence number, -1 when the trace has none
  int64_t ordinal = 0;         // position among this rank's collectives with the same match key
  std::string match_key;       // process group, else "stream#<k>" (k-th NCCL stream in first-use order)
  int32_t device = -1;
  int32_t stream = -1;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t bytes = -1;          // message size per rank (NCCL-tests' "size"), -1 unknown
  std::string bytes_source;    // "Collective args" | "op inputs" | "" (unknown: see bytes_unknown_why)
  std::string bytes_unknown_why;
  std::string dtype;           // "" unknown
  int32_t group_size = -1;     // ranks in the group, -1 unknown
  int64_t step_index = -1;     // the analysed step it started in, -1 outside the steps
  std::string kernel;          // short kernel name
  PreCollectiveTime before;    // valid when step_index >= 0
  // Time of this kernel on its step's critical path (analyzers/graph/): what a shorter wait
  // at this collective can save this rank at most; -1 when not known.
  TimeNs critical_path_ns = -1;
};

// What the cross-rank analysis needs of a rank besides its calls.
struct RankCommInfo {
  std::string host;             // "" unknown
  int32_t world_size = -1;
  double link_gbs = 0;          // per-direction peak of the GPU's link to its peers, 0 unknown
  std::string link;             // "NVLink (peak table row V100-SXM2-16/32GB)", or why unknown
};

// One collective matched across ranks.
struct MatchedCollective {
  std::string match_key;
  int64_t index = 0;            // seq when the ranks have it, else the ordinal
  bool by_seq = false;
  CollectiveType type = CollectiveType::kUnknown;
  int32_t ranks = 0;            // ranks that have it
  int32_t first_rank = -1;      // the rank that arrived first / last
  int32_t last_rank = -1;
  TimeNs first_start_ns = 0;
  TimeNs last_start_ns = 0;
  std::optional<TimeNs> skew_ns;        // last start - first start; empty when clocks do not agree
  std::optional<TimeNs> last_delay_ns;  // last start - next-to-last start (the wait the last rank alone causes)
  std::optional<TimeNs> wait_ns;        // summed over ranks: last start - own start
  std::optional<TimeNs> transfer_ns;    // overlap of all ranks' kernels (first end - last start)
  TimeNs end_spread_ns = 0;             // last end - first end (clock agreement check)
  int64_t bytes = -1;                   // per rank, -1 unknown
  std::optional<double> algbw_gbs;      // bytes / transfer time
  std::optional<double> busbw_gbs;      // algbw x NCCL's bus factor for the type and group size
  std::optional<double> busbw_pct_of_link;
  bool type_mismatch = false;           // the ranks disagree on the type (matched anyway)
};

// The local cause on the straggler: the component of its lateness (against the median of the
// other ranks before the same collective) that is largest.
struct StragglerCause {
  std::string name;          // a PreCollectiveBucket name, or "late_step_start"
  TimeNs excess_ns = 0;      // the straggler's time minus the other ranks' median
  std::array<TimeNs, kPreCollectiveBuckets> rank_ns{};    // the straggler's window
  std::array<TimeNs, kPreCollectiveBuckets> others_median_ns{};
  TimeNs late_step_start_ns = 0;  // its step started this much after the others' median (first collective of a step)
};

struct StragglerResult {
  int32_t rank = -1;
  TimeNs max_skew_ns = 0;         // the worst skew among the collectives it arrived last at
  size_t worst = 0;               // index into CrossRankResult::collectives of that collective
  TimeNs wait_caused_ns = 0;      // sum of last_delay over the collectives it arrived last at
  TimeNs others_wait_ns = 0;      // mean over the other ranks of their wait for it (those collectives)
  std::vector<size_t> collectives;  // indices into CrossRankResult::collectives where it arrived last
  StragglerCause cause;
  TimeNs job_step_ns = 0;         // the step time the saving is relative to
  // The replayed saving of removing its delay (analyzers/graph/, docs/whatif.md): per waiting
  // rank, its collectives' waits for the straggler that lie on its critical path; the job's
  // window is its slowest rank's. -1: the ranks' critical paths are not known.
  TimeNs replayed_saving_ns = -1;
  TimeNs job_window_ns = 0;       // the slowest rank's analysed window
};

// A rank's clock against the others', read from the ends of the collectives it shares with
// them (they end together on every rank): its median end minus the collectives' median end.
struct ClockOffset {
  TimeNs offset_ns = 0;
  size_t collectives = 0;  // how many it was measured on
};

struct CrossRankResult {
  size_t ranks = 0;
  bool clocks_comparable = false;
  std::string clock_note;           // why they are (or are not) comparable
  std::vector<std::optional<ClockOffset>> clock_offsets;  // per rank (input order); empty: no matched collective
  std::vector<MatchedCollective> collectives;
  size_t unmatched_calls = 0;       // calls that no other rank has
  std::optional<StragglerResult> straggler;
};

}  // namespace ampscope

// Per-rank collective calls and the cross-rank view. See collectives.h and docs/findings.md
// (`straggler`).
#include "analyzers/collectives/collectives.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analyzers/context/context.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/graph/transforms.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "analyzers/roofline/op_models.h"
#include "base/saturating.h"

namespace ampscope {

const char* PreCollectiveBucketName(PreCollectiveBucket b) {
  switch (b) {
    case PreCollectiveBucket::kCompute: return "compute";
    case PreCollectiveBucket::kCommunication: return "communication";
    case PreCollectiveBucket::kDataLoader: return "data_loader";
    case PreCollectiveBucket::kHostSync: return "host_sync";
    case PreCollectiveBucket::kGradScalerSync: return "grad_scaler_sync";
    case PreCollectiveBucket::kLaunchGaps: return "launch_gaps";
    case PreCollectiveBucket::kOther:
    case PreCollectiveBucket::kCount: break;
  }
  return "other";
}

namespace {

using B = PreCollectiveBucket;

// ---------------------------------------------------------------------------------------
// One rank

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

// Bytes per element of the dtype names Kineto writes in "dtype" (c10::ScalarType names).
int ScalarTypeBytes(std::string_view t) {
  static const std::map<std::string_view, int> kSizes = {
      {"Float", 4}, {"Half", 2},  {"BFloat16", 2}, {"Double", 8},        {"Long", 8},         {"Int", 4},
      {"Short", 2}, {"Char", 1},  {"Byte", 1},     {"Bool", 1},          {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
      {"ComplexFloat", 8},       {"ComplexDouble", 16}};
  auto it = kSizes.find(t);
  return it == kSizes.end() ? 0 : it->second;
}

// NCCL-tests' message size of a collective from Kineto's collective args: the input, except
// all-gather whose size is its output (nccl-tests doc/PERFORMANCE.md).
int64_t CommInfoBytes(const CommInfo& c, CollectiveType type, int elem_bytes) {
  if (elem_bytes <= 0) return -1;
  int64_t n = type == CollectiveType::kAllGather ? c.out_nelems : c.in_nelems;
  if (n < 0) n = std::max(c.in_nelems, c.out_nelems);
  return n < 0 ? -1 : SaturatingMul(n, static_cast<int64_t>(elem_bytes));
}

// The largest tensor argument of a c10d op: the full buffer of all-gather (output) and
// reduce-scatter (input), the message of the others.
int64_t LargestTensorBytes(const Trace& trace, const CpuOp& op, std::string* why) {
  if (op.input_dims == kNoString) {
    *why = "the trace has no recorded shapes (record_shapes off)";
    return -1;
  }
  StatusOr<roofline::OpArgs> args = roofline::ParseOpArgs(trace.str(op.input_dims), trace.str(op.input_types), "", "");
  if (!args.ok()) {
    *why = "the op's recorded inputs could not be read: " + args.status().message();
    return -1;
  }
  int64_t best = -1;
  for (size_t i = 0; i < args->dims.size() && i < args->types.size(); ++i) {
    const roofline::DtypeInfo d = roofline::DtypeOf(args->types[i]);
    if (d.bytes <= 0 || args->dims[i].empty()) continue;
    int64_t n = 1;
    for (int64_t e : args->dims[i]) n = SaturatingMul(n, std::max<int64_t>(e, 0));
    best = std::max(best, SaturatingMul(n, static_cast<int64_t>(d.bytes)));
  }
  if (best < 0) *why = "the op's inputs carry no tensor sizes (e.g. a TensorList)";
  return best;
}

// Type and size from the ops around the kernel: the innermost c10d op or NCCL annotation whose
// name is a collective.
void FromOps(const RankContext& ctx, size_t kernel, CollectiveCall& call) {
  const OpTree& tree = ctx.op_tree();
  const Trace& trace = ctx.trace();
  std::string why = "no c10d op around the kernel";
  bool typed_by_op = false;
  for (OpTree::NodeId n = tree.node_of_kernel(static_cast<uint32_t>(kernel)); n != OpTree::kNoNode; n = tree.parent(n)) {
    const CollectiveType t = CollectiveTypeOfName(trace.str(tree.name(n)));
    if (t == CollectiveType::kUnknown) continue;
    // NCCL runs all-to-all as grouped send/recv: the op says which it was.
    if (!typed_by_op && (call.type == CollectiveType::kUnknown || call.type == CollectiveType::kSendRecv)) {
      call.type = t;
      typed_by_op = true;
    }
    const CpuOp* op = tree.cpu_op(n);
    if (op == nullptr || call.bytes >= 0) continue;
    const int64_t b = LargestTensorBytes(trace, *op, &why);
    if (b >= 0) {
      call.bytes = b;
      call.bytes_source = "op inputs";
    }
  }
  if (call.bytes < 0 && call.bytes_unknown_why.empty()) call.bytes_unknown_why = why;
}

// The bucket of each idle-gap cause (context.h's IdleCause).
B BucketOfCause(IdleCause c) {
  switch (c) {
    case IdleCause::kDataLoader: return B::kDataLoader;
    case IdleCause::kSync: return B::kHostSync;
    case IdleCause::kScalerSync: return B::kGradScalerSync;
    case IdleCause::kHost: return B::kLaunchGaps;
    default: return B::kOther;
  }
}

// Where the main GPU's time went in [start, end): busy (compute, communication, copies) from the
// merged intervals; idle from the gaps and their causes (a gap partly inside the window brings
// its causes in proportion to the part inside). The rest is "other", so the buckets sum to the window.
std::array<TimeNs, kPreCollectiveBuckets> BucketsIn(const RankContext& ctx, const std::vector<int64_t>& causes_of_gap,
                                                    TimeNs start, TimeNs end) {
  std::array<TimeNs, kPreCollectiveBuckets> ns{};
  if (end <= start) return ns;
  const BusyIntervals& busy = ctx.busy();
  const TimeNs busy_main = OverlapNs(busy.main(), start, end);
  const TimeNs compute = std::min(OverlapNs(busy.compute(), start, end), busy_main);
  const TimeNs comm = std::min(OverlapNs(busy.comm, start, end), busy_main - compute);
  ns[static_cast<size_t>(B::kCompute)] = compute;
  ns[static_cast<size_t>(B::kCommunication)] = comm;
  const std::vector<IdleGap>& gaps = ctx.idle_gaps();
  // Gaps are by start time, devices interleaved: begin at the main device's last gap that
  // starts before the window (it may reach into it).
  auto it = std::lower_bound(gaps.begin(), gaps.end(), start, [](const IdleGap& g, TimeNs t) { return g.start_ns < t; });
  while (it != gaps.begin()) {
    --it;
    if (it->device == busy.main_device) break;
  }
  for (; it != gaps.end() && it->start_ns < end; ++it) {
    const IdleGap& g = *it;
    if (g.device != busy.main_device) continue;
    const TimeNs inside = std::min(g.end_ns, end) - std::max(g.start_ns, start);
    if (inside <= 0) continue;
    if (g.kind == IdleKind::kKernelWait) {
      SatAccumulate(ns[static_cast<size_t>(B::kLaunchGaps)], inside);
      continue;
    }
    const int64_t ci = causes_of_gap[static_cast<size_t>(it - gaps.begin())];
    const TimeNs len = g.end_ns - g.start_ns;
    if (ci < 0 || len <= 0) {
      SatAccumulate(ns[static_cast<size_t>(B::kOther)], inside);
      continue;
    }
    const GapCauses gc = ctx.gap_causes()[static_cast<size_t>(ci)];
    for (size_t c = 0; c < kIdleCauses; ++c) {
      if (gc.ns[c] <= 0) continue;
      const double share = static_cast<double>(gc.ns[c]) * static_cast<double>(inside) / static_cast<double>(len);
      SatAccumulate(ns[static_cast<size_t>(BucketOfCause(static_cast<IdleCause>(c)))], static_cast<TimeNs>(share));
    }
  }
  TimeNs sum = 0;
  for (size_t b = 0; b < kPreCollectiveBuckets; ++b)
    if (b != static_cast<size_t>(B::kOther)) SatAccumulate(sum, ns[b]);
  ns[static_cast<size_t>(B::kOther)] = std::max<TimeNs>(0, (end - start) - sum);
  return ns;
}

RankCommInfo CommInfoOf(const RankContext& ctx) {
  RankCommInfo info;
  const Trace& trace = ctx.trace();
  info.host = trace.metadata.host;
  info.world_size = trace.metadata.world_size;
  const Device* dev = ctx.busy().main_device_info;
  const std::string& override_name = ctx.options().gpu_override;
  const GpuPeak* peak = nullptr;
  if (!override_name.empty()) {
    peak = LookupGpuPeak(override_name);
  } else if (dev != nullptr) {
    GpuQuery q;
    q.name = dev->name;
    q.sm_count = std::max(0, dev->sm_count);
    q.memory_bytes = std::max<int64_t>(0, dev->total_memory_bytes);
    peak = MatchGpu(q).peak;
  }
  if (peak == nullptr) {
    info.link = "unknown: the GPU is not in the peak table";
  } else if (peak->nvlink_gbs > 0) {
    info.link_gbs = peak->nvlink_gbs / 2.0;
    info.link = "NVLink, per direction (peak table row " + peak->id + ")";
  } else if (peak->pcie_gbs > 0) {
    info.link_gbs = peak->pcie_per_direction_gbs();
    info.link = "PCIe, per direction (peak table row " + peak->id + ")";
  } else {
    info.link = "unknown: the peak table has no link figure for " + peak->id;
  }
  return info;
}

}  // namespace

void ExtractCollectives(const RankContext& ctx, RankAnalysis& ra) {
  const Trace& trace = ctx.trace();
  ra.comm = CommInfoOf(ctx);
  ra.collectives.clear();
  std::map<int32_t, size_t> stream_order;  // NCCL stream -> k (first-use order)
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    // NCCL/RCCL collectives, and the communication families whose class names the collective
    // (DeepEP's dispatch/combine: all-to-all).
    const KernelClass& cls = ctx.kernel_class(i);
    if (cls.role != KernelRole::kNcclCollective && cls.collective == CollectiveType::kUnknown) continue;
    const KernelEvent& k = trace.kernels[i];
    CollectiveCall c;
    c.type = cls.collective != CollectiveType::kUnknown ? cls.collective : CollectiveTypeOfKernel(trace.str(k.name));
    c.device = k.device;
    c.stream = k.stream;
    c.start_ns = k.start_ns;
    c.end_ns = k.end_ns;
    c.kernel = ShortName(trace.str(k.name), 60);
    if (k.comm_index >= 0 && static_cast<size_t>(k.comm_index) < trace.comm_infos.size()) {
      const CommInfo& ci = trace.comm_infos[static_cast<size_t>(k.comm_index)];
      const CollectiveType named = CollectiveTypeOfName(trace.str(ci.collective));
      if (named != CollectiveType::kUnknown) c.type = named;
      c.process_group = std::string(trace.str(ci.process_group));
      if (c.process_group.empty()) c.process_group = std::string(trace.str(ci.process_group_desc));
      c.dtype = std::string(trace.str(ci.dtype));
      c.group_size = ci.group_size;
      c.seq = ci.seq;
      c.bytes = CommInfoBytes(ci, c.type, ScalarTypeBytes(c.dtype));
      if (c.bytes >= 0) {
        c.bytes_source = "Collective args";
      } else {
        c.bytes_unknown_why = "the collective args carry no element count or a dtype of unknown size";
      }
    }
    FromOps(ctx, i, c);
    if (c.process_group.empty()) {
      auto it = stream_order.emplace(k.stream, stream_order.size()).first;
      c.match_key = "stream#" + std::to_string(it->second);
    } else {
      c.match_key = c.process_group;
    }
    c.step_index = ctx.StepAt(k.start_ns);
    ra.collectives.push_back(std::move(c));
  }
  std::stable_sort(ra.collectives.begin(), ra.collectives.end(),
                   [](const CollectiveCall& a, const CollectiveCall& b) { return a.start_ns < b.start_ns; });
  // Ordinals per match key, and the window before each call.
  std::map<std::string, int64_t> next;
  std::vector<int64_t> causes_of_gap(ctx.idle_gaps().size(), -1);
  for (size_t c = 0; c < ctx.gap_causes().size(); ++c) {
    const uint32_t g = ctx.gap_causes().gap(c);
    if (g < causes_of_gap.size()) causes_of_gap[g] = static_cast<int64_t>(c);
  }
  TimeNs prev_end = std::numeric_limits<TimeNs>::min();
  for (CollectiveCall& c : ra.collectives) {
    c.ordinal = next[c.match_key]++;
    if (c.step_index >= 0) {
      const StepWindow& s = ctx.steps().steps[static_cast<size_t>(c.step_index)];
      c.before.from_step_start = prev_end <= s.start_ns;
      c.before.window_start_ns = std::min(c.start_ns, std::max(prev_end, s.start_ns));
      c.before.ns = BucketsIn(ctx, causes_of_gap, c.before.window_start_ns, c.start_ns);
    }
    prev_end = std::max(prev_end, c.end_ns);
  }
}

// ---------------------------------------------------------------------------------------
// Across ranks

namespace {

// NCCL's bus-bandwidth factor (nccl-tests doc/PERFORMANCE.md): busBw = algBw x factor.
std::optional<double> BusFactor(CollectiveType t, int32_t n) {
  if (n < 1) return std::nullopt;
  const double r = static_cast<double>(n - 1) / static_cast<double>(n);
  switch (t) {
    case CollectiveType::kAllReduce: return 2.0 * r;
    case CollectiveType::kAllGather:
    case CollectiveType::kReduceScatter:
    case CollectiveType::kAllToAll: return r;
    case CollectiveType::kBroadcast:
    case CollectiveType::kReduce:
    case CollectiveType::kSendRecv: return 1.0;
    default: return std::nullopt;
  }
}

template <typename T>
T Median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : static_cast<T>((v[m - 1] + v[m]) / 2);
}

struct Member {
  size_t rank;  // index into the ranks
  const CollectiveCall* call;
};

void Clocks(const std::vector<const RankAnalysis*>& ranks, CrossRankResult& out) {
  std::set<std::string> hosts;
  size_t unknown = 0;
  for (const RankAnalysis* r : ranks) {
    if (r->comm.host.empty()) {
      ++unknown;
    } else {
      hosts.insert(r->comm.host);
    }
  }
  if (hosts.size() > 1) {
    std::string list;
    for (const std::string& h : hosts) list += (list.empty() ? "" : ", ") + h;
    out.clocks_comparable = false;
    out.clock_note = fmt::format(
        "not comparable: the ranks ran on {} hosts ({}) and the traces carry no calibration between their "
        "clocks, so arrival skew is not measured",
        hosts.size(), list);
    return;
  }
  if (unknown == 0 && !hosts.empty()) {
    out.clocks_comparable = true;
    out.clock_note = "one host (" + *hosts.begin() + "): one clock";
    return;
  }
  // No host recorded (Kineto writes none): judge by the collectives' ends.
  std::vector<TimeNs> spreads;
  for (const MatchedCollective& m : out.collectives) spreads.push_back(m.end_spread_ns);
  if (spreads.empty()) {
    out.clocks_comparable = false;
    out.clock_note = "unknown: the traces record no host and no collective is matched across ranks";
    return;
  }
  const TimeNs med = Median(spreads);
  out.clocks_comparable = med <= kClockAgreementNs;
  out.clock_note = fmt::format(
      "{}: the traces record no host; matched collectives end within {:.1f} µs of each other across ranks "
      "(median){}",
      out.clocks_comparable ? "comparable" : "not comparable", static_cast<double>(med) / 1e3,
      out.clocks_comparable ? ", as on one clock" : fmt::format(", more than {:.0f} µs", kClockAgreementNs / 1e3));
}

// A collective ends on every rank at nearly the same moment (it completes when the last data
// arrives), so on a rank whose clock is offset its ends are offset by as much: each rank's offset
// is the median, over the collectives it has, of its end minus the median end of that collective.
void ClockOffsets(size_t nranks, const std::vector<std::vector<Member>>& members, CrossRankResult& out) {
  std::vector<std::vector<TimeNs>> deviations(nranks);
  for (const std::vector<Member>& m : members) {
    std::vector<TimeNs> ends;
    for (const Member& mb : m) ends.push_back(mb.call->end_ns);
    const TimeNs median = Median(ends);
    for (const Member& mb : m) deviations[mb.rank].push_back(mb.call->end_ns - median);
  }
  out.clock_offsets.assign(nranks, std::nullopt);
  for (size_t r = 0; r < nranks; ++r)
    if (!deviations[r].empty()) out.clock_offsets[r] = ClockOffset{Median(deviations[r]), deviations[r].size()};
}

void Measure(const std::vector<const RankAnalysis*>& ranks, const std::vector<Member>& members, MatchedCollective& m) {
  TimeNs first_end = std::numeric_limits<TimeNs>::max(), last_end = std::numeric_limits<TimeNs>::min();
  TimeNs shortest = std::numeric_limits<TimeNs>::max();
  std::vector<std::pair<TimeNs, size_t>> starts;
  for (const Member& mb : members) {
    const CollectiveCall& c = *mb.call;
    starts.emplace_back(c.start_ns, mb.rank);
    first_end = std::min(first_end, c.end_ns);
    last_end = std::max(last_end, c.end_ns);
    shortest = std::min(shortest, c.end_ns - c.start_ns);
    if (m.bytes < 0) m.bytes = c.bytes;
    if (c.type != m.type) m.type_mismatch = true;
  }
  std::sort(starts.begin(), starts.end());
  m.ranks = static_cast<int32_t>(members.size());
  m.first_rank = ranks[starts.front().second]->rank;
  m.last_rank = ranks[starts.back().second]->rank;
  m.first_start_ns = starts.front().first;
  m.last_start_ns = starts.back().first;
  m.end_spread_ns = last_end - first_end;
  // Without one clock the last arrival's own kernel is the transfer (it waits for nobody).
  m.transfer_ns = std::max<TimeNs>(0, shortest);
}

// Algorithm and bus bandwidth over the transfer time, against the slowest rank's link.
void Bandwidth(const std::vector<const RankAnalysis*>& ranks, const std::vector<Member>& members, bool one_host,
               MatchedCollective& m) {
  double link = 0;
  bool link_known = one_host;  // across hosts the link is the network: not in the peak table
  int32_t group = -1;
  for (const Member& mb : members) {
    if (group < 0) group = mb.call->group_size;
    const double l = ranks[mb.rank]->comm.link_gbs;
    if (l <= 0) link_known = false;
    link = link == 0 ? l : std::min(link, l);
  }
  if (group < 1) group = m.ranks;
  const std::optional<double> factor = BusFactor(m.type, group);
  if (m.bytes < 0 || !m.transfer_ns || *m.transfer_ns <= 0) return;
  m.algbw_gbs = static_cast<double>(m.bytes) / static_cast<double>(*m.transfer_ns);
  if (factor) m.busbw_gbs = *m.algbw_gbs * *factor;
  if (m.busbw_gbs && link_known && link > 0) m.busbw_pct_of_link = 100.0 * *m.busbw_gbs / link;
}

// Skew, waits and the overlap transfer time, once the clocks are known to agree.
void MeasureArrivals(const std::vector<Member>& members, MatchedCollective& m) {
  std::vector<TimeNs> starts;
  TimeNs first_end = std::numeric_limits<TimeNs>::max();
  for (const Member& mb : members) {
    starts.push_back(mb.call->start_ns);
    first_end = std::min(first_end, mb.call->end_ns);
  }
  std::sort(starts.begin(), starts.end());
  m.skew_ns = m.last_start_ns - m.first_start_ns;
  m.last_delay_ns = starts.size() >= 2 ? starts.back() - starts[starts.size() - 2] : 0;
  TimeNs wait = 0;
  for (TimeNs s : starts) SatAccumulate(wait, m.last_start_ns - s);
  m.wait_ns = wait;
  m.transfer_ns = std::max<TimeNs>(0, first_end - m.last_start_ns);
}

StragglerCause CauseOf(const std::vector<Member>& members, size_t straggler) {
  StragglerCause cause;
  const CollectiveCall* mine = nullptr;
  std::vector<const CollectiveCall*> others;
  for (const Member& mb : members) {
    if (mb.rank == straggler) {
      mine = mb.call;
    } else {
      others.push_back(mb.call);
    }
  }
  if (mine == nullptr || others.empty() || mine->step_index < 0) {
    cause.name = "unknown";
    return cause;
  }
  cause.rank_ns = mine->before.ns;
  TimeNs best = 0;
  cause.name = "none";
  for (size_t b = 0; b < kPreCollectiveBuckets; ++b) {
    std::vector<TimeNs> v;
    for (const CollectiveCall* o : others)
      if (o->step_index >= 0) v.push_back(o->before.ns[b]);
    cause.others_median_ns[b] = Median(v);
    const TimeNs excess = mine->before.ns[b] - cause.others_median_ns[b];
    if (excess > best) {
      best = excess;
      cause.name = PreCollectiveBucketName(static_cast<B>(b));
    }
  }
  if (mine->before.from_step_start) {
    std::vector<TimeNs> v;
    for (const CollectiveCall* o : others) v.push_back(o->before.window_start_ns);
    cause.late_step_start_ns = std::max<TimeNs>(0, mine->before.window_start_ns - Median(v));
    if (cause.late_step_start_ns > best) {
      best = cause.late_step_start_ns;
      cause.name = "late_step_start";
    }
  }
  cause.excess_ns = best;
  return cause;
}

}  // namespace

CrossRankResult AnalyzeCollectives(const std::vector<const RankAnalysis*>& ranks) {
  CrossRankResult out;
  out.ranks = ranks.size();
  // Match: (key, index) -> members. A key uses seq when every call of it on every rank has one.
  std::map<std::string, bool> key_has_seq;
  for (const RankAnalysis* r : ranks)
    for (const CollectiveCall& c : r->collectives) {
      auto it = key_has_seq.emplace(c.match_key, true).first;
      it->second = it->second && c.seq >= 0;
    }
  std::map<std::pair<std::string, int64_t>, std::vector<Member>> groups;
  for (size_t i = 0; i < ranks.size(); ++i)
    for (const CollectiveCall& c : ranks[i]->collectives)
      groups[{c.match_key, key_has_seq[c.match_key] ? c.seq : c.ordinal}].push_back({i, &c});

  std::vector<std::vector<Member>> members;
  for (auto& [key, mbs] : groups) {
    if (mbs.size() < 2) {
      out.unmatched_calls += mbs.size();
      continue;
    }
    MatchedCollective m;
    m.match_key = key.first;
    m.index = key.second;
    m.by_seq = key_has_seq[key.first];
    m.type = mbs.front().call->type;
    Measure(ranks, mbs, m);
    out.collectives.push_back(std::move(m));
    members.push_back(std::move(mbs));
  }
  Clocks(ranks, out);
  ClockOffsets(ranks.size(), members, out);
  std::set<std::string> hosts;
  for (const RankAnalysis* r : ranks) hosts.insert(r->comm.host);
  for (size_t i = 0; i < out.collectives.size(); ++i) {
    if (out.clocks_comparable) MeasureArrivals(members[i], out.collectives[i]);
    Bandwidth(ranks, members[i], hosts.size() == 1, out.collectives[i]);
  }
  // In arrival order (first start; on different clocks only the order within a key is meaningful).
  std::vector<size_t> order(out.collectives.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const MatchedCollective &x = out.collectives[a], &y = out.collectives[b];
    if (!out.clocks_comparable) return std::tie(x.match_key, x.index) < std::tie(y.match_key, y.index);
    return x.first_start_ns < y.first_start_ns;
  });
  {
    std::vector<MatchedCollective> sorted;
    std::vector<std::vector<Member>> sorted_members;
    for (size_t i : order) {
      sorted.push_back(std::move(out.collectives[i]));
      sorted_members.push_back(std::move(members[i]));
    }
    out.collectives = std::move(sorted);
    members = std::move(sorted_members);
  }

  if (!out.clocks_comparable || ranks.size() < 2 || out.collectives.empty()) return out;
  // The straggler: the rank whose late arrivals alone delayed the collectives most.
  std::map<int32_t, TimeNs> caused;
  for (const MatchedCollective& m : out.collectives) SatAccumulate(caused[m.last_rank], m.last_delay_ns.value_or(0));
  auto top = std::max_element(caused.begin(), caused.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top == caused.end() || top->second <= 0) return out;
  StragglerResult s;
  s.rank = top->first;
  s.wait_caused_ns = top->second;
  for (size_t i = 0; i < out.collectives.size(); ++i) {
    const MatchedCollective& m = out.collectives[i];
    if (m.last_rank != s.rank) continue;
    s.collectives.push_back(i);
    if (m.ranks > 1) SatAccumulate(s.others_wait_ns, m.wait_ns.value_or(0) / (m.ranks - 1));
    if (m.skew_ns.value_or(0) > s.max_skew_ns || s.collectives.size() == 1) {
      s.max_skew_ns = m.skew_ns.value_or(0);
      s.worst = i;
    }
  }
  size_t straggler_index = 0;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i]->rank == s.rank) straggler_index = i;
  s.cause = CauseOf(members[s.worst], straggler_index);
  // The replayed saving of removing its delay (docs/whatif.md, transform no_straggler_delay): at
  // each collective it arrived last at, it arrives with the next-to-last rank, so its own window
  // shrinks by the delay it alone caused; a waiting rank's kernel ends earlier by the wait the
  // straggler alone caused it, and the rank's window shrinks by that where the kernel lies on the
  // rank's critical path (at most its time there: first order in the rank's replay). The job runs
  // at its slowest rank's pace.
  bool known = true;
  std::vector<TimeNs> saved(ranks.size(), 0);
  for (size_t c : s.collectives) {
    const MatchedCollective& m = out.collectives[c];
    SatAccumulate(saved[straggler_index], m.last_delay_ns.value_or(0));
    for (const Member& mb : members[c]) {
      if (mb.rank == straggler_index) continue;
      if (mb.call->critical_path_ns < 0) {
        known = false;
        continue;
      }
      const TimeNs waited = std::min(m.last_delay_ns.value_or(0), std::max<TimeNs>(0, m.last_start_ns - mb.call->start_ns));
      SatAccumulate(saved[mb.rank], std::min(waited, mb.call->critical_path_ns));
    }
  }
  TimeNs after = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    s.job_window_ns = std::max(s.job_window_ns, ranks[i]->gpu.window_ns);
    after = std::max(after, ranks[i]->gpu.window_ns - std::min(saved[i], ranks[i]->gpu.window_ns));
  }
  s.replayed_saving_ns = known ? std::max<TimeNs>(0, s.job_window_ns - after) : -1;
  // The job runs at its slowest rank's pace: the saving is relative to the longest mean step.
  for (const RankAnalysis* r : ranks)
    if (r->step_stats.known()) s.job_step_ns = std::max(s.job_step_ns, static_cast<TimeNs>(std::llround(r->step_stats.mean_us * 1e3)));
  out.straggler = std::move(s);
  return out;
}

// ---------------------------------------------------------------------------------------
// The finding

namespace {

double Us(TimeNs ns) { return static_cast<double>(ns) / 1e3; }

std::string CauseText(const StragglerResult& s) {
  const StragglerCause& c = s.cause;
  if (c.name == "late_step_start")
    return fmt::format(
        "it began the step {:.2f} ms after the other ranks (median), and what delayed it happened before the "
        "step, outside the analysed window",
        Us(c.late_step_start_ns) / 1e3);
  if (c.name == "none" || c.name == "unknown")
    return "its time before the collective matches the other ranks': the delay is not explained by this window";
  return fmt::format("{:.2f} ms more {} than the other ranks (median) before that collective", Us(c.excess_ns) / 1e3,
                     c.name);
}

std::string Recommendation(const StragglerResult& s) {
  const std::string r = std::to_string(s.rank);
  const std::string& c = s.cause.name;
  if (c == "data_loader")
    return "Rank " + r + " waits for its input batches: give its DataLoader more workers or pinned memory, and check "
           "that its shard is not larger or slower to read than the others'.";
  if (c == "host_sync" || c == "grad_scaler_sync")
    return "Rank " + r + " blocks on host-device syncs before the collective: remove the .item()/.cpu() calls in "
           "that part of the step (see the host_device_sync finding of that rank).";
  if (c == "compute")
    return "Rank " + r + " has more GPU work before the collective than the others: balance the work across ranks "
           "(uneven batch or embedding-table sharding, different sequence lengths) or check that GPU for throttling.";
  if (c == "launch_gaps")
    return "Rank " + r + " launches kernels more slowly than the others: look for CPU contention on its host "
           "(thread pinning, other processes) or capture the step in a CUDA graph.";
  if (c == "late_step_start")
    return "Rank " + r + " starts the step late; the cause lies before the traced step. Profile a window that "
           "includes the previous step on every rank (schedule with warmup and several active steps), and check "
           "its input pipeline and host load.";
  return "Rank " + r + " arrives late at the collectives: compare its timeline with another rank's in the time "
         "before the collective named here.";
}

}  // namespace

std::optional<Finding> StragglerFinding(const CrossRankResult& result) {
  if (!result.straggler || result.straggler->job_step_ns <= 0) return std::nullopt;
  const StragglerResult& s = *result.straggler;
  if (s.replayed_saving_ns < 0 || s.job_window_ns <= 0) return std::nullopt;  // the ranks' critical paths are not known
  const double saving = std::round(100.0 * 100.0 * static_cast<double>(s.replayed_saving_ns) / static_cast<double>(s.job_window_ns)) / 100.0;
  if (saving < diagnosis::kMinSavingPct) return std::nullopt;
  const MatchedCollective& worst = result.collectives[s.worst];
  size_t worst_ordinal = 0;
  for (size_t i = 0; i < s.worst; ++i) worst_ordinal += result.collectives[i].type == worst.type;
  // Like every finding: its dimension, checklist item and severity come from its catalogue row
  // (diagnosis/catalog_table.cc); the saving is the replay of removing the delay, computed above.
  std::vector<Finding> made;
  diagnosis::FindingSink sink(made);
  Finding& f = sink.Add("straggler", saving,
                        fmt::format("Rank {} arrives last at {} of {} collectives; the others wait up to {:.2f} ms for it ({} #{})",
                                    s.rank, s.collectives.size(), result.collectives.size(), Us(s.max_skew_ns) / 1e3,
                                    CollectiveTypeName(worst.type), worst_ordinal),
                        Recommendation(s) +
                            fmt::format(" [Saving replayed: each waiting rank's critical path without the straggler's delay "
                                        "({}) saves {:.2f}% of the job's window.]",
                                        graph::kNoStraggler, saving));
  std::vector<FieldList> calls;
  for (size_t i : s.collectives) {
    const MatchedCollective& m = result.collectives[i];
    calls.push_back({{"index", static_cast<int64_t>(i)},
                     {"type", CollectiveTypeName(m.type)},
                     {"match_key", m.match_key},
                     {"skew_us", Us(m.skew_ns.value_or(0)), Unit::kUs},
                     {"delay_us", Us(m.last_delay_ns.value_or(0)), Unit::kUs},
                     {"first_rank", static_cast<int64_t>(m.first_rank)}});
  }
  FieldList rank_buckets, other_buckets;
  for (size_t b = 0; b < kPreCollectiveBuckets; ++b) {
    const char* name = PreCollectiveBucketName(static_cast<B>(b));
    rank_buckets.push_back({name, Us(s.cause.rank_ns[b]), Unit::kUs});
    other_buckets.push_back({name, Us(s.cause.others_median_ns[b]), Unit::kUs});
  }
  f.evidence = {{"rank", static_cast<int64_t>(s.rank)},
                {"max_skew_us", Us(s.max_skew_ns), Unit::kUs},
                {"wait_caused_us", Us(s.wait_caused_ns), Unit::kUs},
                {"others_wait_us", Us(s.others_wait_ns), Unit::kUs},
                {"worst_collective", static_cast<int64_t>(s.worst)},
                {"worst_type", CollectiveTypeName(worst.type)},
                {"collectives", calls},
                {"local_cause", s.cause.name},
                {"local_cause_us", Us(s.cause.excess_ns), Unit::kUs},
                {"local_cause_detail", CauseText(s)},
                {"before_collective_us", rank_buckets},
                {"others_median_before_us", other_buckets},
                {"step_start_delay_us", Us(s.cause.late_step_start_ns), Unit::kUs},
                {"step_us", Us(s.job_step_ns), Unit::kUs},
                {"clocks", result.clock_note},
                {"whatif_transform", graph::kNoStraggler},
                {"whatif_selection", fmt::format("the other ranks' collective kernels at the {} collectives rank {} arrived last at, "
                                                 "each earlier by the wait it caused there",
                                                 s.collectives.size(), s.rank)},
                {"whatif_saving_us", Us(s.replayed_saving_ns), Unit::kUs},
                {"job_window_us", Us(s.job_window_ns), Unit::kUs}};
  f.time_ranges.emplace_back(worst.first_start_ns, worst.last_start_ns);
  return std::move(f);
}

void AddStragglerFinding(const CrossRankResult& result, RankAnalysis& job) {
  std::optional<Finding> f = StragglerFinding(result);
  if (!f) return;
  for (DimensionResult& d : job.matrix)
    if (d.id == f->dimension) d.findings.push_back(f->id);
  job.findings.push_back(std::move(*f));
  diagnosis::RankFindings(job.findings);
}

}  // namespace ampscope

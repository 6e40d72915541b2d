#include "analyzers/graph/graph_builder.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "base/saturating.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/host_roles.h"

namespace ampscope::graph {
namespace {

// The launch latency kept on launch edges: the 5th percentile of (kernel start - launch start)
// over the trace's launched kernels, within [1, 50] µs. Where the measured gap is larger the
// kernel waited for something else (its stream), and that edge is not the binding one.
constexpr TimeNs kMinLaunchLatencyNs = 1'000;
constexpr TimeNs kMaxLaunchLatencyNs = 50'000;
constexpr double kLaunchLatencyQuantile = 0.05;
// A join (AddGap): at least this much host time outside CPU ops while the other threads made at least
// kJoinMinCalls calls, ending within a tenth of the gap (clamped) after another thread's call.
constexpr TimeNs kJoinMinGapNs = 1'000'000;
constexpr uint64_t kJoinMinCalls = 10;
constexpr TimeNs kJoinWindowMinNs = 100'000;
constexpr TimeNs kJoinWindowMaxNs = 5'000'000;
// A fork (AdvanceThread): a thread whose first call comes at most this long after the steps'
// thread's last call was started by it (the autograd thread by backward()).
constexpr TimeNs kForkWindowNs = 5'000'000;
// thread_wait_: the next launch waits for every other stream (an event record the trace lacks).
constexpr uint32_t kAnyStream = kNoNode - 1;
// Launch-queue back-pressure (FindBackPressure, docs/whatif.md): the runtime queues a bounded
// number of launches per device (about 1,024 on CUDA); a host that runs that far ahead of a busy
// GPU blocks in the launch call until an earlier activity completes. Such a call lasts more than
// kBackPressureFactor x its name's median and at least kBackPressureMinExcessNs more, began while
// at least kBackPressureMinDepth activities were launched and not done, and returned within
// kBackPressureWakeNs after an activity launched before it ended (one that ran past the call's
// typical cost: the call was waiting for it).
constexpr double kBackPressureFactor = 10.0;
constexpr TimeNs kBackPressureMinExcessNs = 50'000;
constexpr size_t kBackPressureMinDepth = 64;
constexpr TimeNs kBackPressureWakeNs = 20'000;
// A hidden wait (HiddenWaitTarget, docs/whatif.md): a host gap of at least kHiddenWaitMinGapNs
// that no CPU op covers, ending while the last activity its thread queued on a stream finished:
// from kHiddenWaitBeforeNs (at most a tenth of the activity) before its end to
// kHiddenWaitAfterNs after it. The thread waited for that activity without a recorded sync (a
// host loop polling memory the kernel writes, as DeepEP's dispatch does for its token counts).
constexpr TimeNs kHiddenWaitMinGapNs = 1'000'000;
constexpr TimeNs kHiddenWaitBeforeNs = 100'000;
constexpr TimeNs kHiddenWaitAfterNs = 20'000;

uint64_t GpuKey(int32_t device, int32_t stream) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(device)) << 32) | static_cast<uint32_t>(stream);
}

PathCategory GpuCategory(uint8_t type, bool comm) {
  if (type != 0) return PathCategory::kGpuMemory;
  return comm ? PathCategory::kCommunication : PathCategory::kGpuCompute;
}

}  // namespace

GraphBuilder::GraphBuilder(const RankContext& ctx) : ctx_(ctx), t_(ctx.trace()) {
  const StepAnalysis& steps = ctx.steps();
  chunk_count_ = steps.steps.size();
  if (steps.steps.empty() && !ctx.windows().empty()) {
    chunk_count_ = 1;
    window_chunk_.cpu_start_ns = window_chunk_.begin_ns = ctx.windows().front().start_ns;
    window_chunk_.cpu_end_ns = window_chunk_.end_ns = ctx.windows().back().end_ns;
  }
  {
    // The steps' CPU ranges, sorted, so that telling a step's own range from other ranges is a
    // binary search: a linear scan per range took 29 s of a 30 s analysis on 200,000 steps
    // (ranges x steps). Only the lanes read them: not kept through the replays.
    std::vector<Interval> step_ranges;
    step_ranges.reserve(steps.steps.size());
    for (const StepWindow& s : steps.steps) step_ranges.push_back({s.cpu_start_ns, s.cpu_end_ns});
    std::sort(step_ranges.begin(), step_ranges.end(), [](const Interval& a, const Interval& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
    });
    BuildLanes(step_ranges);
  }
  BuildGpuItems();
  ChooseLaunchLatency();
  FindBackPressure();
  // Without steps the window is the span of the GPU work: the chunk starts at the first launch
  // of that work, so every activity in the window is a node.
  if (steps.steps.empty() && chunk_count_ > 0 && !gpu_.empty())
    window_chunk_.begin_ns = std::min(window_chunk_.begin_ns, gpu_.front().key);
  measured_.assign(slots(), SlotValue{});
  local_.assign(slots(), kNoNode);
  last_launch_lane_.assign(host_.size(), kNoNode);
  calls_at_cursor_.assign(host_.size(), 0);
  last_gpu_corr_.assign(host_.size(), -1);
  last_gpu_node_.assign(host_.size(), kNoNode);
  thread_wait_.assign(host_.size(), kNoNode);
  pending_.assign(lanes_, {});
  scope_by_name_.assign(t_.strings.size(), ApiWaitScope::kNone);
  scope_known_.assign(t_.strings.size(), 0);
  for (const SyncEvent& s : t_.syncs)
    if (s.correlation >= 0) syncs_.push_back({s.correlation, s.device, s.stream, s.type});
  std::sort(syncs_.begin(), syncs_.end(), [](const SyncRecord& a, const SyncRecord& b) { return a.correlation < b.correlation; });
  // GPU work before the first chunk: the measured state of the streams when the window begins.
  const TimeNs first = chunk_count_ == 0 ? 0 : chunk(0).begin_ns;
  while (next_gpu_ < gpu_.size() && gpu_[next_gpu_].key < first) {
    const GpuItem& it = gpu_[next_gpu_++];
    int32_t device = 0, stream = 0;
    TimeNs end = 0;
    bool comm = false;
    if (it.type == 0) {
      const KernelEvent& k = t_.kernels[it.index];
      device = k.device, stream = k.stream, end = k.end_ns;
      comm = ctx_.kernel_class(it.index).category == KernelCategory::kCommunication;
    } else if (it.type == 1) {
      device = t_.memcpys[it.index].device, stream = t_.memcpys[it.index].stream, end = t_.memcpys[it.index].end_ns;
    } else {
      device = t_.memsets[it.index].device, stream = t_.memsets[it.index].stream, end = t_.memsets[it.index].end_ns;
    }
    const uint32_t lane = GpuLane(device, stream);
    SlotValue& v = measured_[lane];
    if (!v.valid || end >= v.end_ns) v = {StartOf(it), end, GpuCategory(it.type, comm), true};
    // An activity a back-pressured launch of the window waits for.
    if (!ring_slot_.empty() && ring_slot_[next_gpu_ - 1] != kNoNode)
      measured_[ring_slot_[next_gpu_ - 1]] = {StartOf(it), end, GpuCategory(it.type, comm), true};
  }
  while (next_call_ < t_.api_calls.size() && t_.api_calls[next_call_].start_ns < first) ++next_call_;
}

void GraphBuilder::BuildLanes(const std::vector<Interval>& step_ranges) {
  // Host lanes: every thread with a runtime/driver call, and the steps' thread.
  std::set<int64_t> tids;
  for (const ApiCall& a : t_.api_calls) tids.insert(a.tid);
  main_tid_ = ctx_.StepsThread();
  if (main_tid_ >= 0) tids.insert(main_tid_);
  for (int64_t tid : tids) {
    host_by_tid_.push_back({tid, static_cast<uint32_t>(host_.size())});
    HostLane h;
    h.tid = tid;
    host_.push_back(std::move(h));
  }
  main_lane_ = main_tid_ >= 0 ? HostLaneOf(main_tid_) : kNoNode;
  // What covers host time on each thread: CPU ops, and CPU ranges other than the steps' own.
  std::vector<std::vector<Interval>> cover(host_.size()), loader(host_.size());
  for (const CpuOp& op : t_.cpu_ops) {
    const uint32_t h = HostLaneOf(op.tid);
    if (h == kNoNode) continue;
    cover[h].push_back({op.start_ns, op.end_ns});
    if (ClassifyHostRange(t_.str(op.name)) == HostRangeRole::kDataLoader) loader[h].push_back({op.start_ns, op.end_ns});
  }
  for (size_t h = 0; h < host_.size(); ++h) host_[h].in_ops = MergeIntervals(std::vector<Interval>(cover[h]));
  for (const ApiCall& c : t_.api_calls) {
    const uint32_t h = HostLaneOf(c.tid);
    if (h != kNoNode) host_[h].call_starts.push_back(c.start_ns);
  }
  for (HostLane& lane : host_) std::sort(lane.call_starts.begin(), lane.call_starts.end());
  for (const Range& r : t_.ranges) {
    if (r.kind != RangeKind::kCpuAnnotation && r.kind != RangeKind::kNvtx) continue;
    const uint32_t h = HostLaneOf(r.tid);
    if (h == kNoNode) continue;
    const Interval key{r.start_ns, r.end_ns};
    const bool step = std::binary_search(step_ranges.begin(), step_ranges.end(), key, [](const Interval& a, const Interval& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
    });
    if (!step) cover[h].push_back({r.start_ns, r.end_ns});
    if (ClassifyHostRange(t_.str(r.name)) == HostRangeRole::kDataLoader) loader[h].push_back({r.start_ns, r.end_ns});
  }
  for (size_t h = 0; h < host_.size(); ++h) host_[h].dataloader = MergeIntervals(std::move(loader[h]));
  for (size_t h = 0; h < host_.size(); ++h) host_[h].covered = MergeIntervals(std::move(cover[h]));
  // GPU lanes, in order of first use.
  auto add = [&](int32_t device, int32_t stream) {
    const uint64_t key = GpuKey(device, stream);
    for (const auto& [k, lane] : gpu_by_key_)
      if (k == static_cast<int64_t>(key)) return;
    gpu_by_key_.push_back({static_cast<int64_t>(key), static_cast<uint32_t>(host_.size() + gpu_by_key_.size())});
  };
  std::set<uint64_t> seen;
  auto visit = [&](int32_t device, int32_t stream) {
    if (seen.insert(GpuKey(device, stream)).second) add(device, stream);
  };
  for (const KernelEvent& k : t_.kernels) visit(k.device, k.stream);
  for (const MemcpyEvent& m : t_.memcpys) visit(m.device, m.stream);
  for (const MemsetEvent& m : t_.memsets) visit(m.device, m.stream);
  std::sort(gpu_by_key_.begin(), gpu_by_key_.end());
  lanes_ = host_.size() + gpu_by_key_.size();
}

uint32_t GraphBuilder::HostLaneOf(int64_t tid) const {
  auto it = std::lower_bound(host_by_tid_.begin(), host_by_tid_.end(), std::make_pair(tid, uint32_t{0}));
  return it != host_by_tid_.end() && it->first == tid ? it->second : kNoNode;
}

uint32_t GraphBuilder::GpuLane(int32_t device, int32_t stream) const {
  const int64_t key = static_cast<int64_t>(GpuKey(device, stream));
  auto it = std::lower_bound(gpu_by_key_.begin(), gpu_by_key_.end(), std::make_pair(key, uint32_t{0}));
  return it != gpu_by_key_.end() && it->first == key ? it->second : kNoNode;
}

const GraphBuilder::SyncRecord* GraphBuilder::SyncOf(int64_t correlation, SyncType type) const {
  auto it = std::lower_bound(syncs_.begin(), syncs_.end(), correlation,
                             [](const SyncRecord& s, int64_t c) { return s.correlation < c; });
  for (; it != syncs_.end() && it->correlation == correlation; ++it)
    if (it->type == type) return &*it;
  return nullptr;
}

TimeNs GraphBuilder::StartOf(const GpuItem& it) const {
  return it.type == 0 ? t_.kernels[it.index].start_ns : it.type == 1 ? t_.memcpys[it.index].start_ns : t_.memsets[it.index].start_ns;
}

void GraphBuilder::BuildGpuItems() {
  gpu_.reserve(t_.kernels.size() + t_.memcpys.size() + t_.memsets.size());
  auto key_of = [&](int64_t call, TimeNs start) {
    return call >= 0 ? t_.api_calls[static_cast<size_t>(call)].start_ns : start;
  };
  for (uint32_t i = 0; i < t_.kernels.size(); ++i)
    gpu_.push_back({key_of(ctx_.kernels().launch_call[i], t_.kernels[i].start_ns), i, 0});
  for (uint32_t i = 0; i < t_.memcpys.size(); ++i)
    gpu_.push_back({key_of(ctx_.launches().Find(t_.memcpys[i].correlation), t_.memcpys[i].start_ns), i, 1});
  for (uint32_t i = 0; i < t_.memsets.size(); ++i)
    gpu_.push_back({key_of(ctx_.launches().Find(t_.memsets[i].correlation), t_.memsets[i].start_ns), i, 2});
  // A stream runs its work in order: along each stream (by start), a key is at least the key of
  // the activity before it, so the replay order never puts an activity before its stream
  // predecessor (this matters only for activities without a launch call).
  std::vector<std::pair<uint32_t, uint32_t>> by_lane;  // (lane, item)
  by_lane.reserve(gpu_.size());
  for (uint32_t i = 0; i < gpu_.size(); ++i) {
    const GpuItem& g = gpu_[i];
    int32_t d, s;
    if (g.type == 0) d = t_.kernels[g.index].device, s = t_.kernels[g.index].stream;
    else if (g.type == 1) d = t_.memcpys[g.index].device, s = t_.memcpys[g.index].stream;
    else d = t_.memsets[g.index].device, s = t_.memsets[g.index].stream;
    by_lane.push_back({GpuLane(d, s), i});
  }
  std::stable_sort(by_lane.begin(), by_lane.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return StartOf(gpu_[a.second]) < StartOf(gpu_[b.second]);
  });
  for (size_t j = 1; j < by_lane.size(); ++j)
    if (by_lane[j].first == by_lane[j - 1].first)
      gpu_[by_lane[j].second].key = std::max(gpu_[by_lane[j].second].key, gpu_[by_lane[j - 1].second].key);
  std::stable_sort(gpu_.begin(), gpu_.end(), [&](const GpuItem& a, const GpuItem& b) {
    return a.key != b.key ? a.key < b.key : StartOf(a) < StartOf(b);
  });
}

void GraphBuilder::ChooseLaunchLatency() {
  std::vector<TimeNs> lat;
  for (size_t i = 0; i < t_.kernels.size(); ++i) {
    const int64_t call = ctx_.kernels().launch_call[i];
    if (call < 0) continue;
    const TimeNs d = t_.kernels[i].start_ns - t_.api_calls[static_cast<size_t>(call)].start_ns;
    if (d > 0) lat.push_back(d);
  }
  launch_latency_ns_ = kMinLaunchLatencyNs;
  if (lat.empty()) return;
  const size_t q = static_cast<size_t>(kLaunchLatencyQuantile * static_cast<double>(lat.size() - 1));
  std::nth_element(lat.begin(), lat.begin() + static_cast<std::ptrdiff_t>(q), lat.end());
  launch_latency_ns_ = std::clamp(lat[q], kMinLaunchLatencyNs, kMaxLaunchLatencyNs);
}

void GraphBuilder::FindBackPressure() {
  const size_t n_calls = t_.api_calls.size();
  auto queued = [&](size_t i) {
    const ApiRole r = ctx_.api_role(i);
    return r == ApiRole::kLaunch || r == ApiRole::kMemset || (r == ApiRole::kMemcpyAsync && !ctx_.BlockingCopy(i));
  };
  // The typical cost of each call name: its median duration.
  std::map<StringId, std::vector<TimeNs>> by_name;
  for (size_t i = 0; i < n_calls; ++i)
    if (queued(i)) by_name[t_.api_calls[i].name].push_back(t_.api_calls[i].end_ns - t_.api_calls[i].start_ns);
  std::map<StringId, TimeNs> typical;
  for (auto& [name, d] : by_name) {
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
    typical[name] = std::max<TimeNs>(0, d[d.size() / 2]);
  }
  // The activities with a launch call: (end, gpu_ position), by end; and every activity's end,
  // sorted, for the number in flight at a time (their keys are gpu_'s, which is in key order).
  // Sized once: one of each an activity, at most.
  std::vector<TimeNs> launch_start(gpu_.size(), std::numeric_limits<TimeNs>::max());
  std::vector<TimeNs> end_of(gpu_.size());
  std::vector<std::pair<TimeNs, uint32_t>> by_end;
  std::vector<TimeNs> ends;
  by_end.reserve(gpu_.size());
  ends.reserve(gpu_.size());
  for (uint32_t p = 0; p < gpu_.size(); ++p) {
    const GpuItem& it = gpu_[p];
    int64_t call;
    if (it.type == 0) {
      call = ctx_.kernels().launch_call[it.index];
      end_of[p] = t_.kernels[it.index].end_ns;
    } else if (it.type == 1) {
      call = ctx_.launches().Find(t_.memcpys[it.index].correlation);
      end_of[p] = t_.memcpys[it.index].end_ns;
    } else {
      call = ctx_.launches().Find(t_.memsets[it.index].correlation);
      end_of[p] = t_.memsets[it.index].end_ns;
    }
    ends.push_back(end_of[p]);
    if (call < 0) continue;
    launch_start[p] = t_.api_calls[static_cast<size_t>(call)].start_ns;
    by_end.push_back({end_of[p], p});
  }
  std::sort(by_end.begin(), by_end.end());
  std::sort(ends.begin(), ends.end());
  for (size_t i = 0; i < n_calls; ++i) {
    if (!queued(i)) continue;
    const ApiCall& a = t_.api_calls[i];
    const TimeNs own = typical[a.name];
    const TimeNs d = a.end_ns - a.start_ns;
    if (static_cast<double>(d) <= kBackPressureFactor * static_cast<double>(own) || d < own + kBackPressureMinExcessNs) continue;
    const size_t launched = static_cast<size_t>(
        std::lower_bound(gpu_.begin(), gpu_.end(), a.start_ns, [](const GpuItem& g, TimeNs t) { return g.key < t; }) - gpu_.begin());
    const size_t done = static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), a.start_ns) - ends.begin());
    if (launched < done + kBackPressureMinDepth) continue;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(a.end_ns, std::numeric_limits<uint32_t>::max()));
    while (it != by_end.begin()) {
      --it;
      if (it->first < a.end_ns - kBackPressureWakeNs) break;
      const uint32_t p = it->second;
      if (launch_start[p] < a.start_ns && end_of[p] > a.start_ns + own) {
        bp_own_.push_back({static_cast<uint32_t>(i), own});
        bp_target_.push_back(p);
        break;
      }
    }
  }
  if (bp_target_.empty()) return;
  // Ring slots: a target keeps its slot until every call that waits for it is placed, so the
  // ring holds the most targets placed (key <= the call's start) since the oldest still awaited.
  std::vector<uint32_t> targets = bp_target_;
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  std::vector<TimeNs> target_keys;
  for (uint32_t p : targets) target_keys.push_back(gpu_[p].key);
  size_t ring = 1;
  for (size_t c = 0; c < bp_own_.size(); ++c) {
    const TimeNs s = t_.api_calls[bp_own_[c].first].start_ns;
    const size_t placed = static_cast<size_t>(std::upper_bound(target_keys.begin(), target_keys.end(), s) - target_keys.begin());
    const size_t j = static_cast<size_t>(std::lower_bound(targets.begin(), targets.end(), bp_target_[c]) - targets.begin());
    if (placed > j) ring = std::max(ring, placed - j);
  }
  ring_ = ring;
  ring_slot_.assign(gpu_.size(), kNoNode);
  for (size_t j = 0; j < targets.size(); ++j) ring_slot_[targets[j]] = static_cast<uint32_t>(3 * lanes_ + j % ring_);
}

std::vector<SlotValue> GraphBuilder::InitialState() const {
  // Built before any chunk: measured_ still holds the state the constructor found.
  return measured_;
}

// ---------------------------------------------------------------------------------------
// One chunk

void GraphBuilder::SetSlot(uint32_t slot, uint32_t node, const DepGraph& g) {
  local_[slot] = node;
  measured_[slot] = {g.start_ns[node], g.end_ns[node], g.category[node], true};
}

uint32_t GraphBuilder::LaneNode(uint32_t slot, DepGraph& g, ChunkIo& io) {
  if (local_[slot] != kNoNode) return local_[slot];
  const SlotValue& v = measured_[slot];
  if (!v.valid) return kNoNode;
  const uint32_t n = g.AddNode(NodeKind::kBoundary, v.start_ns, v.end_ns, v.category, slot, kNoNode);
  g.FinishNode();
  io.imports.push_back({slot, n});
  local_[slot] = n;
  return n;
}

void GraphBuilder::NoteMain(uint32_t h, uint32_t node, DepGraph& g, ChunkIo& io) {
  if (h != main_lane_) return;
  const ChunkInfo& c = chunk_;
  if (io.cpu_start_anchor == kNoNode && g.end_ns[node] > c.cpu_start_ns) {
    io.cpu_start_anchor = node;
    io.cpu_start_offset_ns = c.cpu_start_ns - g.start_ns[node];
  }
  if (io.cpu_end_anchor == kNoNode && g.start_ns[node] < c.cpu_end_ns && g.end_ns[node] >= c.cpu_end_ns) {
    io.cpu_end_anchor = node;
    io.cpu_end_offset_ns = c.cpu_end_ns - g.end_ns[node];
  }
}

void GraphBuilder::AddGap(uint32_t h, TimeNs a, TimeNs b, DepGraph& g, ChunkIo& io) {
  const uint32_t prev = LaneNode(h, g, io);
  const TimeNs covered = OverlapNs(host_[h].covered, a, b);
  const TimeNs unrecorded = std::max<TimeNs>(0, (b - a) - covered);
  // A join: a long stretch no CPU op covers (unrecorded, or only inside a range such as the
  // main thread's `## backward ##`, which records where the thread waits, not work it does)
  // while other threads made calls, that ends right after another thread's last call: this
  // thread waited for that one.
  // A wait in a DataLoader range on this thread is the data pipeline's (no_dataloader_wait),
  // never a join.
  const TimeNs in_ops = OverlapNs(host_[h].in_ops, a, b);
  const TimeNs in_loader = OverlapNs(host_[h].dataloader, a, b);
  uint32_t join = kNoNode;
  const uint32_t gpu_wait = in_loader == 0 && (b - a) - in_ops >= kHiddenWaitMinGapNs ? HiddenWaitTarget(h, a, b, g) : kNoNode;
  if (gpu_wait == kNoNode && in_loader == 0 && (b - a) - in_ops >= kJoinMinGapNs && calls_seen_ - calls_at_cursor_[h] >= kJoinMinCalls) {
    // The thread waited for is the one that did the work: of the threads whose last call ended
    // within the window, the one that made the most calls (at least kJoinMinCalls) in the gap,
    // not a thread that only polls (NCCL's watchdog querying its events) and happened to call last.
    const TimeNs window = std::clamp<TimeNs>((b - a) / 10, kJoinWindowMinNs, kJoinWindowMaxNs);
    TimeNs best = std::numeric_limits<TimeNs>::min();
    size_t most = 0;
    uint32_t lane = kNoNode;
    for (uint32_t l = 0; l < host_.size(); ++l) {
      const HostLane& o = host_[l];
      if (l == h || !o.started || o.cursor > b || o.cursor < std::max(a, b - window)) continue;
      const auto first = std::lower_bound(o.call_starts.begin(), o.call_starts.end(), a);
      const size_t calls = static_cast<size_t>(std::upper_bound(first, o.call_starts.end(), b) - first);
      if (calls < kJoinMinCalls || calls < most || (calls == most && o.cursor <= best)) continue;
      most = calls;
      best = o.cursor;
      lane = l;
    }
    if (lane != kNoNode) join = LaneNode(lane, g, io);
  }
  const uint32_t n = g.AddNode(NodeKind::kHostGap, a, b, PathCategory::kHostBound, h, kNoNode);
  g.unrecorded_ns[n] = unrecorded;
  // The unrecorded stretch the gap starts with: up to the first op or range that starts in it
  // (an op that began before the gap, such as the one around the call before it, does not end it).
  const std::vector<Interval>& cov = host_[h].covered;
  auto first = std::upper_bound(cov.begin(), cov.end(), a, [](TimeNs x, const Interval& iv) { return x < iv.start_ns; });
  const TimeNs lead_end = first != cov.end() && first->start_ns < b ? first->start_ns : b;
  g.lead_unrecorded_ns[n] = std::min(unrecorded, std::max<TimeNs>(0, (lead_end - a) - OverlapNs(cov, a, lead_end)));
  g.dataloader_ns[n] = in_loader;
  if (prev != kNoNode) g.AddEdge(prev, 0, EdgeKind::kProgram);
  if (join != kNoNode && g.end_ns[join] <= b) {
    // What is left when the other thread is done early: the thread's own CPU ops.
    g.dur_ns[n] = in_ops;
    g.unrecorded_ns[n] = 0;
    g.lead_unrecorded_ns[n] = 0;
    g.AddEdge(join, b - g.end_ns[join], EdgeKind::kJoin);
  } else if (gpu_wait != kNoNode) {
    // The thread's own CPU ops are what is left when the GPU work is done sooner. The delay is
    // the measured wake-up, negative where the host went on just before the activity ended
    // (the kernel writes what the host polls for, then finishes).
    g.dur_ns[n] = in_ops;
    g.unrecorded_ns[n] = 0;
    g.lead_unrecorded_ns[n] = 0;
    g.AddEdge(gpu_wait, b - g.end_ns[gpu_wait], EdgeKind::kWait);
    ++hidden_waits_;
  }
  g.FinishNode();
  SetSlot(h, n, g);
  NoteMain(h, n, g, io);
}

uint32_t GraphBuilder::HiddenWaitTarget(uint32_t h, TimeNs a, TimeNs b, const DepGraph& g) const {
  uint32_t best = kNoNode;
  for (size_t l = host_.size(); l < lanes_; ++l) {
    // The last activity placed on the stream (placed by launch time: none was launched on it
    // since, by any thread, or it would be that one).
    const uint32_t x = local_[l];
    if (x == kNoNode || !IsGpu(g.kind[x]) || g.launch_ref[x] == kNoNode) continue;
    const ApiCall& call = t_.api_calls[g.launch_ref[x]];
    if (call.tid != host_[h].tid || call.start_ns >= a) continue;
    const TimeNs s = g.start_ns[x], e = g.end_ns[x];
    const TimeNs before = std::min(kHiddenWaitBeforeNs, (e - s) / 10);
    if (s > b || b < e - before || b > e + kHiddenWaitAfterNs) continue;
    if (best == kNoNode || std::abs(b - e) < std::abs(b - g.end_ns[best])) best = x;
  }
  return best;
}

void GraphBuilder::AdvanceThread(uint32_t h, TimeNs t, DepGraph& g, ChunkIo& io) {
  HostLane& lane = host_[h];
  if (!lane.started) {
    // The steps' thread is tiled from the first step's CPU start; others from their first call.
    if (h == main_lane_ && chunk_.cpu_start_ns < t) {
      lane.started = true;
      lane.cursor = chunk_.cpu_start_ns;
    } else {
      // A thread whose first call comes soon after the steps' thread's last one was started by
      // it (a fork: the autograd thread by backward()). The steps' thread's time is split where
      // the thread begins, and the thread goes on from that node instead of a fixed start, so
      // it moves with the steps' thread.
      if (h == main_lane_ || main_lane_ == kNoNode || !host_[main_lane_].started) return;
      const TimeNs from = host_[main_lane_].cursor;
      if (from > t || t - from > kForkWindowNs) return;
      AdvanceThread(main_lane_, t, g, io);
      const uint32_t parent = LaneNode(main_lane_, g, io);
      if (parent == kNoNode) return;
      lane.started = true;
      lane.cursor = t;
      SetSlot(h, parent, g);
      return;
    }
  }
  if (lane.cursor >= t) return;
  // The steps' thread is split where the step's CPU range ends, so that point is a node boundary.
  const TimeNs split = chunk_.cpu_end_ns;
  if (h == main_lane_ && lane.cursor < split && split < t) {
    AddGap(h, lane.cursor, split, g, io);
    lane.cursor = split;
  }
  AddGap(h, lane.cursor, t, g, io);
  lane.cursor = t;
}

void GraphBuilder::AddGpu(size_t pos, DepGraph& g, ChunkIo& io) {
  const GpuItem& item = gpu_[pos];
  TimeNs s, e;
  int32_t device, stream;
  int64_t correlation, call = -1;
  bool comm = false;
  NodeKind kind;
  if (item.type == 0) {
    const KernelEvent& k = t_.kernels[item.index];
    s = k.start_ns, e = k.end_ns, device = k.device, stream = k.stream, correlation = k.correlation;
    call = ctx_.kernels().launch_call[item.index];
    comm = ctx_.kernel_class(item.index).category == KernelCategory::kCommunication;
    kind = NodeKind::kKernel;
  } else if (item.type == 1) {
    const MemcpyEvent& m = t_.memcpys[item.index];
    s = m.start_ns, e = m.end_ns, device = m.device, stream = m.stream, correlation = m.correlation;
    call = ctx_.launches().Find(correlation);
    kind = NodeKind::kMemcpy;
  } else {
    const MemsetEvent& m = t_.memsets[item.index];
    s = m.start_ns, e = m.end_ns, device = m.device, stream = m.stream, correlation = m.correlation;
    call = ctx_.launches().Find(correlation);
    kind = NodeKind::kMemset;
  }
  const uint32_t lane = GpuLane(device, stream);
  uint32_t h = kNoNode;
  uint32_t launch_pred = kNoNode;
  if (call >= 0) {
    const ApiCall& a = t_.api_calls[static_cast<size_t>(call)];
    h = HostLaneOf(a.tid);
    // The launch edge leaves from the host node that ends where the launch call starts (its
    // replayed end is the call's replayed start). A call already placed (an activity keyed
    // after its call) keeps no launch edge.
    if (h != kNoNode && (!host_[h].started || host_[h].cursor <= a.start_ns)) {
      AdvanceThread(h, a.start_ns, g, io);
      launch_pred = LaneNode(h, g, io);
    }
  }
  const uint32_t stream_pred = LaneNode(lane, g, io);
  // What the activity waits for on other streams (cudaStreamWaitEvent): the recorded work.
  std::vector<uint32_t> events = std::move(pending_[lane]);
  pending_[lane].clear();
  if (events.empty() && measured_[2 * lanes_ + lane].valid) {
    events.push_back(LaneNode(static_cast<uint32_t>(2 * lanes_ + lane), g, io));
    measured_[2 * lanes_ + lane].valid = false;
    local_[2 * lanes_ + lane] = kNoNode;
  }
  if (h != kNoNode && thread_wait_[h] != kNoNode) {
    if (thread_wait_[h] == kAnyStream) {
      // A stream wait whose event record the trace lacks: the work of every other stream
      // launched before it (what stream.wait_stream() waits for).
      for (uint32_t l = static_cast<uint32_t>(host_.size()); l < lanes_; ++l)
        if (l != lane && (local_[l] != kNoNode || measured_[l].valid)) events.push_back(LaneNode(l, g, io));
    } else {
      events.push_back(thread_wait_[h]);
    }
    thread_wait_[h] = kNoNode;
  }
  const uint32_t n = g.AddNode(kind, s, e, GpuCategory(item.type, comm), lane, item.index);
  if (launch_pred != kNoNode)
    g.AddEdge(launch_pred, std::min(launch_latency_ns_, s - g.end_ns[launch_pred]), EdgeKind::kLaunch);
  if (stream_pred != kNoNode) g.AddEdge(stream_pred, std::min<TimeNs>(0, s - g.end_ns[stream_pred]), EdgeKind::kStream);
  // An inferred wait counts only where the recorded work had ended when the activity started:
  // anything else was not waited for (and a negative delay would pin the activity in place).
  for (uint32_t p : events)
    if (p != kNoNode && g.end_ns[p] <= s) g.AddEdge(p, 0, EdgeKind::kEvent);
  g.FinishNode();
  if (call >= 0) g.launch_ref[n] = static_cast<uint32_t>(call);
  if (comm) g.flags[n] |= kCommunication;
  if (call >= 0) {
    const TimeNs launch = t_.api_calls[static_cast<size_t>(call)].start_ns;
    if (launch >= chunk_.cpu_start_ns && launch < chunk_.cpu_end_ns) g.flags[n] |= kExtendsStep;
  }
  SetSlot(lane, n, g);
  if (!ring_slot_.empty() && ring_slot_[pos] != kNoNode) SetSlot(ring_slot_[pos], n, g);
  if (h != kNoNode) {
    last_launch_lane_[h] = lane;
    last_gpu_corr_[h] = correlation;
    last_gpu_node_[h] = n;
  }
}

void GraphBuilder::AddCall(size_t call, DepGraph& g, ChunkIo& io) {
  const ApiCall& a = t_.api_calls[call];
  const uint32_t h = HostLaneOf(a.tid);
  if (h == kNoNode) return;
  HostLane& lane = host_[h];
  // A call inside the thread's previous one (a driver call under a runtime call) is part of it.
  if (lane.started && a.start_ns < lane.cursor) return;
  AdvanceThread(h, a.start_ns, g, io);
  if (a.name >= scope_known_.size()) {
    scope_known_.resize(static_cast<size_t>(a.name) + 1, 0);
    scope_by_name_.resize(static_cast<size_t>(a.name) + 1, ApiWaitScope::kNone);
  }
  if (!scope_known_[a.name]) {
    scope_by_name_[a.name] = ClassifyApiWaitScope(t_.str(a.name));
    scope_known_[a.name] = 1;
  }
  const ApiWaitScope scope = scope_by_name_[a.name];
  const ApiRole role = ctx_.api_role(call);
  std::vector<uint32_t> waits;
  const size_t host_lanes = host_.size();
  if (scope == ApiWaitScope::kDevice) {
    for (uint32_t l = static_cast<uint32_t>(host_lanes); l < lanes_; ++l) {
      const uint32_t w = LaneNode(l, g, io);
      if (w != kNoNode) waits.push_back(w);
    }
  } else if (scope == ApiWaitScope::kStream) {
    uint32_t l = last_launch_lane_[h];
    if (const SyncRecord* r = SyncOf(a.correlation, SyncType::kStreamSync); r != nullptr && r->stream >= 0) {
      const uint32_t found = GpuLane(r->device, r->stream);
      if (found != kNoNode) l = found;
    }
    if (l != kNoNode) {
      const uint32_t w = LaneNode(l, g, io);
      if (w != kNoNode) waits.push_back(w);
    }
  } else if (scope == ApiWaitScope::kEvent) {
    const uint32_t w = LaneNode(static_cast<uint32_t>(lanes_ + h), g, io);
    if (w != kNoNode) waits.push_back(w);
  } else if (ctx_.BlockingCopy(call) && last_gpu_corr_[h] == a.correlation && last_gpu_node_[h] != kNoNode) {
    waits.push_back(last_gpu_node_[h]);
  }
  // Only work that ended before the call returned was waited for.
  waits.erase(std::remove_if(waits.begin(), waits.end(), [&](uint32_t w) { return g.end_ns[w] > a.end_ns; }), waits.end());
  // A launch held back by a full queue: it waits for the activity whose completion made room.
  uint32_t queue_wait = kNoNode;
  TimeNs queue_own = 0;
  if (waits.empty() && !bp_own_.empty()) {
    auto it = std::lower_bound(bp_own_.begin(), bp_own_.end(), std::make_pair(static_cast<uint32_t>(call), TimeNs{0}),
                               [](const auto& x, const auto& y) { return x.first < y.first; });
    if (it != bp_own_.end() && it->first == call) {
      const uint32_t target = bp_target_[static_cast<size_t>(it - bp_own_.begin())];
      const uint32_t w = LaneNode(ring_slot_[target], g, io);
      // The slot holds that activity (its measured end), not a later one.
      const GpuItem& gi = gpu_[target];
      const TimeNs target_end = gi.type == 0 ? t_.kernels[gi.index].end_ns
                                : gi.type == 1 ? t_.memcpys[gi.index].end_ns
                                               : t_.memsets[gi.index].end_ns;
      if (w != kNoNode && g.end_ns[w] == target_end && target_end <= a.end_ns) queue_wait = w, queue_own = it->second;
    }
  }
  const uint32_t prev = LaneNode(h, g, io);
  const NodeKind kind = waits.empty() ? NodeKind::kHostCall : NodeKind::kHostWait;
  const uint32_t n = g.AddNode(kind, a.start_ns, a.end_ns, waits.empty() ? PathCategory::kHostBound : PathCategory::kSyncWait,
                               h, static_cast<uint32_t>(call));
  if (prev != kNoNode) g.AddEdge(prev, 0, EdgeKind::kProgram);
  if (!waits.empty()) {
    TimeNs m = std::numeric_limits<TimeNs>::min();
    for (uint32_t w : waits) m = std::max(m, g.end_ns[w]);
    // Own time: the call's time after the work ended (what it takes when nothing is left to
    // wait for); the wake-up after the work ends is the delay of every wait edge.
    g.dur_ns[n] = m > a.start_ns ? a.end_ns - m : a.end_ns - a.start_ns;
    for (uint32_t w : waits) g.AddEdge(w, a.end_ns - m, EdgeKind::kWait);
  }
  if (queue_wait != kNoNode) {
    // Its own time is the call's typical cost; the rest was the wait for the GPU.
    g.dur_ns[n] = std::min(queue_own, a.end_ns - a.start_ns);
    g.AddEdge(queue_wait, a.end_ns - g.end_ns[queue_wait], EdgeKind::kWait);
  }
  g.FinishNode();
  if (queue_wait != kNoNode) g.flags[n] |= kBackPressure;
  SetSlot(h, n, g);
  NoteMain(h, n, g, io);
  lane.started = true;
  lane.cursor = std::max(a.end_ns, a.start_ns);
  ++calls_seen_;
  calls_at_cursor_[h] = calls_seen_;
  if (scope == ApiWaitScope::kEventRecord && last_launch_lane_[h] != kNoNode) {
    const uint32_t rec = LaneNode(last_launch_lane_[h], g, io);
    if (rec != kNoNode) SetSlot(static_cast<uint32_t>(lanes_ + h), rec, g);
  } else if (role == ApiRole::kStreamWait) {
    const uint32_t ev = local_[lanes_ + h] != kNoNode || measured_[lanes_ + h].valid ? LaneNode(static_cast<uint32_t>(lanes_ + h), g, io) : kNoNode;
    const SyncRecord* r = SyncOf(a.correlation, SyncType::kStreamWaitEvent);
    const uint32_t target = r != nullptr && r->stream >= 0 ? GpuLane(r->device, r->stream) : kNoNode;
    if (ev != kNoNode && target != kNoNode) pending_[target].push_back(ev);
    else thread_wait_[h] = ev != kNoNode ? ev : kAnyStream;
  }
}

ChunkInfo GraphBuilder::chunk(size_t k) const {
  const std::vector<StepWindow>& steps = ctx_.steps().steps;
  if (steps.empty()) return window_chunk_;
  ChunkInfo c;
  c.step = static_cast<int64_t>(k);
  c.cpu_start_ns = steps[k].cpu_start_ns;
  c.cpu_end_ns = steps[k].cpu_end_ns;
  c.begin_ns = c.cpu_start_ns;
  c.end_ns = k + 1 < steps.size() ? std::max(c.cpu_start_ns, steps[k + 1].cpu_start_ns) : c.cpu_end_ns;
  if (k == 0) c.floor_ns = steps[k].start_ns;
  return c;
}

void GraphBuilder::Build(size_t k, DepGraph& g, ChunkIo& io) {
  AMPSCOPE_CHECK(k == built_ && k < chunk_count_);
  ++built_;
  chunk_ = chunk(k);
  g.Clear();
  io.Clear();
  std::fill(local_.begin(), local_.end(), kNoNode);
  std::fill(last_gpu_node_.begin(), last_gpu_node_.end(), kNoNode);
  std::fill(thread_wait_.begin(), thread_wait_.end(), kNoNode);
  const TimeNs end = chunk_.end_ns;
  const bool last = k + 1 == chunk_count_;
  const bool whole_window = chunk_.step < 0;
  // Merge the host calls (by start) and the GPU items (by key) of [begin, end); at equal times
  // the GPU item first (its launch edge leaves from the node before its call).
  while (true) {
    const bool call_left = next_call_ < t_.api_calls.size() && t_.api_calls[next_call_].start_ns < end;
    const bool gpu_left = next_gpu_ < gpu_.size() && gpu_[next_gpu_].key < end;
    if (!call_left && !gpu_left) break;
    if (gpu_left && (!call_left || gpu_[next_gpu_].key <= t_.api_calls[next_call_].start_ns)) {
      AddGpu(next_gpu_++, g, io);
    } else {
      AddCall(next_call_++, g, io);
    }
  }
  // Close the steps' thread at the chunk end, so the next step starts on a node boundary.
  if (main_lane_ != kNoNode && !whole_window) AdvanceThread(main_lane_, last ? chunk_.cpu_end_ns : end, g, io);
  // What the next chunk reads.
  for (uint32_t slot = 0; slot < 2 * lanes_; ++slot) {
    const uint32_t n = local_[slot];
    if (n != kNoNode && !(g.kind[n] == NodeKind::kBoundary && g.lane[n] == slot)) io.exports.push_back({slot, n});
  }
  for (size_t slot = 3 * lanes_; slot < slots(); ++slot) {
    const uint32_t n = local_[slot];
    if (n != kNoNode && !(g.kind[n] == NodeKind::kBoundary && g.lane[n] == slot)) io.exports.push_back({static_cast<uint32_t>(slot), n});
  }
  for (uint32_t l = 0; l < lanes_; ++l) {
    if (pending_[l].empty()) continue;
    SlotValue v{0, std::numeric_limits<TimeNs>::min(), PathCategory::kGpuCompute, true};
    for (uint32_t p : pending_[l]) {
      io.exports.push_back({static_cast<uint32_t>(2 * lanes_ + l), p});
      if (g.end_ns[p] > v.end_ns) v = {g.start_ns[p], g.end_ns[p], g.category[p], true};
    }
    measured_[2 * lanes_ + l] = v;
    pending_[l].clear();
  }
}

}  // namespace ampscope::graph

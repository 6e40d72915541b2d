#include "analyzers/context/context.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analyzers/diagnosis/diagnosis.h"
#include "base/parallel.h"
#include "base/saturating.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

LaunchIndex::LaunchIndex(const Trace& trace) {
  sorted_.reserve(trace.api_calls.size());
  for (uint32_t i = 0; i < trace.api_calls.size(); ++i)
    if (trace.api_calls[i].correlation >= 0) sorted_.emplace_back(trace.api_calls[i].correlation, i);
  std::sort(sorted_.begin(), sorted_.end());
}

int64_t LaunchIndex::Find(int64_t correlation) const {
  if (correlation < 0) return -1;
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(correlation, uint32_t{0}));
  if (it == sorted_.end() || it->first != correlation) return -1;
  return it->second;
}

void AppendMerged(std::vector<Interval>& merged, TimeNs start, TimeNs end) {
  if (end <= start) return;
  if (!merged.empty() && start <= merged.back().end_ns) {
    merged.back().end_ns = std::max(merged.back().end_ns, end);
  } else {
    merged.push_back({start, end});
  }
}

namespace {
// Merged intervals and idle gaps are kept for the whole analysis, one or two a step on a
// many-step trace: without the growth slack of push_back (up to half of the capacity).
template <class T>
void TrimSlack(std::vector<T>& v) {
  if (v.capacity() - v.size() > v.size() / 4) v.shrink_to_fit();
}
}  // namespace

std::vector<Interval> MergeIntervals(std::vector<Interval> v) {
  // Most callers pass intervals already in start order (trace tables are sorted): no sort then.
  auto by_start = [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
  std::vector<Interval> out;
  for (const Interval& iv : v) AppendMerged(out, iv.start_ns, iv.end_ns);
  TrimSlack(out);
  return out;
}

TimeNs OverlapNs(const std::vector<Interval>& merged, TimeNs start, TimeNs end) {
  if (end <= start) return 0;
  auto it = std::upper_bound(merged.begin(), merged.end(), start,
                             [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
  TimeNs total = 0;
  for (; it != merged.end() && it->start_ns < end; ++it)
    SatAccumulate(total, std::min(end, it->end_ns) - std::max(start, it->start_ns));
  return total;
}

std::vector<GpuWork> CollectGpuWork(const Trace& trace, bool kernels_only) {
  std::vector<GpuWork> work;
  work.reserve(trace.kernels.size() + (kernels_only ? 0 : trace.memcpys.size() + trace.memsets.size()));
  auto add = [&work](const auto& table, GpuTable which) {
    for (size_t i = 0; i < table.size(); ++i)
      work.push_back({table[i].start_ns, table[i].end_ns, table[i].correlation, table[i].device, table[i].stream, which,
                      static_cast<uint32_t>(i)});
  };
  add(trace.kernels, GpuTable::kKernel);
  if (!kernels_only) {
    add(trace.memcpys, GpuTable::kMemcpy);
    add(trace.memsets, GpuTable::kMemset);
  }
  std::sort(work.begin(), work.end(), [](const GpuWork& a, const GpuWork& b) { return a.start_ns < b.start_ns; });
  return work;
}

// ---------------------------------------------------------------------------------------
// KernelClassTable

namespace {
constexpr uint32_t kNoSlot = 0xFFFFFFFFu;
}  // namespace

KernelClassTable::KernelClassTable(const Trace& trace) : slot_(trace.strings.size(), kNoSlot) {
  for (const KernelEvent& k : trace.kernels) {
    if (k.name >= slot_.size()) slot_.resize(static_cast<size_t>(k.name) + 1, kNoSlot);
    if (slot_[k.name] != kNoSlot) continue;
    slot_[k.name] = static_cast<uint32_t>(classes_.size());
    classes_.push_back(ClassifyKernel(trace.str(k.name)));
  }
  unknown_ = ClassifyKernel("");
}

const KernelClass& KernelClassTable::Of(StringId name) const {
  if (name >= slot_.size() || slot_[name] == kNoSlot) return unknown_;
  return classes_[slot_[name]];
}

// ---------------------------------------------------------------------------------------
// RankContext

RankContext::RankContext(const Trace& trace, const AnalysisOptions& options)
    : trace_(trace), options_(options), launches_(trace), classes_(trace) {
  // API roles, classified once per distinct name.
  {
    std::vector<uint8_t> by_name(trace.strings.size(), 0xFF);
    calls_.roles.reserve(trace.api_calls.size());
    for (const ApiCall& a : trace.api_calls) {
      if (a.name >= by_name.size()) by_name.resize(static_cast<size_t>(a.name) + 1, 0xFF);
      if (by_name[a.name] == 0xFF) by_name[a.name] = static_cast<uint8_t>(ClassifyApi(trace.str(a.name)));
      calls_.roles.push_back(static_cast<ApiRole>(by_name[a.name]));
    }
  }
  for (uint32_t i = 0; i < trace.memcpys.size(); ++i)
    if (trace.memcpys[i].correlation >= 0) calls_.memcpy_by_corr.emplace_back(trace.memcpys[i].correlation, i);
  std::sort(calls_.memcpy_by_corr.begin(), calls_.memcpy_by_corr.end());

  steps_.analysis = DetectSteps(trace, options, launches_);
  BuildWindows();
  BuildKernelFacts();
  {
    // The op tree needs only the launch links; the busy intervals, host ranges and idle gaps
    // need no tree: with a second thread the two are built side by side.
    Beside tree(options.threads > 1, [this] { op_tree_ = OpTree::Build(trace_, kernels_.launch_call, options_.threads); });
    BuildBusy();
    BuildHostRanges();
    BuildIdleGaps();
    tree.Join();
  }
  BuildSyncPoints();
  AttributeGaps();
}

void RankContext::BuildWindows() {
  const StepAnalysis& steps = steps_.analysis;
  if (!steps.steps.empty()) {
    steps_.windows.reserve(steps.steps.size());
    for (const StepWindow& s : steps.steps) steps_.windows.push_back({s.start_ns, s.end_ns});
  } else if (steps.window_end_ns > steps.window_start_ns) {
    steps_.windows.push_back({steps.window_start_ns, steps.window_end_ns});
  }
  for (const Interval& w : steps_.windows) SatAccumulate(steps_.window_ns, w.end_ns - w.start_ns);
}

bool RankContext::InWindows(TimeNs t) const {
  const std::vector<Interval>& windows = steps_.windows;
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](TimeNs x, const Interval& w) { return x < w.start_ns; });
  if (it == windows.begin()) return false;
  --it;
  return t < it->end_ns;
}

int64_t RankContext::StepAt(TimeNs t) const {
  const std::vector<StepWindow>& s = steps().steps;
  auto it = std::upper_bound(s.begin(), s.end(), t, [](TimeNs x, const StepWindow& w) { return x < w.start_ns; });
  if (it == s.begin()) return -1;
  --it;
  return t < it->end_ns ? static_cast<int64_t>(it - s.begin()) : -1;
}

int64_t RankContext::StepOfLaunch(TimeNs t) const {
  const std::vector<StepWindow>& s = steps().steps;
  auto it = std::upper_bound(s.begin(), s.end(), t, [](TimeNs x, const StepWindow& w) { return x < w.cpu_start_ns; });
  if (it == s.begin()) return -1;
  --it;
  return t < std::max(it->cpu_end_ns, it->end_ns) ? static_cast<int64_t>(it - s.begin()) : -1;
}

TimeNs RankContext::ClippedNs(TimeNs s, TimeNs e) const {
  const std::vector<Interval>& windows = steps_.windows;
  TimeNs total = 0;
  auto w = std::upper_bound(windows.begin(), windows.end(), s,
                            [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
  for (; w != windows.end() && w->start_ns < e; ++w)
    SatAccumulate(total, std::max<TimeNs>(0, std::min(e, w->end_ns) - std::max(s, w->start_ns)));
  return total;
}

const MemcpyEvent* RankContext::MemcpyOf(int64_t correlation) const {
  if (correlation < 0) return nullptr;
  const auto& v = calls_.memcpy_by_corr;
  auto it = std::upper_bound(v.begin(), v.end(), std::make_pair(correlation, std::numeric_limits<uint32_t>::max()));
  if (it == v.begin() || std::prev(it)->first != correlation) return nullptr;
  return &trace_.memcpys[std::prev(it)->second];
}

bool RankContext::BlockingCopy(size_t call) const {
  const ApiRole role = calls_.roles[call];
  if (role != ApiRole::kMemcpySync && role != ApiRole::kMemcpyAsync) return false;
  const MemcpyEvent* m = MemcpyOf(trace_.api_calls[call].correlation);
  const bool synchronous = role == ApiRole::kMemcpySync || (m != nullptr && !m->async);
  const bool small_h2d = m && m->kind == MemcpyKind::kHtoD && m->bytes <= diagnosis::kSmallH2DBytes;
  if (synchronous) return !(m && (small_h2d || m->kind == MemcpyKind::kDtoD));
  if (m && m->kind == MemcpyKind::kDtoH && m->dst_kind == MemoryKind::kPageable) return true;
  // A pageable H2D copy above the small-copy bar is staged by the host before it returns.
  return m && m->kind == MemcpyKind::kHtoD && m->src_kind == MemoryKind::kPageable && !small_h2d;
}

void RankContext::BuildKernelFacts() {
  const size_t n = trace_.kernels.size();
  kernels_.in_window.assign(n, 0);
  kernels_.launch_call.assign(n, -1);
  // One entry per kernel with a launch (all of them, in a trace with runtime calls): sized for
  // all, trimmed below when fewer have one, without growth slack either way.
  kernels_.by_launch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const KernelEvent& k = trace_.kernels[i];
    const int64_t api = launches_.Find(k.correlation);
    kernels_.launch_call[i] = api;
    if (api >= 0) kernels_.by_launch.emplace_back(trace_.api_calls[static_cast<size_t>(api)].start_ns, static_cast<uint32_t>(i));
    if (InWindows(k.start_ns)) {
      kernels_.in_window[i] = 1;
      SatAccumulate(kernels_.in_window_ns, k.duration_ns());
      if (kernel_class(i).rocm) SatAccumulate(kernels_.rocm_in_window_ns, k.duration_ns());
    }
  }
  std::sort(kernels_.by_launch.begin(), kernels_.by_launch.end());
  TrimSlack(kernels_.by_launch);
}

void RankContext::BuildBusy() {
  std::map<int32_t, std::vector<Interval>> all, kern, mc, ms;
  std::vector<Interval> comm, compute;
  for (size_t i = 0; i < trace_.kernels.size(); ++i) {
    const KernelEvent& k = trace_.kernels[i];
    kern[k.device].push_back({k.start_ns, k.end_ns});
    all[k.device].push_back({k.start_ns, k.end_ns});
    (kernel_class(i).category == KernelCategory::kCommunication ? comm : compute).push_back({k.start_ns, k.end_ns});
  }
  for (const MemcpyEvent& m : trace_.memcpys) {
    mc[m.device].push_back({m.start_ns, m.end_ns});
    all[m.device].push_back({m.start_ns, m.end_ns});
  }
  for (const MemsetEvent& m : trace_.memsets) {
    ms[m.device].push_back({m.start_ns, m.end_ns});
    all[m.device].push_back({m.start_ns, m.end_ns});
  }
  for (auto& [dev, v] : all) busy_.all_by_device[dev] = MergeIntervals(std::move(v));
  for (auto& [dev, v] : kern) v = MergeIntervals(std::move(v));
  busy_.SetKernels(std::move(kern));
  for (auto& [dev, v] : mc) busy_.memcpy_by_device[dev] = MergeIntervals(std::move(v));
  for (auto& [dev, v] : ms) busy_.memset_by_device[dev] = MergeIntervals(std::move(v));
  busy_.comm = MergeIntervals(std::move(comm));
  busy_.SetCompute(MergeIntervals(std::move(compute)));
  if (!steps_.windows.empty()) {
    for (const auto& [dev, m] : busy_.all_by_device) {
      TimeNs b = 0;
      for (const Interval& w : steps_.windows) SatAccumulate(b, OverlapNs(m, w.start_ns, w.end_ns));
      busy_.in_windows_by_device[dev] = b;
    }
  }

  // The main device: the one with the most busy time; its name gives the peaks.
  int64_t best = -1;
  for (const auto& [dev, b] : busy_.in_windows_by_device)
    if (b > best) best = b, busy_.main_device = dev;
  if (best < 0 && !trace_.kernels.empty()) busy_.main_device = trace_.kernels.front().device;
  const Device*& info = busy_.main_device_info;
  for (const Device& d : trace_.devices)
    if (d.id == busy_.main_device || info == nullptr) info = &d;
  if (info != nullptr && info->id != busy_.main_device) {
    for (const Device& d : trace_.devices)
      if (d.id == busy_.main_device) info = &d;
  }
  for (const Interval& w : steps_.windows) SatAccumulate(busy_.main_in_windows_ns, OverlapNs(busy_.main(), w.start_ns, w.end_ns));
}

const std::vector<Interval>& BusyIntervals::main() const {
  static const std::vector<Interval> kNone;
  auto it = all_by_device.find(main_device);
  return it != all_by_device.end() ? it->second : kNone;
}

namespace {
bool SameIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Interval& x, const Interval& y) { return x.start_ns == y.start_ns && x.end_ns == y.end_ns; });
}
}  // namespace

const std::vector<Interval>& BusyIntervals::kernels(int32_t device) const {
  static const std::vector<Interval> kNone;
  if (auto own = kernels_own_.find(device); own != kernels_own_.end()) return own->second;
  if (!std::binary_search(kernel_devices_.begin(), kernel_devices_.end(), device)) return kNone;
  auto all = all_by_device.find(device);
  return all != all_by_device.end() ? all->second : kNone;
}

const std::vector<Interval>& BusyIntervals::compute() const {
  return compute_shared_ ? kernels(compute_device_) : compute_own_;
}

void BusyIntervals::SetKernels(std::map<int32_t, std::vector<Interval>> merged_by_device) {
  kernels_own_.clear();
  kernel_devices_.clear();
  compute_shared_ = false;  // compute may have read a list replaced here
  for (auto& [dev, v] : merged_by_device) {
    kernel_devices_.push_back(dev);
    auto all = all_by_device.find(dev);
    if (all == all_by_device.end() || !SameIntervals(all->second, v)) kernels_own_[dev] = std::move(v);
  }
}

void BusyIntervals::SetCompute(std::vector<Interval> merged) {
  compute_shared_ = false;
  compute_own_.clear();
  if (kernel_devices_.size() == 1 && !merged.empty() && SameIntervals(kernels(kernel_devices_[0]), merged)) {
    compute_shared_ = true;
    compute_device_ = kernel_devices_[0];
    compute_own_.shrink_to_fit();
    return;
  }
  compute_own_ = std::move(merged);
}

void RankContext::BuildHostRanges() {
  // Named host ranges: DataLoader and Optimizer.step (user annotations, NVTX, 2021 Operators).
  auto visit_range = [&](StringId id, TimeNs s, TimeNs e, int64_t tid) {
    const std::string_view name = trace_.str(id);
    const HostRangeRole role = ClassifyHostRange(name);
    if (role == HostRangeRole::kDataLoader) {
      host_.dataloader.push_back({s, e});
      host_.dataloader_names.insert(std::string(name));
    } else if (role == HostRangeRole::kOptimizerStep) {
      host_.optimizer_steps.push_back({s, e, tid, id});
      host_.optimizer_names.insert(std::string(name));
    } else if (role == HostRangeRole::kOptimizerZeroGrad) {
      host_.zero_grad.push_back({s, e, tid, id});
      host_.optimizer_names.insert(std::string(name));
    }
  };
  for (const Range& r : trace_.ranges)
    if (r.kind == RangeKind::kCpuAnnotation || r.kind == RangeKind::kNvtx)
      visit_range(r.name, r.start_ns, r.end_ns, r.tid);
  for (const CpuOp& op : trace_.cpu_ops) {
    std::string_view n = trace_.str(op.name);
    const HostRangeRole role = ClassifyHostRange(n);
    if (role == HostRangeRole::kDataLoader || role == HostRangeRole::kOptimizerStep ||
        role == HostRangeRole::kOptimizerZeroGrad)
      visit_range(op.name, op.start_ns, op.end_ns, op.tid);
  }
  host_.dataloader = MergeIntervals(std::move(host_.dataloader));
  for (std::vector<TidRange>* v : {&host_.optimizer_steps, &host_.zero_grad})
    std::sort(v->begin(), v->end(), [](const TidRange& a, const TidRange& b) { return a.start_ns < b.start_ns; });

  // Allocator calls and pageable host-to-device copies (what the idle attribution charges).
  std::vector<Interval> pageable, alloc;
  for (size_t i = 0; i < trace_.api_calls.size(); ++i) {
    const ApiCall& a = trace_.api_calls[i];
    const ApiRole role = calls_.roles[i];
    if (role == ApiRole::kAlloc || role == ApiRole::kFree) {
      alloc.push_back({a.start_ns, a.end_ns});
      if (role == ApiRole::kFree) host_.free_calls.push_back({a.start_ns, a.end_ns});
      if (InWindows(a.start_ns)) host_.alloc_calls.push_back({a.start_ns, StepOfLaunch(a.start_ns), std::string(trace_.str(a.name))});
      continue;
    }
    if (role != ApiRole::kMemcpySync && role != ApiRole::kMemcpyAsync) continue;
    const MemcpyEvent* m = MemcpyOf(a.correlation);
    if (m != nullptr && m->kind == MemcpyKind::kHtoD && m->src_kind == MemoryKind::kPageable)
      pageable.push_back({a.start_ns, a.end_ns});
  }
  host_.pageable_h2d_calls = MergeIntervals(std::move(pageable));
  host_.alloc_calls_merged = MergeIntervals(std::move(alloc));
  BuildHostActivity();
  std::sort(host_.free_calls.begin(), host_.free_calls.end(),
            [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
}

// Recorded host activity, merged: ops (not the ranges 2021 traces write as ops: a ProfilerStep
// "op" would make the whole step active), runtime calls and DataLoader ranges. The three tables
// are each sorted by start (the reader's order; dataloader is merged), so they are merged as they
// are read, without a copy of all of them; anything unsorted falls back to a sort.
void RankContext::BuildHostActivity() {
  const Trace& t = trace_;
  const std::vector<Interval>& dataloader = host_.dataloader;
  std::vector<Interval>& active = host_.active;
  std::vector<uint8_t> annotation(t.strings.size(), 0xFF);  // by name: 1 a range written as an op, 0 an op
  auto is_op = [&](const CpuOp& op) {
    if (op.name >= annotation.size()) return !IsAnnotationOpName(t.str(op.name));
    if (annotation[op.name] == 0xFF) annotation[op.name] = IsAnnotationOpName(t.str(op.name)) ? 1 : 0;
    return annotation[op.name] == 0;
  };
  const bool sorted =
      std::is_sorted(t.cpu_ops.begin(), t.cpu_ops.end(), [](const CpuOp& a, const CpuOp& b) { return a.start_ns < b.start_ns; }) &&
      std::is_sorted(t.api_calls.begin(), t.api_calls.end(), [](const ApiCall& a, const ApiCall& b) { return a.start_ns < b.start_ns; });
  if (!sorted) {
    std::vector<Interval> all;
    for (const CpuOp& op : t.cpu_ops)
      if (is_op(op)) all.push_back({op.start_ns, op.end_ns});
    for (const ApiCall& a : t.api_calls) all.push_back({a.start_ns, a.end_ns});
    all.insert(all.end(), dataloader.begin(), dataloader.end());
    active = MergeIntervals(std::move(all));
    return;
  }
  size_t i = 0, j = 0, k = 0;
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();
  while (true) {
    while (i < t.cpu_ops.size() && !is_op(t.cpu_ops[i])) ++i;
    const TimeNs si = i < t.cpu_ops.size() ? t.cpu_ops[i].start_ns : kNone;
    const TimeNs sj = j < t.api_calls.size() ? t.api_calls[j].start_ns : kNone;
    const TimeNs sk = k < dataloader.size() ? dataloader[k].start_ns : kNone;
    if (i >= t.cpu_ops.size() && j >= t.api_calls.size() && k >= dataloader.size()) break;
    if (si <= sj && si <= sk && i < t.cpu_ops.size()) {
      AppendMerged(active, si, t.cpu_ops[i++].end_ns);
    } else if (sj <= sk && j < t.api_calls.size()) {
      AppendMerged(active, sj, t.api_calls[j++].end_ns);
    } else {
      AppendMerged(active, sk, dataloader[k++].end_ns);
    }
  }
  TrimSlack(active);
}

const OpTree& RankContext::op_tree() const {
  AMPSCOPE_CHECK(!op_tree_released_);
  return op_tree_;
}

void RankContext::ReleaseOpTree() {
  op_tree_ = OpTree();
  op_tree_released_ = true;
}

int64_t RankContext::CpuOpOfKernel(size_t i) const {
  AMPSCOPE_CHECK(!op_tree_released_);
  OpTree::NodeId n = op_tree_.node_of_kernel(static_cast<uint32_t>(i));
  while (n != OpTree::kNoNode && op_tree_.kind(n) != OpTree::NodeKind::kCpuOp) n = op_tree_.parent(n);
  return n == OpTree::kNoNode ? -1 : static_cast<int64_t>(op_tree_.source_index(n));
}

int64_t RankContext::StepsThread() const {
  const Trace& t = trace();
  if (!steps().steps.empty()) {
    const StepWindow& s = steps().steps.front();
    int64_t tid = -1;
    for (const Range& r : t.ranges)
      if (r.start_ns == s.cpu_start_ns && r.end_ns == s.cpu_end_ns && r.kind != RangeKind::kGpuAnnotation) tid = r.tid;
    if (tid >= 0) return tid;
  }
  std::vector<std::pair<int64_t, uint64_t>> launches;
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    if (api_role(i) != ApiRole::kLaunch) continue;
    auto it = std::find_if(launches.begin(), launches.end(), [&](const auto& p) { return p.first == t.api_calls[i].tid; });
    if (it == launches.end()) launches.push_back({t.api_calls[i].tid, 1});
    else ++it->second;
  }
  int64_t tid = -1;
  uint64_t best = 0;
  for (const auto& [thread, n] : launches)
    if (n > best) best = n, tid = thread;
  return tid;
}

std::string RankContext::OpChainName(int64_t tid, TimeNs t) const {
  AMPSCOPE_CHECK(!op_tree_released_);
  const CpuOp* inner = nullptr;
  const CpuOp* outer = nullptr;
  for (OpTree::NodeId n = op_tree_.InnermostAt(tid, t); n != OpTree::kNoNode; n = op_tree_.parent(n)) {
    const CpuOp* op = op_tree_.cpu_op(n);
    if (op == nullptr) continue;
    if (inner == nullptr) inner = op;
    outer = op;
  }
  if (outer == nullptr) return "";
  std::string s(trace_.str(outer->name));
  if (inner != outer) s += " > " + std::string(trace_.str(inner->name));
  return s;
}

// The one definition of a host-blocking sync point:
//   - explicit host-blocking sync APIs (classify/'s ApiRole::kSync);
//   - synchronous copies (ApiRole::kMemcpySync, or a copy record the reader marked !async),
//     except H2D copies of <= 64 KB (staged: the call returns before the copy) and D2D copies
//     (device-side only) [nsys cuda_memcpy_sync];
//   - async D2H copies into pageable memory, and async H2D copies of > 64 KB from pageable
//     memory (CUDA's API sync behaviour: the call returns only once the copy is done, or staged
//     through the driver's small pinned buffer);
//   - a copy followed within 50 µs by a stream sync on the same thread is ONE point
//     (.item() = cudaMemcpyAsync D2H + cudaStreamSynchronize; tensor.to('cuda') without
//     non_blocking=True = cudaMemcpyAsync H2D + cudaStreamSynchronize, even from pinned memory);
//   - CUPTI SYNCHRONIZATION records (not stream-wait-event) only when the trace has no runtime
//     API calls at all: Kineto writes a record for the same sync as its runtime call.
// A point that starts with a host-to-device copy is an input copy (SyncPoint::input_copy): the
// host waits for its own upload, the fix is pinned memory and non_blocking=True.
// Only points whose first call starts inside the windows count.
void RankContext::BuildSyncPoints() {
  struct Call {
    TimeNs s, e;
    int64_t tid;
    std::string label;
    bool explicit_sync;
    bool blocking;  // a point by itself; else (a non-blocking H2D copy) only with a sync right after
    bool h2d;       // a host-to-device copy
  };
  std::vector<Call> calls;
  for (size_t i = 0; i < trace_.api_calls.size(); ++i) {
    const ApiCall& a = trace_.api_calls[i];
    const ApiRole role = calls_.roles[i];
    if (role != ApiRole::kSync && role != ApiRole::kMemcpySync && role != ApiRole::kMemcpyAsync) continue;
    if (!InWindows(a.start_ns)) continue;
    std::string_view name = trace_.str(a.name);
    if (role == ApiRole::kSync) {
      calls.push_back({a.start_ns, a.end_ns, a.tid, std::string(name), true, true, false});
      continue;
    }
    const MemcpyEvent* m = MemcpyOf(a.correlation);
    const bool h2d = m != nullptr && m->kind == MemcpyKind::kHtoD;
    const bool blocking = BlockingCopy(i);
    if (blocking || h2d)
      calls.push_back({a.start_ns, a.end_ns, a.tid, std::string(name) + (m ? std::string(" ") + MemcpyKindName(m->kind) : ""),
                       false, blocking, h2d});
  }
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.s < b.s; });
  std::vector<SyncPoint>& points = syncs_.points;
  constexpr TimeNs kJoinNs = 50'000;
  for (size_t i = 0; i < calls.size(); ++i) {
    const bool sync_follows = i + 1 < calls.size() && calls[i + 1].tid == calls[i].tid && !calls[i].explicit_sync &&
                              calls[i + 1].explicit_sync && calls[i + 1].s - calls[i].e <= kJoinNs;
    if (!calls[i].blocking && !sync_follows) continue;  // a non-blocking copy with no sync after it
    SyncPoint p;
    p.start_ns = calls[i].s;
    p.end_ns = calls[i].e;
    p.tid = calls[i].tid;
    p.api = calls[i].label;
    p.blocked_ns = std::max<TimeNs>(0, calls[i].e - calls[i].s);
    p.input_copy = calls[i].h2d;
    if (sync_follows) {
      ++i;
      p.end_ns = std::max(p.end_ns, calls[i].e);
      p.api += " + " + calls[i].label;
      SatAccumulate(p.blocked_ns, std::max<TimeNs>(0, calls[i].e - calls[i].s));
    }
    points.push_back(std::move(p));
  }
  if (points.empty() && trace_.api_calls.empty()) {
    for (const SyncEvent& s : trace_.syncs) {
      if (s.type == SyncType::kStreamWaitEvent || !InWindows(s.start_ns)) continue;
      SyncPoint p;
      p.start_ns = s.start_ns;
      p.end_ns = s.end_ns;
      p.tid = s.tid;
      p.api = std::string("cuda_sync:") + SyncTypeName(s.type);
      p.blocked_ns = std::max<TimeNs>(0, s.end_ns - s.start_ns);
      points.push_back(std::move(p));
    }
  }
  std::stable_sort(points.begin(), points.end(), [](const SyncPoint& a, const SyncPoint& b) { return a.start_ns < b.start_ns; });
  const auto& by_launch = kernels_.by_launch;
  std::vector<Interval> blocking;
  blocking.reserve(points.size());
  for (SyncPoint& p : points) {
    p.step_index = StepOfLaunch(p.start_ns);
    // What the host waited for: the last kernel launched before the sync.
    auto it = std::upper_bound(by_launch.begin(), by_launch.end(), std::make_pair(p.start_ns, uint32_t{0}));
    if (it != by_launch.begin()) {
      const uint32_t ki = std::prev(it)->second;
      p.waited_for = ShortName(trace_.str(trace_.kernels[ki].name), 70);
      const KernelClass& c = kernel_class(ki);
      p.scaler = c.category == KernelCategory::kAmpScaler || c.role == KernelRole::kAmpUnscale;
    }
    const std::string ops = OpChainName(p.tid, p.start_ns);
    p.label = ops.empty() ? p.api : ops + ": " + p.api;
    blocking.push_back({p.start_ns, p.end_ns});
  }
  syncs_.blocking = MergeIntervals(std::move(blocking));
}

void RankContext::ReleaseIdleGaps(std::vector<IdleGap>& gaps, IdleGapCauseTable& causes) {
  gaps = std::move(idle_.gaps);
  causes = std::move(idle_.causes);
  idle_.gaps.clear();
  idle_.causes.clear();
}

void RankContext::LendSteps(StepAnalysis& into) {
  into = std::move(steps_.analysis);
  steps_.analysis = StepAnalysis();
  steps_.read = &into;
}

void RankContext::BuildIdleGaps() {
  const Trace& trace = trace_;
  const LaunchIndex& launches = launches_;
  const std::vector<Interval>& windows = steps_.windows;
  std::vector<IdleGap>& gaps = idle_.gaps;
  if (windows.empty()) return;
  std::vector<GpuWork> work = CollectGpuWork(trace, /*kernels_only=*/false);
  std::map<int32_t, std::vector<const GpuWork*>> by_device;
  for (const GpuWork& w : work) by_device[w.device].push_back(&w);

  for (const auto& entry : by_device) {
    // (Named, not a structured binding: the lambda below captures the device, which clang 14
    // does not allow for a binding.)
    const int32_t device = entry.first;
    const std::vector<const GpuWork*>& events = entry.second;
    // Walk events by start; `busy_end` is the end of the merged busy interval so far.
    // A gap ends when the next event starts after busy_end. HTA's rule classifies it by
    // the event that ends it: if its launch API started after the gap began, the GPU
    // waited for the host (host_wait); else a short gap is kernel_wait; else other.
    auto classify = [&](TimeNs gap_start, TimeNs gap_end, const GpuWork* next) {
      IdleKind kind = IdleKind::kOther;
      bool queued = false;
      if (next != nullptr) {
        int64_t api = launches.Find(next->correlation);
        if (api >= 0 && trace.api_calls[api].start_ns > gap_start) {
          kind = IdleKind::kHostWait;
        } else if (gap_end - gap_start < kKernelWaitThresholdNs) {
          kind = IdleKind::kKernelWait;
        }
        queued = api >= 0 && trace.api_calls[api].end_ns <= gap_start;
      }
      // Clip to the windows: one gap may span a step boundary.
      auto w = std::upper_bound(windows.begin(), windows.end(), gap_start,
                                [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
      for (; w != windows.end() && w->start_ns < gap_end; ++w) {
        TimeNs s = std::max(gap_start, w->start_ns), e = std::min(gap_end, w->end_ns);
        if (e > s) gaps.push_back({s, e, device, kind, queued});
      }
    };
    TimeNs busy_end = windows.front().start_ns;
    for (const GpuWork* ev : events) {
      if (ev->end_ns <= windows.front().start_ns) continue;
      if (ev->start_ns >= windows.back().end_ns) {
        if (busy_end < windows.back().end_ns) classify(busy_end, windows.back().end_ns, ev);
        busy_end = windows.back().end_ns;
        break;
      }
      if (ev->start_ns > busy_end) classify(busy_end, ev->start_ns, ev);
      busy_end = std::max(busy_end, ev->end_ns);
    }
    if (busy_end < windows.back().end_ns) classify(busy_end, windows.back().end_ns, nullptr);
  }
  std::sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
  TrimSlack(gaps);
}


TimeNs CutOut(std::vector<Interval>& pieces, const std::vector<Interval>& cause) {
  TimeNs removed = 0;
  std::vector<Interval> out;
  for (const Interval& p : pieces) {
    TimeNs cur = p.start_ns;
    auto it = std::upper_bound(cause.begin(), cause.end(), p.start_ns,
                               [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
    for (; it != cause.end() && it->start_ns < p.end_ns; ++it) {
      const TimeNs s = std::max(cur, it->start_ns), e = std::min(p.end_ns, it->end_ns);
      if (s > cur) out.push_back({cur, s});
      if (e > s) SatAccumulate(removed, e - s);
      cur = std::max(cur, e);
    }
    if (cur < p.end_ns) out.push_back({cur, p.end_ns});
  }
  pieces.swap(out);
  return removed;
}

// Each GPU idle gap on the main device (host_wait and other; HTA's kernel_wait gaps are the
// GPU's own launch latency) is split by what the host was doing: DataLoader ranges, pageable
// copies and allocator calls take the time they overlap; the rest goes to what opened the gap -
// a sync call that was waiting when the GPU ran dry (host_sync or grad_scaler_sync), a cudaFree,
// or else the host simply not launching fast enough.
void RankContext::AttributeGaps() {
  const std::vector<SyncPoint>& sync_points = syncs_.points;
  const std::vector<Interval>& free_api = host_.free_calls;
  auto attributed = [&](const IdleGap& g) { return g.device == busy_.main_device && g.kind != IdleKind::kKernelWait; };
  // Sized once: one entry per attributed gap, ~2 a step (growth by doubling left up to half unused).
  idle_.causes.Reserve(static_cast<size_t>(std::count_if(idle_.gaps.begin(), idle_.gaps.end(), attributed)));
  for (size_t gi = 0; gi < idle_.gaps.size(); ++gi) {
    const IdleGap& g = idle_.gaps[gi];
    if (!attributed(g)) continue;
    std::vector<Interval> pieces = {{g.start_ns, g.end_ns}};
    GapCauses gc;
    gc.gap = static_cast<uint32_t>(gi);
    std::array<TimeNs, kIdleCauses>& part = gc.ns;
    part[static_cast<size_t>(IdleCause::kDataLoader)] = CutOut(pieces, host_.dataloader);
    part[static_cast<size_t>(IdleCause::kPageable)] = CutOut(pieces, host_.pageable_h2d_calls);
    part[static_cast<size_t>(IdleCause::kAlloc)] = CutOut(pieces, host_.alloc_calls_merged);
    TimeNs rest = 0;
    for (const Interval& p : pieces) SatAccumulate(rest, p.end_ns - p.start_ns);
    IdleCause opener = g.kind == IdleKind::kHostWait ? IdleCause::kHost : IdleCause::kOther;
    // The gap opened while the host was blocked: the blocking call started before the GPU
    // ran dry and returned after (or just before) it did.
    constexpr TimeNs kSlackNs = 20'000;
    const SyncPoint* sp = nullptr;
    {
      auto it = std::upper_bound(sync_points.begin(), sync_points.end(), g.start_ns,
                                 [](TimeNs x, const SyncPoint& p) { return x < p.start_ns; });
      for (int n = 0; it != sync_points.begin() && n < 16 && sp == nullptr; ++n) {
        --it;
        if (g.start_ns <= SaturatingAdd(it->end_ns, kSlackNs)) sp = &*it;
      }
    }
    bool freed = false;
    {
      auto it = std::upper_bound(free_api.begin(), free_api.end(), g.start_ns,
                                 [](TimeNs x, const Interval& f) { return x < f.start_ns; });
      for (int n = 0; it != free_api.begin() && n < 16 && !freed; ++n) {
        --it;
        freed = g.start_ns <= SaturatingAdd(it->end_ns, kSlackNs);
      }
    }
    // A blocking input copy (.to('cuda')) is not a sync the user wrote: the host waited for its
    // own upload, and what follows it is host time (the pageable copy's own time is cut out above).
    // A sync or cudaFree the host sat in did not open a gap whose work was queued already: the
    // GPU had that work and did not start it, so an earlier return would not have started it.
    if (g.queued) {
    } else if (sp != nullptr && !sp->input_copy) {
      opener = sp->scaler ? IdleCause::kScalerSync : IdleCause::kSync;
    } else if (freed) {
      opener = IdleCause::kAlloc;
    }
    // In a gap the host opened, long stretches with no recorded host activity at all are not
    // launch overhead: the host was busy outside the profiler's view.
    if (opener == IdleCause::kHost) {
      std::vector<Interval> bare = pieces;
      CutOut(bare, host_.active);
      TimeNs untraced = 0;
      for (const Interval& b : bare)
        if (b.end_ns - b.start_ns >= diagnosis::kUntracedHostNs) SatAccumulate(untraced, b.end_ns - b.start_ns);
      untraced = std::min(untraced, rest);
      part[static_cast<size_t>(IdleCause::kHostUntraced)] = untraced;
      rest -= untraced;
    }
    SatAccumulate(part[static_cast<size_t>(opener)], rest);
    idle_.causes.Add(gc);
  }
  idle_.causes.TrimSlack();
}

}  // namespace ampscope

// Distributed rules: communication the GPU waits for, named by collective type and advised by
// type (all-to-all, all-gather / reduce-scatter, all-reduce, send/recv, broadcast), per-parameter
// all-reduce, and communication that is large though overlapped.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <cmath>
#include <array>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

// One collective type's calls in the analysed window (ra.collectives: each NCCL kernel, typed by
// its name, refined by Kineto's "Collective name" or the c10d op around it).
struct TypeShare {
  CollectiveType type = CollectiveType::kUnknown;
  uint64_t calls = 0;
  TimeNs time_ns = 0;     // sum of the kernels' durations
  TimeNs exposed_ns = 0;  // the part no compute kernel overlaps
  std::vector<TimeNs> durations;
  std::vector<int64_t> bytes;  // known sizes only
};

template <typename T>
T Median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::vector<TypeShare> SharesByType(const Facts& in) {
  std::array<TypeShare, static_cast<size_t>(CollectiveType::kCount)> by{};
  const bool steps = !in.ra.steps.steps.empty();
  for (const CollectiveCall& c : in.ra.collectives) {
    if (steps ? c.step_index < 0 : !in.ctx.InWindows(c.start_ns)) continue;
    TypeShare& s = by[static_cast<size_t>(c.type)];
    s.type = c.type;
    const TimeNs d = std::max<TimeNs>(0, c.end_ns - c.start_ns);
    s.calls++;
    SatAccumulate(s.time_ns, d);
    SatAccumulate(s.exposed_ns, d - std::min(d, OverlapNs(in.ctx.busy().compute(), c.start_ns, c.end_ns)));
    s.durations.push_back(d);
    if (c.bytes >= 0) s.bytes.push_back(c.bytes);
  }
  std::vector<TypeShare> out;
  for (TypeShare& s : by)
    if (s.calls > 0) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const TypeShare& a, const TypeShare& b) { return a.time_ns > b.time_ns; });
  return out;
}

std::vector<FieldList> TypesJson(const Facts& in, const std::vector<TypeShare>& types, TimeNs total) {
  std::vector<FieldList> out;
  for (const TypeShare& s : types) {
    FieldList f = {{"type", CollectiveTypeName(s.type)},
                   {"calls", s.calls, Unit::kCount},
                   {"calls_per_step", Round(static_cast<double>(s.calls) / in.nsteps), Unit::kPerStep},
                   {"time_us", NsToUsRounded3(s.time_ns), Unit::kUs},
                   {"share_of_communication_pct", Round(total > 0 ? 100.0 * s.time_ns / total : 0.0), Unit::kPct},
                   {"exposed_us", NsToUsRounded3(s.exposed_ns), Unit::kUs},
                   {"exposed_pct_of_step", Round(in.PctOfWindow(static_cast<double>(s.exposed_ns))), Unit::kPctOfStep},
                   {"overlap_pct", Round(s.time_ns > 0 ? 100.0 * (s.time_ns - s.exposed_ns) / s.time_ns : 0.0), Unit::kPct},
                   {"median_us", NsToUsRounded3(Median(s.durations)), Unit::kUs}};
    if (!s.bytes.empty()) f.push_back({"median_bytes", Median(s.bytes), Unit::kBytes});
    out.push_back(std::move(f));
  }
  return out;
}

// What to change for one collective type, naming the frameworks that issue it. `moe`: the
// all-to-all is expert parallelism's (DeepEP's dispatch/combine kernels were recorded).
std::string TypeAdvice(CollectiveType t, bool moe) {
  switch (t) {
    case CollectiveType::kAllToAll:
      if (moe)
        return "all-to-all (MoE expert-parallel token dispatch and combine, DeepEP): overlap dispatch and combine with "
               "another micro-batch's compute (DeepEP's async mode with previous_event / async_finish=True, or the "
               "low-latency kernels' return_recv_hook; DeepSeek-V3 overlaps two micro-batches), give the communication "
               "kernels no more SMs than they need (Buffer.set_num_sms), and route each token to experts on few nodes "
               "(node-limited routing) so that less of it crosses RDMA";
      return "all-to-all (TorchRec's sparse-feature and pooled-embedding distribution, or MoE token dispatch): pipeline "
             "the input distribution so the next batch's all-to-all overlaps this batch's compute (TorchRec "
             "TrainPipelineSparseDist), quantize the embedding communication (TorchRec qcomms: fp16/bf16 forward and "
             "backward), and balance the sharding plan across ranks";
    case CollectiveType::kAllGather:
    case CollectiveType::kReduceScatter:
      return "all-gather / reduce-scatter (FSDP or ZeRO parameter sharding): prefetch the next all-gather "
             "(FSDP forward_prefetch=True and backward_prefetch=BackwardPrefetch.BACKWARD_PRE), keep "
             "limit_all_gathers=True so prefetching does not stall on memory, and wrap larger units (fewer, larger "
             "collectives)";
    case CollectiveType::kAllReduce:
      return "all-reduce (DDP gradient buckets): let DDP overlap them with backward (bucket_cap_mb sized so the first "
             "bucket fills early, gradient_as_bucket_view=True, static_graph=True when the graph does not change), use "
             "no_sync() for gradient accumulation, or compress gradients with a bf16/fp16 comm hook";
    case CollectiveType::kSendRecv:
      return "send/recv (point-to-point, e.g. pipeline-parallel activations): more micro-batches per step and an "
             "interleaved schedule hide them behind compute";
    case CollectiveType::kBroadcast:
      return "broadcast (DDP broadcasts module buffers before each forward): DistributedDataParallel(..., "
             "broadcast_buffers=False) when the buffers need no syncing";
    default: return "";
  }
}

// Advice for the types that carry at least kCommTypeAdvicePct of `measure` (exposed time, or
// communication time), the largest first.
std::string AdviceByType(const std::vector<TypeShare>& types, bool exposed, bool moe) {
  TimeNs total = 0;
  for (const TypeShare& s : types) SatAccumulate(total, exposed ? s.exposed_ns : s.time_ns);
  std::vector<const TypeShare*> big;
  for (const TypeShare& s : types)
    if (total > 0 && 100.0 * (exposed ? s.exposed_ns : s.time_ns) / total >= kCommTypeAdvicePct) big.push_back(&s);
  std::sort(big.begin(), big.end(), [&](const TypeShare* a, const TypeShare* b) {
    return (exposed ? a->exposed_ns : a->time_ns) > (exposed ? b->exposed_ns : b->time_ns);
  });
  std::string advice;
  bool gather_said = false;
  for (const TypeShare* s : big) {
    const bool gather = s->type == CollectiveType::kAllGather || s->type == CollectiveType::kReduceScatter;
    if (gather && gather_said) continue;
    gather_said = gather_said || gather;
    const std::string a = TypeAdvice(s->type, moe);
    if (a.empty()) continue;
    advice += fmt::format("{}{:.0f}% {}", advice.empty() ? "" : " ", 100.0 * (exposed ? s->exposed_ns : s->time_ns) / total, a);
    advice += ".";
  }
  return advice;
}

std::string TypeSummary(const Facts& in, const std::vector<TypeShare>& types, TimeNs total) {
  std::string s;
  for (const TypeShare& t : types)
    s += fmt::format("{}{} {:.0f}% ({:.1f}/step, exposed {:.1f}% of step)", s.empty() ? "" : ", ", CollectiveTypeName(t.type),
                     total > 0 ? 100.0 * t.time_ns / total : 0.0, static_cast<double>(t.calls) / in.nsteps,
                     in.PctOfWindow(static_cast<double>(t.exposed_ns)));
  return s;
}

// Which communication kernels a fix changes.
enum class CommSelect { kAll, kAllReduce, kButAllReduce };

// The communication kernels in the window; all-reduce told by its collective (ra.collectives).
std::vector<uint32_t> CommKernels(const Facts& in, CommSelect select) {
  std::set<std::pair<int32_t, TimeNs>> allreduce;
  for (const CollectiveCall& c : in.ra.collectives)
    if (c.type == CollectiveType::kAllReduce) allreduce.insert({c.stream, c.start_ns});
  std::vector<uint32_t> k;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i) || in.cls(i).category != KernelCategory::kCommunication) continue;
    const bool ar = allreduce.count({in.t.kernels[i].stream, in.t.kernels[i].start_ns}) > 0;
    if (select == CommSelect::kAllReduce ? !ar : select == CommSelect::kButAllReduce && ar) continue;
    k.push_back(static_cast<uint32_t>(i));
  }
  return k;
}

// [heur] DDP's default bucket_cap_mb (torch.nn.parallel.DistributedDataParallel: 25 MB).
constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;
// [heur] Without message sizes: gradients per bucket (ResNet-50's 161 gradients, 97.5 MB, fill
// five 25 MB buckets: about 32 a bucket).
constexpr size_t kGradientsPerBucketUnknownBytes = 32;

// Whether a CPU op or range name is a collective's host side (c10d's op, its record_param_comms
// wrapper, the nccl:* annotation, ProcessGroupNCCL's own ranges).
bool IsCollectiveHostOp(std::string_view n) {
  return n.rfind("c10d::", 0) == 0 || n == "record_param_comms" || n.rfind("nccl:", 0) == 0 ||
         n.rfind("ProcessGroupNCCL", 0) == 0;
}

// The per-call host cost of bucketing: the per-parameter all-reduces of each step, in the order
// the host issued them, grouped into buckets (by bytes at DDP's 25 MB when every size is known,
// else kGradientsPerBucketUnknownBytes a bucket); each call's site is its outermost collective
// op on its thread (else its launch call). A bucket keeps one call's host cost (its last).
graph::Transform BucketedAllReduceHostCost(const Facts& in, const std::vector<uint32_t>& kernels, size_t* calls_removed) {
  struct Site {
    int64_t step, tid;
    Interval span;
    int64_t bytes;
  };
  std::map<std::pair<int32_t, TimeNs>, int64_t> bytes_of;
  for (const CollectiveCall& c : in.ra.collectives)
    if (c.type == CollectiveType::kAllReduce) bytes_of[{c.stream, c.start_ns}] = c.bytes;
  const OpTree& tree = in.ctx.op_tree();
  std::vector<Site> sites;
  for (uint32_t k : kernels) {
    const int64_t call = in.ctx.kernels().launch_call[k];
    if (call < 0) continue;
    const ApiCall& a = in.t.api_calls[static_cast<size_t>(call)];
    Interval span{a.start_ns, a.end_ns};
    for (OpTree::NodeId n = tree.InnermostAt(a.tid, a.start_ns); n != OpTree::kNoNode; n = tree.parent(n))
      if (IsCollectiveHostOp(in.t.str(tree.name(n)))) span = {std::min(span.start_ns, tree.start_ns(n)), std::max(span.end_ns, tree.end_ns(n))};
    auto b = bytes_of.find({in.t.kernels[k].stream, in.t.kernels[k].start_ns});
    sites.push_back({in.ctx.StepAt(a.start_ns), a.tid, span, b == bytes_of.end() ? -1 : b->second});
  }
  std::sort(sites.begin(), sites.end(), [](const Site& x, const Site& y) {
    return std::tie(x.step, x.tid, x.span.start_ns) < std::tie(y.step, y.tid, y.span.start_ns);
  });
  std::vector<graph::CallSites> groups;
  size_t removed = 0;
  for (size_t i = 0; i < sites.size();) {
    size_t j = i;
    bool sized = true;
    double bytes = 0;
    while (j < sites.size() && sites[j].step == sites[i].step && sites[j].tid == sites[i].tid) {
      sized = sized && sites[j].bytes >= 0;
      bytes += static_cast<double>(std::max<int64_t>(0, sites[j].bytes));
      ++j;
    }
    const size_t n = j - i;
    const size_t buckets = std::clamp<size_t>(
        sized ? static_cast<size_t>(std::ceil(bytes / kDdpBucketBytes)) : (n + kGradientsPerBucketUnknownBytes - 1) / kGradientsPerBucketUnknownBytes,
        1, n);
    const size_t per = (n + buckets - 1) / buckets;
    for (size_t s = i; s < j; s += per) {
      graph::CallSites g;
      g.tid = sites[s].tid;
      for (size_t m = s; m < std::min(j, s + per); ++m) {
        // Sites never overlap: a nested or overlapping one joins the one before it.
        if (!g.sites.empty() && sites[m].span.start_ns < g.sites.back().end_ns) {
          g.sites.back().end_ns = std::max(g.sites.back().end_ns, sites[m].span.end_ns);
          continue;
        }
        g.sites.push_back(sites[m].span);
      }
      g.kept_ns = g.sites.back().end_ns - g.sites.back().start_ns;
      removed += g.sites.size() - 1;
      groups.push_back(std::move(g));
    }
    i = j;
  }
  if (calls_removed != nullptr) *calls_removed = removed;
  return graph::CoalesceCalls(in.ctx, groups, "");
}

// Hundreds of small all-reduces per step with no overlap: gradients reduced one tensor at a time.
// Returns the exposed all-reduce time it claims (0: not raised).
TimeNs RulePerParameterAllReduce(const Facts& in, const std::vector<TypeShare>& types, FindingSink& out) {
  const TypeShare* ar = nullptr;
  for (const TypeShare& s : types)
    if (s.type == CollectiveType::kAllReduce) ar = &s;
  if (ar == nullptr) return 0;
  const double per_step = static_cast<double>(ar->calls) / in.nsteps;
  const double overlap = ar->time_ns > 0 ? 100.0 * (ar->time_ns - ar->exposed_ns) / ar->time_ns : 100.0;
  const TimeNs median_ns = Median(ar->durations);
  const bool small = ar->bytes.empty() ? static_cast<double>(median_ns) < kSmallCollectiveNs
                                       : Median(ar->bytes) < kSmallCollectiveBytes;
  const double pct = in.PctOfWindow(static_cast<double>(ar->exposed_ns));
  if (per_step < kPerParameterAllReducePerStep || !small || overlap >= kCommOverlapPct || pct < kMinSavingPct) return 0;
  const bool ddp = [&] {
    for (const Range& r : in.t.ranges)
      if (ClassifyHostRange(in.t.str(r.name)) == HostRangeRole::kDataParallelForward) return true;
    for (const CpuOp& op : in.t.cpu_ops)
      if (ClassifyHostRange(in.t.str(op.name)) == HostRangeRole::kDataParallelForward) return true;
    return false;
  }();
  Finding& x = out.Add(
      "per_parameter_allreduce", pct,
      fmt::format("{:.0f} small all-reduces per step with {:.0f}% overlap: gradients reduced one tensor at a time", per_step, overlap),
      fmt::format("{:.0f} all-reduces per step (median {:.1f} us{}) run one after another with the GPU waiting ({:.1f} ms per "
                  "step): the gradients are reduced tensor by tensor instead of in buckets that overlap backward. {}",
                  per_step, static_cast<double>(median_ns) / 1e3,
                  ar->bytes.empty() ? "" : fmt::format(", {:.0f} kB", static_cast<double>(Median(ar->bytes)) / 1e3),
                  Ms(ar->exposed_ns) / in.nsteps,
                  std::string("With DistributedDataParallel its reducer should bucket them: keep bucket_cap_mb at 25 MB (the "
                              "default) or larger, gradient_as_bucket_view=True, static_graph=True when the graph does not change, "
                              "and under torch.compile keep torch._dynamo.config.optimize_ddp on (it splits the graph at the "
                              "buckets); do not all-reduce gradients again by hand after backward.") +
                      (ddp ? "" : " Without DDP (a loop of dist.all_reduce over the parameters), wrap the model in "
                                  "DistributedDataParallel, or flatten the gradients into one buffer first "
                                  "(torch._utils._flatten_dense_tensors) and all-reduce that.")));
  x.evidence = {{"allreduce_per_step", Round(per_step), Unit::kPerStep},
                {"median_allreduce_us", NsToUsRounded3(median_ns), Unit::kUs},
                {"overlap_pct", Round(overlap), Unit::kPct},
                {"exposed_us_per_step", NsToUsRounded3(ar->exposed_ns / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                {"data_parallel_ranges", ddp},
                {"estimate", "replayed: the all-reduce kernels fully overlapped (what bucketed all-reduces overlapped "
                             "with backward would hide)"}};
  if (!ar->bytes.empty()) x.evidence.push_back({"median_allreduce_bytes", Median(ar->bytes), Unit::kBytes});
  // Bucketing does two things, replayed together: the buckets overlap backward (the kernels no
  // longer delay what waits for them) and the host issues a few calls instead of one per
  // gradient (each eliminated call's runtime calls and c10d op overhead go: coalesce_calls).
  // On a host-bound run only the second shows.
  const std::vector<uint32_t> kernels = CommKernels(in, CommSelect::kAllReduce);
  size_t eliminated = 0;
  const graph::Transform host = BucketedAllReduceHostCost(in, kernels, &eliminated);
  const graph::Transform hidden = graph::OverlapKernels(in.t, kernels, "");
  graph::Transform fix = graph::Combine({&hidden, &host});
  fix.name = graph::kCoalesceCalls;
  fix.selection = fmt::format("all-reduce kernels (full overlap) and the host cost of {:.0f} of the {:.0f} all-reduce calls per "
                              "step that buckets eliminate (their c10d ops and runtime calls)",
                              static_cast<double>(eliminated) / in.nsteps, per_step);
  x.evidence.push_back({"calls_eliminated_per_step", Round(static_cast<double>(eliminated) / in.nsteps), Unit::kPerStep});
  SetField(x.evidence, {"estimate", "replayed: the all-reduce kernels fully overlapped (what bucketed all-reduces overlapped "
                                    "with backward would hide) and the per-call host cost (c10d op and runtime calls) of the "
                                    "calls the buckets eliminate removed"});
  out.Fix(x, std::move(fix));
  return ar->exposed_ns;
}

}  // namespace

double RuleDistributed(const Facts& in, FindingSink& out) {
  ChecklistItem& item = out.Item("distributed_sync");
  item.threshold = fmt::format("exposed communication < {:.0f}% of step with comm/compute overlap >= {:.0f}% [heur]; "
                               "communication <= {:.0f}% of step [kineto]",
                               kExposedCommFailPct, kCommOverlapPct, kCommSharePct);
  item.source = "[kineto] communication/step > 10%; [HTA] comm/compute overlap; [nsys] nccl_gpu_overlap_trace";
  TimeNs comm_in = 0, overlapped = 0;
  uint64_t collectives = 0;
  std::vector<std::pair<TimeNs, TimeNs>> exposed_ranges;
  for (const Interval& w : in.ctx.windows()) comm_in = SaturatingAdd(comm_in, OverlapNs(in.ctx.busy().comm, w.start_ns, w.end_ns));
  for (const Interval& c : in.ctx.busy().comm) {
    for (const Interval& w : in.ctx.windows()) {
      const TimeNs s = std::max(c.start_ns, w.start_ns), e = std::min(c.end_ns, w.end_ns);
      if (e <= s) continue;
      const TimeNs ov = OverlapNs(in.ctx.busy().compute(), s, e);
      overlapped = SaturatingAdd(overlapped, ov);
      if (e - s - ov > 0) exposed_ranges.emplace_back(s, e);
    }
  }
  // Of which NCCL/RCCL kernels, expert-parallel all-to-all kernels (DeepEP dispatch/combine: the
  // classifier names their collective), and others (NVSHMEM, custom all-reduce).
  uint64_t nccl = 0, ep = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i) && in.cls(i).category == KernelCategory::kCommunication) {
      ++collectives;
      if (in.cls(i).role == KernelRole::kNcclCollective) ++nccl;
      else if (in.cls(i).collective != CollectiveType::kUnknown) ++ep;
    }
  const int ws = in.t.metadata.world_size;
  if (collectives == 0 && ws <= 1) {
    item.status = CheckStatus::kNotApplicable;
    item.evidence = ws == 1 ? "world size 1, no communication kernels" : "single process, no communication kernels";
    return -1;
  }
  const double share = in.PctOfWindow(static_cast<double>(comm_in));
  const double overlap = comm_in > 0 ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(comm_in) : 100.0;
  const TimeNs exposed = comm_in - overlapped;
  const double exposed_pct = in.PctOfWindow(static_cast<double>(exposed));
  const std::vector<TypeShare> types = SharesByType(in);
  TimeNs typed_total = 0;
  for (const TypeShare& s : types) SatAccumulate(typed_total, s.time_ns);
  item.value = Round(exposed_pct);
  // What was recorded, by family.
  std::string recorded;
  for (const auto& [n, what] : {std::pair<uint64_t, const char*>{nccl, "NCCL"}, {ep, "DeepEP all-to-all"},
                                {collectives - nccl - ep, "other"}})
    if (n > 0) recorded += fmt::format("{}{} {}", recorded.empty() ? "" : ", ", what, n);
  item.evidence = fmt::format("{:.1f} communication kernels per step ({}); communication {:.1f}% of step; overlap with "
                              "compute {:.1f}% (HTA); exposed {:.1f}% of step{}",
                              static_cast<double>(collectives) / in.nsteps, recorded.empty() ? "none" : recorded, share,
                              overlap, exposed_pct, types.empty() ? "" : "; by type: " + TypeSummary(in, types, typed_total));
  if (collectives == 0) {
    item.status = CheckStatus::kUnknown;
    item.value.reset();  // unknown has no value: 0% of step would read as "nothing exposed"
    item.how_to_know = fmt::format("world size {} but no communication kernels recorded (neither NCCL/RCCL nor DeepEP, "
                                   "NVSHMEM or custom all-reduce kernels): profile with CUDA activities on every rank",
                                   ws);
    return -1;
  }
  item.status = CheckStatus::kPass;
  std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.cls(i).category == KernelCategory::kCommunication; }, 3);
  // Per-parameter all-reduce claims its own exposed time; the rest of the exposed time is the
  // exposed_communication finding's, advised by the types that carry it.
  const TimeNs per_param = RulePerParameterAllReduce(in, types, out);
  std::vector<TypeShare> rest = types;
  if (per_param > 0)
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](const TypeShare& s) { return s.type == CollectiveType::kAllReduce; }),
               rest.end());
  const TimeNs exposed_rest = exposed - std::min(exposed, per_param);
  const double exposed_rest_pct = in.PctOfWindow(static_cast<double>(exposed_rest));
  if (exposed_rest_pct >= kMinSavingPct && (overlap < kCommOverlapPct || exposed_rest_pct >= kExposedCommFailPct)) {
    std::string advice = AdviceByType(rest, /*exposed=*/true, /*moe=*/ep > 0);
    if (advice.empty())
      advice = "Overlap them with compute: issue them asynchronously (async_op=True) and wait only where the result is "
               "needed, or run them on a separate stream beside independent work.";
    Finding& x = out.Add("exposed_communication", exposed_rest_pct,
                     fmt::format("{:.1f}% of the step is communication the GPU waits for (overlap {:.0f}%)", exposed_rest_pct, overlap),
                     fmt::format("{} run with no compute alongside{}. By share of the exposed time: {}",
                                 in.KernelList(top), rest.empty() ? "" : " (" + TypeSummary(in, rest, typed_total) + ")", advice));
    x.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct},
                  {"exposed_us_per_step", NsToUsRounded3(exposed_rest / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                  {"collectives_per_step", Round(static_cast<double>(collectives) / in.nsteps), Unit::kPerStep}, {"top_kernels", top},
                  {"by_type", TypesJson(in, rest, typed_total)},
                  {"estimate", "replayed: communication fully overlapped (its kernels no longer delay what waits for them)"}};
    out.Fix(x, graph::OverlapKernels(in.t, CommKernels(in, per_param > 0 ? CommSelect::kButAllReduce : CommSelect::kAll),
                                     per_param > 0 ? "communication kernels but all-reduce (full overlap)"
                                                   : "communication kernels (full overlap)"));
    std::sort(exposed_ranges.begin(), exposed_ranges.end(), [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
    if (exposed_ranges.size() > 8) exposed_ranges.resize(8);
    std::sort(exposed_ranges.begin(), exposed_ranges.end());
    x.time_ranges = exposed_ranges;
  } else if (share > kCommSharePct && per_param == 0) {
    const std::string advice = AdviceByType(types, /*exposed=*/false, /*moe=*/ep > 0);
    Finding& x = out.Add("communication_heavy", exposed_pct,
                     fmt::format("Communication takes {:.1f}% of the step (overlapped {:.0f}%)", share, overlap),
                     "Communication is well overlapped but large: fewer collectives per sample (gradient accumulation, a "
                     "larger per-GPU batch) or smaller messages (compression) would shrink it." +
                         (advice.empty() ? std::string() : " By share of the communication time: " + advice));
    x.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct}, {"top_kernels", top},
                  {"by_type", TypesJson(in, types, typed_total)},
                  {"estimate", "replayed: communication kernels at half their time (bf16/fp16 compression halves the bytes)"}};
    out.Fix(x, graph::ScaleKernels(in.t, CommKernels(in, CommSelect::kAll), 0.5, "communication kernels at half the bytes"));
    item.status = CheckStatus::kWarn;
  }
  if (exposed_pct >= kMinSavingPct && (overlap < kCommOverlapPct || exposed_pct >= kExposedCommFailPct))
    item.status = (overlap < kCommOverlapPct && exposed_pct >= kExposedCommFailPct) ? CheckStatus::kFail : CheckStatus::kWarn;
  return overlap;
}

}  // namespace ampscope::diagnosis

// The ncu_* findings (docs/findings.md): what the measured kernels say is worth fixing.
//
// Each launch is placed against the roofs as Nsight Compute's own SOLBottleneck rule does: at or
// above 60% of peak on SM or memory throughput it is bound by that unit; under 60% on both it is
// latency-bound. Latency-bound launches whose memory throughput leads are memory-bound kernels
// far from the DRAM roof; the others (the SM leads, or the grid fills under one wave of the SMs)
// are latency-bound. A saving is an upper bound, said so in the evidence: the launch's time if
// its busiest unit reached 60% of peak, time x (1 - busiest / 60). Beside a trace that bound is
// the fix the graph replays (every joined trace kernel at busiest / 60 of its time), and the
// replay's answer is the saving: kernels off the critical path save nothing.
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "analyzers/diagnosis/facts.h"
#include "analyzers/graph/transforms.h"
#include "analyzers/ncu/ncu_internal.h"

namespace ampscope::ncu {

namespace {

using diagnosis::FindingSink;
using diagnosis::Round;

constexpr double kMinFindingSharePct = 2.0;   // [heur] the launches of a finding: at least this share of kernel time
constexpr double kLowOccupancyPct = 25.0;     // [heur] achieved occupancy under this, not at a roof
constexpr double kL2LowHitPct = 50.0;         // [heur] L2 hit rate under this in a kernel that reuses data ...
constexpr double kL2DramBusyPct = 30.0;       // [heur] ... while DRAM is at least this busy
constexpr size_t kListed = 8;                 // launches listed in a finding's evidence
constexpr double kMinRoofDurationNs = 10'000; // [heur] a launch shorter than this cannot reach a roof

std::string Short(std::string_view name) { return ShortName(name, 90); }

double Get(const NcuLaunch& l, NcuField f) { return l.get(f).value_or(0); }

bool IsMath(const KernelClass& c) {
  return c.category == KernelCategory::kGemm || c.category == KernelCategory::kConv ||
         c.category == KernelCategory::kAttention;
}

// The share of `rows`' time in GEMM, convolution and attention kernels: library kernels (cuBLAS,
// cuDNN, CUTLASS, flash) whose tiles, registers and occupancy the user does not set.
double MathShare(const std::vector<const KernelRow*>& rows) {
  double math = 0, all = 0;
  for (const KernelRow* r : rows) {
    all += r->weight_ns;
    if (IsMath(r->cls)) math += r->weight_ns;
  }
  return all > 0 ? math / all : 0;
}

constexpr const char* kLibraryAdvice =
    "Most of this time is in library GEMM/attention kernels, whose tiles and occupancy the library picks from "
    "the shapes: larger batches and dimensions that are multiples of 64-128 give each SM more work, and "
    "torch.compile(mode=\"max-autotune\") or a newer cuBLAS/flash build may pick kernels made for this GPU. ";

FieldList KernelEvidence(const NcuResult& r, const KernelRow& row, double denominator_ns) {
  const NcuLaunch& l = r.report->launches[row.launch];
  FieldList k = {{"kernel", Short(l.name)},
                 {"id", l.id},
                 {"time_us", Round(row.weight_ns / 1e3, 3), Unit::kUs},
                 {"share_pct", Round(100.0 * row.weight_ns / denominator_ns), Unit::kPct},
                 {"sm_throughput_pct", l.get(NcuField::kSmThroughputPct), Unit::kPct},
                 {"memory_throughput_pct", l.get(NcuField::kMemoryThroughputPct), Unit::kPct},
                 {"dram_throughput_pct", l.get(NcuField::kDramThroughputPct), Unit::kPct}};
  if (l.get(NcuField::kWavesPerSm)) k.push_back({"waves_per_sm", *l.get(NcuField::kWavesPerSm)});
  if (!l.stalls.empty()) {
    std::string top;
    for (size_t i = 0; i < l.stalls.size() && i < 3; ++i)
      top += fmt::format("{}{} {:.0f}%", i ? ", " : "", l.stalls[i].reason, l.stalls[i].share_pct);
    k.push_back({"top_stalls", top});
  }
  if (row.trace_kernels > 0) k.push_back({"trace_kernels", row.trace_kernels, Unit::kCount});
  // Nsight Compute's own estimate for the launch: its rules' largest "local" speedup.
  std::optional<double> ncu_speedup;
  for (const NcuRule& rule : l.rules)
    if (rule.est_speedup_pct && rule.speedup_type != "global") ncu_speedup = std::max(ncu_speedup.value_or(0), *rule.est_speedup_pct);
  if (ncu_speedup) k.push_back({"ncu_rule_est_speedup_pct", *ncu_speedup, Unit::kPct});
  return k;
}

// What a warp stall reason means and what helps (Nsight Compute's "Warp State" descriptions).
std::string StallAdvice(std::string_view reason) {
  static const std::map<std::string, std::string, std::less<>> kAdvice = {
      {"long_scoreboard", "waiting on global/local memory loads (L1TEX): make accesses coalesced and reused from "
                          "shared memory, or keep more warps resident to hide the latency"},
      {"short_scoreboard", "waiting on shared memory or special-function results: avoid bank conflicts and "
                           "long MUFU chains"},
      {"barrier", "waiting at __syncthreads: balance the work between a block's warps"},
      {"membar", "waiting on memory fences"},
      {"mio_throttle", "the memory-input/output queue is full (shared-memory or special instructions)"},
      {"lg_throttle", "the local/global memory queue is full: fewer, wider memory instructions"},
      {"math_pipe_throttle", "a math pipe is saturated: the kernel is compute-bound on that pipe"},
      {"tex_throttle", "the texture pipe is saturated"},
      {"wait", "fixed-latency dependencies"},
      {"not_selected", "eligible but another warp issued (enough parallelism; not a problem)"},
      {"no_instruction", "instruction cache misses or branch targets not fetched"},
      {"branch_resolving", "waiting for branch targets"},
      {"dispatch_stall", "the dispatcher stalled"},
      {"drain", "draining memory writes at exit"},
      {"sleeping", "warps sleeping (nanosleep)"},
      {"imc_miss", "constant-cache misses"},
  };
  const auto it = kAdvice.find(reason);
  return it == kAdvice.end() ? std::string() : it->second;
}

// The dominant stalls of `rows`, weighted by time: "long_scoreboard 52% (waiting on ...)".
std::string DominantStalls(const NcuResult& r, const std::vector<const KernelRow*>& rows, FieldList* evidence) {
  std::map<std::string, double> share;
  double den = 0;
  for (const KernelRow* row : rows) {
    const NcuLaunch& l = r.report->launches[row->launch];
    if (l.stalls.empty()) continue;
    den += row->weight_ns;
    for (const NcuStall& s : l.stalls) share[s.reason] += s.share_pct * row->weight_ns;
  }
  if (den <= 0) return "";
  std::vector<std::pair<std::string, double>> sorted(share.begin(), share.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<FieldList> top;
  std::string text;
  for (size_t i = 0; i < sorted.size() && i < 3; ++i) {
    const double pct = sorted[i].second / den;
    top.push_back({{"reason", sorted[i].first}, {"share_pct", Round(pct), Unit::kPct}});
    const std::string advice = StallAdvice(sorted[i].first);
    text += fmt::format("{}{} {:.0f}% of stalls{}", i ? "; " : "", sorted[i].first, pct, advice.empty() ? "" : " (" + advice + ")");
  }
  evidence->push_back({"dominant_stalls", top});
  return text;
}

struct Group {
  std::vector<const KernelRow*> rows;
  double time_ns = 0;
  double saving_ns = 0;
};

double UpperBoundSaving(const NcuLaunch& l, double time_ns) {
  const std::optional<double> busiest = BusiestPct(l);
  if (!busiest) return 0;
  return time_ns * std::max(0.0, 1.0 - *busiest / kRoofPct);
}

std::vector<FieldList> Listed(const NcuResult& r, Group& g, double denominator_ns) {
  std::sort(g.rows.begin(), g.rows.end(), [&](const KernelRow* a, const KernelRow* b) {
    return UpperBoundSaving(r.report->launches[a->launch], a->weight_ns) >
           UpperBoundSaving(r.report->launches[b->launch], b->weight_ns);
  });
  std::vector<FieldList> out;
  for (size_t i = 0; i < g.rows.size() && i < kListed; ++i) out.push_back(KernelEvidence(r, *g.rows[i], denominator_ns));
  return out;
}

// The fix of a finding beside a trace: each trace kernel joined to the group's launches runs at
// 60% of its busiest unit's peak, time x busiest% / 60 (the estimate's own arithmetic).
graph::Transform RoofFix(const NcuResult& r, const Group& g, const Trace& trace) {
  std::vector<graph::Transform> parts;
  size_t kernels = 0;
  for (const KernelRow* row : g.rows) {
    const std::optional<double> busiest = BusiestPct(r.report->launches[row->launch]);
    if (!busiest || *busiest >= kRoofPct || row->trace_kernel_ids.empty()) continue;
    parts.push_back(graph::ScaleKernels(trace, row->trace_kernel_ids, std::max(0.0, *busiest) / kRoofPct, ""));
    kernels += row->trace_kernel_ids.size();
  }
  std::vector<const graph::Transform*> each;
  for (const graph::Transform& t : parts) each.push_back(&t);
  graph::Transform fix = graph::Combine(each);
  fix.name = graph::kScaleKernels;
  fix.selection = fmt::format("the {} trace kernel{} joined to these launches, each at {:.0f}% of its busiest unit's peak",
                              kernels, kernels == 1 ? "" : "s", kRoofPct);
  return fix;
}

const char* kEstimate =
    "upper bound: each launch's time if its busiest unit (SM or memory) reached 60% of peak, time x (1 - "
    "busiest% / 60); Nsight Compute times kernels one at a time, so overlap with other work is not counted";

void MemoryFarFromRoof(const NcuResult& r, Group g, double denominator_ns, const Trace* trace, FindingSink& out) {
  const double pct = 100.0 * g.saving_ns / denominator_ns;
  const double share = 100.0 * g.time_ns / denominator_ns;
  bool dram_known = false;
  for (const KernelRow* row : g.rows) dram_known = dram_known || r.report->launches[row->launch].get(NcuField::kDramThroughputPct);
  FieldList ev = {{"kernels", g.rows.size(), Unit::kCount},
                  {"kernel_time_pct", Round(share), Unit::kPct},
                  {"roof_pct", kRoofPct, Unit::kPct}};
  const std::string stalls = DominantStalls(r, g.rows, &ev);
  ev.push_back({"launches", Listed(r, g, denominator_ns)});
  ev.push_back({"estimate", kEstimate});
  std::string advice = fmt::format(
      "These kernels move memory rather than compute, yet reach under {:.0f}% of the {} peak: ", kRoofPct,
      dram_known ? "DRAM bandwidth" : "memory throughput");
  advice += stalls.empty() ? "their warps wait for loads they issue too few of. "
                           : "their warps stall on " + stalls + ". ";
  advice += "Fuse chains of elementwise kernels (torch.compile) so each byte is read once, use vectorised, "
            "contiguous accesses (channels_last, .contiguous() before the op), and give each launch enough "
            "blocks to keep every SM's memory requests in flight.";
  if (stalls.empty()) advice += " Collect `--section WarpStateStats` to see where the warps wait.";
  Finding& x = out.Add("ncu_memory_bound_far_from_roof", pct,
                       fmt::format("{} memory-bound kernel{} ({:.1f}% of kernel time) run far from the {} roof",
                                   g.rows.size(), g.rows.size() == 1 ? "" : "s", share, dram_known ? "DRAM" : "memory"),
                       advice);
  x.evidence = std::move(ev);
  if (trace != nullptr) out.Fix(x, RoofFix(r, g, *trace));
}

void LatencyBound(const NcuResult& r, Group g, double denominator_ns, const Trace* trace, FindingSink& out) {
  const double pct = 100.0 * g.saving_ns / denominator_ns;
  const double share = 100.0 * g.time_ns / denominator_ns;
  double small_grid_ns = 0;
  for (const KernelRow* row : g.rows) {
    const std::optional<double>& waves = r.report->launches[row->launch].get(NcuField::kWavesPerSm);
    if (waves && *waves < 1) small_grid_ns += row->weight_ns;
  }
  FieldList ev = {{"kernels", g.rows.size(), Unit::kCount},
                  {"kernel_time_pct", Round(share), Unit::kPct},
                  {"small_grid_time_pct", Round(100.0 * small_grid_ns / denominator_ns), Unit::kPct},
                  {"roof_pct", kRoofPct, Unit::kPct}};
  const std::string stalls = DominantStalls(r, g.rows, &ev);
  ev.push_back({"launches", Listed(r, g, denominator_ns)});
  ev.push_back({"estimate", kEstimate});
  std::string advice = fmt::format("Neither the SMs nor memory reach {:.0f}% of peak: the GPU waits more than it works. ",
                                   kRoofPct);
  if (small_grid_ns >= 0.5 * g.time_ns)
    advice += "Most of this time is in grids of less than one wave (fewer blocks than the GPU has SMs): give each "
              "launch more work (a larger batch or sequence, fused kernels) or run independent small kernels "
              "concurrently (streams, CUDA graphs). ";
  if (MathShare(g.rows) >= 0.5) advice += kLibraryAdvice;
  if (!stalls.empty()) advice += "Warps stall on " + stalls + ".";
  else advice += "Collect `--section WarpStateStats` (or `--set full`) to see why the warps stall.";
  Finding& x = out.Add("ncu_latency_bound", pct,
                       fmt::format("{} kernel{} ({:.1f}% of kernel time) are latency-bound: under {:.0f}% of SM and "
                                   "memory peak",
                                   g.rows.size(), g.rows.size() == 1 ? "" : "s", share, kRoofPct),
                       advice);
  x.evidence = std::move(ev);
  if (trace != nullptr) out.Fix(x, RoofFix(r, g, *trace));
}

// What keeps a launch's occupancy low: the resource that limits the blocks per SM (the smallest
// of ncu's Occupancy block limits), or, when achieved occupancy is under half the theoretical,
// the grid (under one wave) or uneven waves. `category` is the fixed label findings group by.
struct LimiterOf {
  std::string category;
  std::string detail;
};
LimiterOf Limiter(const NcuLaunch& l) {
  const std::pair<NcuField, const char*> limits[] = {{NcuField::kBlockLimitRegisters, "registers"},
                                                     {NcuField::kBlockLimitSharedMem, "shared memory"},
                                                     {NcuField::kBlockLimitWarps, "warps (block size)"},
                                                     {NcuField::kBlockLimitSm, "blocks per SM"},
                                                     {NcuField::kBlockLimitBarriers, "barriers"}};
  const char* best = nullptr;
  double min = 0;
  for (const auto& [f, name] : limits) {
    const std::optional<double>& v = l.get(f);
    if (v && (best == nullptr || *v < min)) best = name, min = *v;
  }
  const std::optional<double>& theo = l.get(NcuField::kTheoreticalOccupancyPct);
  const std::optional<double>& ach = l.get(NcuField::kAchievedOccupancyPct);
  if (theo && ach && *ach < 0.5 * *theo) {
    const std::optional<double>& waves = l.get(NcuField::kWavesPerSm);
    if (waves && *waves < 1)
      return {"the grid (under one wave)", fmt::format("the grid: {:.2f} waves of blocks leave SMs empty", *waves)};
    return {"uneven waves", "achieved far below theoretical: uneven work per block or a partial last wave"};
  }
  if (best == nullptr) return {"unknown", "unknown (no Occupancy section in the file)"};
  return {best, fmt::format("{} ({:.0f} blocks per SM)", best, min)};
}

void LowOccupancy(const NcuResult& r, Group g, double denominator_ns, FindingSink& out) {
  const double share = 100.0 * g.time_ns / denominator_ns;
  std::vector<FieldList> listed;
  std::map<std::string, double> by_limiter;
  std::sort(g.rows.begin(), g.rows.end(), [](const KernelRow* a, const KernelRow* b) { return a->weight_ns > b->weight_ns; });
  for (const KernelRow* row : g.rows) {
    const NcuLaunch& l = r.report->launches[row->launch];
    const LimiterOf limiter = Limiter(l);
    by_limiter[limiter.category] += row->weight_ns;
    if (listed.size() >= kListed) continue;
    listed.push_back({{"kernel", Short(l.name)},
                      {"id", l.id},
                      {"time_us", Round(row->weight_ns / 1e3, 3), Unit::kUs},
                      {"achieved_occupancy_pct", l.get(NcuField::kAchievedOccupancyPct), Unit::kPct},
                      {"theoretical_occupancy_pct", l.get(NcuField::kTheoreticalOccupancyPct), Unit::kPct},
                      {"registers_per_thread", l.get(NcuField::kRegistersPerThread)},
                      {"limiter", limiter.detail}});
  }
  std::string main = by_limiter.empty() ? "" : by_limiter.begin()->first;
  for (const auto& [lim, ns] : by_limiter)
    if (ns > by_limiter[main]) main = lim;
  std::string advice = "Too few warps are resident to hide latency; the main limiter is " + main + ". ";
  if (MathShare(g.rows) >= 0.5)
    advice += kLibraryAdvice;
  else if (main.rfind("registers", 0) == 0)
    advice += "Cap registers (__launch_bounds__, -maxrregcount) or split the kernel's work. ";
  else if (main.rfind("shared memory", 0) == 0)
    advice += "Use smaller tiles or fewer pipeline stages. ";
  else if (main.rfind("the grid", 0) == 0 || main == "uneven waves")
    advice += "Launch more, evenly sized blocks (more work per launch, or fused kernels). ";
  advice += "Occupancy matters only while a kernel is latency-bound (see ncu_latency_bound).";
  Finding& x = out.Add("ncu_low_occupancy", 0.0,
                       fmt::format("{} latency-bound kernel{} ({:.1f}% of kernel time) run under {:.0f}% achieved occupancy",
                                   g.rows.size(), g.rows.size() == 1 ? "" : "s", share, kLowOccupancyPct),
                       advice);
  x.evidence = {{"kernels", g.rows.size(), Unit::kCount},
                {"kernel_time_pct", Round(share), Unit::kPct},
                {"threshold_pct", kLowOccupancyPct, Unit::kPct},
                {"main_limiter", main},
                {"launches", listed}};
}

void L2Thrash(const NcuResult& r, Group g, double denominator_ns, FindingSink& out) {
  const double share = 100.0 * g.time_ns / denominator_ns;
  std::vector<FieldList> listed;
  std::sort(g.rows.begin(), g.rows.end(), [](const KernelRow* a, const KernelRow* b) { return a->weight_ns > b->weight_ns; });
  for (const KernelRow* row : g.rows) {
    if (listed.size() >= kListed) break;
    const NcuLaunch& l = r.report->launches[row->launch];
    listed.push_back({{"kernel", Short(l.name)},
                      {"id", l.id},
                      {"category", KernelCategoryName(row->cls.category)},
                      {"time_us", Round(row->weight_ns / 1e3, 3), Unit::kUs},
                      {"l2_hit_rate_pct", l.get(NcuField::kL2HitRatePct), Unit::kPct},
                      {"dram_throughput_pct", l.get(NcuField::kDramThroughputPct), Unit::kPct}});
  }
  Finding& x = out.Add(
      "ncu_l2_thrash", 0.0,
      fmt::format("{} kernel{} that reuse data ({:.1f}% of kernel time) miss in L2 while DRAM is busy",
                  g.rows.size(), g.rows.size() == 1 ? "" : "s", share),
      "GEMM, convolution and attention kernels read each tile many times; an L2 hit rate under 50% with DRAM busy "
      "means tiles are evicted before they are reused. Check that concurrent kernels do not share L2 with this one, "
      "prefer the library's default tile order (swizzling / rasterization), and on Ampere+ keep the reused operand "
      "resident with an L2 persistence window (cudaStreamSetAttribute accessPolicyWindow).",
      share >= kL2WarnSharePct);
  x.evidence = {{"kernels", g.rows.size(), Unit::kCount},
                {"kernel_time_pct", Round(share), Unit::kPct},
                {"l2_hit_threshold_pct", kL2LowHitPct, Unit::kPct},
                {"dram_busy_threshold_pct", kL2DramBusyPct, Unit::kPct},
                {"launches", listed}};
}

// A latency-bound launch that is a memory-bound kernel far from the DRAM roof: memory throughput
// leads (for GEMM, conv and attention kernels, whose work is math, by at least 2x [heur]), and
// the launch is big enough to reach a roof at all: a grid of at least one wave, at least 10 us
// [heur] (shorter launches spend their time ramping up and draining; the latency finding takes
// them, with fusion as the remedy).
bool MemoryFarFromRoofLaunch(const NcuLaunch& l, const KernelClass& cls) {
  const std::optional<double>& waves = l.get(NcuField::kWavesPerSm);
  const std::optional<double>& dur = l.get(NcuField::kDurationNs);
  if ((waves && *waves < 1) || (dur && *dur < kMinRoofDurationNs)) return false;
  const double mem = l.get(NcuField::kMemoryThroughputPct).value_or(Get(l, NcuField::kDramThroughputPct));
  const double sm = Get(l, NcuField::kSmThroughputPct);
  return IsMath(cls) ? mem >= 2 * sm : mem >= sm;
}

bool ReusesData(const KernelClass& c) { return IsMath(c); }

}  // namespace

void AddNcuFindings(const NcuResult& r, double denominator_ns, std::vector<Finding>& findings) {
  FindingSink out(findings);
  AddNcuFindings(r, denominator_ns, nullptr, out);
}

void AddNcuFindings(const NcuResult& r, double denominator_ns, const Trace* trace, diagnosis::FindingSink& out) {
  if (r.report == nullptr || denominator_ns <= 0) return;
  Group memory, latency, occupancy, l2;
  for (const KernelRow& row : r.kernels) {
    if (row.weight_ns <= 0) continue;
    const NcuLaunch& l = r.report->launches[row.launch];
    if (row.bound == Bound::kLatency) {
      Group& g = MemoryFarFromRoofLaunch(l, row.cls) ? memory : latency;
      g.rows.push_back(&row);
      g.time_ns += row.weight_ns;
      g.saving_ns += UpperBoundSaving(l, row.weight_ns);
      const std::optional<double>& occ = l.get(NcuField::kAchievedOccupancyPct);
      if (occ && *occ < kLowOccupancyPct) {
        occupancy.rows.push_back(&row);
        occupancy.time_ns += row.weight_ns;
      }
    }
    const std::optional<double>& hit = l.get(NcuField::kL2HitRatePct);
    const std::optional<double>& dram = l.get(NcuField::kDramThroughputPct);
    if (ReusesData(row.cls) && hit && dram && *hit < kL2LowHitPct && *dram >= kL2DramBusyPct) {
      l2.rows.push_back(&row);
      l2.time_ns += row.weight_ns;
    }
  }
  auto material = [&](const Group& g) { return !g.rows.empty() && 100.0 * g.time_ns / denominator_ns >= kMinFindingSharePct; };
  if (material(memory) && memory.saving_ns > 0) MemoryFarFromRoof(r, memory, denominator_ns, trace, out);
  if (material(latency) && latency.saving_ns > 0) LatencyBound(r, latency, denominator_ns, trace, out);
  if (material(occupancy)) LowOccupancy(r, occupancy, denominator_ns, out);
  if (material(l2)) L2Thrash(r, l2, denominator_ns, out);
}

}  // namespace ampscope::ncu

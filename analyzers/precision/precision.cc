// Precision mix, Tensor Core share, FP32 SIMT GEMM share, TF32 use, casts, and op-level
// precision (which Tensor-Core-eligible op ran in which dtype). docs/classifier.md describes
// every field; diagnosis_rules.md §A/§B/§E the rules behind them.
#include "analyzers/precision/precision.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "analyzers/analyze.h"
#include "base/strings.h"
#include "base/tensor_cores.h"
#include "base/units.h"
#include "trace/classify/counter_roles.h"

namespace ampscope {

namespace {

constexpr size_t kTopN = 10;        // entries in each "top" list
constexpr size_t kTopOps = 30;      // entries in op_level.ops
constexpr size_t kTopOpKernels = 5; // kernels listed per op

double Round(double v, int decimals) {
  double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}
// a / b * 100 (rounded to 3 decimals), or nullopt when b is 0.
std::optional<double> PctOpt(TimeNs a, TimeNs b) {
  if (b <= 0) return std::nullopt;
  return Round(100.0 * static_cast<double>(a) / static_cast<double>(b), 3);
}

// The analysed window: the union of the step windows (sorted, merged), or everything.
class WindowSet {
 public:
  explicit WindowSet(const StepAnalysis& steps) {
    std::vector<Interval> iv;
    iv.reserve(steps.steps.size());
    for (const StepWindow& w : steps.steps)
      if (w.end_ns > w.start_ns) iv.push_back({w.start_ns, w.end_ns});
    all_ = steps.steps.empty();
    merged_ = MergeIntervals(std::move(iv));
  }
  bool Contains(TimeNs t) const {
    if (all_) return true;
    auto it = std::upper_bound(merged_.begin(), merged_.end(), t,
                               [](TimeNs v, const Interval& i) { return v < i.start_ns; });
    if (it == merged_.begin()) return false;
    --it;
    return t >= it->start_ns && t < it->end_ns;
  }

 private:
  bool all_ = true;
  std::vector<Interval> merged_;
};

// The class of each distinct kernel name: the context's table (classified once per rank).
class ClassCache {
 public:
  explicit ClassCache(const KernelClassTable& table) : table_(table) {}
  const KernelClass& Get(StringId id) { return table_.Of(id); }

 private:
  const KernelClassTable& table_;
};

struct NameAgg {
  uint64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
};

std::vector<KernelSummary> Summaries(const Trace& trace, const WindowSet& window, ClassCache& cache) {
  std::unordered_map<StringId, NameAgg> by_name;
  for (const KernelEvent& k : trace.kernels) {
    if (!window.Contains(k.start_ns)) continue;
    TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    NameAgg& a = by_name[k.name];
    if (a.count == 0 || d < a.min_ns) a.min_ns = d;
    if (d > a.max_ns) a.max_ns = d;
    a.total_ns = SaturatingAdd(a.total_ns, d);
    ++a.count;
  }
  std::vector<KernelSummary> out;
  out.reserve(by_name.size());
  for (const auto& [id, a] : by_name) {
    KernelSummary s;
    s.name = id;
    s.name_str = std::string(trace.str(id));
    s.count = a.count;
    s.total_ns = a.total_ns;
    s.min_ns = a.min_ns;
    s.max_ns = a.max_ns;
    s.cls = cache.Get(id);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const KernelSummary& a, const KernelSummary& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name_str < b.name_str;
  });
  return out;
}

// Top kernels (by time) among `summaries` that satisfy `pred`.
template <typename Pred>
std::vector<KernelShare> TopShares(const std::vector<KernelSummary>& summaries, TimeNs total_ns, Pred pred,
                                   size_t n = kTopN) {
  std::vector<KernelShare> out;
  for (const KernelSummary& s : summaries) {
    if (out.size() >= n) break;
    if (!pred(s.cls)) continue;
    KernelShare k;
    k.name = s.name_str;
    k.count = s.count;
    k.time_us = NsToUsRounded3(s.total_ns);
    k.pct_of_kernel_time = PctOpt(s.total_ns, total_ns);
    k.category = s.cls.category;
    k.precision = s.cls.precision;
    out.push_back(std::move(k));
  }
  return out;
}


// Compute capability of the GPU(s) the kernels ran on: the highest known major (-1 unknown).
int32_t MaxComputeMajor(const Trace& trace) {
  int32_t best = -1;
  std::vector<int32_t> seen;
  for (const KernelEvent& k : trace.kernels) {
    if (std::find(seen.begin(), seen.end(), k.device) != seen.end()) continue;
    seen.push_back(k.device);
    if (const Device* d = trace.FindDevice(k.device)) best = std::max(best, d->cc_major);
  }
  if (best < 0)
    for (const Device& d : trace.devices) best = std::max(best, d.cc_major);
  return best;
}

// "on" | "off" | "mixed" | "not_applicable" | "unknown" for one library's TF32 switch,
// from its FP32-input GEMM/conv time on Tensor Cores (TF32) vs on CUDA cores (FP32 SIMT).
const char* Tf32Switch(int32_t cc_major, TimeNs tf32_ns, TimeNs fp32_simt_ns) {
  if (cc_major < 0) return "unknown";
  if (!HasTf32TensorCores(cc_major)) return "not_applicable";  // TF32 needs Ampere or later
  if (tf32_ns == 0 && fp32_simt_ns == 0) return "not_applicable";  // no FP32-input GEMMs/convs
  if (fp32_simt_ns == 0) return "on";
  if (tf32_ns == 0) return "off";
  return "mixed";
}

enum class DtypeClass : uint8_t { kLowp, kFull, kUnknown };
DtypeClass ClassOf(Precision p) {
  switch (p) {
    case Precision::kFp16:
    case Precision::kBf16:
    case Precision::kFp8: return DtypeClass::kLowp;
    case Precision::kFp32:
    case Precision::kTf32:
    case Precision::kFp64: return DtypeClass::kFull;
    default: return DtypeClass::kUnknown;
  }
}

struct OpKernelAgg {
  uint64_t count = 0;
  TimeNs ns = 0;
};

struct OpGroup {  // bottom-most eligible ops with the same name and dtype
  std::string name;
  Precision dtype = Precision::kUnknown;
  Precision kernel_precision = Precision::kUnknown;  // what most of its kernel time ran in
  const char* dtype_source = "none";
  uint64_t calls = 0;
  TimeNs ns = 0;
  TimeNs tc_ns = 0;
  std::unordered_map<StringId, OpKernelAgg> kernels;
};

std::vector<OpKernel> OpKernelList(const Trace& trace, const OpGroup& g, ClassCache& cache, size_t n) {
  std::vector<std::pair<StringId, OpKernelAgg>> v(g.kernels.begin(), g.kernels.end());
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    if (a.second.ns != b.second.ns) return a.second.ns > b.second.ns;
    return trace.str(a.first) < trace.str(b.first);
  });
  std::vector<OpKernel> out;
  for (size_t i = 0; i < v.size() && i < n; ++i) {
    const KernelClass& c = cache.Get(v[i].first);
    out.push_back({std::string(trace.str(v[i].first)), v[i].second.count, NsToUsRounded3(v[i].second.ns), c.precision,
                   c.tensor_core});
  }
  return out;
}

// The precision most of each group's kernel time ran in (known precisions only); ops without
// any Input type take it as their dtype.
void SetKernelPrecisions(std::vector<OpGroup>& groups,
                         const std::vector<std::array<TimeNs, static_cast<size_t>(Precision::kCount)>>& op_kernel_prec) {
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    OpGroup& g = groups[gi];
    TimeNs best = 0;
    for (size_t p = 0; p < static_cast<size_t>(Precision::kCount); ++p) {
      if (static_cast<Precision>(p) == Precision::kUnknown) continue;
      if (op_kernel_prec[gi][p] > best) {
        best = op_kernel_prec[gi][p];
        g.kernel_precision = static_cast<Precision>(p);
      }
    }
    if (g.dtype == Precision::kUnknown && g.kernel_precision != Precision::kUnknown) {
      g.dtype = g.kernel_precision;
      g.dtype_source = "kernels";
    }
  }
}

// The eligible ops' totals by dtype class, and the top groups (by kernel time) into `out`.
struct OpLevelTotals {
  TimeNs eligible_ns = 0, lowp_ns = 0, full_ns = 0, unknown_ns = 0;
};
OpLevelTotals SummarizeGroups(const Trace& trace, const std::vector<OpGroup>& groups, ClassCache& cache,
                              OpLevelPrecision& out) {
  TimeNs eligible_ns = 0, lowp_ns = 0, full_ns = 0, unknown_ns = 0;
  std::array<TimeNs, static_cast<size_t>(Precision::kCount)> by_dtype{};
  for (const OpGroup& g : groups) {
    eligible_ns = SaturatingAdd(eligible_ns, g.ns);
    by_dtype[static_cast<size_t>(g.dtype)] = SaturatingAdd(by_dtype[static_cast<size_t>(g.dtype)], g.ns);
    switch (ClassOf(g.dtype)) {
      case DtypeClass::kLowp: lowp_ns = SaturatingAdd(lowp_ns, g.ns); break;
      case DtypeClass::kFull: full_ns = SaturatingAdd(full_ns, g.ns); break;
      case DtypeClass::kUnknown: unknown_ns = SaturatingAdd(unknown_ns, g.ns); break;
    }
  }
  std::vector<size_t> idx(groups.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (groups[a].ns != groups[b].ns) return groups[a].ns > groups[b].ns;
    return groups[a].name < groups[b].name;
  });

  for (size_t i : idx) {
    const OpGroup& g = groups[i];
    OpPrecision o;
    o.name = g.name;
    o.dtype = g.dtype;
    o.calls = g.calls;
    o.kernel_time_us = NsToUsRounded3(g.ns);
    o.pct_of_eligible = PctOpt(g.ns, eligible_ns);
    if (ClassOf(g.dtype) == DtypeClass::kFull && out.fp32_ops_top.size() < kTopN) {
      OpPrecision f = o;  // name, dtype, calls, time and share; its top 3 kernels
      f.kernels = OpKernelList(trace, g, cache, 3);
      out.fp32_ops_top.push_back(std::move(f));
    }
    if (out.ops.size() < kTopOps) {
      o.dtype_source = g.dtype_source;
      o.kernel_precision = g.kernel_precision;
      o.tensor_core_pct = PctOpt(g.tc_ns, g.ns);
      o.kernels = OpKernelList(trace, g, cache, kTopOpKernels);
      out.ops.push_back(std::move(o));
    }
  }
  for (size_t p = 0; p < by_dtype.size(); ++p)
    if (by_dtype[p] > 0) out.eligible_time_by_dtype_us.emplace_back(static_cast<Precision>(p), NsToUsRounded3(by_dtype[p]));
  return {eligible_ns, lowp_ns, full_ns, unknown_ns};
}

// Op-level precision (see docs/classifier.md "Op-level precision").
// `by_eligible_op` (indexed like trace.kernels) is set for the window kernels that bottom-most
// eligible ops launched.
OpLevelPrecision AnalyzeOpLevel(const Trace& trace, const OpTree& tree, const WindowSet& window, ClassCache& cache,
                                TimeNs window_kernel_ns, std::vector<uint8_t>& by_eligible_op) {
  OpLevelPrecision out;
  const size_t n_ops = trace.cpu_ops.size();
  if (n_ops == 0) {
    out.available = false;
    out.reason = "the trace has no cpu_op events";
    return out;
  }

  // Nesting and kernel -> op from the op tree (analyzers/context/op_tree.h, built once per rank): each
  // op's parent is the nearest cpu_op above it (record_function ranges are skipped), and a
  // kernel belongs to its node's nearest cpu_op. Nodes are in pre-order, so walking them
  // forwards visits parents first, and backwards children first.
  auto op_of = [&](OpTree::NodeId n) -> int32_t {
    return tree.kind(n) == OpTree::NodeKind::kCpuOp && tree.source_index(n) < n_ops
               ? static_cast<int32_t>(tree.source_index(n))
               : -1;
  };
  auto nearest_op = [&](OpTree::NodeId n) -> int32_t {
    for (; n != OpTree::kNoNode; n = tree.parent(n))
      if (const int32_t op = op_of(n); op >= 0) return op;
    return -1;
  };
  std::vector<int32_t> parent(n_ops, -1);
  for (OpTree::NodeId n = 0; n < tree.size(); ++n)
    if (const int32_t i = op_of(n); i >= 0) parent[i] = nearest_op(tree.parent(n));
  // A window kernel's op, or -1.
  auto kernel_op = [&](uint32_t ki) -> int32_t {
    const OpTree::NodeId node = tree.node_of_kernel(ki);
    return node == OpTree::kNoNode ? -1 : nearest_op(node);
  };

  // Per op: kernel time of its own kernels in the window, and flags.
  enum : uint8_t { kSelfTensorCore = 1, kSelfEligible = 2, kDescendantEligible = 4 };
  std::vector<TimeNs> self_ns(n_ops, 0);
  std::vector<uint8_t> flags(n_ops, 0);
  TimeNs unattributed_ns = 0;
  for (uint32_t ki = 0; ki < trace.kernels.size(); ++ki) {
    const KernelEvent& k = trace.kernels[ki];
    if (!window.Contains(k.start_ns)) continue;
    const int32_t op = kernel_op(ki);
    TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    if (op < 0) {
      unattributed_ns = SaturatingAdd(unattributed_ns, d);
      continue;
    }
    self_ns[op] = SaturatingAdd(self_ns[op], d);
    if (cache.Get(k.name).tensor_core == TensorCoreUse::kYes && d > 0) flags[op] |= kSelfTensorCore;
  }

  // Eligibility: by name, or because the op itself launched Tensor Core kernels (the plugin's
  // "new Tensor Cores eligible operator"). Bottom-most = eligible with no eligible descendant.
  std::unordered_map<StringId, bool> name_eligible;
  for (uint32_t i = 0; i < n_ops; ++i) {
    StringId nm = trace.cpu_ops[i].name;
    auto it = name_eligible.find(nm);
    if (it == name_eligible.end()) it = name_eligible.emplace(nm, IsTensorCoreEligibleOp(trace.str(nm))).first;
    if (it->second || (flags[i] & kSelfTensorCore)) flags[i] |= kSelfEligible;
  }
  for (OpTree::NodeId n = static_cast<OpTree::NodeId>(tree.size()); n-- > 0;) {
    const int32_t i = op_of(n);
    if (i >= 0 && (flags[i] & (kSelfEligible | kDescendantEligible)) && parent[i] >= 0)
      flags[parent[i]] |= kDescendantEligible;
  }
  auto bottom_most_eligible = [&](int32_t op) {
    return (flags[op] & kSelfEligible) && !(flags[op] & kDescendantEligible);
  };

  // Dtype of an op: its own Input type, else the nearest ancestor's, else its kernels'.
  std::vector<int8_t> dtype_cache(n_ops, -1);
  auto input_dtype = [&](uint32_t i) -> Precision {
    if (dtype_cache[i] < 0) {
      StringId t = trace.cpu_ops[i].input_types;
      dtype_cache[i] = static_cast<int8_t>(t == kNoString ? Precision::kUnknown : PrecisionFromTypeTags(trace.str(t)));
    }
    return static_cast<Precision>(dtype_cache[i]);
  };

  bool has_input_types = false;
  TimeNs op_kernel_ns = 0;
  for (uint32_t i = 0; i < n_ops; ++i) {
    if (trace.cpu_ops[i].input_types != kNoString) has_input_types = true;
    if (!IsExcludedFromOpKernelTime(trace.str(trace.cpu_ops[i].name))) op_kernel_ns = SaturatingAdd(op_kernel_ns, self_ns[i]);
  }

  // Group the bottom-most eligible ops by (name, dtype).
  std::vector<int32_t> group_of(n_ops, -1);
  std::vector<OpGroup> groups;
  std::map<std::pair<StringId, uint8_t>, int32_t> group_index;
  std::vector<std::array<TimeNs, static_cast<size_t>(Precision::kCount)>> op_kernel_prec;  // per group op
  for (uint32_t ki = 0; ki < trace.kernels.size(); ++ki) {
    const KernelEvent& k = trace.kernels[ki];
    if (!window.Contains(k.start_ns)) continue;
    const int32_t op = kernel_op(ki);
    if (op < 0 || !bottom_most_eligible(op)) continue;
    by_eligible_op[ki] = 1;
    const KernelClass& kc = cache.Get(k.name);
    TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    if (group_of[op] < 0) {
      Precision dt = input_dtype(static_cast<uint32_t>(op));
      const char* src = "input_type";
      if (dt == Precision::kUnknown) {
        src = "parent_input_type";
        for (int64_t p = parent[op]; p >= 0 && dt == Precision::kUnknown; p = parent[p])
          dt = input_dtype(static_cast<uint32_t>(p));
      }
      if (dt == Precision::kUnknown) src = "none";  // may become "kernels" below
      auto key = std::make_pair(trace.cpu_ops[op].name, static_cast<uint8_t>(dt));
      auto it = group_index.find(key);
      if (it == group_index.end()) {
        OpGroup g;
        g.name = std::string(trace.str(trace.cpu_ops[op].name));
        g.dtype = dt;
        g.dtype_source = src;
        groups.push_back(std::move(g));
        op_kernel_prec.emplace_back();
        op_kernel_prec.back().fill(0);
        it = group_index.emplace(key, static_cast<int32_t>(groups.size() - 1)).first;
      }
      group_of[op] = it->second;
      ++groups[it->second].calls;
    }
    OpGroup& g = groups[group_of[op]];
    g.ns = SaturatingAdd(g.ns, d);
    if (kc.tensor_core == TensorCoreUse::kYes) g.tc_ns = SaturatingAdd(g.tc_ns, d);
    OpKernelAgg& ka = g.kernels[k.name];
    ++ka.count;
    ka.ns = SaturatingAdd(ka.ns, d);
    TimeNs& op_prec = op_kernel_prec[group_of[op]][static_cast<size_t>(kc.precision)];
    op_prec = SaturatingAdd(op_prec, d);
  }
  SetKernelPrecisions(groups, op_kernel_prec);
  const OpLevelTotals tot = SummarizeGroups(trace, groups, cache, out);
  const TimeNs eligible_ns = tot.eligible_ns, lowp_ns = tot.lowp_ns, full_ns = tot.full_ns, unknown_ns = tot.unknown_ns;
  out.available = true;
  out.has_input_types = has_input_types;
  out.op_kernel_time_us = NsToUsRounded3(op_kernel_ns);
  out.eligible_kernel_time_us = NsToUsRounded3(eligible_ns);
  out.eligible_kernel_time_pct = PctOpt(eligible_ns, op_kernel_ns);
  out.eligible_pct_of_all_kernel_time = PctOpt(eligible_ns, window_kernel_ns);
  out.unattributed_kernel_time_us = NsToUsRounded3(unattributed_ns);
  out.lowp_share_pct = PctOpt(lowp_ns, lowp_ns + full_ns);
  out.fp32_share_pct = PctOpt(full_ns, lowp_ns + full_ns);
  out.unknown_dtype_pct = PctOpt(unknown_ns, eligible_ns);
  return out;
}

// The one definition of Tensor-Core-eligible work (precision_result.h, EligibleWork).
EligibleWork EligibleWorkOf(const Trace& trace, const WindowSet& window, ClassCache& cache,
                            const std::vector<uint8_t>& by_eligible_op, bool ops_known, TimeNs window_kernel_ns) {
  EligibleWork out;
  std::array<TimeNs, static_cast<size_t>(Precision::kCount)> by_prec{};
  TimeNs ns = 0, tc_ns = 0;
  for (size_t ki = 0; ki < trace.kernels.size(); ++ki) {
    const KernelEvent& k = trace.kernels[ki];
    if (!window.Contains(k.start_ns)) continue;
    const KernelClass& c = cache.Get(k.name);
    const bool matmul = c.category == KernelCategory::kGemm || c.category == KernelCategory::kConv ||
                        c.category == KernelCategory::kAttention;
    if (!matmul && !by_eligible_op[ki]) continue;
    const TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    SatAccumulate(ns, d);
    SatAccumulate(by_prec[static_cast<size_t>(c.precision)], d);
    if (c.tensor_core == TensorCoreUse::kYes) SatAccumulate(tc_ns, d);
  }
  out.time_us = NsToUsRounded3(ns);
  out.pct_of_kernel_time = PctOpt(ns, window_kernel_ns);
  out.tensor_core_time_us = NsToUsRounded3(tc_ns);
  for (size_t p = 0; p < by_prec.size(); ++p)
    if (by_prec[p] > 0) out.time_by_precision_us.emplace_back(static_cast<Precision>(p), NsToUsRounded3(by_prec[p]));
  out.basis = ops_known ? "GEMM/conv/attention kernels and the other kernels of bottom-most Tensor-Core-eligible ops"
                        : "GEMM/conv/attention kernels (no cpu_op events: eligible ops unknown)";
  return out;
}

}  // namespace

std::vector<KernelSummary> SummarizeKernels(const Trace& trace, const StepAnalysis& steps) {
  WindowSet window(steps);
  const KernelClassTable table(trace);
  ClassCache cache(table);
  return Summaries(trace, window, cache);
}

void AnalyzePrecision(const Trace& trace, RankAnalysis& ra) {
  AnalyzePrecision(trace, KernelClassTable(trace), OpTree::Build(trace), ra);
}

void AnalyzePrecision(const Trace& trace, const KernelClassTable& classes, const OpTree& tree, RankAnalysis& ra) {
  WindowSet window(ra.steps);
  ClassCache cache(classes);
  constexpr size_t kCats = static_cast<size_t>(KernelCategory::kCount);
  constexpr size_t kPrecs = static_cast<size_t>(Precision::kCount);
  std::array<TimeNs, kCats> by_cat{};
  std::array<TimeNs, kPrecs> by_prec{};
  TimeNs total_ns = 0, tc_ns = 0, tc_unknown_ns = 0, rocm_ns = 0;
  TimeNs gemm_conv_ns = 0, simt_gemm_ns = 0, simt_conv_ns = 0;
  TimeNs tf32_ns = 0, tf32_gemm_ns = 0, tf32_conv_ns = 0;
  TimeNs cast_ns = 0, fused_cast_ns = 0;
  uint64_t kernel_count = 0, cast_count = 0, fused_cast_count = 0;

  for (const KernelEvent& k : trace.kernels) {
    if (!window.Contains(k.start_ns)) continue;
    const KernelClass& c = cache.Get(k.name);
    TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    ++kernel_count;
    total_ns = SaturatingAdd(total_ns, d);
    TimeNs& cat_ns = by_cat[static_cast<size_t>(c.category)];
    TimeNs& prec_ns = by_prec[static_cast<size_t>(c.precision)];
    cat_ns = SaturatingAdd(cat_ns, d);
    prec_ns = SaturatingAdd(prec_ns, d);
    if (c.tensor_core == TensorCoreUse::kYes) tc_ns = SaturatingAdd(tc_ns, d);
    if (c.tensor_core == TensorCoreUse::kUnknown) tc_unknown_ns = SaturatingAdd(tc_unknown_ns, d);
    if (c.rocm) rocm_ns = SaturatingAdd(rocm_ns, d);
    const bool gemm = c.category == KernelCategory::kGemm;
    const bool conv = c.category == KernelCategory::kConv;
    if (gemm || conv) gemm_conv_ns = SaturatingAdd(gemm_conv_ns, d);
    if (c.fp32_simt_gemm) {
      TimeNs& simt = conv ? simt_conv_ns : simt_gemm_ns;
      simt = SaturatingAdd(simt, d);
    }
    if (c.precision == Precision::kTf32) {
      tf32_ns = SaturatingAdd(tf32_ns, d);
      if (c.tensor_core == TensorCoreUse::kYes && gemm) tf32_gemm_ns = SaturatingAdd(tf32_gemm_ns, d);
      if (c.tensor_core == TensorCoreUse::kYes && conv) tf32_conv_ns = SaturatingAdd(tf32_conv_ns, d);
    }
    if (c.category == KernelCategory::kCast) {
      ++cast_count;
      cast_ns = SaturatingAdd(cast_ns, d);
    }
    if (c.fused_cast) {
      ++fused_cast_count;
      fused_cast_ns = SaturatingAdd(fused_cast_ns, d);
    }
  }

  auto all_zero = [](const auto& a) { return std::all_of(a.begin(), a.end(), [](TimeNs v) { return v == 0; }); };
  if (all_zero(ra.gpu.kernel_time_by_category_ns) && all_zero(ra.gpu.kernel_time_by_precision_ns)) {
    ra.gpu.kernel_time_by_category_ns = by_cat;
    ra.gpu.kernel_time_by_precision_ns = by_prec;
  }

  std::vector<KernelSummary> summaries = Summaries(trace, window, cache);

  // ---- tensor_cores
  TensorCoreResult tcr;
  tcr.computed = true;
  tcr.kernel_time_pct = PctOpt(tc_ns, total_ns);
  tcr.tc_kernel_time_us = NsToUsRounded3(tc_ns);
  tcr.kernel_time_us = NsToUsRounded3(total_ns);
  tcr.unknown_tc_kernel_time_pct = PctOpt(tc_unknown_ns, total_ns);
  tcr.top_kernels = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.tensor_core == TensorCoreUse::kYes; });
  tcr.unknown_top_kernels =
      TopShares(summaries, total_ns, [](const KernelClass& c) { return c.tensor_core == TensorCoreUse::kUnknown; });
  if (rocm_ns > 0) {
    tcr.rocm_kernel_time_pct = PctOpt(rocm_ns, total_ns);
    tcr.rocm_note = "ROCm kernels: AMD matrix cores (MFMA: Tensile MI<M>x<N>x<K>, MIOpen xdlops, CK xdl) count as the "
                    "Tensor Core equivalent; other ROCm GEMM/conv kernels whose matrix-core use the name does not tell are unknown";
  }
  // Measured Tensor Core activity (PM sampling: "tensor_active_pct" and the other names
  // trace/classify's counter roles give the tensor pipe), when the trace has it.
  std::optional<double> active;
  {
    double sum_in = 0, sum_all = 0;
    uint64_t n_in = 0, n_all = 0;
    std::unordered_map<StringId, bool> tensor;
    for (const CounterSample& s : trace.counters) {
      auto role = tensor.find(s.name);
      if (role == tensor.end())
        role = tensor.emplace(s.name, CounterRoleOf(trace.str(s.name)) == CounterRole::kTensorActive).first;
      if (!role->second) continue;
      sum_all += s.value;
      ++n_all;
      if (window.Contains(s.time_ns)) {
        sum_in += s.value;
        ++n_in;
      }
    }
    if (n_in > 0) active = Round(sum_in / static_cast<double>(n_in), 3);
    else if (n_all > 0) active = Round(sum_all / static_cast<double>(n_all), 3);
    if (active) tcr.active_samples = n_in > 0 ? n_in : n_all;
  }
  tcr.active_pct = active;
  ra.tensor_cores = std::move(tcr);

  // ---- precision
  const int32_t cc_major = MaxComputeMajor(trace);
  PrecisionResult pr;
  pr.computed = true;
  for (size_t i = 0; i < kCats; ++i)
    if (by_cat[i] > 0) pr.kernel_time_by_category_pct.emplace_back(static_cast<KernelCategory>(i), *PctOpt(by_cat[i], total_ns));
  for (size_t i = 0; i < kPrecs; ++i)
    if (by_prec[i] > 0) pr.kernel_time_by_precision_pct.emplace_back(static_cast<Precision>(i), *PctOpt(by_prec[i], total_ns));
  pr.kernel_time_us = NsToUsRounded3(total_ns);
  pr.kernel_count = kernel_count;
  pr.gemm_conv_time_us = NsToUsRounded3(gemm_conv_ns);
  pr.fp32_simt_gemm_time_us = NsToUsRounded3(simt_gemm_ns + simt_conv_ns);
  pr.fp32_simt_gemm_pct_of_gemm = PctOpt(simt_gemm_ns + simt_conv_ns, gemm_conv_ns);
  pr.fp32_simt_top = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.fp32_simt_gemm; });
  pr.top_fp16 = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kFp16; }, 5);
  pr.top_bf16 = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kBf16; }, 5);
  pr.top_tf32 = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kTf32; }, 5);
  pr.top_fp32 = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kFp32; }, 5);

  Tf32Result& tf32 = pr.tf32;
  tf32.used = tf32_ns > 0;
  if (cc_major >= 0) {
    tf32.gpu_supports = HasTf32TensorCores(cc_major);
    tf32.compute_capability_major = cc_major;
  }
  tf32.tf32_kernel_time_pct = PctOpt(tf32_ns, total_ns);
  tf32.tf32_pct_of_gemm = PctOpt(tf32_gemm_ns + tf32_conv_ns, gemm_conv_ns);
  tf32.fp32_gemm_on_ampere = HasTf32TensorCores(cc_major) && (simt_gemm_ns + simt_conv_ns) > 0;
  // Which TF32 switch is in effect, judged from FP32-input GEMMs (torch.backends.cuda.matmul.allow_tf32)
  // and convolutions (torch.backends.cudnn.allow_tf32) separately.
  tf32.allow_tf32_matmul = Tf32Switch(cc_major, tf32_gemm_ns, simt_gemm_ns);
  tf32.allow_tf32_cudnn = Tf32Switch(cc_major, tf32_conv_ns, simt_conv_ns);
  tf32.top = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kTf32; });

  CastResult& casts = pr.casts;
  casts.count = cast_count;
  if (!ra.steps.steps.empty())
    casts.count_per_step = Round(static_cast<double>(cast_count) / static_cast<double>(ra.steps.steps.size()), 3);
  casts.time_us = NsToUsRounded3(cast_ns);
  casts.time_pct = PctOpt(cast_ns, total_ns);
  casts.top = TopShares(summaries, total_ns, [](const KernelClass& c) { return c.category == KernelCategory::kCast; });
  casts.fused_count = fused_cast_count;
  casts.fused_time_us = NsToUsRounded3(fused_cast_ns);

  std::vector<uint8_t> by_eligible_op(trace.kernels.size(), 0);
  pr.op_level = AnalyzeOpLevel(trace, tree, window, cache, total_ns, by_eligible_op);
  pr.eligible = EligibleWorkOf(trace, window, cache, by_eligible_op, pr.op_level.available, total_ns);
  ra.precision = std::move(pr);
  ra.top_kernels = std::move(summaries);
}

}  // namespace ampscope

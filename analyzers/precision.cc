// Precision mix, Tensor Core share, FP32 SIMT GEMM share, TF32 use, casts, and op-level
// precision (which Tensor-Core-eligible op ran in which dtype). docs/classifier.md describes
// every field; diagnosis_rules.md §A/§B/§E the rules behind them.
#include "analyzers/precision.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "analyzers/analyze.h"
#include "base/units.h"
#include "base/strings.h"

namespace ampscope {

using nlohmann::json;

namespace {

constexpr size_t kTopN = 10;        // entries in each "top" list
constexpr size_t kTopOps = 30;      // entries in op_level.ops
constexpr size_t kTopOpKernels = 5; // kernels listed per op

double Round(double v, int decimals) {
  double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}
// a / b * 100, or null when b is 0.
json Pct(TimeNs a, TimeNs b) {
  if (b <= 0) return nullptr;
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

// Classifies each distinct kernel name once.
class ClassCache {
 public:
  explicit ClassCache(const Trace& trace) : trace_(trace), cls_(trace.strings.size()), have_(trace.strings.size(), 0) {}
  const KernelClass& Get(StringId id) {
    if (id >= cls_.size()) {  // ids come from files; never index out of range
      fallback_ = ClassifyKernel(trace_.str(id));
      return fallback_;
    }
    if (!have_[id]) {
      cls_[id] = ClassifyKernel(trace_.str(id));
      have_[id] = 1;
    }
    return cls_[id];
  }

 private:
  const Trace& trace_;
  std::vector<KernelClass> cls_;
  std::vector<uint8_t> have_;
  KernelClass fallback_;
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
    a.total_ns = AddSat(a.total_ns, d);
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
json TopList(const std::vector<KernelSummary>& summaries, TimeNs total_ns, Pred pred, size_t n = kTopN) {
  json out = json::array();
  for (const KernelSummary& s : summaries) {
    if (out.size() >= n) break;
    if (!pred(s.cls)) continue;
    out.push_back({{"name", s.name_str},
                   {"count", s.count},
                   {"time_us", NsToUsRounded3(s.total_ns)},
                   {"pct_of_kernel_time", Pct(s.total_ns, total_ns)},
                   {"category", KernelCategoryName(s.cls.category)},
                   {"precision", PrecisionName(s.cls.precision)}});
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
  if (cc_major < 8) return "not_applicable";  // TF32 needs Ampere or later
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

json OpKernelList(const Trace& trace, const OpGroup& g, ClassCache& cache, size_t n) {
  std::vector<std::pair<StringId, OpKernelAgg>> v(g.kernels.begin(), g.kernels.end());
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    if (a.second.ns != b.second.ns) return a.second.ns > b.second.ns;
    return trace.str(a.first) < trace.str(b.first);
  });
  json out = json::array();
  for (size_t i = 0; i < v.size() && i < n; ++i) {
    const KernelClass& c = cache.Get(v[i].first);
    out.push_back({{"name", std::string(trace.str(v[i].first))},
                   {"count", v[i].second.count},
                   {"time_us", NsToUsRounded3(v[i].second.ns)},
                   {"precision", PrecisionName(c.precision)},
                   {"tensor_core", TensorCoreUseName(c.tensor_core)}});
  }
  return out;
}

// Op-level precision (see docs/classifier.md "Op-level precision").
json AnalyzeOpLevel(const Trace& trace, const WindowSet& window, ClassCache& cache, TimeNs window_kernel_ns) {
  json out = json::object();
  const size_t n_ops = trace.cpu_ops.size();
  if (n_ops == 0) {
    out["available"] = false;
    out["reason"] = "the trace has no cpu_op events";
    return out;
  }

  // Nesting per thread: sort by (start asc, end desc); a stack gives each op its parent.
  std::unordered_map<int64_t, std::vector<uint32_t>> by_tid;
  for (uint32_t i = 0; i < n_ops; ++i) by_tid[trace.cpu_ops[i].tid].push_back(i);
  std::vector<int32_t> parent(n_ops, -1);
  std::vector<uint32_t> order;  // all ops, each thread's ops in nesting order (parents first)
  order.reserve(n_ops);
  for (auto& [tid, ids] : by_tid) {
    std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
      const CpuOp& x = trace.cpu_ops[a];
      const CpuOp& y = trace.cpu_ops[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.end_ns > y.end_ns;
    });
    std::vector<uint32_t> stack;
    for (uint32_t i : ids) {
      const CpuOp& op = trace.cpu_ops[i];
      while (!stack.empty()) {
        const CpuOp& top = trace.cpu_ops[stack.back()];
        if (op.start_ns >= top.start_ns && op.end_ns <= top.end_ns) break;
        stack.pop_back();
      }
      if (!stack.empty()) parent[i] = static_cast<int32_t>(stack.back());
      stack.push_back(i);
      order.push_back(i);
    }
  }

  // External id -> ops (Kineto gives a runtime call the External id of the op that launched it).
  std::unordered_map<int64_t, std::vector<uint32_t>> by_ext;
  for (uint32_t i = 0; i < n_ops; ++i)
    if (trace.cpu_ops[i].external_id > 0) by_ext[trace.cpu_ops[i].external_id].push_back(i);

  // The innermost op on `tid` containing time t (-1 if none).
  auto innermost_at = [&](int64_t tid, TimeNs t) -> int64_t {
    auto it = by_tid.find(tid);
    if (it == by_tid.end()) return -1;
    const std::vector<uint32_t>& ids = it->second;
    auto pos = std::upper_bound(ids.begin(), ids.end(), t,
                                [&](TimeNs v, uint32_t i) { return v < trace.cpu_ops[i].start_ns; });
    if (pos == ids.begin()) return -1;
    int64_t cur = *(pos - 1);
    while (cur >= 0 && trace.cpu_ops[cur].end_ns < t) cur = parent[cur];
    return cur;
  };

  LaunchIndex launches(trace);
  std::vector<TimeNs> self_ns(n_ops, 0), self_tc_ns(n_ops, 0);
  std::vector<int64_t> kernel_op;  // per window kernel: the op, or -1
  std::vector<uint32_t> window_kernels;
  TimeNs unattributed_ns = 0;
  for (uint32_t ki = 0; ki < trace.kernels.size(); ++ki) {
    const KernelEvent& k = trace.kernels[ki];
    if (!window.Contains(k.start_ns)) continue;
    int64_t api = launches.Find(k.correlation);
    const ApiCall* call = api >= 0 ? &trace.api_calls[static_cast<size_t>(api)] : nullptr;
    int64_t ext = k.external_id > 0 ? k.external_id : (call ? call->external_id : -1);
    int64_t op = -1;
    auto it = ext > 0 ? by_ext.find(ext) : by_ext.end();
    if (it != by_ext.end()) {
      op = it->second.front();
      if (it->second.size() > 1 && call) {  // ambiguous id: the innermost one around the launch
        int64_t inner = innermost_at(call->tid, call->start_ns);
        for (int64_t c = inner; c >= 0; c = parent[c])
          if (trace.cpu_ops[c].external_id == ext) {
            op = c;
            break;
          }
      }
    } else if (call) {
      // No External id, or one that names no cpu_op (some Kineto versions copy the correlation id
      // there): the innermost op around the launching call on its thread.
      op = innermost_at(call->tid, call->start_ns);
    }
    TimeNs d = std::max<TimeNs>(0, k.duration_ns());
    window_kernels.push_back(ki);
    kernel_op.push_back(op);
    if (op < 0) {
      unattributed_ns = AddSat(unattributed_ns, d);
      continue;
    }
    self_ns[op] = AddSat(self_ns[op], d);
    if (cache.Get(k.name).tensor_core == TensorCoreUse::kYes) self_tc_ns[op] = AddSat(self_tc_ns[op], d);
  }

  // Eligibility: by name, or because the op itself launched Tensor Core kernels (the plugin's
  // "new Tensor Cores eligible operator"). Bottom-most = eligible with no eligible descendant.
  std::unordered_map<StringId, bool> name_eligible;
  std::vector<uint8_t> self_elig(n_ops, 0), desc_elig(n_ops, 0);
  for (uint32_t i = 0; i < n_ops; ++i) {
    StringId nm = trace.cpu_ops[i].name;
    auto it = name_eligible.find(nm);
    if (it == name_eligible.end()) it = name_eligible.emplace(nm, IsTensorCoreEligibleOp(trace.str(nm))).first;
    self_elig[i] = it->second || self_tc_ns[i] > 0;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    uint32_t i = *it;
    if ((self_elig[i] || desc_elig[i]) && parent[i] >= 0) desc_elig[parent[i]] = 1;
  }

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
    if (!IsExcludedFromOpKernelTime(trace.str(trace.cpu_ops[i].name))) op_kernel_ns = AddSat(op_kernel_ns, self_ns[i]);
  }

  // Group the bottom-most eligible ops by (name, dtype).
  std::vector<int32_t> group_of(n_ops, -1);
  std::vector<OpGroup> groups;
  std::map<std::pair<StringId, uint8_t>, int32_t> group_index;
  std::vector<std::array<TimeNs, static_cast<size_t>(Precision::kCount)>> op_kernel_prec;  // per group op
  for (size_t w = 0; w < window_kernels.size(); ++w) {
    int64_t op = kernel_op[w];
    if (op < 0 || !self_elig[op] || desc_elig[op]) continue;
    const KernelEvent& k = trace.kernels[window_kernels[w]];
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
    g.ns = AddSat(g.ns, d);
    if (kc.tensor_core == TensorCoreUse::kYes) g.tc_ns = AddSat(g.tc_ns, d);
    OpKernelAgg& ka = g.kernels[k.name];
    ++ka.count;
    ka.ns = AddSat(ka.ns, d);
    TimeNs& op_prec = op_kernel_prec[group_of[op]][static_cast<size_t>(kc.precision)];
    op_prec = AddSat(op_prec, d);
  }
  // The precision most of each group's kernel time ran in (known precisions only); ops without
  // any Input type take it as their dtype.
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

  TimeNs eligible_ns = 0, lowp_ns = 0, full_ns = 0, unknown_ns = 0;
  std::array<TimeNs, static_cast<size_t>(Precision::kCount)> by_dtype{};
  for (const OpGroup& g : groups) {
    eligible_ns = AddSat(eligible_ns, g.ns);
    by_dtype[static_cast<size_t>(g.dtype)] = AddSat(by_dtype[static_cast<size_t>(g.dtype)], g.ns);
    switch (ClassOf(g.dtype)) {
      case DtypeClass::kLowp: lowp_ns = AddSat(lowp_ns, g.ns); break;
      case DtypeClass::kFull: full_ns = AddSat(full_ns, g.ns); break;
      case DtypeClass::kUnknown: unknown_ns = AddSat(unknown_ns, g.ns); break;
    }
  }
  std::vector<size_t> idx(groups.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (groups[a].ns != groups[b].ns) return groups[a].ns > groups[b].ns;
    return groups[a].name < groups[b].name;
  });

  json ops = json::array();
  json fp32_ops = json::array();
  for (size_t i : idx) {
    const OpGroup& g = groups[i];
    if (ops.size() < kTopOps)
      ops.push_back({{"name", g.name},
                     {"dtype", PrecisionName(g.dtype)},
                     {"dtype_source", g.dtype_source},
                     {"kernel_precision", PrecisionName(g.kernel_precision)},
                     {"calls", g.calls},
                     {"kernel_time_us", NsToUsRounded3(g.ns)},
                     {"pct_of_eligible", Pct(g.ns, eligible_ns)},
                     {"tensor_core_pct", Pct(g.tc_ns, g.ns)},
                     {"kernels", OpKernelList(trace, g, cache, kTopOpKernels)}});
    if (ClassOf(g.dtype) == DtypeClass::kFull && fp32_ops.size() < kTopN)
      fp32_ops.push_back({{"name", g.name},
                          {"dtype", PrecisionName(g.dtype)},
                          {"calls", g.calls},
                          {"kernel_time_us", NsToUsRounded3(g.ns)},
                          {"pct_of_eligible", Pct(g.ns, eligible_ns)},
                          {"kernels", OpKernelList(trace, g, cache, 3)}});
  }
  json dtype_us = json::object();
  for (size_t p = 0; p < by_dtype.size(); ++p)
    if (by_dtype[p] > 0) dtype_us[PrecisionName(static_cast<Precision>(p))] = NsToUsRounded3(by_dtype[p]);

  out["available"] = true;
  out["has_input_types"] = has_input_types;
  out["definition"] =
      "eligible_kernel_time_pct = kernel time launched by bottom-most Tensor-Core-eligible ops / kernel time "
      "launched by all ops (TensorBoard plugin tc_eligible_ops_kernel_ratio); lowp_share_pct = fp16/bf16/fp8 "
      "share of the eligible ops' kernel time whose dtype is known";
  out["op_kernel_time_us"] = NsToUsRounded3(op_kernel_ns);
  out["eligible_kernel_time_us"] = NsToUsRounded3(eligible_ns);
  out["eligible_kernel_time_pct"] = Pct(eligible_ns, op_kernel_ns);
  out["eligible_pct_of_all_kernel_time"] = Pct(eligible_ns, window_kernel_ns);
  out["unattributed_kernel_time_us"] = NsToUsRounded3(unattributed_ns);
  out["lowp_share_pct"] = Pct(lowp_ns, lowp_ns + full_ns);
  out["fp32_share_pct"] = Pct(full_ns, lowp_ns + full_ns);
  out["unknown_dtype_pct"] = Pct(unknown_ns, eligible_ns);
  out["eligible_time_by_dtype_us"] = dtype_us;
  out["ops"] = ops;
  out["fp32_ops_top"] = fp32_ops;
  return out;
}

}  // namespace

std::vector<KernelSummary> SummarizeKernels(const Trace& trace, const StepAnalysis& steps) {
  WindowSet window(steps);
  ClassCache cache(trace);
  return Summaries(trace, window, cache);
}

void AnalyzePrecision(const Trace& trace, RankAnalysis& ra) {
  WindowSet window(ra.steps);
  ClassCache cache(trace);
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
    total_ns = AddSat(total_ns, d);
    TimeNs& cat_ns = by_cat[static_cast<size_t>(c.category)];
    TimeNs& prec_ns = by_prec[static_cast<size_t>(c.precision)];
    cat_ns = AddSat(cat_ns, d);
    prec_ns = AddSat(prec_ns, d);
    if (c.tensor_core == TensorCoreUse::kYes) tc_ns = AddSat(tc_ns, d);
    if (c.tensor_core == TensorCoreUse::kUnknown) tc_unknown_ns = AddSat(tc_unknown_ns, d);
    if (c.rocm) rocm_ns = AddSat(rocm_ns, d);
    const bool gemm = c.category == KernelCategory::kGemm;
    const bool conv = c.category == KernelCategory::kConv;
    if (gemm || conv) gemm_conv_ns = AddSat(gemm_conv_ns, d);
    if (c.fp32_simt_gemm) {
      TimeNs& simt = conv ? simt_conv_ns : simt_gemm_ns;
      simt = AddSat(simt, d);
    }
    if (c.precision == Precision::kTf32) {
      tf32_ns = AddSat(tf32_ns, d);
      if (c.tensor_core == TensorCoreUse::kYes && gemm) tf32_gemm_ns = AddSat(tf32_gemm_ns, d);
      if (c.tensor_core == TensorCoreUse::kYes && conv) tf32_conv_ns = AddSat(tf32_conv_ns, d);
    }
    if (c.category == KernelCategory::kCast) {
      ++cast_count;
      cast_ns = AddSat(cast_ns, d);
    }
    if (c.fused_cast) {
      ++fused_cast_count;
      fused_cast_ns = AddSat(fused_cast_ns, d);
    }
  }

  auto all_zero = [](const auto& a) { return std::all_of(a.begin(), a.end(), [](TimeNs v) { return v == 0; }); };
  if (all_zero(ra.gpu.kernel_time_by_category_ns) && all_zero(ra.gpu.kernel_time_by_precision_ns)) {
    ra.gpu.kernel_time_by_category_ns = by_cat;
    ra.gpu.kernel_time_by_precision_ns = by_prec;
  }

  std::vector<KernelSummary> summaries = Summaries(trace, window, cache);

  // ---- tensor_cores
  json tcj = json::object();
  tcj["kernel_time_pct"] = Pct(tc_ns, total_ns);
  tcj["kernel_time_source"] = "estimated";
  tcj["tc_kernel_time_us"] = NsToUsRounded3(tc_ns);
  tcj["kernel_time_us"] = NsToUsRounded3(total_ns);
  tcj["unknown_tc_kernel_time_pct"] = Pct(tc_unknown_ns, total_ns);
  tcj["top_kernels"] = TopList(summaries, total_ns, [](const KernelClass& c) { return c.tensor_core == TensorCoreUse::kYes; });
  tcj["unknown_top_kernels"] =
      TopList(summaries, total_ns, [](const KernelClass& c) { return c.tensor_core == TensorCoreUse::kUnknown; });
  if (rocm_ns > 0) {
    tcj["rocm_kernel_time_pct"] = Pct(rocm_ns, total_ns);
    tcj["note"] = "ROCm kernels: AMD matrix-core use is not NVIDIA Tensor Core use and is counted as unknown";
  }
  // Measured Tensor Core activity (PM sampling "tensor_active_pct"), when the trace has it.
  StringId active_name = kNoString;
  json active = nullptr;
  if (trace.strings.Find("tensor_active_pct", &active_name)) {
    double sum_in = 0, sum_all = 0;
    uint64_t n_in = 0, n_all = 0;
    for (const CounterSample& s : trace.counters) {
      if (s.name != active_name) continue;
      sum_all += s.value;
      ++n_all;
      if (window.Contains(s.time_ns)) {
        sum_in += s.value;
        ++n_in;
      }
    }
    if (n_in > 0) active = Round(sum_in / static_cast<double>(n_in), 3);
    else if (n_all > 0) active = Round(sum_all / static_cast<double>(n_all), 3);
    if (!active.is_null()) tcj["active_samples"] = n_in > 0 ? n_in : n_all;
  }
  tcj["active_pct"] = active;
  tcj["source"] = active.is_null() ? "estimated" : "measured";
  ra.tensor_cores = std::move(tcj);

  // ---- precision
  const int32_t cc_major = MaxComputeMajor(trace);
  json pj = json::object();
  json cat_pct = json::object(), prec_pct = json::object();
  for (size_t i = 0; i < kCats; ++i)
    if (by_cat[i] > 0) cat_pct[KernelCategoryName(static_cast<KernelCategory>(i))] = Pct(by_cat[i], total_ns);
  for (size_t i = 0; i < kPrecs; ++i)
    if (by_prec[i] > 0) prec_pct[PrecisionName(static_cast<Precision>(i))] = Pct(by_prec[i], total_ns);
  pj["kernel_time_us"] = NsToUsRounded3(total_ns);
  pj["kernel_count"] = kernel_count;
  pj["kernel_time_by_category_pct"] = cat_pct;
  pj["kernel_time_by_precision_pct"] = prec_pct;
  pj["gemm_conv_time_us"] = NsToUsRounded3(gemm_conv_ns);
  pj["fp32_simt_gemm_time_us"] = NsToUsRounded3(simt_gemm_ns + simt_conv_ns);
  pj["fp32_simt_gemm_pct_of_gemm"] = Pct(simt_gemm_ns + simt_conv_ns, gemm_conv_ns);
  pj["fp32_simt_top"] = TopList(summaries, total_ns, [](const KernelClass& c) { return c.fp32_simt_gemm; });
  pj["top_by_precision"] = {
      {"fp16", TopList(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kFp16; }, 5)},
      {"bf16", TopList(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kBf16; }, 5)},
      {"tf32", TopList(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kTf32; }, 5)},
      {"fp32", TopList(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kFp32; }, 5)}};

  json tf32 = json::object();
  tf32["used"] = tf32_ns > 0;
  tf32["gpu_supports"] = cc_major < 0 ? json(nullptr) : json(cc_major >= 8);
  tf32["compute_capability_major"] = cc_major < 0 ? json(nullptr) : json(cc_major);
  tf32["tf32_kernel_time_pct"] = Pct(tf32_ns, total_ns);
  tf32["tf32_pct_of_gemm"] = Pct(tf32_gemm_ns + tf32_conv_ns, gemm_conv_ns);
  tf32["fp32_gemm_on_ampere"] = cc_major >= 8 && (simt_gemm_ns + simt_conv_ns) > 0;
  // Which TF32 switch is in effect, judged from FP32-input GEMMs (torch.backends.cuda.matmul.allow_tf32)
  // and convolutions (torch.backends.cudnn.allow_tf32) separately.
  tf32["allow_tf32"] = {{"matmul", Tf32Switch(cc_major, tf32_gemm_ns, simt_gemm_ns)},
                        {"cudnn", Tf32Switch(cc_major, tf32_conv_ns, simt_conv_ns)}};
  tf32["top"] = TopList(summaries, total_ns, [](const KernelClass& c) { return c.precision == Precision::kTf32; });
  pj["tf32"] = tf32;

  json casts = json::object();
  casts["count"] = cast_count;
  casts["count_per_step"] =
      ra.steps.steps.empty() ? json(nullptr)
                             : json(Round(static_cast<double>(cast_count) / static_cast<double>(ra.steps.steps.size()), 3));
  casts["time_us"] = NsToUsRounded3(cast_ns);
  casts["time_pct"] = Pct(cast_ns, total_ns);
  casts["top"] = TopList(summaries, total_ns, [](const KernelClass& c) { return c.category == KernelCategory::kCast; });
  casts["fused_cast_kernels"] = {{"count", fused_cast_count},
                                 {"time_us", NsToUsRounded3(fused_cast_ns)},
                                 {"note", "Triton/Inductor kernels whose names show a fused dtype conversion "
                                          "(_to_copy, convert_element_type); not counted in count/time_us"}};
  pj["casts"] = casts;

  pj["op_level"] = AnalyzeOpLevel(trace, window, cache, total_ns);
  ra.precision = std::move(pj);
  ra.top_kernels = std::move(summaries);
}

}  // namespace ampscope

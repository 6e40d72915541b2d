#include "analyzers/roofline/roofline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyzers/peaks/device_peak.h"
#include "analyzers/roofline/eager_attention.h"
#include "base/saturating.h"
#include "trace/classify/host_roles.h"

namespace ampscope::roofline {
namespace {

using NodeId = OpTree::NodeId;
constexpr NodeId kNoNode = OpTree::kNoNode;

struct CostKey {
  StringId name, dims, types, strides, concrete;
  uint64_t hint;
  bool operator==(const CostKey& o) const {
    return name == o.name && dims == o.dims && types == o.types && strides == o.strides && concrete == o.concrete &&
           hint == o.hint;
  }
};
struct CostKeyHash {
  size_t operator()(const CostKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : {uint64_t(k.name), uint64_t(k.dims), uint64_t(k.types), uint64_t(k.strides),
                       uint64_t(k.concrete), k.hint}) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

uint64_t HashHints(const OpHints& h) {
  uint64_t x = 0x12345;
  for (int64_t d : h.conv_output) x = x * 1000003u + static_cast<uint64_t>(d);
  x = x * 31 + static_cast<uint64_t>(h.grad_input + 2);
  x = x * 31 + static_cast<uint64_t>(h.grad_weight + 2);
  x = x * 31 + static_cast<uint64_t>(h.grad_bias + 2);
  return x;
}

// Costs of the trace's modelled ops, each distinct (name, arguments, hints) computed once.
class Evaluator {
 public:
  Evaluator(const Trace& trace, const OpTree& tree) : t_(trace), tree_(tree) {
    static_assert(static_cast<size_t>(OpFamily::kCount) < kUnlooked, "OpFamily must fit below kUnlooked");
    family_.assign(trace.strings.size() + 1, kUnlooked);
    node_cost_.assign(tree.size(), -1);
    // Forward op -> its autograd node (the 2021 traces record the grad_output shape there).
    for (NodeId n = 0; n < tree.size(); ++n) {
      if (!tree.is_autograd_node(n) || tree.cpu_op(n) == nullptr) continue;
      const NodeId f = tree.forward_of(n);
      if (f != kNoNode && tree.cpu_op(n)->input_dims != kNoString) backward_of_[f] = n;
    }
  }

  // The op family of a name (OpFamily::kCount: no model), looked up once per distinct name.
  OpFamily Family(StringId name) {
    if (name >= family_.size()) return FamilyOf(t_.str(name));
    uint8_t& f = family_[name];
    if (f == kUnlooked) f = static_cast<uint8_t>(FamilyOf(t_.str(name)));
    return static_cast<OpFamily>(f);
  }
  OpFamily NodeFamily(NodeId n) { return Family(tree_.name(n)); }

  bool HasModel(NodeId n) {
    const CpuOp* op = tree_.cpu_op(n);
    return op != nullptr && Family(op->name) != OpFamily::kCount;
  }

  // nullptr when the node has no model.
  const OpCost* Cost(NodeId n) {
    if (node_cost_[n] >= 0) return &costs_[static_cast<size_t>(node_cost_[n])];
    if (node_cost_[n] == -2 || !HasModel(n)) {
      node_cost_[n] = -2;
      return nullptr;
    }
    const CpuOp& op = *tree_.cpu_op(n);
    const OpArgs* args = Args(op);
    OpCost cost;
    if (args == nullptr) {
      cost.family = Family(op.name);
      cost.note = "the recorded arguments are not valid JSON";
      node_cost_[n] = Store(cost);
      return &costs_.back();
    }
    const OpHints hints = Hints(n, op, *args);
    const CostKey key{op.name, op.input_dims, op.input_types, op.input_strides, op.concrete_inputs, HashHints(hints)};
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, Store(ModelOp(t_.str(op.name), *args, hints))).first;
    node_cost_[n] = it->second;
    return &costs_[static_cast<size_t>(it->second)];
  }

  const OpArgs* Args(const CpuOp& op) {
    const auto key = std::make_tuple(op.input_dims, op.input_types, op.input_strides, op.concrete_inputs);
    auto it = args_.find(key);
    if (it == args_.end()) {
      StatusOr<OpArgs> parsed = ParseOpArgs(t_.str(op.input_dims), t_.str(op.input_types),
                                            t_.str(op.input_strides), t_.str(op.concrete_inputs));
      it = args_.emplace(key, parsed.ok() ? std::optional<OpArgs>(std::move(parsed).value()) : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  int32_t Store(OpCost c) {
    costs_.push_back(std::move(c));
    return static_cast<int32_t>(costs_.size() - 1);
  }

  OpHints Hints(NodeId n, const CpuOp& op, const OpArgs& args) {
    OpHints h;
    const OpFamily fam = Family(op.name);
    if (fam == OpFamily::kConvFwd && !args.has_concrete) h.conv_output = ConvOutputFromTrace(n, args);
    if (fam == OpFamily::kConvBwd && !args.has_concrete) GradMaskFromChildren(n, &h);
    return h;
  }

  // The forward convolution's output shape, from its autograd node's grad_output, else from the
  // first input of the op that consumes it, checked against the conv formula for some stride
  // (1..4) and padding (0..kernel).
  std::vector<int64_t> ConvOutputFromTrace(NodeId n, const OpArgs& args) {
    if (args.dims.size() < 2) return {};
    const std::vector<int64_t>& x = args.dims[0];
    const std::vector<int64_t>& w = args.dims[1];
    if (x.size() < 3 || w.size() != x.size()) return {};
    auto fits = [&](const std::vector<int64_t>& o) {
      if (o.size() != x.size() || o[0] != x[0] || o[1] != w[0]) return false;
      for (size_t i = 2; i < x.size(); ++i) {
        bool ok = false;
        for (int64_t s = 1; s <= 4 && !ok; ++s)
          for (int64_t p = 0; p <= w[i] && !ok; ++p) ok = ConvOutputSize(x[i], w[i], s, p, 1) == o[i];
        if (!ok) return false;
      }
      return true;
    };
    // The conv's op chain (conv2d > convolution > _convolution > cudnn_convolution).
    NodeId top = n;
    while (tree_.parent(top) != kNoNode && NodeFamily(tree_.parent(top)) == OpFamily::kConvFwd)
      top = tree_.parent(top);
    for (NodeId c = top; c < tree_.subtree_end(top); ++c) {
      auto b = backward_of_.find(c);
      if (b == backward_of_.end()) continue;
      const OpArgs* bargs = Args(*tree_.cpu_op(b->second));
      if (bargs != nullptr && !bargs->dims.empty() && fits(bargs->dims[0])) return bargs->dims[0];
    }
    // The next ops on the same thread.
    int looked = 0;
    for (NodeId c = tree_.subtree_end(top); c < tree_.size() && looked < 4; ++c) {
      if (tree_.tid(c) != tree_.tid(top)) break;
      const CpuOp* op = tree_.cpu_op(c);
      if (op == nullptr || op->input_dims == kNoString) continue;
      ++looked;
      const OpArgs* cargs = Args(*op);
      if (cargs != nullptr && !cargs->dims.empty() && fits(cargs->dims[0])) return cargs->dims[0];
    }
    return {};
  }

  void GradMaskFromChildren(NodeId n, OpHints* h) {
    bool any = false, in = false, wt = false;
    for (NodeId c : tree_.children(n)) {
      switch (ClassifyConvBackwardOp(t_.str(tree_.name(c)))) {
        case ConvBackwardPart::kInput: any = in = true; break;
        case ConvBackwardPart::kWeight: any = wt = true; break;
        case ConvBackwardPart::kNone: break;
      }
    }
    if (!any) return;
    h->grad_input = in;
    h->grad_weight = wt;
    h->grad_bias = 0;
  }

  const Trace& t_;
  const OpTree& tree_;
  static constexpr uint8_t kUnlooked = 0xFF;
  std::vector<uint8_t> family_;  // by StringId: an OpFamily, or kUnlooked
  std::vector<int32_t> node_cost_;  // -1 not computed, -2 no model, else index into costs_
  std::vector<OpCost> costs_;
  std::unordered_map<CostKey, int32_t, CostKeyHash> cache_;
  std::map<std::tuple<StringId, StringId, StringId, StringId>, std::optional<OpArgs>> args_;
  std::unordered_map<NodeId, NodeId> backward_of_;
};

// The analysed windows of ops (step CPU ranges), sorted.
struct OpWindows {
  std::vector<std::pair<TimeNs, TimeNs>> ranges;  // empty: everything
  int64_t Find(TimeNs t) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), t,
                               [](TimeNs v, const std::pair<TimeNs, TimeNs>& r) { return v < r.first; });
    if (it == ranges.begin()) return -1;
    --it;
    return t < it->second ? it - ranges.begin() : -1;
  }
};

RooflineGpu PickGpu(const Trace& trace, const RooflineOptions& options, const std::vector<GpuPeak>& table) {
  RooflineGpu g;
  std::map<int32_t, TimeNs> busy;
  for (const KernelEvent& k : trace.kernels) SatAccumulate(busy[k.device], std::max<TimeNs>(0, k.duration_ns()));
  TimeNs best = -1;
  for (const auto& [dev, ns] : busy)
    if (ns > best) best = ns, g.device = dev;
  const Device* d = trace.FindDevice(g.device);
  if (d == nullptr && !trace.devices.empty()) d = &trace.devices.front();
  if (d != nullptr) g.device_name = d->name;
  if (!options.gpu_override.empty()) {
    // Checked by the CLI; a caller's unknown name says why.
    StatusOr<const GpuPeak*> r = ResolveGpuOverride(options.gpu_override, table);
    if (!r.ok()) {
      g.match = r.status().message();
      return g;
    }
  }
  // The row the input's description found for the device (the one lookup, device_peak.h).
  const Device none;
  const DeviceInfo info = DevicePeakOf(options.devices != nullptr ? *options.devices : std::vector<DeviceInfo>{},
                                       d != nullptr ? d->id : g.device, d != nullptr ? *d : none,
                                       options.gpu_override, table);
  g.peak = info.peak;
  g.match = info.peak_match;
  return g;
}

double Tflops(double flop, TimeNs ns) { return ns > 0 ? flop / static_cast<double>(ns) / 1e3 : 0; }

// Why an op shows above 100% of its attainable roof: the models count the work of the textbook
// algorithm and the traffic to device memory, which the hardware need not do.
std::string AboveRoofNote(const OpRow& r) {
  if (r.roof.bound == "memory") {
    char mb[32];
    std::snprintf(mb, sizeof(mb), "%.1f", r.work.bytes.value_or(0) / 1e6);
    return std::string("above the memory roof: the byte model counts traffic to device memory (every input read, every "
                       "output written once), and the caches (L2, AMD's Infinity Cache) serve part of these ") + mb +
           " MB per call faster than the HBM bandwidth of the peak table";
  }
  if (r.id.family == OpFamily::kConvFwd || r.id.family == OpFamily::kConvBwd)
    return "above 100%: the FLOPs are the direct convolution's; cuDNN runs Winograd or FFT algorithms for such shapes "
           "(3x3 filters above all), which do fewer multiplications";
  return "above 100%: the op's kernels took less time than its model FLOPs need at the dense peak: part of its work ran in "
         "kernels not linked to the op (another stream or thread), or the GPU ran above the clock the peak assumes";
}


// One roofline pass over a rank's op tree: which ops are rows of the op table and the kernel time
// each owns, the rows, the attention calls, the steps' FLOPs and the coverage. The stages are
// methods, in the order AnalyzeRoofline calls them.
class RooflinePass {
 public:
  RooflinePass(const Trace& trace, const OpTree& tree, const StepAnalysis& steps)
      : trace_(trace), tree_(tree), steps_(steps), eval_(trace, tree), n_(tree.size()) {
    // Windows: the steps' CPU ranges attribute ops to steps; without steps, everything.
    for (const StepWindow& s : steps.steps) windows_.ranges.emplace_back(s.cpu_start_ns, s.cpu_end_ns);
    std::sort(windows_.ranges.begin(), windows_.ranges.end());
    use_steps_ = !windows_.ranges.empty();
    kclass_.resize(trace.strings.size() + 1);
    have_class_.assign(trace.strings.size() + 1, 0);
    MarkRows();
  }

  struct RowAcc {
    OpRow row;
    double tflops_sum = 0, tbps_sum = 0;
  };
  using Unknown = std::map<std::pair<std::string, std::string>, RooflineCoverage::Unmodelled>;

  // ---- rows: innermost modelled ops, aggregated by name + arguments + pass
  std::vector<RowAcc> CollectRows(RooflineResult& out, Unknown& unknown);
  // Attention: which implementation the SDPA dispatcher picked, call by call.
  void CollectAttention(RooflineResult& out) const;
  // The rows' roofs against the peak row, sorted, into out.ops.
  void FinishRows(std::vector<RowAcc>& rows, const GpuPeak* peak, RooflineResult& out) const;
  // Kernel time outside every row: the ops that launched it have no FLOP model.
  void AddUnmodelledOps(Unknown& unknown, RooflineResult& out) const;
  // ---- steps: FLOPs per step, MFU/HFU against the dominant precision's peak.
  void Steps(const GpuPeak* peak, RooflineResult& out);
  // Kernel time in the window (the coverage denominator); kernels no recorded op launched are
  // listed as such.
  void Coverage(RooflineResult& out) const;

 private:
  int64_t StepOf(NodeId n) const { return use_steps_ ? windows_.Find(tree_.start_ns(n)) : 0; }
  bool IsMatrix(NodeId n) { return roofline::IsMatrixFamily(eval_.NodeFamily(n)); }
  TimeNs RowNs(NodeId n) const { return tree_.subtree_kernel_ns(n) - row_ns_below_[n]; }
  void MarkRows();
  const KernelClass& ClassOf(uint32_t k);
  Precision KernelPrecision(NodeId n);
  Precision OpPrecision(NodeId n, const OpCost& c);

  const Trace& trace_;
  const OpTree& tree_;
  const StepAnalysis& steps_;
  Evaluator eval_;
  const size_t n_;
  OpWindows windows_;
  bool use_steps_ = false;
  std::vector<uint8_t> is_row_;
  std::vector<TimeNs> row_ns_below_;  // kernel time of the rows strictly below a node
  std::vector<KernelClass> kclass_;
  std::vector<uint8_t> have_class_;
};

// Which modelled ops are rows of the op table, and the kernel time each call owns:
//   - a GEMM/conv/attention op with no such op below it (aten::mm, not the aten::linear around
//     it); everything under it is its time (the fill_ inside flash attention, as TraceLens
//     counts it);
//   - outside those, a memory-bound op with no modelled op below it, or with kernels of its own
//     besides those of the rows below it (aten::mul launching its kernel after a copy_ cast);
//     its time is what the rows below it do not own.
void RooflinePass::MarkRows() {
  const size_t N = n_;
  std::vector<uint8_t> model_below(N, 0), matrix_below(N, 0), in_matrix_row(N, 0);
  is_row_.assign(N, 0);
  row_ns_below_.assign(N, 0);
  for (NodeId id = static_cast<NodeId>(N); id-- > 0;) {
    const NodeId p = tree_.parent(id);
    if (p == kNoNode) continue;
    const bool m = eval_.HasModel(id);
    if (model_below[id] || m) model_below[p] = 1;
    if (matrix_below[id] || (m && IsMatrix(id))) matrix_below[p] = 1;
  }
  {
    NodeId row_until = 0;  // one past the subtree of the last GEMM/conv/attention row
    for (NodeId n = 0; n < N; ++n) {
      if (n < row_until) in_matrix_row[n] = 1;
      if (eval_.HasModel(n) && IsMatrix(n) && !matrix_below[n] && n >= row_until) {
        is_row_[n] = 1;
        row_until = tree_.subtree_end(n);
      }
    }
  }
  for (NodeId n = static_cast<NodeId>(N); n-- > 0;) {
    if (!is_row_[n] && !in_matrix_row[n] && eval_.HasModel(n) && !IsMatrix(n) && !matrix_below[n]) {
      const bool own = tree_.subtree_kernel_ns(n) > row_ns_below_[n];
      if (!model_below[n] || own) is_row_[n] = 1;
    }
    const NodeId p = tree_.parent(n);
    if (p != kNoNode) row_ns_below_[p] += is_row_[n] ? tree_.subtree_kernel_ns(n) : row_ns_below_[n];
  }
}

const KernelClass& RooflinePass::ClassOf(uint32_t k) {
  const StringId name = trace_.kernels[k].name;
  if (!have_class_[name]) {
    kclass_[name] = ClassifyKernel(trace_.str(name));
    have_class_[name] = 1;
  }
  return kclass_[name];
}

// Kernel precision of a node's subtree: the matrix kernels' precision with the most time.
Precision RooflinePass::KernelPrecision(NodeId n) {
  std::array<TimeNs, static_cast<size_t>(Precision::kCount)> ns{};
  for (uint32_t k : tree_.subtree_kernels(n)) {
    const KernelClass& c = ClassOf(k);
    if (c.precision == Precision::kUnknown) continue;
    if (c.category != KernelCategory::kGemm && c.category != KernelCategory::kConv &&
        c.category != KernelCategory::kAttention)
      continue;
    ns[static_cast<size_t>(c.precision)] += std::max<TimeNs>(1, trace_.kernels[k].duration_ns());
  }
  size_t best = static_cast<size_t>(Precision::kUnknown);
  for (size_t p = 0; p < ns.size(); ++p)
    if (ns[p] > 0 && (best == static_cast<size_t>(Precision::kUnknown) || ns[p] > ns[best])) best = p;
  return static_cast<Precision>(best);
}

// The math precision of a modelled node: its matrix kernels', else its innermost modelled
// descendant's inputs (under autocast the outer call carries the caller's dtype).
Precision RooflinePass::OpPrecision(NodeId n, const OpCost& c) {
  if (c.unit == MathUnit::kMatrix) {
    const Precision kp = KernelPrecision(n);
    if (kp != Precision::kUnknown) return kp;
  }
  Precision p = c.precision;
  for (NodeId d = n + 1; d < tree_.subtree_end(n); ++d) {
    if (!is_row_[d]) continue;
    if (const OpCost* dc = eval_.Cost(d); dc != nullptr && dc->precision != Precision::kUnknown) p = dc->precision;
  }
  return p;
}

std::vector<RooflinePass::RowAcc> RooflinePass::CollectRows(RooflineResult& out, Unknown& unknown) {
  std::map<std::tuple<StringId, StringId, StringId, StringId, StringId, bool>, size_t> row_index;
  std::vector<RowAcc> rows;
  for (NodeId n = 0; n < n_; ++n) {
    if (!is_row_[n] || StepOf(n) < 0) continue;
    // A copy: OpPrecision() below evaluates descendants, which can grow the evaluator's cache
    // and move the entry a pointer would point at.
    const OpCost cost = *eval_.Cost(n);
    const OpCost* c = &cost;
    const CpuOp& op = *tree_.cpu_op(n);
    const auto key = std::make_tuple(op.name, op.input_dims, op.input_types, op.input_strides, op.concrete_inputs,
                                     tree_.is_backward(n));
    auto it = row_index.find(key);
    if (it == row_index.end()) {
      RowAcc acc;
      OpRow& r = acc.row;
      r.id.op = std::string(trace_.str(op.name));
      r.id.input_dims = std::string(trace_.str(op.input_dims));
      r.id.input_types = std::string(trace_.str(op.input_types));
      r.id.family = c->family;
      r.id.unit = c->unit;
      r.id.backward = tree_.is_backward(n);
      r.id.precision = OpPrecision(n, *c);
      r.work.known = c->known;
      r.work.gflop = c->flop / 1e9;
      if (c->known && c->bytes_known) {
        r.work.bytes = c->bytes;
        if (c->bytes > 0) r.work.flop_per_byte = c->flop / c->bytes;
      }
      r.work.note = c->note;
      r.work.gemm = c->gemm;
      it = row_index.emplace(key, rows.size()).first;
      rows.push_back(std::move(acc));
    }
    RowAcc& acc = rows[it->second];
    const TimeNs ns = RowNs(n);
    acc.row.timing.count++;
    acc.row.timing.kernel_time_us += static_cast<double>(ns) / 1e3;
    if (ns > 0) {
      acc.row.timing.calls_with_kernels++;
      acc.tflops_sum += Tflops(c->flop, ns);
      if (c->bytes_known) acc.tbps_sum += c->bytes / static_cast<double>(ns) / 1e3;
    }
    if (c->known) {
      out.coverage.modelled_calls++;
      out.coverage.modelled_kernel_time_us += static_cast<double>(ns) / 1e3;
    } else {
      out.coverage.unknown_calls++;
      RooflineCoverage::Unmodelled& u = unknown[{std::string(trace_.str(op.name)), c->note}];
      u.op = std::string(trace_.str(op.name));
      u.reason = c->note;
      u.count++;
      u.kernel_time_us += static_cast<double>(ns) / 1e3;
    }
  }

  return rows;
}

void RooflinePass::CollectAttention(RooflineResult& out) const {
  {
    std::map<std::pair<StringId, bool>, size_t> index;
    for (NodeId n = 0; n < n_; ++n) {
      const CpuOp* cpu = tree_.cpu_op(n);
      if (cpu == nullptr) continue;  // a host range, not an op
      const CpuOp& op = *cpu;
      const AttentionImpl impl = ClassifyAttentionOp(trace_.str(op.name));
      if (impl == AttentionImpl::kNone || StepOf(n) < 0) continue;
      auto [it, fresh] = index.try_emplace({op.name, tree_.is_backward(n)}, out.attention.size());
      if (fresh) {
        AttentionUse u;
        u.impl = impl;
        u.op = std::string(trace_.str(op.name));
        u.input_dims = std::string(trace_.str(op.input_dims));
        u.input_types = std::string(trace_.str(op.input_types));
        u.backward = tree_.is_backward(n);
        out.attention.push_back(std::move(u));
      }
      AttentionUse& u = out.attention[it->second];
      u.calls++;
      u.kernel_time_us += static_cast<double>(tree_.subtree_kernel_ns(n)) / 1e3;
    }
    std::sort(out.attention.begin(), out.attention.end(),
              [](const AttentionUse& a, const AttentionUse& b) { return a.kernel_time_us > b.kernel_time_us; });
  }

}

void RooflinePass::FinishRows(std::vector<RowAcc>& rows, const GpuPeak* peak, RooflineResult& out) const {
  for (RowAcc& acc : rows) {
    OpRow& r = acc.row;
    const double n = static_cast<double>(r.timing.calls_with_kernels);
    if (r.work.known && n > 0) {
      r.timing.tflops = acc.tflops_sum / n;
      if (r.work.bytes) r.timing.tbps = acc.tbps_sum / n;
    }
    if (peak == nullptr || !r.work.known) continue;
    double p = 0;
    if (r.id.unit == MathUnit::kMatrix) p = peak->DenseTflops(r.id.precision);
    else p = r.id.precision == Precision::kFp64 ? peak->fp64_tflops : peak->fp32_tflops;
    if (p > 0) r.roof.peak_tflops = p;
    const double bw_tbps = peak->hbm_gbs / 1e3;
    if (r.work.gflop == 0 && r.work.bytes && bw_tbps > 0) {
      r.roof.bound = "memory";
      if (r.timing.tbps) r.roof.pct_of_peak = *r.timing.tbps / bw_tbps * 100;
    } else if (p > 0 && r.work.flop_per_byte && bw_tbps > 0) {
      const double ridge = p / bw_tbps;  // FLOP/byte where the roofs meet
      r.roof.bound = *r.work.flop_per_byte >= ridge ? "compute" : "memory";
      const double attainable = std::min(p, *r.work.flop_per_byte * bw_tbps);
      if (r.timing.tflops && attainable > 0) r.roof.pct_of_peak = *r.timing.tflops / attainable * 100;
    }
    if (r.roof.pct_of_peak && *r.roof.pct_of_peak > 100) r.roof.note = AboveRoofNote(r);
  }
  std::sort(rows.begin(), rows.end(), [](const RowAcc& a, const RowAcc& b) {
    if (a.row.timing.kernel_time_us != b.row.timing.kernel_time_us)
      return a.row.timing.kernel_time_us > b.row.timing.kernel_time_us;
    return std::tie(a.row.id.op, a.row.id.input_dims) < std::tie(b.row.id.op, b.row.id.input_dims);
  });
  for (RowAcc& acc : rows) {
    const OpRow& row = out.ops.emplace_back(std::move(acc.row));
    const std::pair<Precision, MathUnit> math{row.id.precision, row.id.unit};
    if (row.work.known && row.id.precision != Precision::kUnknown &&
        std::find(out.math_used.begin(), out.math_used.end(), math) == out.math_used.end())
      out.math_used.push_back(math);
  }
}

void RooflinePass::AddUnmodelledOps(Unknown& unknown, RooflineResult& out) const {
  {
    NodeId row_end = 0;
    for (NodeId n = 0; n < n_; ++n) {
      if (n < row_end) continue;
      if (is_row_[n]) {
        row_end = tree_.subtree_end(n);
        continue;
      }
      if (tree_.own_kernel_ns(n) <= 0 || StepOf(n) < 0) continue;
      const std::string name(trace_.str(tree_.name(n)));
      RooflineCoverage::Unmodelled& u = unknown[{name, "no FLOP model"}];
      u.op = name;
      u.reason = "no FLOP model";
      u.count++;
      u.kernel_time_us += static_cast<double>(tree_.own_kernel_ns(n)) / 1e3;
    }
  }
  for (auto& [k, u] : unknown) out.coverage.top_unknown.push_back(u);
  std::sort(out.coverage.top_unknown.begin(), out.coverage.top_unknown.end(),
            [](const auto& a, const auto& b) { return a.kernel_time_us > b.kernel_time_us; });
  if (out.coverage.top_unknown.size() > 10) out.coverage.top_unknown.resize(10);

}

void RooflinePass::Steps(const GpuPeak* peak, RooflineResult& out) {
  const size_t nsteps = use_steps_ ? steps_.steps.size() : 1;
  std::vector<double> model_flop(nsteps, 0), recompute_flop(nsteps, 0);
  std::array<double, static_cast<size_t>(Precision::kCount)> flop_by_precision{};
  for (NodeId n = 0; n < n_;) {
    // Memory-bound ops add no matrix FLOPs; descend through them.
    const OpCost* c = eval_.HasModel(n) ? eval_.Cost(n) : nullptr;
    if (c == nullptr || !c->known || c->unit != MathUnit::kMatrix) {
      ++n;
      continue;
    }
    const int64_t s = StepOf(n);
    if (s >= 0) {
      const CpuOp& op = *tree_.cpu_op(n);
      const bool rerun = tree_.is_backward(n) && !c->backward && op.sequence_number >= 0 && !tree_.is_autograd_node(n);
      if (rerun) {
        recompute_flop[s] += c->flop;
        out.summary.activation_recompute = true;
      } else {
        model_flop[s] += c->flop - c->recompute_flop;
        recompute_flop[s] += c->recompute_flop;
        flop_by_precision[static_cast<size_t>(OpPrecision(n, *c))] += c->flop - c->recompute_flop;
      }
    }
    n = tree_.subtree_end(n);
  }

  // Dominant math precision and its peak.
  size_t dom = static_cast<size_t>(Precision::kUnknown);
  for (size_t p = 0; p < flop_by_precision.size(); ++p)
    if (p != static_cast<size_t>(Precision::kUnknown) && flop_by_precision[p] > 0 &&
        (dom == static_cast<size_t>(Precision::kUnknown) || flop_by_precision[p] > flop_by_precision[dom]))
      dom = p;
  RooflineSummary& sum = out.summary;
  sum.peak_precision = static_cast<Precision>(dom);
  sum.steps_used = use_steps_;
  double total_model = 0, total_recompute = 0, total_ns = 0;
  for (size_t s = 0; s < nsteps; ++s) {
    StepRoofline st;
    TimeNs ns = 0;
    if (use_steps_) {
      st.number = steps_.steps[s].number;
      ns = steps_.steps[s].duration_ns();
    } else {
      ns = steps_.window_ns();
      if (ns <= 0) {
        TimeNs lo = trace_.kernels.front().start_ns, hi = trace_.kernels.front().end_ns;
        for (const KernelEvent& k : trace_.kernels) lo = std::min(lo, k.start_ns), hi = std::max(hi, k.end_ns);
        ns = hi - lo;
      }
    }
    st.time_us = static_cast<double>(ns) / 1e3;
    st.model_gflop = model_flop[s] / 1e9;
    st.hardware_gflop = (model_flop[s] + recompute_flop[s]) / 1e9;
    st.achieved_tflops = Tflops(model_flop[s], ns);
    total_model += model_flop[s];
    total_recompute += recompute_flop[s];
    total_ns += static_cast<double>(ns);
    out.steps.push_back(st);
  }
  sum.step_gflop = total_model / 1e9 / static_cast<double>(nsteps);
  sum.recompute_gflop = total_recompute / 1e9 / static_cast<double>(nsteps);
  sum.achieved_tflops = total_ns > 0 ? total_model / total_ns / 1e3 : 0;
  if (peak == nullptr) {
    sum.mfu_reason = "GPU peaks unknown: " + out.gpu.match;
  } else if (total_model <= 0) {
    sum.mfu_reason = "no GEMM, convolution or attention op with known shapes in the analysed window";
  } else if (peak->DenseTflops(sum.peak_precision) <= 0) {
    sum.mfu_reason = std::string("the peak table has no dense ") + PrecisionName(sum.peak_precision) + " peak for " +
                     peak->id;
  } else {
    const double p = peak->DenseTflops(sum.peak_precision);
    sum.peak_tflops = p;
    char value[32];
    std::snprintf(value, sizeof(value), "%g", p);
    sum.peak_source = peak->id + " dense " + PrecisionName(sum.peak_precision) + " " + value + " TFLOP/s (" +
                      peak->source + ")";
    sum.mfu_pct = sum.achieved_tflops / p * 100;
    if (total_recompute > 0) sum.hfu_pct = (total_model + total_recompute) / total_ns / 1e3 / p * 100;
    for (StepRoofline& st : out.steps) {
      st.mfu_pct = st.achieved_tflops / p * 100;
      if (st.hardware_gflop > st.model_gflop && st.time_us > 0)
        st.hfu_pct = st.hardware_gflop * 1e3 / st.time_us / p * 100;  // GFLOP/µs x 1e3 = TFLOP/s
    }
  }

}

void RooflinePass::Coverage(RooflineResult& out) const {
  RooflineCoverage::Unmodelled orphans;
  orphans.op = "(no op)";
  orphans.reason = "kernels no recorded cpu_op launched (count = kernels)";
  for (size_t k = 0; k < trace_.kernels.size(); ++k) {
    const NodeId n = tree_.node_of_kernel(static_cast<uint32_t>(k));
    if (use_steps_) {
      bool in = n != kNoNode && StepOf(n) >= 0;
      if (n == kNoNode) {
        for (const StepWindow& w : steps_.steps) in = in || (trace_.kernels[k].start_ns >= w.start_ns && trace_.kernels[k].start_ns < w.end_ns);
      }
      if (!in) continue;
    }
    const double us = static_cast<double>(std::max<TimeNs>(0, trace_.kernels[k].duration_ns())) / 1e3;
    out.coverage.kernel_time_us += us;
    if (n == kNoNode) {
      orphans.count++;
      orphans.kernel_time_us += us;
    }
  }
  if (orphans.count > 0) {
    auto& list = out.coverage.top_unknown;
    list.push_back(orphans);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.kernel_time_us > b.kernel_time_us; });
    if (list.size() > 10) list.resize(10);
  }
}

}  // namespace

RooflineResult AnalyzeRoofline(const Trace& trace, const OpTree& tree, const StepAnalysis& steps,
                               const RooflineOptions& options) {
  RooflineResult out;
  const std::vector<GpuPeak>& table = options.peaks != nullptr ? *options.peaks : BuiltinGpuPeaks();
  out.gpu = PickGpu(trace, options, table);

  size_t ops_with_dims = 0;
  for (const CpuOp& op : trace.cpu_ops) ops_with_dims += op.input_dims != kNoString;
  if (trace.cpu_ops.empty()) {
    // "GPU-only" only when there is GPU work: a recording without a GPU has neither.
    out.reason = trace.kernels.empty()
                     ? "no GPU kernels and no cpu_op events in the trace"
                     : "no cpu_op events (a GPU-only trace): FLOPs come from the ops' Input Dims; profile CPU activity "
                       "with record_shapes=True";
    return out;
  }
  // Hand-written attention is found by its op sequence; shapes, when recorded, confirm it.
  out.eager_attention = FindEagerAttention(trace, tree, steps);
  if (ops_with_dims == 0) {
    out.reason = "no Input Dims recorded: profile with record_shapes=True so that FLOPs can be computed";
    return out;
  }
  if (trace.kernels.empty()) {
    out.reason = "no GPU kernels in the trace";
    return out;
  }

  RooflinePass pass(trace, tree, steps);
  RooflinePass::Unknown unknown;
  std::vector<RooflinePass::RowAcc> rows = pass.CollectRows(out, unknown);
  pass.CollectAttention(out);
  if (rows.empty()) {
    out.reason = "none of the " + std::to_string(ops_with_dims) +
                 " ops with recorded shapes has a FLOP model (docs/roofline.md lists the modelled ops)";
    return out;
  }
  const GpuPeak* peak = out.gpu.peak ? &*out.gpu.peak : nullptr;
  pass.FinishRows(rows, peak, out);
  out.ops_total = out.ops.size();
  pass.AddUnmodelledOps(unknown, out);
  pass.Steps(peak, out);
  pass.Coverage(out);
  out.available = true;
  return out;
}

}  // namespace ampscope::roofline

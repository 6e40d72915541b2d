#include "analyzers/roofline/eager_attention.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyzers/roofline/op_models.h"
#include "analyzers/roofline/op_table.h"

namespace ampscope::roofline {
namespace {

using NodeId = OpTree::NodeId;
constexpr NodeId kNoNode = OpTree::kNoNode;
using Shape = std::vector<int64_t>;

double Numel(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  return n;
}

std::string ShapeText(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// One instance: the sibling ops from Q·Kᵀ to P·V and the softmax between them.
struct Instance {
  NodeId qk = kNoNode, softmax = kNoNode, pv = kNoNode;
  std::vector<NodeId> ops;  // the siblings qk .. pv, in order
};

}  // namespace

bool SimilarCost(TimeNs qk_ns, TimeNs pv_ns) {
  const TimeNs lo = std::min(qk_ns, pv_ns), hi = std::max(qk_ns, pv_ns);
  return lo > 0 && hi <= kSimilarCostFactor * lo;
}

namespace {

class Finder {
 public:
  Finder(const Trace& trace, const OpTree& tree) : t_(trace), tree_(tree), family_(trace.strings.size() + 1, kUnlooked) {
    // Backward nodes by the forward op that created them (outermost autograd nodes only: an
    // "evaluate_function: XBackward0" wrapper and its XBackward0 child share one link).
    for (NodeId n = 0; n < tree.size(); ++n) {
      if (!tree.is_autograd_node(n)) continue;
      const NodeId p = tree.parent(n);
      if (p != kNoNode && tree.is_autograd_node(p)) continue;
      const NodeId f = tree.forward_of(n);
      if (f != kNoNode) backward_of_[f].push_back(n);
    }
  }

  OpFamily Family(NodeId n) {
    if (tree_.cpu_op(n) == nullptr) return OpFamily::kCount;  // a record_function range
    const StringId name = tree_.name(n);
    if (name >= family_.size()) return FamilyOf(t_.str(name));
    uint8_t& f = family_[name];
    if (f == kUnlooked) f = static_cast<uint8_t>(FamilyOf(t_.str(name)));
    return static_cast<OpFamily>(f);
  }

  // The recorded arguments of an op (nullptr: none recorded, or not valid).
  const OpArgs* Args(NodeId n) {
    const CpuOp* op = tree_.cpu_op(n);
    if (op == nullptr || op->input_dims == kNoString) return nullptr;
    auto it = args_.find(n);
    if (it == args_.end()) {
      StatusOr<OpArgs> parsed = ParseOpArgs(t_.str(op->input_dims), t_.str(op->input_types), "", "");
      it = args_.emplace(n, parsed.ok() ? std::optional<OpArgs>(std::move(parsed).value()) : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  std::optional<GemmDims> Gemm(NodeId n) {
    const OpArgs* a = Args(n);
    if (a == nullptr) return std::nullopt;
    return ModelOp(t_.str(tree_.name(n)), *a).gemm;
  }

  // n's siblings (its parent's children, or the roots of its thread) and n's position among them.
  std::pair<IdSpan<NodeId>, size_t> Siblings(NodeId n) const {
    const NodeId p = tree_.parent(n);
    const IdSpan<NodeId> s = p == kNoNode ? tree_.roots() : tree_.children(p);
    const size_t i = static_cast<size_t>(std::lower_bound(s.begin(), s.end(), n) - s.begin());
    return {s, i};
  }

  bool UnderAttentionOp(NodeId n) {
    for (NodeId p = tree_.parent(n); p != kNoNode; p = tree_.parent(p)) {
      const OpFamily f = Family(p);
      if (f == OpFamily::kAttentionFwd || f == OpFamily::kAttentionBwd || f == OpFamily::kSoftmax) return true;
    }
    return false;
  }

  // Q·Kᵀ and P·V multiply two activations: a batched product (bmm, baddbmm, matmul), never a
  // product with a weight (mm, addmm, linear: an MoE router's gate, a classifier head).
  bool ActivationProduct(NodeId n) {
    const detail::OpSpec* spec = detail::FindOpSpec(t_.str(tree_.name(n)));
    return spec != nullptr && (spec->formula == detail::Formula::kBmm || spec->formula == detail::Formula::kBaddbmm ||
                               spec->formula == detail::Formula::kMatmul);
  }

  // The nearest GEMM sibling in direction `step` (-1 before, +1 after), at most kMaxOpsBetween
  // ops away on the same thread, with no softmax or attention op between.
  NodeId NearestGemm(NodeId n, int step) {
    auto [sibs, i] = Siblings(n);
    const int64_t tid = tree_.tid(n);
    for (int k = 1; k <= kMaxOpsBetween + 1; ++k) {
      const int64_t j = static_cast<int64_t>(i) + step * k;
      if (j < 0 || j >= static_cast<int64_t>(sibs.size())) break;
      const NodeId s = sibs[static_cast<size_t>(j)];
      if (tree_.tid(s) != tid) break;
      const OpFamily f = Family(s);
      if (f == OpFamily::kGemm) return s;
      if (f == OpFamily::kSoftmax || f == OpFamily::kAttentionFwd || f == OpFamily::kAttentionBwd) break;
    }
    return kNoNode;
  }

  // Batch and heads apart: from a 4-D Q·Kᵀ input, else from a 4-D tensor of the same layer just
  // before it ([B, H, N, d] or [B, N, H, d] with B·H the GEMM batch).
  void BatchAndHeads(NodeId qk, EagerAttention& e) {
    if (!e.batch_heads || !e.seq_q || !e.head_dim) return;
    const int64_t bh = *e.batch_heads, n = *e.seq_q, d = *e.head_dim;
    if (const OpArgs* a = Args(qk); a != nullptr && !a->dims.empty() && a->dims[0].size() == 4) {
      const Shape& q = a->dims[0];
      if (q[0] * q[1] == bh && q[2] == n && q[3] == d) {
        e.batch = q[0], e.heads = q[1];
        e.shape_basis = std::string(t_.str(tree_.name(qk))) + " input " + ShapeText(q);
        return;
      }
    }
    auto [sibs, i] = Siblings(qk);
    const int64_t tid = tree_.tid(qk);
    for (size_t k = 1; k <= 3 * kMaxOpsBetween && k <= i; ++k) {
      const NodeId s = sibs[i - k];
      if (tree_.tid(s) != tid) break;
      const OpArgs* a = Args(s);
      if (a == nullptr || a->dims.empty() || a->dims[0].size() != 4) continue;
      const Shape& x = a->dims[0];
      if (x[3] != d) continue;
      if (x[2] == n && x[0] * x[1] == bh) {
        e.batch = x[0], e.heads = x[1];
      } else if (x[1] == n && x[0] * x[2] == bh) {
        e.batch = x[0], e.heads = x[2];
      } else {
        continue;
      }
      e.shape_basis = std::string(t_.str(tree_.name(s))) + " input " + ShapeText(x);
      return;
    }
    e.shape_basis = "batch x heads only: the GEMMs merge them and no 4-D tensor of the layer shows them apart";
  }

  // The shapes of an instance; false when recorded shapes show it is not attention.
  bool Shapes(const Instance& x, EagerAttention& e) {
    if (!ActivationProduct(x.qk) || !ActivationProduct(x.pv)) return false;
    const OpArgs* sm = Args(x.softmax);
    if (sm == nullptr || sm->dims.empty() || sm->dims[0].empty()) {
      // Without shapes, the op sequence and the two products' cost: Q·Kᵀ and P·V do the same
      // N_q·N_kv·d multiply-adds, so their kernel times are alike.
      e.shape_basis = "shapes not recorded (profile with record_shapes=True)";
      return SimilarCost(tree_.subtree_kernel_ns(x.qk), tree_.subtree_kernel_ns(x.pv));
    }
    const Shape& s = sm->dims[0];
    if (s.size() < 3) return false;  // a softmax over a 2-D tensor (a classifier head) is not attention
    const int64_t nq = s[s.size() - 2], nkv = s.back();
    const std::optional<GemmDims> qk = Gemm(x.qk), pv = Gemm(x.pv);
    if (!qk || !pv) return false;
    if (qk->m != nq || qk->n != nkv || qk->batch * qk->m * qk->n != Numel(s)) return false;
    if (pv->m != nq || pv->k != nkv || pv->batch != qk->batch) return false;
    e.batch_heads = static_cast<int64_t>(qk->batch);
    e.seq_q = nq;
    e.seq_kv = nkv;
    e.head_dim = static_cast<int64_t>(qk->k);
    const DtypeInfo dt = sm->types.empty() ? DtypeInfo{} : DtypeOf(sm->types[0]);
    e.precision = dt.precision;
    if (dt.bytes > 0) e.matrix_bytes = Numel(s) * dt.bytes;
    BatchAndHeads(x.qk, e);
    return true;
  }

  // The innermost GEMM ops (op-table rows) under n, forward or backward.
  void GemmRows(NodeId n, std::vector<EagerAttention::GemmRow>& rows) {
    for (NodeId d = n; d < tree_.subtree_end(n); ++d) {
      if (Family(d) != OpFamily::kGemm) continue;
      bool gemm_below = false;
      for (NodeId c = d + 1; c < tree_.subtree_end(d) && !gemm_below; ++c) gemm_below = Family(c) == OpFamily::kGemm;
      if (gemm_below) continue;
      const CpuOp& op = *tree_.cpu_op(d);
      EagerAttention::GemmRow r{std::string(t_.str(op.name)), std::string(t_.str(op.input_dims)), tree_.is_backward(d)};
      const bool seen = std::any_of(rows.begin(), rows.end(), [&](const EagerAttention::GemmRow& x) {
        return x.op == r.op && x.input_dims == r.input_dims && x.backward == r.backward;
      });
      if (!seen) rows.push_back(std::move(r));
    }
  }

  // Adds the instance's kernel time (forward ops and their backward nodes) to e.
  void AddTime(const Instance& x, EagerAttention& e) {
    for (NodeId op : x.ops) {
      const double us = static_cast<double>(tree_.subtree_kernel_ns(op)) / 1e3;
      e.kernel_time_us += us;
      for (uint32_t k : tree_.subtree_kernels(op)) e.kernels.push_back(k);
      if (op == x.qk || op == x.pv) e.gemm_time_us += us;
      if (op == x.softmax) e.softmax_time_us += us;
      for (NodeId f = op; f < tree_.subtree_end(op); ++f) {
        auto it = backward_of_.find(f);
        if (it == backward_of_.end()) continue;
        for (NodeId b : it->second) {
          const double bus = static_cast<double>(tree_.subtree_kernel_ns(b)) / 1e3;
          e.kernel_time_us += bus;
          for (uint32_t k : tree_.subtree_kernels(b)) e.kernels.push_back(k);
          e.backward_time_us += bus;
          if (op == x.qk || op == x.pv) {
            e.gemm_time_us += bus;
            GemmRows(b, e.gemm_rows);
          }
          if (op == x.softmax) e.softmax_time_us += bus;
        }
      }
    }
    GemmRows(x.qk, e.gemm_rows);
    GemmRows(x.pv, e.gemm_rows);
  }

  const Trace& t_;
  const OpTree& tree_;

 private:
  static constexpr uint8_t kUnlooked = 0xFF;
  std::vector<uint8_t> family_;
  std::unordered_map<NodeId, std::optional<OpArgs>> args_;
  std::unordered_map<NodeId, std::vector<NodeId>> backward_of_;
};

}  // namespace

std::vector<EagerAttention> FindEagerAttention(const Trace& trace, const OpTree& tree, const StepAnalysis& steps) {
  std::vector<std::pair<TimeNs, TimeNs>> windows;
  for (const StepWindow& s : steps.steps) windows.emplace_back(s.cpu_start_ns, s.cpu_end_ns);
  std::sort(windows.begin(), windows.end());
  auto in_window = [&](TimeNs t) {
    if (windows.empty()) return true;
    auto it = std::upper_bound(windows.begin(), windows.end(), t,
                               [](TimeNs v, const std::pair<TimeNs, TimeNs>& w) { return v < w.first; });
    return it != windows.begin() && t < std::prev(it)->second;
  };
  Finder f(trace, tree);
  std::map<std::tuple<std::string, std::string, std::string, std::string>, EagerAttention> by_shape;
  for (NodeId n = 0; n < tree.size(); ++n) {
    if (f.Family(n) != OpFamily::kSoftmax || tree.is_backward(n) || !in_window(tree.start_ns(n))) continue;
    if (f.UnderAttentionOp(n)) continue;  // SDPA's math path, or the inner op of a softmax
    Instance x;
    x.softmax = n;
    x.qk = f.NearestGemm(n, -1);
    x.pv = f.NearestGemm(n, +1);
    if (x.qk == kNoNode || x.pv == kNoNode) continue;
    EagerAttention shape;
    if (!f.Shapes(x, shape)) continue;
    auto [sibs, i] = f.Siblings(x.qk);
    for (size_t j = i; j < sibs.size(); ++j) {
      x.ops.push_back(sibs[j]);
      if (sibs[j] == x.pv) break;
    }
    const CpuOp& qk = *tree.cpu_op(x.qk);
    const CpuOp& pv = *tree.cpu_op(x.pv);
    const auto key = std::make_tuple(std::string(trace.str(qk.name)), std::string(trace.str(qk.input_dims)),
                                     std::string(trace.str(tree.name(n))), std::string(trace.str(pv.input_dims)));
    auto [it, fresh] = by_shape.try_emplace(key, std::move(shape));
    EagerAttention& e = it->second;
    if (fresh) {
      e.qk_op = std::get<0>(key);
      e.qk_input_dims = std::get<1>(key);
      e.softmax_op = std::get<2>(key);
      e.pv_op = std::string(trace.str(pv.name));
      e.pv_input_dims = std::get<3>(key);
    }
    e.calls++;
    f.AddTime(x, e);
  }
  std::vector<EagerAttention> out;
  for (auto& [k, e] : by_shape) out.push_back(std::move(e));
  std::sort(out.begin(), out.end(),
            [](const EagerAttention& a, const EagerAttention& b) { return a.kernel_time_us > b.kernel_time_us; });
  return out;
}

bool IsEagerAttentionGemm(const RooflineResult& r, const OpRow& row) {
  if (row.id.family != OpFamily::kGemm) return false;
  for (const EagerAttention& e : r.eager_attention)
    for (const EagerAttention::GemmRow& g : e.gemm_rows)
      if (g.op == row.id.op && g.input_dims == row.id.input_dims && g.backward == row.id.backward) return true;
  return false;
}

}  // namespace ampscope::roofline

#include "analyzers/context/op_tree.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <utility>

#include "base/parallel.h"
#include "trace/classify/host_roles.h"

namespace ampscope {
namespace {

// A candidate node before numbering.
struct Item {
  int64_t tid;
  TimeNs start_ns;
  TimeNs end_ns;
  uint32_t source;
  OpTree::NodeKind kind;
};

}  // namespace

OpTree OpTree::Build(const Trace& trace) {
  // Launch call of each kernel by correlation (the analysis context will pass its own links).
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  by_corr.reserve(trace.api_calls.size());
  for (uint32_t i = 0; i < trace.api_calls.size(); ++i)
    if (trace.api_calls[i].correlation >= 0) by_corr.emplace_back(trace.api_calls[i].correlation, i);
  std::sort(by_corr.begin(), by_corr.end());
  std::vector<int64_t> launch(trace.kernels.size(), -1);
  for (size_t k = 0; k < trace.kernels.size(); ++k) {
    const int64_t c = trace.kernels[k].correlation;
    if (c < 0) continue;
    auto it = std::lower_bound(by_corr.begin(), by_corr.end(), std::make_pair(c, uint32_t{0}));
    if (it != by_corr.end() && it->first == c) launch[k] = it->second;
  }
  return Build(trace, launch);
}

OpTree OpTree::Build(const Trace& trace, const std::vector<int64_t>& launch_of_kernel, int threads) {
  OpTree t;
  t.trace_ = &trace;
  t.BuildNodes(trace);
  {
    // Both read the nodes; LinkKernels writes the kernel links and times, MarkBackward the
    // forward/backward fields and counts: with a second thread they run side by side.
    Beside backward(threads > 1, [&t, &trace] { t.MarkBackward(trace); });
    t.LinkKernels(trace, launch_of_kernel);
    backward.Join();
  }
  t.stats_.nodes = t.nodes_.size();
  return t;
}

const CpuOp* OpTree::cpu_op(NodeId n) const {
  const Node& x = nodes_[n];
  return x.kind == NodeKind::kCpuOp ? &trace_->cpu_ops[x.source] : nullptr;
}

StringId OpTree::name(NodeId n) const {
  const Node& x = nodes_[n];
  return x.kind == NodeKind::kCpuOp ? trace_->cpu_ops[x.source].name : trace_->ranges[x.source].name;
}

int64_t OpTree::tid(NodeId n) const {
  // threads_ ascend by tid and by first node alike (threads are numbered in tid order).
  auto it = std::upper_bound(threads_.begin(), threads_.end(), n, [](NodeId v, const ThreadIndex& x) { return v < x.first; });
  return it == threads_.begin() ? -1 : std::prev(it)->tid;
}

uint32_t OpTree::depth(NodeId n) const {
  uint32_t d = 0;
  for (NodeId p = parent(n); p != kNoNode; p = parent(p)) ++d;
  return d;
}

IdSpan<OpTree::NodeId> OpTree::children(NodeId n) const {
  const uint32_t a = child_offsets_[n];
  return IdSpan<NodeId>(child_ids_.data() + a, child_offsets_[n + 1] - a);
}

IdSpan<uint32_t> OpTree::own_kernels(NodeId n) const {
  const uint32_t a = kernel_offsets_[n];
  return IdSpan<uint32_t>(kernel_ids_.data() + a, kernel_offsets_[n + 1] - a);
}

IdSpan<uint32_t> OpTree::subtree_kernels(NodeId n) const {
  const uint32_t a = kernel_offsets_[n];
  return IdSpan<uint32_t>(kernel_ids_.data() + a, kernel_offsets_[nodes_[n].subtree_end] - a);
}

OpTree::NodeId OpTree::forward_of(NodeId n) const {
  for (NodeId cur = n; cur != kNoNode; cur = nodes_[cur].parent)
    if (nodes_[cur].autograd) return nodes_[cur].forward;
  return kNoNode;
}

namespace {

// Per thread by start; an enclosing event (longer, or a record_function range around an op of
// the same extent) before what it encloses, so sorted order is pre-order.
bool PreOrderLess(const Item& a, const Item& b) {
  if (a.tid != b.tid) return a.tid < b.tid;
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
  if (a.kind != b.kind) return a.kind == OpTree::NodeKind::kAnnotation;
  return a.source < b.source;
}

template <typename T>
bool InEnclosingFirstOrder(const std::vector<T>& v) {
  return std::is_sorted(v.begin(), v.end(), EnclosingFirst());
}

// The items in PreOrderLess order. FinalizeTrace leaves cpu_ops and ranges sorted by start,
// longer first (stable, so equal extents stay in index order): then merging the two lists and
// placing each item in its thread's part (threads by tid) gives that order in linear time;
// otherwise the items are sorted.
std::vector<Item> PreOrderItems(const Trace& trace) {
  auto op_item = [&](uint32_t i) {
    const CpuOp& op = trace.cpu_ops[i];
    return Item{op.tid, op.start_ns, op.end_ns, i, OpTree::NodeKind::kCpuOp};
  };
  std::vector<Item> annotations;
  for (uint32_t i = 0; i < trace.ranges.size(); ++i) {
    const Range& r = trace.ranges[i];
    if (r.kind == RangeKind::kCpuAnnotation) annotations.push_back({r.tid, r.start_ns, r.end_ns, i, OpTree::NodeKind::kAnnotation});
  }
  const size_t n = trace.cpu_ops.size() + annotations.size();
  std::vector<Item> items;
  if (!InEnclosingFirstOrder(trace.cpu_ops) || !InEnclosingFirstOrder(trace.ranges)) {
    items.reserve(n);
    for (uint32_t i = 0; i < trace.cpu_ops.size(); ++i) items.push_back(op_item(i));
    items.insert(items.end(), annotations.begin(), annotations.end());
    std::sort(items.begin(), items.end(), PreOrderLess);
    return items;
  }
  // Each thread's part of the output: threads by tid.
  std::vector<int64_t> tids;
  for (const CpuOp& op : trace.cpu_ops)
    if (tids.empty() || tids.back() != op.tid) tids.push_back(op.tid);
  for (const Item& it : annotations) tids.push_back(it.tid);
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  auto part = [&](int64_t tid) { return static_cast<size_t>(std::lower_bound(tids.begin(), tids.end(), tid) - tids.begin()); };
  std::vector<size_t> next(tids.size() + 1, 0);
  for (const CpuOp& op : trace.cpu_ops) next[part(op.tid) + 1]++;
  for (const Item& it : annotations) next[part(it.tid) + 1]++;
  std::partial_sum(next.begin(), next.end(), next.begin());
  items.resize(n);
  int64_t last_tid = 0;
  size_t last_part = tids.size();
  auto place = [&](const Item& it) {
    if (last_part == tids.size() || it.tid != last_tid) {
      last_tid = it.tid;
      last_part = part(it.tid);
    }
    items[next[last_part]++] = it;
  };
  // Merge by (start, longer first, annotation first); each list is in that order already, with
  // ties in index order.
  auto annotation_first = [](const Item& a, const Item& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns >= b.end_ns;  // a is the annotation: first on equal extents
  };
  size_t j = 0;
  for (uint32_t i = 0; i < trace.cpu_ops.size(); ++i) {
    const Item op = op_item(i);
    while (j < annotations.size() && annotation_first(annotations[j], op)) place(annotations[j++]);
    place(op);
  }
  while (j < annotations.size()) place(annotations[j++]);
  return items;
}

// Sorts v (distinct elements). External ids grow with time, so in node order (each thread's
// nodes by start) they are a few ascending runs, one per thread: those are merged; many runs
// are sorted.
template <typename T>
void SortRuns(std::vector<T>& v) {
  constexpr size_t kMaxRuns = 16;
  std::vector<size_t> starts = {0};
  for (size_t i = 1; i < v.size() && starts.size() <= kMaxRuns; ++i)
    if (v[i] < v[i - 1]) starts.push_back(i);
  if (starts.size() > kMaxRuns) {
    std::sort(v.begin(), v.end());
    return;
  }
  for (size_t r = 1; r < starts.size(); ++r) {
    const size_t end = r + 1 < starts.size() ? starts[r + 1] : v.size();
    std::inplace_merge(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(starts[r]),
                       v.begin() + static_cast<std::ptrdiff_t>(end));
  }
}

}  // namespace

void OpTree::BuildNodes(const Trace& trace) {
  const std::vector<Item> items = PreOrderItems(trace);

  nodes_.resize(items.size());
  std::vector<NodeId> stack;
  auto close_all = [&](NodeId end) {
    while (!stack.empty()) {
      nodes_[stack.back()].subtree_end = end;
      stack.pop_back();
    }
  };
  for (NodeId id = 0; id < items.size(); ++id) {
    const Item& it = items[id];
    if (id == 0 || it.tid != items[id - 1].tid) {
      close_all(id);
      if (!threads_.empty()) threads_.back().last = id;
      threads_.push_back({it.tid, id, id});
    }
    while (!stack.empty()) {
      const Node& top = nodes_[stack.back()];
      const bool inside = it.start_ns < top.end_ns || (it.start_ns == top.start_ns && it.end_ns <= top.end_ns);
      if (inside) break;
      nodes_[stack.back()].subtree_end = id;
      stack.pop_back();
    }
    Node& n = nodes_[id];
    n.start_ns = it.start_ns;
    n.end_ns = it.end_ns;
    n.kind = it.kind;
    n.source = it.source;
    if (!stack.empty()) {
      n.parent = stack.back();
      if (it.end_ns > nodes_[n.parent].end_ns) stats_.partial_overlaps++;
    } else {
      roots_.push_back(id);
    }
    stack.push_back(id);
  }
  const NodeId total = static_cast<NodeId>(nodes_.size());
  close_all(total);
  if (!threads_.empty()) threads_.back().last = total;

  // Children in CSR form (ids ascend within each parent because ids are pre-order).
  child_offsets_.assign(nodes_.size() + 1, 0);
  for (const Node& n : nodes_)
    if (n.parent != kNoNode) child_offsets_[n.parent + 1]++;
  std::partial_sum(child_offsets_.begin(), child_offsets_.end(), child_offsets_.begin());
  child_ids_.resize(child_offsets_.back());
  std::vector<uint32_t> fill(child_offsets_.begin(), child_offsets_.end() - 1);
  for (NodeId id = 0; id < total; ++id)
    if (nodes_[id].parent != kNoNode) child_ids_[fill[nodes_[id].parent]++] = id;
}

OpTree::NodeId OpTree::InnermostAt(int64_t tid, TimeNs t) const {
  auto th = std::lower_bound(threads_.begin(), threads_.end(), tid,
                             [](const ThreadIndex& x, int64_t v) { return x.tid < v; });
  if (th == threads_.end() || th->tid != tid) return kNoNode;
  // The last node on the thread that starts at or before t; its ancestors are the only nodes that
  // can contain t (pre-order = start order within a thread).
  NodeId lo = th->first;
  NodeId hi = th->last;
  while (lo < hi) {
    const NodeId mid = lo + (hi - lo) / 2;
    if (nodes_[mid].start_ns <= t) lo = mid + 1;
    else hi = mid;
  }
  if (lo == th->first) return kNoNode;
  NodeId cur = lo - 1;
  while (cur != kNoNode && nodes_[cur].end_ns < t) cur = nodes_[cur].parent;
  return cur;
}

void OpTree::LinkKernels(const Trace& trace, const std::vector<int64_t>& launch_of_kernel) {
  // External id -> node, ids shared by several nodes dropped (they cannot say which one launched).
  std::vector<std::pair<int64_t, NodeId>> by_ext;
  by_ext.reserve(nodes_.size());
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    const int64_t ext = n.kind == NodeKind::kCpuOp ? trace.cpu_ops[n.source].external_id
                                                   : trace.ranges[n.source].external_id;
    if (ext > 0) by_ext.emplace_back(ext, id);
  }
  SortRuns(by_ext);
  {
    size_t w = 0;
    for (size_t r = 0; r < by_ext.size();) {
      size_t e = r + 1;
      while (e < by_ext.size() && by_ext[e].first == by_ext[r].first) ++e;
      if (e - r == 1) {
        by_ext[w++] = by_ext[r];
      } else {
        stats_.ambiguous_external_ids++;
      }
      r = e;
    }
    by_ext.resize(w);
  }
  auto find_ext = [&](int64_t ext) -> NodeId {
    auto it = std::lower_bound(by_ext.begin(), by_ext.end(), std::make_pair(ext, NodeId{0}));
    return it != by_ext.end() && it->first == ext ? it->second : kNoNode;
  };

  const size_t nk = trace.kernels.size();
  kernel_node_.assign(nk, kNoNode);
  kernel_link_.assign(nk, LinkKind::kNone);
  for (size_t k = 0; k < nk; ++k) {
    const KernelEvent& ke = trace.kernels[k];
    const int64_t api = k < launch_of_kernel.size() ? launch_of_kernel[k] : -1;
    const ApiCall* call = api >= 0 && static_cast<size_t>(api) < trace.api_calls.size() ? &trace.api_calls[api] : nullptr;
    const int64_t ext = ke.external_id > 0 ? ke.external_id : (call != nullptr ? call->external_id : -1);
    NodeId node = ext > 0 ? find_ext(ext) : kNoNode;
    if (node != kNoNode) {
      kernel_link_[k] = LinkKind::kExternalId;
      stats_.kernels_by_external_id++;
    } else if (call != nullptr && (node = InnermostAt(call->tid, call->start_ns)) != kNoNode) {
      kernel_link_[k] = LinkKind::kLaunch;
      stats_.kernels_by_launch++;
    } else {
      stats_.kernels_unlinked++;
    }
    kernel_node_[k] = node;
  }

  // Own kernels in CSR form, in node order (so a subtree's kernels are one contiguous span).
  kernel_offsets_.assign(nodes_.size() + 1, 0);
  for (NodeId n : kernel_node_)
    if (n != kNoNode) kernel_offsets_[n + 1]++;
  std::partial_sum(kernel_offsets_.begin(), kernel_offsets_.end(), kernel_offsets_.begin());
  kernel_ids_.resize(kernel_offsets_.back());
  std::vector<uint32_t> fill(kernel_offsets_.begin(), kernel_offsets_.end() - 1);
  for (uint32_t k = 0; k < nk; ++k) {
    const NodeId n = kernel_node_[k];
    if (n == kNoNode) continue;
    kernel_ids_[fill[n]++] = k;
    nodes_[n].own_kernel_ns += std::max<TimeNs>(0, trace.kernels[k].duration_ns());
  }
  // Inclusive time: children have larger ids than their parent, so one backward pass suffices.
  for (NodeId id = static_cast<NodeId>(nodes_.size()); id-- > 0;) {
    Node& n = nodes_[id];
    n.subtree_kernel_ns += n.own_kernel_ns;
    if (n.parent != kNoNode) nodes_[n.parent].subtree_kernel_ns += n.subtree_kernel_ns;
  }
}

OpTree::NodeId OpTree::NodeStartingAt(int64_t tid, TimeNs t, bool prefer_sequence, const Trace& trace) const {
  auto th = std::lower_bound(threads_.begin(), threads_.end(), tid,
                             [](const ThreadIndex& x, int64_t v) { return x.tid < v; });
  if (th == threads_.end() || th->tid != tid) return kNoNode;
  auto first = nodes_.begin() + th->first;
  auto last = nodes_.begin() + th->last;
  auto it = std::lower_bound(first, last, t, [](const Node& n, TimeNs v) { return n.start_ns < v; });
  NodeId best = kNoNode;
  NodeId best_seq = kNoNode;
  for (; it != last && it->start_ns == t; ++it) {
    const NodeId id = static_cast<NodeId>(it - nodes_.begin());
    best = id;  // later = deeper among equal starts
    if (it->kind == NodeKind::kCpuOp && trace.cpu_ops[it->source].sequence_number >= 0) best_seq = id;
  }
  return prefer_sequence && best_seq != kNoNode ? best_seq : best;
}

void OpTree::MarkBackward(const Trace& trace) {
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    Node& n = nodes_[id];
    n.autograd = IsAutogradNodeName(trace.str(name(id)));
    const NodeId inherited = n.parent != kNoNode ? nodes_[n.parent].backward_root : kNoNode;
    n.backward_root = inherited != kNoNode ? inherited : (n.autograd ? id : kNoNode);
    if (n.backward_root == id) stats_.backward_roots++;
  }

  // The innermost autograd node at or above a node.
  auto autograd_at = [&](NodeId id) {
    for (NodeId cur = id; cur != kNoNode; cur = nodes_[cur].parent)
      if (nodes_[cur].autograd) return cur;
    return kNoNode;
  };
  auto link = [&](NodeId bwd, NodeId fwd) {
    if (nodes_[bwd].forward == kNoNode) nodes_[bwd].forward = fwd;
  };

  // 1. "fwdbwd" flows: 's' at the forward op, 'f' at the backward node, same id.
  std::vector<const FlowEvent*> flows;
  for (const FlowEvent& f : trace.flows)
    if (trace.str(f.category) == "fwdbwd" && (f.phase == 's' || f.phase == 'f')) flows.push_back(&f);
  std::sort(flows.begin(), flows.end(), [](const FlowEvent* a, const FlowEvent* b) {
    if (a->id != b->id) return a->id < b->id;
    return a->phase > b->phase;  // 's' before 'f'
  });
  for (size_t i = 0; i + 1 < flows.size(); ++i) {
    const FlowEvent* s = flows[i];
    const FlowEvent* f = flows[i + 1];
    if (s->id != f->id || s->phase != 's' || f->phase != 'f') continue;
    const NodeId fwd = NodeStartingAt(s->tid, s->time_ns, true, trace);
    const NodeId bwd_at = NodeStartingAt(f->tid, f->time_ns, true, trace);
    if (fwd == kNoNode || bwd_at == kNoNode || is_backward(fwd)) continue;
    const NodeId bwd = autograd_at(bwd_at);
    if (bwd == kNoNode || nodes_[bwd].forward != kNoNode) continue;
    link(bwd, fwd);
    stats_.backward_links_by_flow++;
    ++i;
  }

  // 2. Sequence numbers: the latest forward op with the node's number that started before it
  // (ops that only peek at the counter share the number; the node's creator is the last one).
  struct SeqOp {
    int64_t seq;
    TimeNs start_ns;
    NodeId id;
  };
  std::vector<SeqOp> fwd_ops;
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (n.kind != NodeKind::kCpuOp || n.backward_root != kNoNode) continue;
    const int64_t seq = trace.cpu_ops[n.source].sequence_number;
    if (seq >= 0) fwd_ops.push_back({seq, n.start_ns, id});
  }
  std::sort(fwd_ops.begin(), fwd_ops.end(), [](const SeqOp& a, const SeqOp& b) {
    if (a.seq != b.seq) return a.seq < b.seq;
    return a.start_ns < b.start_ns;
  });
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    Node& n = nodes_[id];
    if (!n.autograd || n.forward != kNoNode || n.kind != NodeKind::kCpuOp) continue;
    const int64_t seq = trace.cpu_ops[n.source].sequence_number;
    if (seq < 0) continue;
    auto it = std::lower_bound(fwd_ops.begin(), fwd_ops.end(), SeqOp{seq, n.start_ns, 0},
                               [](const SeqOp& a, const SeqOp& b) {
                                 if (a.seq != b.seq) return a.seq < b.seq;
                                 return a.start_ns < b.start_ns;
                               });
    if (it == fwd_ops.begin()) continue;
    --it;
    if (it->seq != seq) continue;
    link(id, it->id);
    stats_.backward_links_by_sequence++;
  }

  // 3. An "evaluate_function: XBackward0" wrapper and its "XBackward0" child are one autograd
  // node: share the link found for either.
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const std::string_view inner = AutogradEvaluatedNode(trace.str(name(id)));
    if (inner.empty()) continue;
    for (NodeId c : children(id)) {
      if (trace.str(name(c)) != inner) continue;
      if (nodes_[id].forward == kNoNode) nodes_[id].forward = nodes_[c].forward;
      if (nodes_[c].forward == kNoNode) nodes_[c].forward = nodes_[id].forward;
      break;
    }
  }
}

}  // namespace ampscope

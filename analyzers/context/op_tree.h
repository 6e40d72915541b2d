// The op tree of one trace: every host thread's cpu_ops and record_function ranges nested into a
// forest, each node's GPU kernels, each node's kernel time (own and inclusive of its subtree),
// and forward vs backward (autograd) with the link from a backward node to the forward op that
// created it. Built once per trace; everything else reads it.
//
// Nodes are numbered in pre-order, one thread after another, so a node's subtree is the
// contiguous id range [id, subtree_end(id)) and the kernels of a subtree are one contiguous
// span of kernel indices. Building is O(n log n) in the number of ops, ranges and kernels; a
// query for the innermost node around a host time is O(log n + depth).
//
// Kernel -> node: a kernel belongs to the innermost node that launched it, found by
//   1. its "External id" (the kernel's own, else its launch call's), when exactly one node has it;
//   2. else the innermost node around its launch call (by correlation) on the launching thread.
// Backward: the nodes under an autograd node -- "autograd::engine::evaluate_function: XBackward0"
// in current traces, the bare "XBackward" / "XBackward1" nodes in 2021 traces -- are backward, and
// so are their kernels. A backward node is linked to its forward op by the "fwdbwd" flow when the
// trace has one, else by "Sequence number" (the latest forward-pass op with that number that
// started before the backward node).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/model.h"

namespace ampscope {

// A read-only view of contiguous ids (C++17 has no std::span).
template <typename T>
class IdSpan {
 public:
  IdSpan() = default;
  IdSpan(const T* data, size_t size) : data_(data), size_(size) {}
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

class OpTree {
 public:
  using NodeId = uint32_t;
  static constexpr NodeId kNoNode = 0xFFFFFFFFu;

  enum class NodeKind : uint8_t {
    kCpuOp,       // Trace::cpu_ops[source_index]
    kAnnotation,  // Trace::ranges[source_index], a CPU record_function range (kCpuAnnotation)
  };

  // How each kernel found its node (counts in Stats).
  enum class LinkKind : uint8_t { kNone, kExternalId, kLaunch };

  struct Stats {
    size_t nodes = 0;
    size_t kernels_by_external_id = 0;
    size_t kernels_by_launch = 0;        // correlation -> launch call -> innermost node on its thread
    size_t kernels_unlinked = 0;         // no External id match and no launch call inside a node
    size_t ambiguous_external_ids = 0;   // External ids carried by more than one node (not used)
    size_t partial_overlaps = 0;         // nodes that start inside their parent but end after it
    size_t backward_roots = 0;           // outermost autograd nodes
    size_t backward_links_by_flow = 0;   // backward nodes linked to their forward op by "fwdbwd"
    size_t backward_links_by_sequence = 0;
  };

  // Builds the tree. `launch_of_kernel`, when given, has one entry per trace.kernels element: the
  // index of its launching call in trace.api_calls, or -1 (the analysis context knows these
  // links); without it the tree joins kernels to calls by correlation itself.
  static OpTree Build(const Trace& trace);
  // With `threads` > 1 the kernel links and the forward/backward links are made side by side
  // (the same tree).
  static OpTree Build(const Trace& trace, const std::vector<int64_t>& launch_of_kernel, int threads = 1);

  size_t size() const { return nodes_.size(); }
  const Stats& stats() const { return stats_; }

  // ---- node attributes
  NodeKind kind(NodeId n) const { return nodes_[n].kind; }
  uint32_t source_index(NodeId n) const { return nodes_[n].source; }
  // The CpuOp of a kCpuOp node, nullptr for annotations.
  const CpuOp* cpu_op(NodeId n) const;
  StringId name(NodeId n) const;  // the source row's
  TimeNs start_ns(NodeId n) const { return nodes_[n].start_ns; }
  TimeNs end_ns(NodeId n) const { return nodes_[n].end_ns; }
  int64_t tid(NodeId n) const;     // from the thread's id range, O(log threads)
  uint32_t depth(NodeId n) const;  // ancestors above n, O(depth)

  // ---- structure
  NodeId parent(NodeId n) const { return nodes_[n].parent; }
  IdSpan<NodeId> children(NodeId n) const;
  IdSpan<NodeId> roots() const { return IdSpan<NodeId>(roots_.data(), roots_.size()); }
  // One past the last node of n's subtree: the subtree is [n, subtree_end(n)).
  NodeId subtree_end(NodeId n) const { return nodes_[n].subtree_end; }
  bool IsAncestorOrSelf(NodeId ancestor, NodeId n) const { return n >= ancestor && n < subtree_end(ancestor); }
  // The innermost node on `tid` whose [start, end] contains host time t, or kNoNode.
  NodeId InnermostAt(int64_t tid, TimeNs t) const;

  // ---- kernels (indices into Trace::kernels)
  IdSpan<uint32_t> own_kernels(NodeId n) const;        // launched by n itself, not by a descendant
  IdSpan<uint32_t> subtree_kernels(NodeId n) const;    // n's own and all its descendants'
  TimeNs own_kernel_ns(NodeId n) const { return nodes_[n].own_kernel_ns; }
  TimeNs subtree_kernel_ns(NodeId n) const { return nodes_[n].subtree_kernel_ns; }
  NodeId node_of_kernel(uint32_t kernel) const { return kernel < kernel_node_.size() ? kernel_node_[kernel] : kNoNode; }
  LinkKind kernel_link(uint32_t kernel) const {
    return kernel < kernel_link_.size() ? kernel_link_[kernel] : LinkKind::kNone;
  }

  // ---- forward / backward
  bool is_backward(NodeId n) const { return nodes_[n].backward_root != kNoNode; }
  // The outermost autograd node above (or at) n, or kNoNode in the forward pass.
  NodeId backward_root(NodeId n) const { return nodes_[n].backward_root; }
  // True for an autograd node itself (evaluate_function wrapper or XBackward node: classify/'s
  // IsAutogradNodeName).
  bool is_autograd_node(NodeId n) const { return nodes_[n].autograd; }
  // For an autograd node: the forward op that created it (kNoNode if not found). For other nodes:
  // the link of the nearest autograd node above them.
  NodeId forward_of(NodeId n) const;

 private:
  // What the source row already holds (name, thread) is read from it, not copied: a large
  // trace has a node per cpu_op, and this is the bulk of the tree's memory.
  struct Node {
    TimeNs start_ns = 0;   // the source row's, here for the searches by time
    TimeNs end_ns = 0;
    TimeNs own_kernel_ns = 0;
    TimeNs subtree_kernel_ns = 0;
    uint32_t source = 0;
    NodeId parent = kNoNode;
    NodeId subtree_end = 0;
    NodeId backward_root = kNoNode;
    NodeId forward = kNoNode;   // autograd nodes: the forward op
    NodeKind kind = NodeKind::kCpuOp;
    bool autograd = false;
  };
  static_assert(sizeof(Node) == 56, "OpTree::Node layout changed");

  struct ThreadIndex {
    int64_t tid;
    NodeId first;  // nodes of a thread are [first, last) in pre-order = start order
    NodeId last;
  };

  void BuildNodes(const Trace& trace);
  void LinkKernels(const Trace& trace, const std::vector<int64_t>& launch_of_kernel);
  void MarkBackward(const Trace& trace);
  NodeId NodeStartingAt(int64_t tid, TimeNs t, bool prefer_sequence, const Trace& trace) const;

  const Trace* trace_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<NodeId> roots_;
  std::vector<uint32_t> child_offsets_;  // CSR: children of n are child_ids_[child_offsets_[n] .. [n+1])
  std::vector<NodeId> child_ids_;
  std::vector<uint32_t> kernel_offsets_;  // CSR: own kernels of n are kernel_ids_[kernel_offsets_[n] .. [n+1])
  std::vector<uint32_t> kernel_ids_;
  std::vector<NodeId> kernel_node_;       // per trace kernel
  std::vector<LinkKind> kernel_link_;
  std::vector<ThreadIndex> threads_;      // sorted by tid
  Stats stats_;
};

}  // namespace ampscope

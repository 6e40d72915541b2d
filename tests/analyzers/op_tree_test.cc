// Tests of analyzers/op_tree: nesting, kernel attribution, kernel times, forward/backward.
//
// Where the expected values come from:
//   - TreeOnAHandBuiltTrace: the small trace built below; every expected value is read off it.
//   - The HTA ns-resolution trace: HTA's golden (shared/traces/README.md, HTA
//     tests/test_trace_analysis.py) has 27 kernels under "Optimizer.step#SGD.step". HTA maps a
//     kernel to the gpu_user_annotation around it and drops events at or after the start of the
//     last ProfilerStep (#105 here), which drops the GPU-side annotation of step 104's optimizer;
//     so its 27 are the optimizer kernels of steps 101..103. Counted independently with Python
//     over the raw JSON (kernels whose cudaLaunchKernel lies inside the user_annotation, on its
//     thread): 9 kernels in each of the 5 Optimizer.step ranges. The fwdbwd flow count (905 's'
//     events) and the correlation-164926 kernel (HTA: under Optimizer.step) come from the same JSON.
//   - SameTreeWhetherOrNotTheTraceIsSorted: nodes in pre-order are the same sequence whether the
//     tree sorts its items (unsorted tables) or merges the finalized, sorted tables; the tie
//     rules checked by hand are the ones PreOrderLess states (an annotation encloses an op of
//     the same extent; of two ops of the same extent the earlier row encloses the later).
//   - The 2021 tb_plugin ResNet50 trace: PyTorch creates CudnnConvolutionBackward in
//     aten::cudnn_convolution and CudnnBatchNormBackward in aten::cudnn_batch_norm (the autograd
//     node is created by the op with the derivative formula), 318 of each (Python over the JSON).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/context/op_tree.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace op_tree_test {
namespace {

using NodeId = OpTree::NodeId;

// Rows through the one trace builder (tests/support), with the op tree's vocabulary: ops and
// annotations with External ids and sequence numbers, launches and their kernels, fwdbwd flows.
struct Builder : testing::TraceBuilder {
  int64_t next_corr = 1000;

  size_t Op(const char* name, TimeNs s, TimeNs e, int64_t tid, int64_t ext = -1, int64_t seq = -1) {
    AddCpuOp(name, s, e, ext, {}, {}, tid).sequence_number = seq;
    return trace().cpu_ops.size() - 1;
  }
  void Annotation(const char* name, TimeNs s, TimeNs e, int64_t tid, int64_t ext = -1) {
    AddRange(name, s, e, RangeKind::kCpuAnnotation, tid).external_id = ext;
  }
  // A launch at `at` on `tid` (carrying External id `api_ext`) and its kernel (carrying `k_ext`).
  size_t Kernel(TimeNs at, int64_t tid, TimeNs ks, TimeNs dur, int64_t k_ext = -1, int64_t api_ext = -1,
                bool with_launch = true) {
    const int64_t corr = next_corr++;
    if (with_launch) AddApi("cudaLaunchKernel", at, at + 2, corr, tid).external_id = api_ext;
    AddKernel("k", ks, ks + dur, corr).external_id = k_ext;
    return trace().kernels.size() - 1;
  }
  void Flow(int64_t id, char phase, TimeNs at, int64_t tid) {
    FlowEvent f;
    f.id = id;
    f.phase = phase;
    f.time_ns = at;
    f.tid = tid;
    f.category = Str("fwdbwd");
    trace().flows.push_back(f);
  }
};

NodeId NodeOf(const OpTree& tree, const Trace& t, OpTree::NodeKind kind, size_t source) {
  for (NodeId n = 0; n < tree.size(); ++n)
    if (tree.kind(n) == kind && tree.source_index(n) == source) return n;
  (void)t;
  return OpTree::kNoNode;
}

TEST(OpTree, TreeOnAHandBuiltTrace) {
  Builder b;
  // Main thread 1: a step annotation around a linear (t + addmm), a relu, an optimizer range.
  b.Annotation("ProfilerStep#3", 0, 1000, 1, 1);
  const size_t linear = b.Op("aten::linear", 10, 100, 1, 2, 10);
  const size_t tr = b.Op("aten::t", 12, 15, 1, 3, 10);
  const size_t addmm = b.Op("aten::addmm", 20, 90, 1, 4, 11);
  const size_t relu = b.Op("aten::relu", 110, 130, 1, 5, 12);
  b.Annotation("Optimizer.step#SGD.step", 500, 600, 1, 6);
  // Two ops sharing External id 50 (the id cannot say which one launched).
  const size_t dup_a = b.Op("aten::add_", 700, 710, 1, 50);
  b.Op("aten::mul_", 720, 730, 1, 50);
  // An op that starts inside the step but ends after it (clock rounding in real traces).
  b.Op("aten::copy_", 990, 1005, 1, 60);
  // Autograd thread 2.
  const size_t eval_addmm = b.Op("autograd::engine::evaluate_function: AddmmBackward0", 300, 400, 2, 20, 11);
  const size_t node_addmm = b.Op("AddmmBackward0", 301, 399, 2, 21, 11);
  const size_t mm1 = b.Op("aten::mm", 310, 350, 2, 22);
  const size_t mm2 = b.Op("aten::mm", 355, 395, 2, 23);
  const size_t eval_t = b.Op("autograd::engine::evaluate_function: TBackward0", 410, 420, 2, 24, 10);
  const size_t eval_relu = b.Op("autograd::engine::evaluate_function: ReluBackward0", 430, 460, 2, 25);
  const size_t node_relu = b.Op("ReluBackward0", 431, 459, 2, 26);
  b.Flow(1, 's', 110, 1);  // relu -> ReluBackward0 (no sequence numbers on these nodes)
  b.Flow(1, 'f', 431, 2);

  const size_t k_addmm = b.Kernel(25, 1, 1000, 40, /*k_ext=*/4);          // by External id
  const size_t k_relu = b.Kernel(115, 1, 1100, 10, -1, -1);               // by launch: innermost = relu
  const size_t k_opt = b.Kernel(550, 1, 1200, 5);                         // inside the optimizer range
  const size_t k_mm1 = b.Kernel(320, 2, 1300, 30, 22);
  const size_t k_mm2 = b.Kernel(360, 2, 1400, 20, -1, 23);                // External id on the launch call
  const size_t k_dup = b.Kernel(705, 1, 1500, 3, 50);                     // ambiguous id -> launch -> aten::add_
  const size_t k_lost = b.Kernel(0, 1, 1600, 3, -1, -1, /*with_launch=*/false);  // no id, no launch
  // (No FinalizeTrace: it would sort cpu_ops and change the indices kept above.)

  const OpTree tree = OpTree::Build(b.trace());
  ASSERT_EQ(tree.size(), 16u);  // 14 ops + 2 annotations
  using K = OpTree::NodeKind;
  const NodeId step = NodeOf(tree, b.trace(), K::kAnnotation, 0);
  const NodeId n_linear = NodeOf(tree, b.trace(), K::kCpuOp, linear);
  const NodeId n_t = NodeOf(tree, b.trace(), K::kCpuOp, tr);
  const NodeId n_addmm = NodeOf(tree, b.trace(), K::kCpuOp, addmm);
  const NodeId n_relu = NodeOf(tree, b.trace(), K::kCpuOp, relu);
  const NodeId n_opt = NodeOf(tree, b.trace(), K::kAnnotation, 1);
  const NodeId n_dup = NodeOf(tree, b.trace(), K::kCpuOp, dup_a);
  const NodeId n_eval = NodeOf(tree, b.trace(), K::kCpuOp, eval_addmm);
  const NodeId n_node = NodeOf(tree, b.trace(), K::kCpuOp, node_addmm);
  const NodeId n_mm1 = NodeOf(tree, b.trace(), K::kCpuOp, mm1);
  const NodeId n_mm2 = NodeOf(tree, b.trace(), K::kCpuOp, mm2);
  const NodeId n_eval_t = NodeOf(tree, b.trace(), K::kCpuOp, eval_t);
  const NodeId n_eval_relu = NodeOf(tree, b.trace(), K::kCpuOp, eval_relu);
  const NodeId n_node_relu = NodeOf(tree, b.trace(), K::kCpuOp, node_relu);

  // Nesting.
  EXPECT_EQ(tree.parent(step), OpTree::kNoNode);
  EXPECT_EQ(tree.parent(n_linear), step);
  EXPECT_EQ(tree.parent(n_t), n_linear);
  EXPECT_EQ(tree.parent(n_addmm), n_linear);
  EXPECT_EQ(tree.depth(n_addmm), 2u);
  ASSERT_EQ(tree.children(n_linear).size(), 2u);
  EXPECT_EQ(tree.children(n_linear)[0], n_t);
  EXPECT_EQ(tree.children(n_linear)[1], n_addmm);
  EXPECT_TRUE(tree.IsAncestorOrSelf(step, n_addmm));
  EXPECT_FALSE(tree.IsAncestorOrSelf(n_t, n_addmm));
  EXPECT_EQ(tree.parent(n_mm1), n_node);
  EXPECT_EQ(tree.parent(n_node), n_eval);
  ASSERT_EQ(tree.roots().size(), 4u);  // the step; on thread 2 three evaluate_function nodes
  EXPECT_EQ(tree.stats().partial_overlaps, 1u);  // aten::copy_ ends 5 ns after the step

  // Innermost node at a host time.
  EXPECT_EQ(tree.InnermostAt(1, 25), n_addmm);
  EXPECT_EQ(tree.InnermostAt(1, 95), n_linear);
  EXPECT_EQ(tree.InnermostAt(1, 105), step);
  EXPECT_EQ(tree.InnermostAt(1, 550), n_opt);
  EXPECT_EQ(tree.InnermostAt(2, 405), OpTree::kNoNode);
  EXPECT_EQ(tree.InnermostAt(9, 25), OpTree::kNoNode);

  // Kernels.
  EXPECT_EQ(tree.node_of_kernel(k_addmm), n_addmm);
  EXPECT_EQ(tree.kernel_link(k_addmm), OpTree::LinkKind::kExternalId);
  EXPECT_EQ(tree.node_of_kernel(k_relu), n_relu);
  EXPECT_EQ(tree.kernel_link(k_relu), OpTree::LinkKind::kLaunch);
  EXPECT_EQ(tree.node_of_kernel(k_opt), n_opt);
  EXPECT_EQ(tree.node_of_kernel(k_mm1), n_mm1);
  EXPECT_EQ(tree.node_of_kernel(k_mm2), n_mm2);
  EXPECT_EQ(tree.kernel_link(k_mm2), OpTree::LinkKind::kExternalId);
  EXPECT_EQ(tree.node_of_kernel(k_dup), n_dup);
  EXPECT_EQ(tree.kernel_link(k_dup), OpTree::LinkKind::kLaunch);
  EXPECT_EQ(tree.node_of_kernel(k_lost), OpTree::kNoNode);
  EXPECT_EQ(tree.stats().ambiguous_external_ids, 1u);
  EXPECT_EQ(tree.stats().kernels_by_external_id, 3u);
  EXPECT_EQ(tree.stats().kernels_by_launch, 3u);
  EXPECT_EQ(tree.stats().kernels_unlinked, 1u);

  // Kernel time, own and inclusive (ns): linear owns none, its addmm 40; the step holds
  // addmm 40 + relu 10 + optimizer 5 + add_ 3 = 58.
  EXPECT_EQ(tree.own_kernel_ns(n_linear), 0);
  EXPECT_EQ(tree.subtree_kernel_ns(n_linear), 40);
  EXPECT_EQ(tree.subtree_kernel_ns(step), 58);
  EXPECT_EQ(tree.subtree_kernels(step).size(), 4u);
  EXPECT_EQ(tree.own_kernels(n_addmm).size(), 1u);
  EXPECT_EQ(tree.subtree_kernel_ns(n_eval), 50);  // mm 30 + mm 20

  // Forward / backward.
  EXPECT_FALSE(tree.is_backward(n_addmm));
  EXPECT_TRUE(tree.is_backward(n_mm1));
  EXPECT_EQ(tree.backward_root(n_mm1), n_eval);
  EXPECT_TRUE(tree.is_autograd_node(n_eval));
  EXPECT_TRUE(tree.is_autograd_node(n_node));
  EXPECT_FALSE(tree.is_autograd_node(n_mm1));
  // AddmmBackward0 (seq 11) <- aten::addmm (the latest forward op with seq 11).
  EXPECT_EQ(tree.forward_of(n_eval), n_addmm);
  EXPECT_EQ(tree.forward_of(n_node), n_addmm);
  EXPECT_EQ(tree.forward_of(n_mm2), n_addmm);  // through the autograd node above it
  // TBackward0 (seq 10) <- aten::t, which started after aten::linear (also seq 10).
  EXPECT_EQ(tree.forward_of(n_eval_t), n_t);
  // ReluBackward0 has no sequence number: linked by the fwdbwd flow.
  EXPECT_EQ(tree.forward_of(n_node_relu), n_relu);
  EXPECT_EQ(tree.forward_of(n_eval_relu), n_relu);
  EXPECT_EQ(tree.stats().backward_links_by_flow, 1u);
  EXPECT_EQ(tree.forward_of(n_relu), OpTree::kNoNode);
}

TEST(OpTree, HtaTraceOptimizerKernelsAndBackwardLinks) {
  const std::string path = testing::SharedPath("traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
  auto t = ReadKinetoTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Trace& trace = t.value();
  const OpTree tree = OpTree::Build(trace);

  TimeNs last_step_start = 0;
  for (const Range& r : trace.ranges)
    if (trace.str(r.name) == "ProfilerStep#105") last_step_start = r.start_ns;
  ASSERT_GT(last_step_start, 0);

  int ranges = 0, kernels = 0, hta_kernels = 0;
  for (NodeId n = 0; n < tree.size(); ++n) {
    if (trace.str(tree.name(n)) != "Optimizer.step#SGD.step") continue;
    ++ranges;
    const auto ks = tree.subtree_kernels(n);
    EXPECT_EQ(ks.size(), 9u);
    kernels += static_cast<int>(ks.size());
    TimeNs first = INT64_MAX;
    for (uint32_t k : ks) first = std::min(first, trace.kernels[k].start_ns);
    if (first < last_step_start) hta_kernels += static_cast<int>(ks.size());
  }
  EXPECT_EQ(ranges, 5);
  EXPECT_EQ(kernels, 45);
  EXPECT_EQ(hta_kernels, 27);  // HTA's golden

  // HTA: correlation 164926 is a multi_tensor_apply_kernel under Optimizer.step#SGD.step.
  bool found = false;
  for (uint32_t k = 0; k < trace.kernels.size(); ++k) {
    if (trace.kernels[k].correlation != 164926) continue;
    found = true;
    NodeId n = tree.node_of_kernel(k);
    ASSERT_NE(n, OpTree::kNoNode);
    bool under = false;
    for (; n != OpTree::kNoNode; n = tree.parent(n)) under = under || trace.str(tree.name(n)) == "Optimizer.step#SGD.step";
    EXPECT_TRUE(under);
    EXPECT_FALSE(tree.is_backward(tree.node_of_kernel(k)));
  }
  EXPECT_TRUE(found);

  // 905 fwdbwd flows, each linking an autograd node to its forward op.
  EXPECT_EQ(tree.stats().backward_links_by_flow, 905u);
  int conv_links = 0;
  for (NodeId n = 0; n < tree.size(); ++n) {
    if (trace.str(tree.name(n)) != "ConvolutionBackward0") continue;
    const NodeId f = tree.forward_of(n);
    ASSERT_NE(f, OpTree::kNoNode);
    EXPECT_EQ(trace.str(tree.name(f)), "aten::convolution");
    EXPECT_FALSE(tree.is_backward(f));
    ++conv_links;
  }
  EXPECT_GT(conv_links, 0);
  EXPECT_GT(tree.stats().kernels_by_external_id, 0u);
}

TEST(OpTree, ResNet2021TraceBackwardBySequenceNumber) {
  const std::string path = testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
  auto t = ReadKinetoTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Trace& trace = t.value();
  const OpTree tree = OpTree::Build(trace);
  int conv = 0, bn = 0;
  size_t backward_kernels = 0;
  for (NodeId n = 0; n < tree.size(); ++n) {
    const std::string_view name = trace.str(tree.name(n));
    if (name == "CudnnConvolutionBackward" || name == "CudnnBatchNormBackward") {
      EXPECT_TRUE(tree.is_autograd_node(n));
      const NodeId f = tree.forward_of(n);
      ASSERT_NE(f, OpTree::kNoNode) << name;
      EXPECT_EQ(trace.str(tree.name(f)), name == "CudnnConvolutionBackward" ? "aten::cudnn_convolution"
                                                                             : "aten::cudnn_batch_norm");
      (name == "CudnnConvolutionBackward" ? conv : bn)++;
    }
  }
  EXPECT_EQ(conv, 318);
  EXPECT_EQ(bn, 318);
  EXPECT_EQ(tree.stats().backward_links_by_flow, 0u);  // the 2021 format has no fwdbwd flows
  for (uint32_t k = 0; k < trace.kernels.size(); ++k) {
    const NodeId n = tree.node_of_kernel(k);
    if (n != OpTree::kNoNode && tree.is_backward(n)) ++backward_kernels;
  }
  EXPECT_GT(backward_kernels, trace.kernels.size() / 3);  // ResNet's backward has ~2/3 of the kernels
  EXPECT_LT(backward_kernels, trace.kernels.size());
}

// 2 M events: 1 M ops (nested three deep) and 1 M kernels. The bound is loose (shared CI
// machines); the point is that nothing in the build is quadratic.
// (kind, name, start, end, tid, depth, parent's name and start) of every node in id order.
std::vector<std::string> Shape(const OpTree& tree, const Trace& t) {
  std::vector<std::string> out;
  for (NodeId n = 0; n < tree.size(); ++n) {
    const NodeId p = tree.parent(n);
    out.push_back(std::to_string(static_cast<int>(tree.kind(n))) + " " + std::string(t.str(tree.name(n))) + " " +
                  std::to_string(tree.start_ns(n)) + "-" + std::to_string(tree.end_ns(n)) + " tid " +
                  std::to_string(tree.tid(n)) + " depth " + std::to_string(tree.depth(n)) + " parent " +
                  (p == OpTree::kNoNode ? std::string("-")
                                        : std::string(t.str(tree.name(p))) + "@" + std::to_string(tree.start_ns(p))) +
                  " end " + std::to_string(tree.subtree_end(n)));
  }
  return out;
}

TEST(OpTree, SameTreeWhetherOrNotTheTraceIsSorted) {
  Builder b;
  // Rows out of time order, threads interleaved, and the ties the order must break.
  b.Op("aten::relu", 300, 320, 1);
  b.Op("aten::addmm", 40, 60, 2);
  b.Annotation("ProfilerStep#1", 0, 1000, 1);
  b.Op("aten::linear", 10, 100, 1);
  b.Op("aten::copy_", 10, 100, 1);        // same extent as aten::linear, a later row: inside it
  b.Annotation("## forward ##", 10, 100, 1);  // same extent again, an annotation: outside both
  b.Op("aten::mm", 20, 30, 1);
  b.Op("aten::mm", 20, 30, 2);
  b.Annotation("Optimizer.step#SGD.step", 500, 600, 2);
  b.Op("aten::add_", 510, 520, 2);
  b.Op("aten::zero_", 0, 5, 3);
  b.Op("aten::empty", 5, 5, 1);
  const Trace unsorted = b.trace();
  Trace sorted = b.trace();
  FinalizeTrace(sorted);  // sorts cpu_ops and ranges by start, longer first
  ASSERT_NE(sorted.cpu_ops.front().start_ns, unsorted.cpu_ops.front().start_ns);

  const OpTree from_unsorted = OpTree::Build(unsorted);
  const OpTree from_sorted = OpTree::Build(sorted);
  const std::vector<std::string> a = Shape(from_unsorted, unsorted);
  const std::vector<std::string> c = Shape(from_sorted, sorted);
  EXPECT_EQ(a, c);

  // The ties, by hand: thread 1 is the step > "## forward ##" > aten::linear > aten::copy_ >
  // aten::mm, then aten::relu; aten::empty (5..5) sits in the step before them.
  const OpTree& tree = from_sorted;
  ASSERT_EQ(tree.size(), 12u);
  auto name = [&](NodeId n) { return std::string(sorted.str(tree.name(n))); };
  EXPECT_EQ(name(0), "ProfilerStep#1");
  EXPECT_EQ(name(1), "aten::empty");
  EXPECT_EQ(tree.parent(1), 0u);
  EXPECT_EQ(name(2), "## forward ##");
  EXPECT_EQ(name(3), "aten::linear");
  EXPECT_EQ(name(4), "aten::copy_");
  EXPECT_EQ(name(5), "aten::mm");
  EXPECT_EQ(tree.parent(5), 4u);
  EXPECT_EQ(tree.parent(4), 3u);
  EXPECT_EQ(tree.parent(3), 2u);
  EXPECT_EQ(tree.parent(2), 0u);
  EXPECT_EQ(name(6), "aten::relu");
  EXPECT_EQ(tree.subtree_end(0), 7u);
  // Thread 2: aten::mm (20..30) and aten::addmm (40..60) are roots; the optimizer range holds
  // aten::add_. Thread 3: aten::zero_ alone.
  EXPECT_EQ(name(7), "aten::mm");
  EXPECT_EQ(tree.tid(7), 2);
  EXPECT_EQ(name(8), "aten::addmm");
  EXPECT_EQ(tree.parent(8), OpTree::kNoNode);
  EXPECT_EQ(name(9), "Optimizer.step#SGD.step");
  EXPECT_EQ(name(10), "aten::add_");
  EXPECT_EQ(tree.parent(10), 9u);
  EXPECT_EQ(name(11), "aten::zero_");
  EXPECT_EQ(tree.tid(11), 3);
  EXPECT_EQ(tree.roots().size(), 5u);
}

TEST(OpTree, BuildsTwoMillionEventsQuickly) {
  Builder b;
  const int kTop = 250000;
  b.trace().cpu_ops.reserve(4 * kTop);
  b.trace().kernels.reserve(4 * kTop);
  b.trace().api_calls.reserve(4 * kTop);
  for (int i = 0; i < kTop; ++i) {
    const TimeNs s = static_cast<TimeNs>(i) * 100;
    b.Op("aten::linear", s, s + 90, 1, 4 * i + 1);
    b.Op("aten::t", s + 1, s + 5, 1, 4 * i + 2);
    b.Op("aten::addmm", s + 10, s + 80, 1, 4 * i + 3);
    b.Op("aten::relu", s + 91, s + 98, 1, 4 * i + 4);
    b.Kernel(s + 20, 1, s + 1000, 30, 4 * i + 3);
    b.Kernel(s + 30, 1, s + 1040, 10, -1, -1);
    b.Kernel(s + 94, 1, s + 1060, 5, 4 * i + 4);
    b.Kernel(s + 95, 1, s + 1070, 5, -1, -1);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const OpTree tree = OpTree::Build(b.trace());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  OpTree::Build on %zu ops + %zu kernels: %.3f s\n", b.trace().cpu_ops.size(), b.trace().kernels.size(), s);
  EXPECT_EQ(tree.size(), 4u * kTop);
  EXPECT_EQ(tree.roots().size(), 2u * kTop);
  EXPECT_EQ(tree.stats().kernels_unlinked, 0u);
  EXPECT_EQ(tree.subtree_kernel_ns(tree.roots()[0]), 40);
  EXPECT_LT(s, 20.0);
}

}  // namespace
}  // namespace op_tree_test
}  // namespace ampscope

// FinalizeTrace (trace/model.cc): the final sort is stable, and the same with one thread and
// with two (a large table sorted in two halves side by side, then merged). The expected order is
// computed here independently: rows sorted by their key, ties in their original row order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "trace/model.h"

namespace ampscope {
namespace finalize_trace_test {
namespace {

// 200,000 ops (above the two-halves threshold) with many equal starts and equal extents; the
// row's original position is kept in external_id so ties can be checked.
Trace ShuffledOps() {
  Trace t;
  std::mt19937_64 rng(20261203);
  for (int64_t i = 0; i < 200000; ++i) {
    CpuOp op;
    op.start_ns = static_cast<TimeNs>(rng() % 5000);
    op.end_ns = op.start_ns + static_cast<TimeNs>(rng() % 4);
    op.external_id = i;
    t.cpu_ops.push_back(op);
    KernelEvent k;
    k.start_ns = static_cast<TimeNs>(rng() % 3000);
    k.end_ns = k.start_ns + 1;
    k.correlation = i;
    t.kernels.push_back(k);
  }
  return t;
}

TEST(FinalizeTrace, TwoThreadsSortAsOneStably) {
  Trace one = ShuffledOps();
  Trace two = ShuffledOps();
  FinalizeTrace(one, 1);
  FinalizeTrace(two, 2);
  ASSERT_EQ(one.cpu_ops.size(), 200000u);

  // By start, longer first; equal extents keep their original order.
  for (size_t i = 1; i < one.cpu_ops.size(); ++i) {
    const CpuOp& a = one.cpu_ops[i - 1];
    const CpuOp& b = one.cpu_ops[i];
    ASSERT_LE(std::make_tuple(a.start_ns, -a.end_ns, a.external_id), std::make_tuple(b.start_ns, -b.end_ns, b.external_id))
        << "row " << i;
  }
  for (size_t i = 1; i < one.kernels.size(); ++i)
    ASSERT_LE(std::make_pair(one.kernels[i - 1].start_ns, one.kernels[i - 1].correlation),
              std::make_pair(one.kernels[i].start_ns, one.kernels[i].correlation))
        << "row " << i;

  ASSERT_EQ(two.cpu_ops.size(), one.cpu_ops.size());
  for (size_t i = 0; i < one.cpu_ops.size(); ++i) ASSERT_EQ(two.cpu_ops[i].external_id, one.cpu_ops[i].external_id) << i;
  for (size_t i = 0; i < one.kernels.size(); ++i) ASSERT_EQ(two.kernels[i].correlation, one.kernels[i].correlation) << i;
  EXPECT_EQ(one.diagnostics.Count("unsorted_events"), 1u);
  EXPECT_EQ(two.diagnostics.Count("unsorted_events"), 1u);
}

}  // namespace
}  // namespace finalize_trace_test
}  // namespace ampscope

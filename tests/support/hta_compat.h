// HTA's temporal breakdown and idle-time breakdown, reproduced for comparison with HTA's numbers
// (hta/analyzers/breakdown_analysis.py): GPU work launched before the start of the last
// ProfilerStep, kernel span = last end - first start, idle = span - merged busy. Only tests use
// it: they check the interval machinery of analyzers/context/ against HTA's figures.
#pragma once

#include <cstdint>

#include "trace/model.h"

namespace ampscope {

struct HtaBreakdown {
  TimeNs kernel_span_ns = 0;
  TimeNs idle_ns = 0;
  TimeNs compute_ns = 0;      // merged COMPUTATION (not nccl*, not memcpy/memset)
  TimeNs non_compute_ns = 0;  // merged busy - compute
  // idle breakdown on one stream (consecutive events on that stream)
  TimeNs host_wait_ns = 0;
  TimeNs kernel_wait_ns = 0;
  TimeNs other_ns = 0;
  uint64_t host_wait_gaps = 0;
  uint64_t kernel_wait_gaps = 0;
};
HtaBreakdown ComputeHtaBreakdown(const Trace& trace, int32_t stream);

}  // namespace ampscope

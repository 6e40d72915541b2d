// The one trace builder every test uses to make a Trace by hand, row by row. Times are int64 ns
// (Us() converts); pid/tid default to 1, device to 0, stream to 7. Each Add* returns the new row
// so a test can set the fields it cares about; the reference is valid until the next Add* of the
// same table. Correlation ids come from NewCorrelation() (1, 2, 3, ... unless set).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model.h"

namespace ampscope::testing {

// µs -> ns, rounded to the nearest ns (tests write their timelines in µs).
inline TimeNs Us(double us) { return static_cast<TimeNs>(us * 1000.0 + (us < 0 ? -0.5 : 0.5)); }

class TraceBuilder {
 public:
  Trace& trace() { return t_; }
  StringId Str(std::string_view s) { return t_.strings.Intern(s); }

  // An NVIDIA A100-SXM4-80GB (compute capability 8.0, 108 SMs, 80 GB), the GPU of most tests.
  Device& AddA100(int32_t id = 0);
  Device& AddDevice(int32_t id, const std::string& name, int32_t cc_major, int32_t cc_minor);

  Range& AddRange(std::string_view name, TimeNs start, TimeNs end, RangeKind kind = RangeKind::kCpuAnnotation,
                  int64_t tid = 1, int64_t pid = 1);

  int64_t NewCorrelation() { return next_correlation_++; }
  void set_next_correlation(int64_t c) { next_correlation_ = c; }

  ApiCall& AddApi(std::string_view name, TimeNs start, TimeNs end, int64_t correlation, int64_t tid = 1,
                  int64_t pid = 1);
  KernelEvent& AddKernel(std::string_view name, TimeNs start, TimeNs end, int64_t correlation, int32_t stream = 7,
                         int32_t device = 0);
  // The usual pair: a cudaLaunchKernel of `launch_duration` at `launch` on thread `tid` and its
  // kernel [start, end) on `stream`, on a new correlation id. Returns the kernel.
  KernelEvent& LaunchKernel(std::string_view name, TimeNs launch, TimeNs launch_duration, TimeNs start, TimeNs end,
                            int32_t stream = 7, int64_t tid = 1, int64_t pid = 1);
  MemcpyEvent& AddMemcpy(TimeNs start, TimeNs end, int64_t correlation, MemcpyKind kind, uint64_t bytes,
                         MemoryKind src = MemoryKind::kUnknown, MemoryKind dst = MemoryKind::kUnknown,
                         int32_t stream = 7, int32_t device = 0);
  MemsetEvent& AddMemset(TimeNs start, TimeNs end, int64_t correlation, uint64_t bytes, int32_t stream = 7,
                         int32_t device = 0);
  SyncEvent& AddSync(SyncType type, TimeNs start, TimeNs end, int64_t correlation, int64_t tid = 1, int64_t pid = 1);
  // A cpu_op; `input_types` / `input_dims` are the Kineto arrays as compact text ("" = none).
  CpuOp& AddCpuOp(std::string_view name, TimeNs start, TimeNs end, int64_t external_id = -1,
                  std::string_view input_types = {}, std::string_view input_dims = {}, int64_t tid = 1,
                  int64_t pid = 1);
  MemoryEvent& AddMemory(TimeNs time, int64_t bytes, int64_t total_allocated, int64_t total_reserved,
                         int32_t device = 0);

  // Sorts the tables and fills range depths, as a reader does at the end.
  Trace& Finalize() {
    FinalizeTrace(t_);
    return t_;
  }
  // Finalize and return a copy (the builder can go on).
  Trace Build() { return Finalize(); }

 private:
  Trace t_;
  int64_t next_correlation_ = 1;
};

}  // namespace ampscope::testing

#include "support/trace_builder.h"

namespace ampscope::testing {

Device& TraceBuilder::AddA100(int32_t id) {
  Device& d = AddDevice(id, "NVIDIA A100-SXM4-80GB", 8, 0);
  d.sm_count = 108;
  d.total_memory_bytes = 84'990'623'744;  // what cudaGetDeviceProperties reports for the 80 GB part
  return d;
}

Device& TraceBuilder::AddDevice(int32_t id, const std::string& name, int32_t cc_major, int32_t cc_minor) {
  Device d;
  d.id = id;
  d.name = name;
  d.vendor = GpuVendor::kNvidia;
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  // AddDevice refuses a second device with the same id; a test that adds one replaces it.
  if (Device* existing = t_.FindDevice(id)) {
    *existing = d;
    return *existing;
  }
  return *t_.AddDevice(d);
}

Range& TraceBuilder::AddRange(std::string_view name, TimeNs start, TimeNs end, RangeKind kind, int64_t tid,
                              int64_t pid) {
  Range r;
  r.start_ns = start;
  r.end_ns = end;
  r.pid = pid;
  r.tid = tid;
  r.name = Str(name);
  r.kind = kind;
  t_.ranges.push_back(r);
  return t_.ranges.back();
}

ApiCall& TraceBuilder::AddApi(std::string_view name, TimeNs start, TimeNs end, int64_t correlation, int64_t tid,
                              int64_t pid) {
  ApiCall a;
  a.start_ns = start;
  a.end_ns = end;
  a.correlation = correlation;
  a.pid = pid;
  a.tid = tid;
  a.name = Str(name);
  t_.api_calls.push_back(a);
  return t_.api_calls.back();
}

KernelEvent& TraceBuilder::AddKernel(std::string_view name, TimeNs start, TimeNs end, int64_t correlation,
                                     int32_t stream, int32_t device) {
  KernelEvent k;
  k.start_ns = start;
  k.end_ns = end;
  k.correlation = correlation;
  k.name = Str(name);
  k.device = device;
  k.stream = stream;
  t_.kernels.push_back(k);
  return t_.kernels.back();
}

KernelEvent& TraceBuilder::LaunchKernel(std::string_view name, TimeNs launch, TimeNs launch_duration, TimeNs start,
                                        TimeNs end, int32_t stream, int64_t tid, int64_t pid) {
  const int64_t corr = NewCorrelation();
  AddApi("cudaLaunchKernel", launch, launch + launch_duration, corr, tid, pid);
  return AddKernel(name, start, end, corr, stream);
}

MemcpyEvent& TraceBuilder::AddMemcpy(TimeNs start, TimeNs end, int64_t correlation, MemcpyKind kind, uint64_t bytes,
                                     MemoryKind src, MemoryKind dst, int32_t stream, int32_t device) {
  MemcpyEvent m;
  m.start_ns = start;
  m.end_ns = end;
  m.correlation = correlation;
  m.bytes = bytes;
  m.device = device;
  m.stream = stream;
  m.kind = kind;
  m.src_kind = src;
  m.dst_kind = dst;
  t_.memcpys.push_back(m);
  return t_.memcpys.back();
}

MemsetEvent& TraceBuilder::AddMemset(TimeNs start, TimeNs end, int64_t correlation, uint64_t bytes, int32_t stream,
                                     int32_t device) {
  MemsetEvent m;
  m.start_ns = start;
  m.end_ns = end;
  m.correlation = correlation;
  m.bytes = bytes;
  m.device = device;
  m.stream = stream;
  t_.memsets.push_back(m);
  return t_.memsets.back();
}

SyncEvent& TraceBuilder::AddSync(SyncType type, TimeNs start, TimeNs end, int64_t correlation, int64_t tid,
                                 int64_t pid) {
  SyncEvent s;
  s.start_ns = start;
  s.end_ns = end;
  s.correlation = correlation;
  s.pid = pid;
  s.tid = tid;
  s.type = type;
  t_.syncs.push_back(s);
  return t_.syncs.back();
}

CpuOp& TraceBuilder::AddCpuOp(std::string_view name, TimeNs start, TimeNs end, int64_t external_id,
                              std::string_view input_types, std::string_view input_dims, int64_t tid, int64_t pid) {
  CpuOp o;
  o.start_ns = start;
  o.end_ns = end;
  o.pid = pid;
  o.tid = tid;
  o.external_id = external_id;
  o.name = Str(name);
  if (!input_types.empty()) o.input_types = Str(input_types);
  if (!input_dims.empty()) o.input_dims = Str(input_dims);
  t_.cpu_ops.push_back(o);
  return t_.cpu_ops.back();
}

MemoryEvent& TraceBuilder::AddMemory(TimeNs time, int64_t bytes, int64_t total_allocated, int64_t total_reserved,
                                     int32_t device) {
  MemoryEvent m;
  m.time_ns = time;
  m.bytes = bytes;
  m.total_allocated = total_allocated;
  m.total_reserved = total_reserved;
  m.device = device;
  m.op = bytes < 0 ? MemoryOp::kFree : MemoryOp::kAlloc;
  t_.memory_events.push_back(m);
  return t_.memory_events.back();
}

}  // namespace ampscope::testing


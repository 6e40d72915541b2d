// A text dump of every Trace table, field by field, for tests that compare two reads of
// the same input (chunk boundaries, gzip vs plain). Not a format: only equality matters.
#pragma once

#include <sstream>
#include <string>

#include "trace/model.h"

namespace ampscope::testing {

inline std::string DumpTrace(const Trace& t) {
  std::ostringstream o;
  const TraceMetadata& m = t.metadata;
  o << "meta " << SourceFormatName(m.format) << ' ' << m.rank << ' ' << m.world_size << ' ' << m.host << ' ' << m.pid
    << ' ' << m.distributed_backend << ' ' << m.nccl_version << ' ' << m.cuda_runtime_version << ' '
    << m.cupti_version << ' ' << m.driver_version << ' ' << m.input_bytes << ' ' << m.event_count << '\n';
  for (const auto& [k, v] : m.extra) o << "extra " << k << '=' << v << '\n';
  for (const Device& d : t.devices)
    o << "dev " << d.id << ' ' << d.name << ' ' << GpuVendorName(d.vendor) << ' ' << d.cc_major << ' ' << d.cc_minor
      << ' ' << d.sm_count << ' ' << d.total_memory_bytes << ' ' << d.max_threads_per_sm << ' ' << d.regs_per_sm
      << ' ' << d.shared_mem_per_sm << '\n';
  for (const auto& [pid, p] : t.processes) {
    o << "proc " << pid << ' ' << p.name << ' ' << p.labels << '\n';
    for (const auto& [tid, n] : p.thread_names) o << "  thread " << tid << ' ' << n << '\n';
  }
  for (const KernelEvent& k : t.kernels) {
    const LaunchConfig& l = t.launch(k);  // the values, not the table index
    o << "k " << k.start_ns << ' ' << k.end_ns << ' ' << k.correlation << ' ' << k.external_id << ' '
      << t.str(k.name) << ' ' << k.device << ' ' << k.stream << ' ' << l.grid[0] << ',' << l.grid[1] << ','
      << l.grid[2] << ' ' << l.block[0] << ',' << l.block[1] << ',' << l.block[2] << ' ' << l.registers_per_thread
      << ' ' << l.static_shared_bytes << ' ' << l.dynamic_shared_bytes << ' ' << l.blocks_per_sm << ' '
      << l.est_occupancy_pct << ' ' << k.graph_id << ' ' << k.comm_index << '\n';
  }
  for (const CommInfo& c : t.comm_infos)
    o << "comm " << t.str(c.collective) << ' ' << t.str(c.dtype) << ' ' << t.str(c.process_group) << ' '
      << t.str(c.process_group_desc) << ' ' << c.in_nelems << ' ' << c.out_nelems << ' ' << c.group_size << ' ' << c.seq << '\n';
  for (const MemcpyEvent& e : t.memcpys)
    o << "mc " << e.start_ns << ' ' << e.end_ns << ' ' << e.correlation << ' ' << e.external_id << ' ' << e.bytes
      << ' ' << e.device << ' ' << e.stream << ' ' << MemcpyKindName(e.kind) << ' ' << MemoryKindName(e.src_kind)
      << ' ' << MemoryKindName(e.dst_kind) << ' ' << e.async << '\n';
  for (const MemsetEvent& e : t.memsets)
    o << "ms " << e.start_ns << ' ' << e.end_ns << ' ' << e.correlation << ' ' << e.external_id << ' ' << e.bytes
      << ' ' << e.device << ' ' << e.stream << ' ' << MemoryKindName(e.memory_kind) << '\n';
  for (const ApiCall& a : t.api_calls)
    o << "api " << a.start_ns << ' ' << a.end_ns << ' ' << a.correlation << ' ' << a.external_id << ' ' << a.pid
      << ' ' << a.tid << ' ' << t.str(a.name) << ' ' << a.cbid << ' ' << static_cast<int>(a.domain) << '\n';
  for (const SyncEvent& s : t.syncs)
    o << "sync " << s.start_ns << ' ' << s.end_ns << ' ' << s.correlation << ' ' << s.pid << ' ' << s.tid << ' '
      << s.device << ' ' << s.stream << ' ' << SyncTypeName(s.type) << '\n';
  for (const Range& r : t.ranges)
    o << "range " << r.start_ns << ' ' << r.end_ns << ' ' << r.pid << ' ' << r.tid << ' ' << r.external_id << ' '
      << t.str(r.name) << ' ' << t.str(r.domain) << ' ' << r.device << ' ' << r.depth << ' '
      << static_cast<int>(r.kind) << '\n';
  for (const CpuOp& c : t.cpu_ops)
    o << "op " << c.start_ns << ' ' << c.end_ns << ' ' << c.pid << ' ' << c.tid << ' ' << c.external_id << ' '
      << c.sequence_number << ' ' << c.fwd_thread_id << ' ' << t.str(c.name) << ' ' << t.str(c.input_types) << ' '
      << t.str(c.input_dims) << ' ' << t.str(c.input_strides) << ' ' << t.str(c.concrete_inputs) << ' '
      << t.str(c.kernel_backend) << '\n';
  for (const MemoryEvent& e : t.memory_events)
    o << "mem " << e.time_ns << ' ' << e.address << ' ' << e.bytes << ' ' << e.total_allocated << ' '
      << e.total_reserved << ' ' << e.device << ' ' << static_cast<int>(e.op) << '\n';
  for (const CounterSample& c : t.counters)
    o << "ctr " << c.time_ns << ' ' << t.str(c.name) << ' ' << c.device << ' ' << c.value << '\n';
  for (const FlowEvent& f : t.flows)
    o << "flow " << f.time_ns << ' ' << f.id << ' ' << f.pid << ' ' << f.tid << ' ' << t.str(f.category) << ' '
      << t.str(f.name) << ' ' << f.phase << ' ' << f.bind_enclosing << '\n';
  for (const OtherEvent& e : t.other_events)
    o << "other " << e.start_ns << ' ' << e.end_ns << ' ' << e.pid << ' ' << e.tid << ' ' << t.str(e.name) << ' '
      << t.str(e.category) << ' ' << e.phase << '\n';
  for (const auto& [code, e] : t.diagnostics.entries())
    o << "diag " << code << ' ' << SeverityName(e.severity) << ' ' << e.count << ' ' << e.first_offset << ' '
      << e.first_message << '\n';
  return o.str();
}

}  // namespace ampscope::testing

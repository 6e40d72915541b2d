// MergeChunk: a piece of traceEvents that another thread parsed on its own builder
// (kineto_parallel.cc) joins the whole trace's builder as if that builder had parsed it:
// - strings are interned again in the chunk's first-use order, so ids, the text budget and
//   the capped names come out as in a single pass;
// - rows are appended in input order with their string ids (and comm_index, launch_config) mapped;
// - diagnostics add up, the first occurrence in input order keeping its offset and message;
// - the metadata events the chunk deferred are replayed here, in order.
#include <algorithm>
#include <utility>

#include "trace/formats/kineto/kineto_event_parser.h"

namespace ampscope::kineto {

template <typename T, typename Remap>
void TraceBuilder::AppendRows(std::vector<T>& dst, std::vector<T>& src, Remap&& remap) {
  if (src.empty()) return;
  if (dst.capacity() - dst.size() < src.size()) Grow(dst, src.size());
  for (T& row : src) {
    ForEachStringId(row, remap);
    dst.push_back(row);
  }
  src = {};  // the chunk's memory goes as soon as its rows are in
}

void TraceBuilder::MergeChunk(TraceBuilder&& chunk, uint64_t chunk_end) {
  merged_through_ = std::max(merged_through_, chunk_end);
  // Strings, in the chunk's id order = the order in which the chunk first used them.
  const StringTable& theirs = chunk.trace_.strings;
  std::vector<StringId> id_map(theirs.size(), kNoString);
  for (StringId id = 1; id < theirs.size(); ++id) {
    const std::string_view text = theirs.get(id);
    id_map[id] = trace_.strings.Intern(text);
    if (trace_.strings.capped_count() != capped_seen_) {
      capped_seen_ = trace_.strings.capped_count();
      NoteCapped(text.size(), chunk.chunk_state_.string_first_use[id - 1]);
    }
  }
  auto remap = [&](StringId& id) { id = id < id_map.size() ? id_map[id] : kNoString; };

  // Rows. Indices into other tables move by what this builder already holds.
  const int32_t comm_base = static_cast<int32_t>(trace_.comm_infos.size());
  const uint32_t range_base = static_cast<uint32_t>(trace_.ranges.size());
  Trace& t = chunk.trace_;
  // Launch configurations, in the chunk's first-use order (the order a single pass gives).
  std::vector<uint32_t> launch_map(t.launch_configs.size(), 0);
  for (size_t j = 1; j < t.launch_configs.size(); ++j) launch_map[j] = trace_.InternLaunch(t.launch_configs[j]);
  for (KernelEvent& k : t.kernels) {
    if (k.comm_index >= 0) k.comm_index += comm_base;
    k.launch_config = k.launch_config < launch_map.size() ? launch_map[k.launch_config] : 0;
  }
  AppendRows(trace_.kernels, t.kernels, remap);
  AppendRows(trace_.comm_infos, t.comm_infos, remap);
  AppendRows(trace_.memcpys, t.memcpys, remap);
  AppendRows(trace_.memsets, t.memsets, remap);
  AppendRows(trace_.api_calls, t.api_calls, remap);
  AppendRows(trace_.syncs, t.syncs, remap);
  AppendRows(trace_.ranges, t.ranges, remap);
  AppendRows(trace_.cpu_ops, t.cpu_ops, remap);
  AppendRows(trace_.memory_events, t.memory_events, remap);
  AppendRows(trace_.counters, t.counters, remap);
  AppendRows(trace_.flows, t.flows, remap);
  AppendRows(trace_.other_events, t.other_events, remap);

  // What the linker needs.
  LinkState& l = chunk.links_;
  auto append = [](std::vector<uint64_t>& dst, const std::vector<uint64_t>& src) {
    dst.insert(dst.end(), src.begin(), src.end());
  };
  append(links_.kernel_offsets, l.kernel_offsets);
  append(links_.memcpy_offsets, l.memcpy_offsets);
  append(links_.memset_offsets, l.memset_offsets);
  for (auto& [corr, info] : l.runtime_launch_info) links_.runtime_launch_info[corr] = info;  // later wins
  for (const auto& [index, offset] : l.step_ranges) links_.step_ranges.emplace_back(index + range_base, offset);

  // Trace-level facts gathered while parsing.
  if (trace_.metadata.pid < 0) trace_.metadata.pid = t.metadata.pid;
  evidence_.amd |= chunk.evidence_.amd;
  evidence_.cuda |= chunk.evidence_.cuda;
  event_count_ += chunk.event_count_;
  bounds_.Merge(chunk.bounds_);

  // Diagnostics: counts add up; the earliest occurrence (by event offset) keeps its message.
  for (PendingDiagnostic& d : chunk.pending_diagnostics_) {
    bool found = false;
    for (PendingDiagnostic& mine : pending_diagnostics_) {
      if (mine.code != d.code) continue;
      found = true;
      mine.count += d.count;
      if (d.order < mine.order) {
        mine.offset = d.offset;
        mine.order = d.order;
        mine.message = std::move(d.message);
      }
      break;
    }
    if (!found) pending_diagnostics_.push_back(std::move(d));
  }

  // Metadata events, replayed where they were in the input.
  const Position saved = position_;
  for (const DeferredEvent& d : chunk.chunk_state_.metadata_events) {
    position_.event_offset = d.offset;
    position_.replaying = &d;
    OnMetadata(d.event);
  }
  position_ = saved;
}

}  // namespace ampscope::kineto

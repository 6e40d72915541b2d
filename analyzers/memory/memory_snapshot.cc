// AnalyzeMemorySnapshot: segsum's totals per segment and in all, the timeline of device_traces,
// the sites and cast copies live at the peak, OOMs, and segment churn per step.
#include "analyzers/memory/memory_snapshot.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "base/saturating.h"

namespace ampscope {

std::string SnapshotSite::label() const {
  if (file.empty()) return function;
  const size_t slash = file.find_last_of('/');
  return fmt::format("{}:{}:{}", slash == std::string::npos ? file : file.substr(slash + 1), line, function);
}

bool KeepFrame(std::string_view name, std::string_view filename) {
  // torch/cuda/_memory_viz.py _frame_filter, list for list.
  static constexpr std::string_view kOmitFunctions[] = {"unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp",
                                                        "_start", "__libc_start_main", "PyEval_", "PyObject_",
                                                        "PyFunction_"};
  static constexpr std::string_view kOmitFilenames[] = {"core/boxing", "/Register", "/Redispatch", "pythonrun.c",
                                                        "Modules/main.c", "Objects/call.c", "Objects/methodobject.c",
                                                        "pycore_ceval.h", "ceval.c", "cpython/abstract.h"};
  for (std::string_view o : kOmitFunctions)
    if (name.find(o) != std::string_view::npos) return false;
  for (std::string_view o : kOmitFilenames)
    if (filename.find(o) != std::string_view::npos) return false;
  return true;
}

std::optional<FrameSite> SiteOfStack(const MemorySnapshot& s, const std::vector<uint32_t>& stack) {
  for (uint32_t f : stack) {
    const SnapshotFrame& fr = s.frames[f];
    if (!KeepFrame(fr.name, fr.filename)) continue;
    if (fr.filename.size() >= 3 && fr.filename.compare(fr.filename.size() - 3, 3, ".py") == 0) return FrameSite{f};
  }
  return std::nullopt;
}

namespace {

constexpr uint64_t kPageSize = 20ull << 20;  // segsum's PAGE_SIZE
constexpr size_t kMaxPageMap = 4096;

// segsum's picture of one segment (torch/cuda/_memory_viz.py segsum), for segments of a page or more.
std::string PageMap(const MemorySnapshot& s, const SnapshotSegment& seg) {
  if (seg.total_size < kPageSize) return {};
  const uint64_t pages = std::min<uint64_t>((seg.total_size - 1) / kPageSize + 1, kMaxPageMap);
  std::string occupied(pages, ' ');
  std::vector<double> frac(pages, 0.0);
  uint64_t offset = 0;
  size_t i = 0;
  for (uint32_t b = seg.first_block; b < seg.first_block + seg.block_count; ++b) {
    const SnapshotBlock& blk = s.blocks[b];
    if (blk.state == BlockState::kActiveAllocated) {
      const uint64_t start_ = offset, finish_ = offset + blk.requested_size;
      const uint64_t start = start_ / kPageSize;
      const uint64_t finish = finish_ == 0 ? 0 : (finish_ - 1) / kPageSize + 1;
      const char m = static_cast<char>('a' + (i % 26));
      for (uint64_t j = start; j < finish && j < pages; ++j) {
        const uint64_t lo = std::max(start_, j * kPageSize), hi = std::min(finish_, (j + 1) * kPageSize);
        frac[j] += static_cast<double>(hi - lo) / static_cast<double>(kPageSize);
        if (occupied[j] != ' ') {
          occupied[j] = "0123456789*"[static_cast<int>(std::min(10.0, frac[j] * 10))];
        } else {
          occupied[j] = m;
        }
      }
      ++i;
    }
    offset += blk.size;
  }
  return occupied;
}

void SummariseSegments(const MemorySnapshot& s, MemorySnapshotResult& r) {
  std::vector<std::pair<uint64_t, SnapshotSegmentSummary>> rows;  // (active size, summary)
  std::map<std::tuple<std::string, uint64_t, int64_t, int64_t>, uint32_t> groups;
  for (const SnapshotSegment& seg : s.segments) {
    SnapshotSegmentSummary x;
    x.device = seg.device;
    x.address = seg.address;
    x.total_size = seg.total_size;
    x.stream = seg.stream;
    x.segment_type = seg.segment_type;
    x.pool_id[0] = seg.pool_id[0];
    x.pool_id[1] = seg.pool_id[1];
    x.is_expandable = seg.is_expandable;
    x.blocks = seg.block_count;
    uint64_t active_size = 0;
    for (uint32_t b = seg.first_block; b < seg.first_block + seg.block_count; ++b) {
      const SnapshotBlock& blk = s.blocks[b];
      if (blk.state == BlockState::kActiveAllocated) {
        ++x.active_blocks;
        active_size += blk.size;
        SatAccumulate(x.allocated_bytes, static_cast<int64_t>(blk.requested_size));
        SatAccumulate(x.free_internal_bytes, SaturatingSub(static_cast<int64_t>(blk.size), static_cast<int64_t>(blk.requested_size)));
      } else {
        SatAccumulate(x.free_external_bytes, static_cast<int64_t>(blk.size));
        if (blk.state != BlockState::kOther) x.largest_free_block_bytes = std::max(x.largest_free_block_bytes, blk.size);
      }
    }
    x.page_map = PageMap(s, seg);
    r.reserved_bytes = SaturatingAddU(r.reserved_bytes, seg.total_size);
    SatAccumulate(r.allocated_bytes, x.allocated_bytes);
    SatAccumulate(r.free_internal_bytes, x.free_internal_bytes);
    SatAccumulate(r.free_external_bytes, x.free_external_bytes);
    r.largest_free_block_bytes = std::max(r.largest_free_block_bytes, x.largest_free_block_bytes);
    r.blocks += x.blocks;
    r.active_blocks += x.active_blocks;
    if (x.active_blocks == 0) {
      ++r.empty_segments;
      SatAccumulate(r.free_in_empty_segments_bytes, x.free_external_bytes);
    } else {
      SatAccumulate(r.free_in_used_segments_bytes, x.free_external_bytes);
    }
    ++groups[{seg.segment_type, seg.total_size, seg.pool_id[0], seg.pool_id[1]}];
    rows.emplace_back(active_size, std::move(x));
  }
  // segsum's order: by (total_size, active bytes), stable.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.total_size, a.first) < std::tie(b.second.total_size, b.first);
  });
  for (auto& [active, x] : rows) r.segments.push_back(std::move(x));
  for (const auto& [key, count] : groups) {
    SnapshotSegmentGroup g;
    std::tie(g.segment_type, g.total_size, g.pool_id[0], g.pool_id[1]) = key;
    g.count = count;
    r.segment_groups.push_back(std::move(g));
  }
  std::stable_sort(r.segment_groups.begin(), r.segment_groups.end(),
                   [](const SnapshotSegmentGroup& a, const SnapshotSegmentGroup& b) { return a.count > b.count; });
}

// Per distinct stack: its site and whether it runs under autocast.
struct StackFacts {
  int64_t site = -1;  // frame index of the site, -1: none
  bool cast = false;   // under at::autocast::cached_cast: a cast copy
  bool under_autocast = false;
};

std::vector<StackFacts> FactsOfStacks(const MemorySnapshot& s) {
  std::vector<StackFacts> out(s.frame_lists.size());
  std::vector<int8_t> frame_kind(s.frames.size(), 0);  // 1: cached_cast, 2: other at::autocast
  for (size_t f = 0; f < s.frames.size(); ++f) {
    const std::string& n = s.frames[f].name;
    if (n.find("at::autocast::cached_cast") != std::string::npos) {
      frame_kind[f] = 1;
    } else if (n.find("at::autocast::") != std::string::npos) {
      frame_kind[f] = 2;
    }
  }
  for (size_t i = 0; i < s.frame_lists.size(); ++i) {
    if (std::optional<FrameSite> site = SiteOfStack(s, s.frame_lists[i])) out[i].site = site->frame;
    for (uint32_t f : s.frame_lists[i]) {
      out[i].cast |= frame_kind[f] == 1;
      out[i].under_autocast |= frame_kind[f] != 0;
    }
  }
  return out;
}

int32_t MainDevice(const MemorySnapshot& s) {
  std::map<int32_t, uint64_t> per;
  for (const SnapshotEvent& e : s.events) {
    if (e.action == SnapshotAction::kOom) return e.device;  // the device that ran out
    ++per[e.device];
  }
  int32_t best = 0;
  uint64_t n = 0;
  for (const auto& [d, c] : per)
    if (c > n) {
      best = d;
      n = c;
    }
  return best;
}

struct LiveBlock {
  uint64_t size = 0;
  int32_t frames = kNoFrames;
};

void Steps(const MemorySnapshot& s, const std::vector<size_t>& main, MemorySnapshotResult& r);

// Counts of every action (all devices), cast-copy bytes, and the events of the main device.
std::vector<size_t> CountActions(const MemorySnapshot& s, const std::vector<StackFacts>& stacks, MemorySnapshotResult& r) {
  r.main_device = MainDevice(s);
  std::vector<size_t> main;
  for (size_t i = 0; i < s.events.size(); ++i) {
    const SnapshotEvent& e = s.events[i];
    switch (e.action) {
      case SnapshotAction::kAlloc:
        ++r.allocs;
        if (e.frames >= 0) {
          if (stacks[e.frames].cast) {
            r.autocast_cast_bytes = SaturatingAddU(r.autocast_cast_bytes, e.size);
            ++r.autocast_cast_allocs;
          }
          if (stacks[e.frames].under_autocast) r.under_autocast_bytes = SaturatingAddU(r.under_autocast_bytes, e.size);
        }
        break;
      case SnapshotAction::kFreeRequested: ++r.frees_requested; break;
      case SnapshotAction::kFreeCompleted: ++r.frees_completed; break;
      case SnapshotAction::kSegmentAlloc: ++r.segment_allocs; break;
      case SnapshotAction::kSegmentFree: ++r.segment_frees; break;
      case SnapshotAction::kSegmentMap: ++r.segment_maps; break;
      case SnapshotAction::kSegmentUnmap: ++r.segment_unmaps; break;
      case SnapshotAction::kOom: ++r.ooms; break;
      case SnapshotAction::kSnapshot: break;
    }
    if (e.frames >= 0) r.stacks_recorded = true;
    if (e.device == r.main_device) main.push_back(i);
  }
  return main;
}

struct PeakAt {
  size_t k = 0;           // index into the main device's events
  int64_t live = 0;       // live bytes there
  uint64_t before_trace = 0;
};

// Pass 1: live and reserved bytes after each event, the timeline, the peak and the OOMs.
PeakAt Replay(const MemorySnapshot& s, const std::vector<size_t>& main, MemorySnapshotResult& r) {
  // Pass 1: live and reserved bytes after each event; blocks freed that the trace never saw
  // allocated were live before it began.
  std::unordered_map<uint64_t, LiveBlock> live;
  int64_t trace_live = 0, trace_reserved = 0;
  uint64_t before_trace = 0;
  std::vector<int64_t> live_after(main.size()), reserved_after(main.size());
  for (size_t k = 0; k < main.size(); ++k) {
    const SnapshotEvent& e = s.events[main[k]];
    switch (e.action) {
      case SnapshotAction::kAlloc:
        SatAccumulate(trace_live, static_cast<int64_t>(e.size));
        live[e.addr] = {e.size, e.frames};
        break;
      case SnapshotAction::kFreeCompleted:
        if (auto it = live.find(e.addr); it != live.end()) {
          trace_live = SaturatingSub(trace_live, static_cast<int64_t>(it->second.size));
          live.erase(it);
        } else {
          before_trace = SaturatingAddU(before_trace, e.size);
          trace_live = SaturatingSub(trace_live, static_cast<int64_t>(e.size));
        }
        break;
      case SnapshotAction::kSegmentAlloc:
      case SnapshotAction::kSegmentMap: SatAccumulate(trace_reserved, static_cast<int64_t>(e.size)); break;
      case SnapshotAction::kSegmentFree:
      case SnapshotAction::kSegmentUnmap: trace_reserved = SaturatingSub(trace_reserved, static_cast<int64_t>(e.size)); break;
      default: break;
    }
    live_after[k] = trace_live;
    reserved_after[k] = trace_reserved;
  }
  // Blocks active at the dump that no alloc event accounts for were live before the trace too.
  uint64_t reserved_now = 0;
  for (const SnapshotSegment& seg : s.segments) {
    if (seg.device != r.main_device) continue;
    reserved_now = SaturatingAddU(reserved_now, seg.total_size);
    for (uint32_t b = seg.first_block; b < seg.first_block + seg.block_count; ++b) {
      const SnapshotBlock& blk = s.blocks[b];
      if (blk.state == BlockState::kActiveAllocated && live.find(blk.address) == live.end())
        before_trace = SaturatingAddU(before_trace, blk.requested_size);
    }
  }
  if (before_trace > 0 && s.blocks.size() > 0)
    r.diagnostics.Add(DiagCode::kSnapshotTraceStartsLate, -1,
                      fmt::format("{} bytes were live before device_traces began", before_trace));
  r.baseline_live_bytes = before_trace;
  const int64_t base_reserved = std::max<int64_t>(0, SaturatingSub(static_cast<int64_t>(std::min<uint64_t>(reserved_now, INT64_MAX)), trace_reserved));
  auto time_of = [&](size_t k) { return s.events[main[k]].time_us.value_or(static_cast<int64_t>(k)); };
  r.first_time_us = s.events[main.front()].time_us;
  r.last_time_us = s.events[main.back()].time_us;
  size_t peak_k = 0;
  int64_t peak = std::numeric_limits<int64_t>::min();
  const size_t per_bucket = (main.size() + kSnapshotTimelinePoints - 1) / kSnapshotTimelinePoints;
  SnapshotTimelinePoint bucket;
  bool open = false;
  for (size_t k = 0; k < main.size(); ++k) {
    const int64_t l = SaturatingAdd(static_cast<int64_t>(std::min<uint64_t>(before_trace, INT64_MAX)), live_after[k]);
    const int64_t res = SaturatingAdd(base_reserved, reserved_after[k]);
    r.peak_reserved_bytes = std::max<uint64_t>(r.peak_reserved_bytes, static_cast<uint64_t>(std::max<int64_t>(0, res)));
    if (l > peak) {
      peak = l;
      peak_k = k;
    }
    const uint64_t lu = static_cast<uint64_t>(std::max<int64_t>(0, l));
    if (!open || lu > bucket.live_bytes) {
      bucket = {time_of(k), lu, static_cast<uint64_t>(std::max<int64_t>(0, res))};
      open = true;
    }
    if ((k + 1) % per_bucket == 0 || k + 1 == main.size()) {
      r.timeline.push_back(bucket);
      open = false;
    }
    const SnapshotEvent& e = s.events[main[k]];
    if (e.action == SnapshotAction::kOom) {
      SnapshotOom o;
      o.device = e.device;
      o.time_us = e.time_us;
      o.requested_bytes = e.size;
      o.device_free_bytes = e.device_free;
      o.live_bytes = lu;
      o.reserved_bytes = static_cast<uint64_t>(std::max<int64_t>(0, res));
      r.oom_events.push_back(o);
    }
  }
  r.peak_live_bytes = static_cast<uint64_t>(std::max<int64_t>(0, peak));
  r.peak_time_us = time_of(peak_k);
  return {peak_k, peak, before_trace};
}

// Pass 2: what was live at the peak, by site.
void SitesAtPeak(const MemorySnapshot& s, const std::vector<StackFacts>& stacks, const std::vector<size_t>& main,
                 const PeakAt& at, MemorySnapshotResult& r) {
  const size_t peak_k = at.k;
  const int64_t peak = at.live;
  const uint64_t before_trace = at.before_trace;
  std::unordered_map<uint64_t, LiveBlock> live;
  for (size_t k = 0; k <= peak_k; ++k) {
    const SnapshotEvent& e = s.events[main[k]];
    if (e.action == SnapshotAction::kAlloc) live[e.addr] = {e.size, e.frames};
    if (e.action == SnapshotAction::kFreeCompleted) live.erase(e.addr);
  }
  std::map<int64_t, std::pair<uint64_t, uint64_t>> by_site;  // site (-1 non-python, -2 no stack) -> bytes, allocs
  for (const auto& [addr, b] : live) {
    const int64_t site = b.frames < 0 ? -2 : stacks[b.frames].site;
    by_site[site].first = SaturatingAddU(by_site[site].first, b.size);
    ++by_site[site].second;
    ++r.peak_allocs;
    if (b.frames >= 0 && stacks[b.frames].cast)
      r.autocast_cast_live_at_peak_bytes = SaturatingAddU(r.autocast_cast_live_at_peak_bytes, b.size);
  }
  std::vector<SnapshotSite> sites;
  for (const auto& [site, v] : by_site) {
    SnapshotSite x;
    if (site >= 0) {
      const SnapshotFrame& f = s.frames[site];
      x.file = f.filename;
      x.line = f.line;
      x.function = f.name;
    } else {
      x.function = site == -1 ? "<non-python>" : "<no stack>";
    }
    x.bytes = v.first;
    x.allocs = v.second;
    sites.push_back(std::move(x));
  }
  if (before_trace > 0) {
    SnapshotSite x;
    x.function = "<before the trace>";
    x.bytes = before_trace;
    sites.push_back(std::move(x));
  }
  std::stable_sort(sites.begin(), sites.end(), [](const SnapshotSite& a, const SnapshotSite& b) { return a.bytes > b.bytes; });
  if (sites.size() > kSnapshotTopSites) sites.resize(kSnapshotTopSites);
  for (SnapshotSite& x : sites)
    x.pct_of_peak = peak > 0 ? 100.0 * static_cast<double>(x.bytes) / static_cast<double>(peak) : 0.0;
  r.top_sites = std::move(sites);
}

// Churn: a segment freed and a segment allocated after it.
void Churn(const MemorySnapshot& s, const std::vector<size_t>& main, MemorySnapshotResult& r) {
  bool freed = false;
  for (size_t k : main) {
    const SnapshotAction a = s.events[k].action;
    if (a == SnapshotAction::kSegmentFree || a == SnapshotAction::kSegmentUnmap) freed = true;
  }
  if (freed) {
    uint64_t pending = 0;
    for (size_t k : main) {
      const SnapshotAction a = s.events[k].action;
      if (a == SnapshotAction::kSegmentFree || a == SnapshotAction::kSegmentUnmap) ++pending;
      if ((a == SnapshotAction::kSegmentAlloc || a == SnapshotAction::kSegmentMap) && pending > 0) {
        r.segment_free_realloc_cycles += pending;
        pending = 0;
      }
    }
  }
}

void Timeline(const MemorySnapshot& s, const std::vector<StackFacts>& stacks, MemorySnapshotResult& r) {
  const std::vector<size_t> main = CountActions(s, stacks, r);
  if (main.empty()) return;
  const PeakAt peak = Replay(s, main, r);
  SitesAtPeak(s, stacks, main, peak, r);
  Churn(s, main, r);
  Steps(s, main, r);
}

// Steps from the snapshot's external annotations (record_function ranges the allocator saw):
// ProfilerStep#N ranges when there are any, else each Optimizer.step's end closes a step.
void Steps(const MemorySnapshot& s, const std::vector<size_t>& main, MemorySnapshotResult& r) {
  r.step_source = "none";
  std::vector<std::pair<int64_t, int64_t>> windows;
  std::map<std::string, int64_t> open;
  for (const SnapshotAnnotation& a : s.annotations) {
    if (!a.time_us || a.name.rfind("ProfilerStep#", 0) != 0) continue;
    if (a.start) {
      open[a.name] = *a.time_us;
    } else if (auto it = open.find(a.name); it != open.end()) {
      windows.emplace_back(it->second, *a.time_us);
      open.erase(it);
    }
  }
  if (!windows.empty()) {
    r.step_source = "profiler_step";
  } else if (r.first_time_us) {
    std::vector<int64_t> ends;
    for (const SnapshotAnnotation& a : s.annotations)
      if (!a.start && a.time_us && a.name.rfind("Optimizer.step", 0) == 0) ends.push_back(*a.time_us);
    std::sort(ends.begin(), ends.end());
    int64_t prev = *r.first_time_us;
    for (int64_t e : ends) {
      if (e < prev) continue;
      windows.emplace_back(prev, e);
      prev = e + 1;
    }
    if (!windows.empty()) r.step_source = "optimizer_step";
  }
  std::sort(windows.begin(), windows.end());
  for (const auto& [b, e] : windows) {
    SnapshotStep st;
    st.start_us = b;
    st.end_us = e;
    r.steps.push_back(st);
  }
  // Each event into the last window starting at or before it, if it has not ended (O(E log S)).
  for (size_t k : main) {
    const SnapshotEvent& ev = s.events[k];
    if (!ev.time_us || r.steps.empty()) continue;
    auto it = std::upper_bound(r.steps.begin(), r.steps.end(), *ev.time_us,
                               [](int64_t t, const SnapshotStep& st) { return t < st.start_us; });
    if (it == r.steps.begin()) continue;
    SnapshotStep& st = *(it - 1);
    if (*ev.time_us > st.end_us) continue;
    st.segment_allocs += ev.action == SnapshotAction::kSegmentAlloc || ev.action == SnapshotAction::kSegmentMap;
    st.segment_frees += ev.action == SnapshotAction::kSegmentFree || ev.action == SnapshotAction::kSegmentUnmap;
    st.allocs += ev.action == SnapshotAction::kAlloc;
  }
  if (r.steps.size() >= 2) {
    r.steady_steps = r.steps.size() - 1;
    uint64_t a = 0, f = 0;
    for (size_t i = 1; i < r.steps.size(); ++i) {
      a += r.steps[i].segment_allocs;
      f += r.steps[i].segment_frees;
    }
    r.steady_segment_allocs = a;
    r.steady_segment_frees = f;
  }
}

}  // namespace

MemorySnapshotResult AnalyzeMemorySnapshot(const MemorySnapshot& s) {
  MemorySnapshotResult r;
  r.path = s.path;
  r.file_bytes = s.file_bytes;
  r.protocol = s.protocol;
  r.diagnostics = s.diagnostics;
  SummariseSegments(s, r);
  r.settings_present = s.settings.present;
  r.expandable_segments = s.settings.expandable_segments;
  if (s.settings.max_split_size && *s.settings.max_split_size > 0 &&
      *s.settings.max_split_size != std::numeric_limits<int64_t>::max())
    r.max_split_size_bytes = s.settings.max_split_size;
  r.alloc_conf = s.settings.alloc_conf;
  for (const SnapshotBlock& b : s.blocks) r.stacks_recorded |= b.frames >= 0;
  r.has_trace = s.has_device_traces && !s.events.empty();
  r.events = s.events.size();
  const std::vector<StackFacts> stacks = FactsOfStacks(s);
  Timeline(s, stacks, r);
  if (!r.has_trace) r.step_source = "none";
  return r;
}

MemorySnapshotResult AnalyzeMemorySnapshot(std::shared_ptr<const MemorySnapshot> snapshot, bool keep_rows) {
  MemorySnapshotResult r = AnalyzeMemorySnapshot(*snapshot);
  if (!keep_rows) return r;
  const std::vector<StackFacts> stacks = FactsOfStacks(*snapshot);
  for (const StackFacts& f : stacks) {
    SnapshotSite site;
    if (f.site >= 0) {
      const SnapshotFrame& fr = snapshot->frames[f.site];
      site.file = fr.filename;
      site.line = fr.line;
      site.function = fr.name;
    } else {
      site.function = "<non-python>";
    }
    r.stack_sites.push_back(site.label());
    r.stack_cast.push_back(f.cast ? 1 : 0);
  }
  r.rows = std::move(snapshot);
  return r;
}

}  // namespace ampscope

// ApplyMemorySnapshot: the snapshot's findings and the checklist's memory_fragmentation item.
// What these findings save is memory, not step time: none carries a time estimate, so each is
// info by the catalogue's rule (a warning carries a saving) and counts as a risk for its
// checklist item, as memory_peak_near_capacity does.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "analyzers/diagnosis/facts.h"
#include "analyzers/diagnosis/rules.h"
#include "analyzers/memory/memory_snapshot.h"

namespace ampscope {

namespace {

using diagnosis::FindingSink;
using diagnosis::Round;
using namespace snapshot_rules;

constexpr const char* kNoTimeSaving = "none: this finding saves memory, not step time";

std::string MiB(double bytes) { return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0)); }
double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// What to set, given what the snapshot says is set already.
std::string FragmentationAdvice(const MemorySnapshotResult& r) {
  std::vector<std::string> steps;
  if (r.expandable_segments.value_or(false)) {
    steps.push_back("expandable_segments is already on: look for tensors of many different sizes kept alive across "
                    "the step (bucket sequence lengths, preallocate the largest batch first)");
  } else {
    steps.push_back("set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place, so gaps between "
                    "live blocks stop stranding memory)");
  }
  if (!r.max_split_size_bytes)
    steps.push_back("or cap splitting of large blocks with max_split_size_mb (e.g. "
                    "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:" +
                    std::to_string(std::max<uint64_t>(20, r.largest_free_block_bytes >> 20)) + ")");
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) out += (i ? "; " : "") + steps[i];
  return out;
}

void AddFragmentation(const MemorySnapshotResult& r, FindingSink& out) {
  const double stranded = static_cast<double>(r.free_in_used_segments_bytes);
  const double pct = Pct(stranded, static_cast<double>(r.reserved_bytes));
  if (r.reserved_bytes == 0 || pct < kFragmentationPct || r.free_in_used_segments_bytes < static_cast<int64_t>(kFragmentationMinBytes))
    return;
  uint32_t used_with_gaps = 0;
  for (const SnapshotSegmentSummary& s : r.segments) used_with_gaps += s.active_blocks > 0 && s.free_external_bytes > 0;
  Finding& x = out.Add("memory_fragmentation", 0.0,
                       fmt::format("{} ({:.0f}% of reserved) is free but stranded between live blocks in {} segments",
                                   MiB(stranded), pct, used_with_gaps),
                       "The caching allocator cannot release these segments and can only reuse their gaps for requests "
                       "that fit. " + FragmentationAdvice(r) + ".");
  x.evidence = {{"reserved_bytes", r.reserved_bytes, Unit::kBytes},
                {"free_external_bytes", r.free_external_bytes, Unit::kBytes},
                {"free_external_in_used_segments_bytes", r.free_in_used_segments_bytes, Unit::kBytes},
                {"free_external_in_used_segments_pct", Round(pct), Unit::kPct},
                {"segments_with_gaps", used_with_gaps, Unit::kCount},
                {"largest_free_block_bytes", r.largest_free_block_bytes, Unit::kBytes},
                {"expandable_segments", r.expandable_segments ? (*r.expandable_segments ? "true" : "false") : "unknown"},
                {"saving", kNoTimeSaving}};
}

void AddChurn(const MemorySnapshotResult& r, FindingSink& out) {
  const bool with_steps = r.steady_segment_frees.has_value();
  const uint64_t frees = with_steps ? *r.steady_segment_frees : r.segment_free_realloc_cycles;
  if (frees == 0) return;
  const std::string where = with_steps ? fmt::format("{:.1f} segment frees per step after the first ({} steps from {})",
                                                     static_cast<double>(frees) / static_cast<double>(r.steady_steps),
                                                     r.steady_steps, r.step_source)
                                       : fmt::format("{} segments freed and allocated again (no steps in the snapshot)", frees);
  Finding& x = out.Add("allocator_churn", 0.0, "The allocator returns segments to the driver and asks again: " + where,
                       "Each segment_free is a cudaFree (it synchronizes the device) and the cudaMalloc after it costs "
                       "again. Remove torch.cuda.empty_cache() from the loop; if memory pressure frees them (an "
                       "allocation failed and the cache was flushed), lower the peak or set "
                       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.");
  x.evidence = {{"segment_frees", r.segment_frees, Unit::kCount},
                {"segment_allocs", r.segment_allocs, Unit::kCount},
                {"step_source", r.step_source},
                {"saving", kNoTimeSaving}};
  if (with_steps) {
    x.evidence.push_back({"steady_steps", r.steady_steps, Unit::kCount});
    x.evidence.push_back({"steady_segment_frees", frees, Unit::kCount});
    x.evidence.push_back({"steady_segment_allocs", r.steady_segment_allocs.value_or(0), Unit::kCount});
  } else {
    x.evidence.push_back({"free_then_alloc_cycles", frees, Unit::kCount});
  }
}

void AddOom(const MemorySnapshotResult& r, FindingSink& out) {
  if (r.oom_events.empty()) return;
  const SnapshotOom& o = r.oom_events.front();
  Finding& x = out.Add(
      "oom", 0.0,
      fmt::format("Out of memory: a request of {} failed with {} free on the device", MiB(double(o.requested_bytes)),
                  MiB(double(o.device_free_bytes))),
      fmt::format("The allocator held {} ({} in use by tensors) and its largest free block at the dump was {}, too small "
                  "for the request. Lower the peak (the sites in memory_snapshot.top_sites), use activation "
                  "checkpointing or a smaller micro-batch{}.",
                  MiB(double(o.reserved_bytes)), MiB(double(o.live_bytes)), MiB(double(r.largest_free_block_bytes)),
                  r.free_external_bytes > static_cast<int64_t>(o.requested_bytes)
                      ? "; the cache held more free memory than asked for, in pieces: set "
                        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
                      : ""));
  x.evidence = {{"oom_events", r.oom_events.size(), Unit::kCount},
                {"requested_bytes", o.requested_bytes, Unit::kBytes},
                {"device_free_bytes", o.device_free_bytes, Unit::kBytes},
                {"reserved_bytes_then", o.reserved_bytes, Unit::kBytes},
                {"live_bytes_then", o.live_bytes, Unit::kBytes},
                {"largest_free_block_bytes", r.largest_free_block_bytes, Unit::kBytes},
                {"free_external_bytes", r.free_external_bytes, Unit::kBytes},
                {"saving", kNoTimeSaving}};
}

void AddCastMemory(const MemorySnapshotResult& r, FindingSink& out) {
  if (!r.peak_live_bytes || *r.peak_live_bytes == 0 || r.autocast_cast_live_at_peak_bytes == 0) return;
  const double pct = Pct(double(r.autocast_cast_live_at_peak_bytes), double(*r.peak_live_bytes));
  if (pct < kCastMemoryPct) return;
  Finding& x = out.Add(
      "autocast_cast_memory", 0.0,
      fmt::format("Autocast's cast copies hold {} at the peak ({:.0f}% of it)", MiB(double(r.autocast_cast_live_at_peak_bytes)), pct),
      "These are the low-precision copies autocast makes of fp32 tensors (at::autocast::cached_cast); copies of "
      "weights stay cached until the autocast region exits. They are the memory price of fp32 weights under autocast: "
      "torch.autocast(..., cache_enabled=False) frees each copy after use (more casts, less memory), and keeping the "
      "weights in the low precision (fp32 master weights in the optimizer, e.g. FSDP's MixedPrecision) removes them.");
  x.evidence = {{"autocast_cast_live_at_peak_bytes", r.autocast_cast_live_at_peak_bytes, Unit::kBytes},
                {"peak_live_bytes", *r.peak_live_bytes, Unit::kBytes},
                {"pct_of_peak", Round(pct), Unit::kPct},
                {"autocast_cast_bytes", r.autocast_cast_bytes, Unit::kBytes},
                {"autocast_cast_allocs", r.autocast_cast_allocs, Unit::kCount},
                {"saving", kNoTimeSaving}};
}

void AddOneSite(const MemorySnapshotResult& r, FindingSink& out) {
  if (r.top_sites.empty() || !r.peak_live_bytes) return;
  const SnapshotSite& s = r.top_sites.front();
  if (s.file.empty() || s.pct_of_peak < kOneSitePct || s.bytes < kOneSiteMinBytes) return;  // a real Python line only
  Finding& x = out.Add("peak_from_one_site", 0.0,
                       fmt::format("{} holds {:.0f}% of the peak ({})", s.label(), s.pct_of_peak, MiB(double(s.bytes))),
                       fmt::format("One line of the program allocates most of what is live at the peak ({} allocations "
                                   "from {}:{} in {}). Shrinking, chunking or freeing that tensor earlier (or "
                                   "checkpointing the activations it produces) lowers the peak the most.",
                                   s.allocs, s.file, s.line, s.function));
  x.evidence = {{"site", s.label()},
                {"site_bytes", s.bytes, Unit::kBytes},
                {"site_allocs", s.allocs, Unit::kCount},
                {"pct_of_peak", Round(s.pct_of_peak), Unit::kPct},
                {"peak_live_bytes", *r.peak_live_bytes, Unit::kBytes},
                {"saving", kNoTimeSaving}};
}

void UpdateChecklist(const MemorySnapshotResult& r, const std::vector<Finding>& added, RankAnalysis& ra) {
  auto item = std::find_if(ra.checklist.begin(), ra.checklist.end(), [](const ChecklistItem& c) { return c.id == "memory_fragmentation"; });
  if (item == ra.checklist.end()) {
    ra.checklist.push_back({});
    item = ra.checklist.end() - 1;
    item->id = "memory_fragmentation";
  }
  const double stranded_pct = Pct(double(r.free_in_used_segments_bytes), double(r.reserved_bytes));
  std::string evidence = fmt::format(
      "allocator snapshot: {} reserved in {} segments, {} allocated; {} free external ({:.0f}% of reserved): {} in {} "
      "wholly free segments (cache), {} ({:.0f}%) between live blocks; largest free block {}",
      MiB(double(r.reserved_bytes)), r.segments.size(), MiB(double(r.allocated_bytes)), MiB(double(r.free_external_bytes)),
      Pct(double(r.free_external_bytes), double(r.reserved_bytes)), MiB(double(r.free_in_empty_segments_bytes)),
      r.empty_segments, MiB(double(r.free_in_used_segments_bytes)), stranded_pct, MiB(double(r.largest_free_block_bytes)));
  if (r.has_trace)
    evidence += r.steady_segment_frees ? fmt::format("; {} segment frees in {} steps after the first", *r.steady_segment_frees, r.steady_steps)
                                       : fmt::format("; {} segment frees (no steps in the snapshot)", r.segment_frees);
  const bool trace_known = item->status != CheckStatus::kUnknown && item->status != CheckStatus::kNotApplicable &&
                           ra.format != SourceFormat::kMemorySnapshot;
  if (trace_known && !item->evidence.empty()) evidence += "; trace: " + item->evidence;
  CheckStatus status = CheckStatus::kPass;
  for (const Finding& f : added)
    if (f.checklist == "memory_fragmentation") status = CheckStatus::kFail;
  if (trace_known && item->status == CheckStatus::kFail) status = CheckStatus::kFail;
  if (trace_known && item->status == CheckStatus::kWarn && status == CheckStatus::kPass) status = CheckStatus::kWarn;
  item->status = status;
  item->value = Round(stranded_pct);
  item->unit = Unit::kPct;
  item->threshold = fmt::format("free external between live blocks < {:.0f}% of reserved or < {} MiB; no segment freed "
                                "after the first step; no OOM [heur]",
                                kFragmentationPct, kFragmentationMinBytes >> 20);
  item->source = "measured (allocator snapshot)";
  item->evidence = std::move(evidence);
  item->how_to_know.clear();
}

}  // namespace

void ApplyMemorySnapshot(std::shared_ptr<const MemorySnapshotResult> result, RankAnalysis& ra) {
  if (result == nullptr) return;
  const MemorySnapshotResult& r = *result;
  ra.memory_snapshot = result;
  // The snapshot reader's and analysis's diagnostics join the rank's input diagnostics, the one
  // place the report (and so every renderer) and the rank summary read them from. Beside a trace
  // the rank's input is the trace: each message then names the snapshot.
  const bool own_input = ra.input.path == r.path;
  for (const auto& [code, e] : r.diagnostics.entries()) {
    DiagnosticEntry entry = e;
    if (!own_input) entry.first_message = r.path + ": " + e.first_message;
    Diagnostics one;
    one.Restore(code, entry);
    ra.input.diagnostics.Merge(one);
  }
  if (ra.format == SourceFormat::kMemorySnapshot) {
    // No trace: the "no GPU activity" finding would send the user to profile again for what
    // this input never meant to hold; the timeline verdicts say why they are unknown instead.
    ra.findings.erase(std::remove_if(ra.findings.begin(), ra.findings.end(),
                                     [](const Finding& f) { return f.id == "no_gpu_activity_recorded"; }),
                      ra.findings.end());
    const std::string why = "a memory snapshot alone has no kernels: give the trace of the same run beside it";
    for (DimensionResult& d : ra.matrix) {
      d.findings.clear();
      d.headline.source = "unavailable: " + why;
    }
    for (ChecklistItem& c : ra.checklist) {
      c.evidence = why;
      c.how_to_know = "analyse the snapshot together with the PyTorch-profiler trace of the same run";
    }
  }
  std::vector<Finding> added;
  FindingSink out(added);
  AddOom(r, out);
  AddFragmentation(r, out);
  AddChurn(r, out);
  AddCastMemory(r, out);
  AddOneSite(r, out);
  UpdateChecklist(r, added, ra);
  for (const Finding& f : added) {
    if (f.dimension.empty()) continue;
    for (DimensionResult& d : ra.matrix) {
      if (d.id != f.dimension) continue;
      if (std::find(d.findings.begin(), d.findings.end(), f.id) == d.findings.end()) d.findings.push_back(f.id);
      // A risk without a time saving warns its dimension, as memory_peak_near_capacity does.
      if (d.status == DimensionStatus::kGood) d.status = DimensionStatus::kWarn;
    }
  }
  for (Finding& f : added) ra.findings.push_back(std::move(f));
  diagnosis::RankFindings(ra.findings);
}

}  // namespace ampscope

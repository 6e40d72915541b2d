// What the renderers read out of a report JSON beyond single values: header lines, ranked
// findings, times relative to the steps, the meaning of input diagnostics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/contract/checklist_view.h"
#include "reports/contract/diagnostics_view.h"
#include "reports/contract/findings_view.h"
#include "reports/contract/matrix_view.h"
#include "reports/contract/roofline_view.h"
#include "reports/contract/steps_view.h"

namespace ampscope::render {

// Header lines: the inputs ("worker0.pt.trace.json.gz (kineto)" / "16 ranks: rank0.json, ..."),
// the devices ("NVIDIA A100-SXM4-80GB (cc 8.0)", "2x Tesla V100 (cc 7.0)").
std::string InputsSummary(const nlohmann::json& report);
std::string DevicesSummary(const nlohmann::json& report);
// environment.driver for people: Kineto's cuda_driver_version is the CUDA driver API version
// (12040 -> "CUDA driver API 12.4"), not the driver's release; "" when unknown.
std::string DriverLabel(const std::string& driver);
// A metric's name for people (HumanKey) as the report's unit makes it: in a report without steps
// the one unit is the window, so "calls per step" reads "calls in the window".
std::string StepWords(const nlohmann::json& report, std::string text);

// "6 steps (profiler_step)", "no steps found (the whole trace is analysed)".
std::string StepsSummary(const nlohmann::json& report);

// The report's trace_integrity checks, in report order, and a title for each id ("warmup" ->
// "Warm-up and cold start").
struct IntegrityRow {
  std::string id;
  std::string status;  // "ok" | "warn" | "fail"
  std::string evidence;
  std::vector<std::string> affects;
};
std::vector<IntegrityRow> IntegrityChecks(const nlohmann::json& report);
std::string IntegrityTitle(const std::string& id);

// Object of name -> number, sorted by value descending (non-numbers skipped).
std::vector<std::pair<std::string, double>> SortedShares(const nlohmann::json& obj);

// The report's findings in its order, which is their rank (docs/findings.md, "Ranking").

// Times on the trace clock (µs, often epoch-based) said relative to the steps people know:
// "step 7 +12.3 ms". Built from the report's steps.windows (number, start_us, end_us), else
// steps.per_step.
class StepClock {
 public:
  explicit StepClock(const nlohmann::json& report);
  bool empty() const { return windows_.empty(); }
  // "step 7 +12.3 ms"; before the first step "12.0 ms before step 5"; after the last
  // "+3.1 ms after step 10"; between two steps "step 7 +190.2 ms" (past its end). With no
  // steps: "+12.3 ms" from `origin_us` (the caller's first time).
  std::string At(double us, double origin_us = 0) const;
  // "step 7 +12.3 ms to +14.0 ms" in one step, else "step 7 +190.0 ms to step 8 +1.0 ms".
  std::string Range(double start_us, double end_us, double origin_us = 0) const;
  // True when `us` is near the steps (within one step length of them): a time point, not a
  // duration that happens to be large.
  bool Near(double us) const;

 private:
  struct Window {
    int64_t number;
    double start_us;
    double end_us;
  };
  const Window* Find(double us) const;
  std::string Offset(double us, const Window& w) const;
  std::vector<Window> windows_;
};

// Replaces absolute trace times in a text ("on stream 7 at 1623142623928.196 ms") by times
// relative to the steps ("on stream 7 in step 7 at +104.9 ms"). Only numbers with a time unit
// (ms, us, µs) that fall near the steps are replaced: the analyzers' texts should not carry
// epochs at all, this keeps them away from readers until they do not.
std::string RelativeTimes(std::string_view text, const StepClock& clock);

// What an input diagnostic means, from the report alone: the messages[] entry's "description"
// (the JSON report copies it from the diagnostic code table), else its first message, else the
// code: "zero_duration: 1479 — complete events of zero duration (usual for some Kineto
// events)"; `count` < 0: no count.
std::string DiagnosticText(const std::string& code, double count, const reports::DiagnosticMessage& message);
// The report's diagnostics: one entry per code (messages[] where present, else counters),
// with its severity ("info", "data_loss", "error"; "" when unknown).
struct DiagnosticEntry {
  std::string code;
  std::string severity;
  double count = 0;
  std::string text;  // DiagnosticText
};
std::vector<DiagnosticEntry> Diagnostics(const nlohmann::json& report);

// Job reports (several ranks): what a job-level number is, as the report defines it
// (job.definitions.<section>: "mean over ranks", "worst rank per dimension", ...); "" in a
// one-rank report.
std::string JobDefinition(const nlohmann::json& report, const char* section);
// " (rank 3)" when `record` carries numbers_of_rank at `pointer` (a job's matrix dimension or
// finding: its numbers are that rank's), else "".
std::string OfRank(const nlohmann::json& record, const char* pointer);
std::string OfRank(std::optional<double> numbers_of_rank);
// False when the trace recorded no GPU activity (gpu.activity_recorded false): its GPU busy and
// idle shares are then not 0% and 100% but unknown, and the human outputs say so once.
bool GpuActivityRecorded(const nlohmann::json& report);
inline constexpr const char kNoGpuActivity[] =
    "no GPU activity was recorded (no kernels, copies or memsets; finding no_gpu_activity_recorded says why)";
// The one reason shared by every row of a section (`pointer`: the matrix or the checklist) when
// all its rows are unknown for that same reason, as on a recording without GPU activity (5
// dimensions and 7 items with one cause); "" otherwise. The section then says it once.
std::string SharedUnknownReason(const std::vector<reports::DimensionView>& matrix);
std::string SharedUnknownReason(const std::vector<reports::ChecklistItemView>& checklist);
// A checklist item's value cell, the same in every output: the number in its unit; "-" when not
// applicable, "not measured" when there is no number; a number on a job's item says whose it is,
// " (rank N)" (numbers_of_rank).
std::string ChecklistValueCell(const reports::ChecklistItemView& item);
// A matrix dimension's headline value, "(rank N)" after it in a job; "n/a" (with no rank: a
// missing value is nobody's) when the headline has none.
std::string DimensionValueCell(const reports::DimensionView& dimension);
// The steps a finding's times are said against: in a job report, those of the rank whose numbers
// it carries (evidence.numbers_of_rank, that rank's section in ranks[]): each rank's times are
// relative to its own steps. Else `report_clock`.
StepClock FindingClock(const nlohmann::json& report, const reports::FindingView& finding, const StepClock& report_clock);

// The roofline to show: the top level for one rank, else rank 0's (and `note` says so); one that
// is not `present` when the report has none.
const reports::RooflineSection& RooflineToShow(const reports::RooflineView& view, std::string* note);

}  // namespace ampscope::render

#include "analyzers/results/results.h"

#include "base/percentile.h"

#include <algorithm>
#include <cmath>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "base/units.h"

namespace ampscope {

namespace {

// Linear interpolation between closest ranks (numpy's default percentile).

}  // namespace

void IdleGapCauseTable::Add(const IdleGapCauses& split) {
  AMPSCOPE_CHECK(piece_ns_.size() <= UINT32_MAX - kIdleCauses);
  gap_.push_back(split.gap);
  first_piece_.push_back(static_cast<uint32_t>(piece_ns_.size()));
  for (size_t c = 0; c < kIdleCauses; ++c) {
    if (split.ns[c] == 0) continue;
    piece_cause_.push_back(static_cast<IdleCause>(c));
    piece_ns_.push_back(split.ns[c]);
  }
}

void IdleGapCauseTable::Reserve(size_t splits) {
  gap_.reserve(splits);
  first_piece_.reserve(splits);
  piece_cause_.reserve(splits);
  piece_ns_.reserve(splits);
}

void IdleGapCauseTable::TrimSlack() {
  if (piece_ns_.capacity() - piece_ns_.size() > piece_ns_.size() / 4) {
    piece_cause_.shrink_to_fit();
    piece_ns_.shrink_to_fit();
  }
}

void IdleGapCauseTable::clear() {
  gap_.clear();
  first_piece_.clear();
  piece_cause_.clear();
  piece_ns_.clear();
}

IdleGapCauses IdleGapCauseTable::operator[](size_t i) const {
  IdleGapCauses split;
  split.gap = gap_[i];
  const size_t end = i + 1 < first_piece_.size() ? first_piece_[i + 1] : piece_ns_.size();
  for (size_t p = first_piece_[i]; p < end; ++p) split.ns[static_cast<size_t>(piece_cause_[p])] = piece_ns_[p];
  return split;
}

size_t IdleGapCauseTable::allocated_bytes() const {
  return gap_.capacity() * sizeof(uint32_t) + first_piece_.capacity() * sizeof(uint32_t) +
         piece_cause_.capacity() * sizeof(IdleCause) + piece_ns_.capacity() * sizeof(TimeNs);
}

StepStats ComputeStepStats(const StepAnalysis& steps) {
  StepStats s;
  s.durations_us.reserve(steps.steps.size());  // kept in the result, one a step
  for (const StepWindow& w : steps.steps) s.durations_us.push_back(NsToUs(w.duration_ns()));
  if (s.durations_us.empty()) return s;
  double sum = 0;
  for (double d : s.durations_us) sum += d;
  s.mean_us = sum / s.durations_us.size();
  s.median_us = Percentile(s.durations_us, 50);
  s.p90_us = Percentile(s.durations_us, 90);
  s.min_us = *std::min_element(s.durations_us.begin(), s.durations_us.end());
  s.max_us = *std::max_element(s.durations_us.begin(), s.durations_us.end());
  // A trace read for some of its steps (StepSampling): the kept steps lean to the longest, so
  // the summary is every step's, from the reader's first pass (their ProfilerStep ranges).
  if (const StepSampling& all = steps.sampling; all.steps_in_trace > 0) {
    s.mean_us = all.mean_us, s.median_us = all.median_us, s.p90_us = all.p90_us;
    s.min_us = all.min_us, s.max_us = all.max_us;
  }
  return s;
}

}  // namespace ampscope

// The bounds every reader keeps the times it accepts within, so that no span or sum an analyzer
// computes over one trace can overflow int64 (issue 16: UBSan found ~30 overflow sites fed by
// times near +/-2^63).
//
// - Every time is within +/-kMaxAbsTimeNs (2^62 ns, about 146 years either side of the clock's
//   zero: years 1824..2116 on the Unix epoch).
// - All times of one trace lie within kMaxTraceSpanNs (2^61 ns, about 73 years) of each other,
//   so end - start of any event, or of any window, is at most 2^61 and a sum of four spans still
//   fits.
// - The durations of all events of one trace add up to at most kMaxTotalDurationNs (2^62 ns), so
//   any sum of (clipped) event durations an analyzer takes, by category, precision or stream,
//   fits too.
// - end < start is a negative_duration diagnostic and the event is read as zero-length; no
//   reader stores a negative duration.
//
// A time outside +/-2^62 is rejected where it is read (with its byte offset). The span and the
// total are checked once the whole trace is read (TimeBounds::Check): times 73 years apart are
// not one trace's clock, and 146 years of events is not a real trace; both are input errors.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "base/saturating.h"
#include "base/status.h"
#include "base/units.h"

namespace ampscope {

inline constexpr TimeNs kMaxAbsTimeNs = TimeNs{1} << 62;
inline constexpr TimeNs kMaxTraceSpanNs = TimeNs{1} << 61;
inline constexpr TimeNs kMaxTotalDurationNs = TimeNs{1} << 62;

inline constexpr bool IsAcceptedTime(TimeNs t) { return t <= kMaxAbsTimeNs && t >= -kMaxAbsTimeNs; }

// The earliest and latest time, and the total duration, of the events a reader accepted, each
// with the offset (byte, or record for record-based formats) of the first event that set it.
// Readers that parse in pieces merge the pieces' bounds in input order (Merge keeps the first
// occurrence on ties, as a single pass would), so the error names the same event either way.
class TimeBounds {
 public:
  // An interval event; callers have already made end >= start.
  void AddInterval(TimeNs start, TimeNs end, int64_t offset) {
    AddInstant(start, offset);
    if (end > max_) {
      max_ = end;
      max_offset_ = offset;
    }
    const TimeNs d = SpanOrZero(start, end);
    total_ = SaturatingAdd(total_, d);
    if (d > longest_) {
      longest_ = d;
      longest_offset_ = offset;
    }
  }
  void AddInstant(TimeNs t, int64_t offset) {
    if (t < min_) {
      min_ = t;
      min_offset_ = offset;
    }
    if (t > max_) {
      max_ = t;
      max_offset_ = offset;
    }
  }
  // `later` covers input after everything this one saw.
  void Merge(const TimeBounds& later) {
    if (later.min_ < min_) min_ = later.min_, min_offset_ = later.min_offset_;
    if (later.max_ > max_) max_ = later.max_, max_offset_ = later.max_offset_;
    total_ = SaturatingAdd(total_, later.total_);
    if (later.longest_ > longest_) longest_ = later.longest_, longest_offset_ = later.longest_offset_;
  }

  bool empty() const { return max_ < min_; }
  TimeNs min() const { return min_; }
  TimeNs max() const { return max_; }
  TimeNs total_duration() const { return total_; }

  // "<name>: byte <offset>: ..." when the span or the total is beyond its bound.
  Status Check(const std::string& name) const {
    return CheckWith(name, [](int64_t offset) { return "byte " + std::to_string(offset); });
  }
  // The same, with `where(offset)` naming an offset ("table T row N" for a database).
  template <typename Where>
  Status CheckWith(const std::string& name, Where&& where) const {
    if (empty()) return Status::Ok();
    // Both within +/-2^62, so the difference fits in uint64.
    const uint64_t span = static_cast<uint64_t>(max_) - static_cast<uint64_t>(min_);
    if (span > static_cast<uint64_t>(kMaxTraceSpanNs)) {
      return Status::Error(name + ": " + where(max_offset_) + ": time " + std::to_string(max_) +
                           " ns is more than 2^61 ns (about 73 years) after the earliest time, " + std::to_string(min_) +
                           " ns at " + where(min_offset_) + "; the times are not on one clock");
    }
    if (total_ > kMaxTotalDurationNs) {
      return Status::Error(name + ": " + where(longest_offset_) +
                           ": the events' durations add up to more than 2^62 ns (about 146 years; the longest event "
                           "starts here); not a real trace");
    }
    return Status::Ok();
  }

 private:
  TimeNs min_ = std::numeric_limits<TimeNs>::max();
  TimeNs max_ = std::numeric_limits<TimeNs>::min();
  TimeNs total_ = 0;
  TimeNs longest_ = -1;
  int64_t min_offset_ = -1;
  int64_t max_offset_ = -1;
  int64_t longest_offset_ = -1;
};

}  // namespace ampscope

// base/diagnostics.h: the code table and the counter. The ids below are report keys
// (diagnostics.counters) that CI scripts read: they are listed here literally, as the report
// contract (docs/report_schema.md) fixes them, not copied from the table.
#include "base/diagnostics.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ampscope {
namespace diagnostics_test {
namespace {

bool IsSnakeCase(const std::string& s) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

TEST(DiagnosticTable, EveryCodeOnceWithIdSeverityAndDescription) {
  std::set<std::string> ids;
  for (size_t i = 0; i < static_cast<size_t>(DiagCode::kCount); ++i) {
    const DiagnosticInfo& d = DiagnosticInfoOf(static_cast<DiagCode>(i));
    EXPECT_EQ(static_cast<size_t>(d.code), i);
    EXPECT_TRUE(IsSnakeCase(d.id)) << d.id;
    EXPECT_TRUE(ids.insert(d.id).second) << "declared twice: " << d.id;
    EXPECT_GT(std::string(d.description).size(), 20u) << d.id;
    EXPECT_EQ(FindDiagnostic(d.id), &d);
  }
  EXPECT_EQ(FindDiagnostic("not_a_code"), nullptr);
  EXPECT_STREQ(DescribeDiagnostic("not_a_code"), "");
}

TEST(DiagnosticTable, IdsAndSeveritiesAreTheReportContract) {
  struct Expected {
    DiagCode code;
    const char* id;
    Severity severity;
  };
  // The ids and severities the readers have written since the first release.
  const Expected kExpected[] = {
      {DiagCode::kUnsortedEvents, "unsorted_events", Severity::kInfo},
      {DiagCode::kBadFieldType, "bad_field_type", Severity::kDataLoss},
      {DiagCode::kMissingField, "missing_field", Severity::kDataLoss},
      {DiagCode::kUnsupportedPhase, "unsupported_phase", Severity::kInfo},
      {DiagCode::kNegativeDuration, "negative_duration", Severity::kDataLoss},
      {DiagCode::kZeroDuration, "zero_duration", Severity::kInfo},
      {DiagCode::kUnknownCategory, "unknown_category", Severity::kInfo},
      {DiagCode::kUnknownSyncKind, "unknown_sync_kind", Severity::kInfo},
      {DiagCode::kDuplicateMetadata, "duplicate_metadata", Severity::kInfo},
      {DiagCode::kUnmatchedCorrelation, "unmatched_correlation", Severity::kDataLoss},
      {DiagCode::kMissingDeviceProperties, "missing_device_properties", Severity::kInfo},
      {DiagCode::kTruncatedFile, "truncated_file", Severity::kDataLoss},
      {DiagCode::kTrailingBytes, "trailing_bytes", Severity::kInfo},
      {DiagCode::kCorruptChunk, "corrupt_chunk", Severity::kDataLoss},
      {DiagCode::kBadRecordSize, "bad_record_size", Severity::kDataLoss},
      {DiagCode::kUnknownChunkType, "unknown_chunk_type", Severity::kInfo},
      {DiagCode::kUnknownStringId, "unknown_string_id", Severity::kDataLoss},
      {DiagCode::kCuptiDroppedRecords, "cupti_dropped_records", Severity::kDataLoss},
      {DiagCode::kCuptiBuffersRefused, "cupti_buffers_refused", Severity::kDataLoss},
      {DiagCode::kNvtxEventsDropped, "nvtx_events_dropped", Severity::kDataLoss},
      {DiagCode::kProfilerStoppedEarly, "profiler_stopped_early", Severity::kDataLoss},
      {DiagCode::kApiRecordsFiltered, "api_records_filtered", Severity::kInfo},
      {DiagCode::kUnknownCuptiRecords, "unknown_cupti_records", Severity::kInfo},
      {DiagCode::kNvtxUnmatchedPop, "nvtx_unmatched_pop", Severity::kInfo},
      {DiagCode::kNvtxUnmatchedEnd, "nvtx_unmatched_end", Severity::kInfo},
      {DiagCode::kUnknownNvtxEvent, "unknown_nvtx_event", Severity::kInfo},
      {DiagCode::kNvtxUnclosedRange, "nvtx_unclosed_range", Severity::kInfo},
      {DiagCode::kAnalysisFailed, "analysis_failed", Severity::kError},
      {DiagCode::kNoGpuActivity, "no_gpu_activity", Severity::kInfo},
  };
  for (const Expected& e : kExpected) {
    EXPECT_STREQ(DiagnosticInfoOf(e.code).id, e.id);
    EXPECT_EQ(DiagnosticInfoOf(e.code).severity, e.severity) << e.id;
  }
}

TEST(Diagnostics, CountsWithTheTableSeverityAndKeepsTheFirstOccurrence) {
  Diagnostics d;
  d.Add(DiagCode::kZeroDuration, 10, "first");
  d.Add(DiagCode::kZeroDuration, 99, "second");
  d.AddCount(DiagCode::kNegativeDuration, 0, 5, "nothing");  // n == 0 adds no entry
  d.AddCount(DiagCode::kUnmatchedCorrelation, 3, 7, "three");
  EXPECT_EQ(d.Count(DiagCode::kZeroDuration), 2u);
  EXPECT_EQ(d.Count("zero_duration"), 2u);
  EXPECT_EQ(d.Count(DiagCode::kNegativeDuration), 0u);
  const DiagnosticEntry& z = d.entries().at("zero_duration");
  EXPECT_EQ(z.severity, Severity::kInfo);
  EXPECT_EQ(z.first_offset, 10);
  EXPECT_EQ(z.first_message, "first");
  EXPECT_EQ(d.entries().at("unmatched_correlation").count, 3u);
  EXPECT_EQ(d.entries().at("unmatched_correlation").severity, Severity::kDataLoss);
}

TEST(Diagnostics, EscalationAndCodesFromTheInput) {
  Diagnostics d;
  d.AddCountEscalated(DiagCode::kNvtxUnclosedRange, Severity::kInfo, 1, -1, "clean");
  EXPECT_EQ(d.entries().at("nvtx_unclosed_range").severity, Severity::kInfo);
  d.AddCountEscalated(DiagCode::kNvtxUnclosedRange, Severity::kDataLoss, 2, -1, "truncated");
  EXPECT_EQ(d.entries().at("nvtx_unclosed_range").severity, Severity::kDataLoss);
  EXPECT_EQ(d.entries().at("nvtx_unclosed_range").count, 3u);
  // Never below the table's severity.
  d.AddCountEscalated(DiagCode::kCorruptChunk, Severity::kInfo, 1, -1, "x");
  EXPECT_EQ(d.entries().at("corrupt_chunk").severity, Severity::kDataLoss);
  // A code from a newer collector, unknown to this table, is kept as the file says.
  d.AddFromInput("some_future_warning", Severity::kError, -1, "from the file");
  EXPECT_EQ(d.entries().at("some_future_warning").severity, Severity::kError);
}

TEST(Diagnostics, MergeAddsCountsAndKeepsTheWorstSeverity) {
  Diagnostics a, b;
  a.Add(DiagCode::kZeroDuration, 1, "a");
  b.AddCount(DiagCode::kZeroDuration, 4, 2, "b");
  b.Add(DiagCode::kAnalysisFailed, -1, "rank 1");
  a.Merge(b);
  EXPECT_EQ(a.Count(DiagCode::kZeroDuration), 5u);
  EXPECT_EQ(a.entries().at("zero_duration").first_message, "a");
  EXPECT_EQ(a.entries().at("analysis_failed").severity, Severity::kError);
  EXPECT_STREQ(SeverityName(Severity::kDataLoss), "data_loss");
}

}  // namespace
}  // namespace diagnostics_test
}  // namespace ampscope

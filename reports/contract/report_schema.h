// The report contract's identity: the one place its schema string is declared. The writer
// (reports/json_report.cc) stamps it; every reader (reports/contract/report_reader.h: gate, diff,
// merge's checks) checks it. Field names and meanings: docs/report_schema.md.
#pragma once

namespace ampscope {

inline constexpr const char* kReportSchema = "ampscope.report/1";

}  // namespace ampscope

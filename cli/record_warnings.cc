#include "cli/record_warnings.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace ampscope::cli {

namespace {

const char* SeverityText(AmpSeverity s) {
  switch (s) {
    case AmpSeverity::kInfo: return "info";
    case AmpSeverity::kWarning: return "warning";
    default: return "error";
  }
}

// Warnings that mean the recording does not hold the GPU activity it was made for.
bool MeansEmpty(const std::string& id) {
  static const char* kEmpty[] = {"no_files",        "no_cuda_activity",      "cupti_unavailable",
                                 "cupti_load_failed", "another_cupti_subscriber", "cupti_version_mismatch",
                                 "zero_kernels",    "capture_range_not_reached", "write_failed",
                                 "unreadable_file"};
  for (const char* e : kEmpty)
    if (id == e) return true;
  return false;
}

// The warnings so far, with an index by id: one lookup per warning read, however many distinct
// ids the files hold (a search of the list each time made 160k ids take 40 s).
struct Collected {
  std::vector<RecordWarning> list;
  std::unordered_map<std::string, size_t> by_id;
};

void Add(Collected& out, const std::string& id, const std::string& severity, const std::string& message,
         const std::string& file) {
  auto [it, inserted] = out.by_id.emplace(id, out.list.size());
  if (!inserted) {
    // Files are read one after another, so a file already listed for this id is the last one.
    RecordWarning& w = out.list[it->second];
    if (!file.empty() && (w.files.empty() || w.files.back() != file)) w.files.push_back(file);
    return;
  }
  RecordWarning w;
  w.id = id;
  w.severity = severity;
  w.message = message;
  if (!file.empty()) w.files.push_back(file);
  w.empty_recording = MeansEmpty(id);
  out.list.push_back(std::move(w));
}

bool Has(const AmptraceSummary& s, const char* code) {
  for (const AmptraceWarning& w : s.warnings)
    if (w.code == code) return true;
  return false;
}

}  // namespace

std::vector<RecordWarning> CollectRecordWarnings(const std::vector<RecordedFile>& files) {
  Collected out;
  for (const RecordedFile& f : files) {
    if (!f.summary.ok()) {
      Add(out, "unreadable_file", "error", f.summary.status().message(), f.name);
      continue;
    }
    const AmptraceSummary& s = f.summary.value();
    for (const AmptraceWarning& w : s.warnings) Add(out, w.code, SeverityText(w.severity), w.message, f.name);
    if (!s.clean_end)
      Add(out, "truncated_file", "warning",
          "a file has no footer: its process was killed or crashed before the collector closed it; it reads up "
          "to its last complete chunk",
          f.name);
    // CUPTI was recording, the window (if any) opened, and still no kernel: the program's
    // GPU work ran outside what was recorded, or it launched none.
    auto kernels = s.records_by_type.find(AmpChunkType::kKernel);
    const bool cupti_active = (s.footer_flags & kAmpFooterFlagCuptiActive) != 0;
    if (cupti_active && (kernels == s.records_by_type.end() || kernels->second == 0) &&
        !Has(s, "capture_range_not_reached"))
      Add(out, "zero_kernels", "warning",
          "CUPTI was recording but no kernel was recorded: the program launched no GPU kernel while it ran under "
          "ampscope (check that it uses the GPU, e.g. torch.cuda.is_available(), and that its work is inside the "
          "--steps window)",
          f.name);
  }
  if (files.empty())
    Add(out, "no_files", "warning",
        "no .amptrace file was written: the program never initialized CUDA and used no NVTX (is it a GPU "
        "program? is CUDA_VISIBLE_DEVICES empty?), or the collector could not write to the output directory",
        "");
  return std::move(out.list);
}

std::string WarningLine(const RecordWarning& w, size_t total_files) {
  std::string line = "ampscope record: " + w.id + ": " + w.message;
  if (total_files > 1 && !w.files.empty())
    line += " (in " + std::to_string(w.files.size()) + " of " + std::to_string(total_files) + " files)";
  // One line each: messages never carry newlines of their own.
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

}  // namespace ampscope::cli

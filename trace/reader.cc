#include "trace/reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace/formats/amptrace/amptrace_reader.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"
#include "trace/formats/ncu/ncu_reader.h"
#include "trace/formats/nsys/nsys_reader.h"

namespace ampscope {

namespace {

// What the first bytes of a file say it is. Each format has one folder under trace/formats/;
// adding a format means adding its signature here and its reader call in ReadTrace.
enum class DetectedFormat : uint8_t {
  kAmptrace,  // magic "AMPTRACE" (trace/formats/amptrace/amptrace_format.h)
  kNsys,      // the SQLite header "SQLite format 3\0" (16 bytes) of an Nsight Systems export, or a
              // .nsys-rep / .qdrep report (refused with the nsys export command): trace/formats/nsys/
  kKineto,    // everything else: Kineto JSON, plain or gzip'd (the reader sniffs gzip itself); an
              // Nsight Compute CSV or .ncu-rep is refused first (trace/formats/ncu/)
};

constexpr size_t kSniffBytes = 16;

DetectedFormat Detect(const std::string& path, const unsigned char* head, size_t n) {
  if (n >= 8 && std::memcmp(head, "AMPTRACE", 8) == 0) return DetectedFormat::kAmptrace;
  if (IsNsysInput(path, head, n)) return DetectedFormat::kNsys;
  return DetectedFormat::kKineto;
}

}  // namespace

InputKind DetectInputKind(const std::string& path) {
  return IsMemorySnapshotInput(path) ? InputKind::kMemorySnapshot : InputKind::kTrace;
}

StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  unsigned char head[kSniffBytes] = {0};
  const size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  if (LooksLikePickle(head, n) || DetectInputKind(path) == InputKind::kMemorySnapshot)
    return Status::Error(path + ": byte 0: a PyTorch memory snapshot (pickle), not a trace: give it to `ampscope analyze` "
                         "alone or beside the trace of the same run");
  switch (Detect(path, head, n)) {
    case DetectedFormat::kAmptrace: return ReadAmptrace(path);
    case DetectedFormat::kNsys: return ReadNsysInput(path, {options.progress});
    case DetectedFormat::kKineto: break;
  }
  // An Nsight Compute export is kernel metrics, not a timeline: the caller reads it with
  // ReadNcuCsv (analysed alone, or joined to a trace with --ncu).
  if (const NcuInputKind ncu = SniffNcuInput(path); ncu != NcuInputKind::kNotNcu)
    return Status::Error(ncu == NcuInputKind::kCsv
                             ? path + ": an Nsight Compute CSV, not a trace: analyse it alone (`ampscope analyze " + path +
                                   "`) or beside a trace of the same run (`--ncu " + path + "`)"
                             : NcuRefusalMessage(path, ncu));
  KinetoReadOptions kopts;
  kopts.progress = options.progress;
  kopts.threads = options.threads;
  kopts.keep_other_events = options.keep_export_only_events;
  kopts.keep_export_only_flows = options.keep_export_only_events;
  return ReadKinetoTrace(path, kopts);
}

}  // namespace ampscope

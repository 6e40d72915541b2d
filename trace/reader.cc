#include "trace/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "trace/formats/amptrace/amptrace_reader.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"
#include "trace/formats/ncu/ncu_reader.h"
#include "trace/formats/nsys/nsys_reader.h"
#include "trace/io/input_stream.h"

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


KinetoReadOptions KinetoOptions(const ReadOptions& options) {
  KinetoReadOptions kopts;
  kopts.progress = options.progress;
  kopts.threads = options.threads;
  kopts.keep_other_events = options.keep_export_only_events;
  kopts.keep_export_only_flows = options.keep_export_only_events;
  kopts.detail_steps = options.detail_steps;
  return kopts;
}

// A pipe, FIFO, `<(...)` or stdin: the first bytes are read from the stream once and handed on
// to the reader with the rest, never read again by reopening the path (they would be gone).
StatusOr<Trace> ReadTraceStream(int fd, const std::string& name, const ReadOptions& options) {
  StatusOr<std::string> head = ReadStreamPrefix(fd, kSniffBytes);
  if (!head.ok()) {
    ::close(fd);
    return Status::Error(name + ": " + head.status().message());
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(head->data());
  if (LooksLikePickle(bytes, head->size())) {
    ::close(fd);
    return Status::Error(name + ": byte 0: a PyTorch memory snapshot (pickle), not a trace: save it to a file and give "
                                "it to `ampscope analyze` alone or beside the trace of the same run");
  }
  const DetectedFormat format = Detect(name, bytes, head->size());
  if (format != DetectedFormat::kKineto) {
    ::close(fd);
    return Status::Error(name + ": byte 0: " +
                         (format == DetectedFormat::kAmptrace ? "an .amptrace file" : "an Nsight Systems SQLite export") +
                         " is read with seeks and cannot come through a pipe; save it to a file and name that file");
  }
  std::unique_ptr<ByteSource> source = MakeStreamByteSource(fd, std::move(*head));
  return ReadKinetoTraceFromSource(*source, name, KinetoOptions(options));
}

}  // namespace

InputKind DetectInputKind(const std::string& path) {
  return IsMemorySnapshotInput(path) ? InputKind::kMemorySnapshot : InputKind::kTrace;
}

StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options) {
  // "-" is stdin: `zcat t.json.gz | ampscope analyze -`.
  const bool stdin_input = path == "-";
  const std::string name = stdin_input ? "stdin" : path;
  const int fd = stdin_input ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(name + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::Error(name + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return ReadTraceStream(fd, name, options);
  unsigned char head[kSniffBytes] = {0};
  ssize_t n = 0;
  do {
    n = ::pread(fd, head, sizeof(head), 0);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (stdin_input) return ReadTrace("/dev/stdin", options);  // `< file`: a file, read as any file
  if (LooksLikePickle(head, n > 0 ? static_cast<size_t>(n) : 0) || DetectInputKind(path) == InputKind::kMemorySnapshot)
    return Status::Error(path + ": byte 0: a PyTorch memory snapshot (pickle), not a trace: give it to `ampscope analyze` "
                         "alone or beside the trace of the same run");
  switch (Detect(path, head, n > 0 ? static_cast<size_t>(n) : 0)) {
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
  return ReadKinetoTrace(path, KinetoOptions(options));
}

}  // namespace ampscope

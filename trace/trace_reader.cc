#include "trace/trace_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

// Both readers are landing concurrently; guard until they exist.
#if __has_include("trace/amptrace_reader.h")
#include "trace/amptrace_reader.h"
#define AMPSCOPE_HAVE_AMPTRACE_READER 1
#endif
#if __has_include("trace/kineto_reader.h")
#include "trace/kineto_reader.h"
#define AMPSCOPE_HAVE_KINETO_READER 1
#endif

namespace ampscope {

StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  char magic[8] = {0};
  size_t n = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  if (n == sizeof(magic) && std::memcmp(magic, "AMPTRACE", 8) == 0) {
#ifdef AMPSCOPE_HAVE_AMPTRACE_READER
    return ReadAmptrace(path);
#else
    return Status::Error(path + ": .amptrace reader not built");
#endif
  }
#ifdef AMPSCOPE_HAVE_KINETO_READER
  KinetoReadOptions kopts;
  kopts.progress = options.progress;
  return ReadKinetoTrace(path, kopts);
#else
  (void)options;
  return Status::Error(path + ": Kineto reader not built");
#endif
}

}  // namespace ampscope

#include "trace/trace_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace/amptrace_reader.h"
#include "trace/formats/nsys/nsys_reader.h"
#include "trace/kineto_reader.h"

namespace ampscope {

StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  unsigned char magic[16] = {0};
  size_t n = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  if (n >= 8 && std::memcmp(magic, "AMPTRACE", 8) == 0) return ReadAmptrace(path);
  if (IsNsysInput(path, magic, n)) return ReadNsysInput(path, {options.progress});
  KinetoReadOptions kopts;
  kopts.progress = options.progress;
  return ReadKinetoTrace(path, kopts);
}

}  // namespace ampscope

#include "cli/stdout_check.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace ampscope::cli {

int FinishStdout(const char* command, int exit_code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return exit_code;
  std::fprintf(stderr, "ampscope %s: cannot write to standard output: %s\n", command,
               err != 0 ? std::strerror(err) : "a write failed (disk full, closed pipe or I/O error)");
  return 2;
}

}  // namespace ampscope::cli

#include "render/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ampscope::render {

size_t TerminalWidth(int fd) {
  struct winsize ws {};
  if (fd >= 0 && isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::max<size_t>(ws.ws_col, kMinWidth);
  // COLUMNS as shells export it; anything but a plain positive number is ignored.
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    long v = std::strtol(columns, &end, 10);
    if (end != nullptr && *end == '\0' && v > 0 && v < 100000) return std::max<size_t>(static_cast<size_t>(v), kMinWidth);
  }
  return kDefaultWidth;
}

bool TerminalWantsColor(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return stream != nullptr && isatty(fileno(stream)) == 1;
}

}  // namespace ampscope::render

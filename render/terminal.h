// Where terminal output goes: how wide it is and whether it wants colour.
#pragma once

#include <cstddef>
#include <cstdio>

namespace ampscope::render {

inline constexpr size_t kDefaultWidth = 100;  // neither a terminal nor COLUMNS says otherwise
inline constexpr size_t kMinWidth = 20;       // narrower requests are raised to this

// Columns of the terminal on `fd` (ioctl TIOCGWINSZ), else the COLUMNS environment variable
// (a positive integer), else kDefaultWidth. Never below kMinWidth.
size_t TerminalWidth(int fd);

// True when `stream` is a terminal and colour is not turned off: NO_COLOR (no-color.org, any
// non-empty value) and TERM=dumb turn it off.
bool TerminalWantsColor(std::FILE* stream);

}  // namespace ampscope::render

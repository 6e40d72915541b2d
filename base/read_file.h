// Reading a small input file whole (a report for gate and diff, a gate config, a GPU peak
// table), never more than a cap: /dev/zero or a mistyped path to a 50 GB trace must end in one
// line, not in 16 GB of memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ampscope {

// The cap every whole-file read of ampscope uses (merge's summaries too).
inline constexpr uint64_t kMaxWholeFileBytes = uint64_t{256} << 20;

// The file's bytes; "<path>: cannot read: <why>", or "<path>: byte <cap>: over 256 MiB: not
// <what>" once more than `max_bytes` have been read (a FIFO and a device are read up to there).
StatusOr<std::string> ReadFileCapped(const std::string& path, std::string_view what,
                                     uint64_t max_bytes = kMaxWholeFileBytes);

}  // namespace ampscope

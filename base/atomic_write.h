// Writing output files: the one implementation every output of ampscope goes through (JSON
// report, HTML, Markdown, Chrome/Perfetto traces, gate JUnit/Markdown/JSON, session.json).
//
// What a set of outputs gets (WriteOutputs):
//   - A regular file (or a path that does not exist yet) is written to a temporary file in the
//     same directory, and renamed over the path only after EVERY output of the set was written
//     successfully. Every write and the close are checked (ENOSPC, EIO, EDQUOT are errors). On
//     any failure the temporaries are removed and no output of the set appears or changes.
//   - A special file (character device such as /dev/null, FIFO, socket, or /dev/stdout, which
//     is a link to the process's fd 1) is written in place, after the regular files' temporaries:
//     it is never replaced by a regular file, even when running as root.
//   - A symbolic link at the path (other than to a special file) is refused with a one-line
//     error before anything is written: replacing it would break the link, writing through it
//     would modify a file the user may not have meant.
//   - A directory at the path is an error.
//
// CheckOutputPaths refuses an output that would overwrite an input, or that two outputs share.
// Commands call it before reading anything, so a typo costs no work and clobbers nothing.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ampscope {

// Produces an output's bytes into `out`. Returning an error aborts the whole set; a failed
// write to `out` (full disk) is detected after the writer returns.
using OutputWriterFn = std::function<Status(std::ostream& out)>;

struct OutputSpec {
  std::string path;
  OutputWriterFn write;
};

// An output whose contents are already in memory.
OutputSpec TextOutput(std::string path, std::string contents);

// Writes every output, or none (see the top of this file). Errors name the path:
// "r.html: write failed: No space left on device".
Status WriteOutputs(const std::vector<OutputSpec>& outputs);

// One file, same rules.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// An error if an output is also an input (same device and inode, or the same path once made
// absolute and normalised, for files that do not exist yet) or if two outputs are the same
// file. Character devices (/dev/null) may be named more than once. Empty paths are ignored.
Status CheckOutputPaths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

// An error if two inputs are the same file (same device and inode, or the same normalised path):
// each input of `analyze` / `merge` is one rank, and one file twice is not two ranks.
Status CheckDistinctInputs(const std::vector<std::string>& inputs);

}  // namespace ampscope

// Writing output files: the one implementation every output of ampscope goes through (JSON
// report, HTML, Markdown, Chrome/Perfetto traces, gate JUnit/Markdown/JSON, session.json).
//
// What a set of outputs gets (WriteOutputs):
//   - A regular file (or a path that does not exist yet) is written to a temporary file in the
//     same directory, and renamed over the path only after EVERY output of the set was written
//     successfully. Every write and the close are checked (ENOSPC, EIO, EDQUOT are errors). On
//     any failure the temporaries are removed and no output of the set appears or changes.
//   - The commit keeps every file it replaces until every rename has succeeded: each is first
//     hard-linked aside (moved aside where the file system has no hard links); a rename that
//     fails puts every file already replaced back as it was, and removes the ones that are new.
//     A file that can be neither linked nor moved aside (immutable, another user's in a sticky
//     directory) fails the set before anything is replaced.
//   - A replaced file's permission bits are kept (a 0600 report stays 0600); a new file gets
//     0666 less the umask.
//   - SIGINT, SIGTERM or SIGHUP while the set is written removes its temporaries, then the
//     signal does what it would have done (base/temp_files.h): a shell sees 128+N. During the
//     renames the signals wait until the set is committed or rolled back whole.
//   - A special file (character device such as /dev/null, FIFO, socket, or /dev/stdout, which
//     is a link to the process's fd 1) is written in place, after the regular files' temporaries:
//     it is never replaced by a regular file, even when running as root. A FIFO that no process
//     has open for reading is waited for (WriteOptions::fifo_wait_ms), then an error.
//   - A symbolic link at the path (other than to a special file) is refused with a one-line
//     error before anything is written: replacing it would break the link, writing through it
//     would modify a file the user may not have meant.
//   - A directory at the path, and an empty path, are errors.
//
// CheckOutputPaths refuses an output that would overwrite an input, or that two outputs share,
// and an output whose directory is missing or cannot be written. Commands call it before
// reading anything, so a typo costs no work and clobbers nothing.
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

struct WriteOptions {
  // How long a FIFO output may have no reader before the set fails ("no process is reading").
  int fifo_wait_ms = 10000;
};

// Writes every output, or none (see the top of this file). Errors name the path:
// "r.html: write failed: No space left on device".
Status WriteOutputs(const std::vector<OutputSpec>& outputs, const WriteOptions& options = {});

// One file, same rules.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// An error if an output is also an input (same device and inode, or the same path once made
// absolute and normalised, for files that do not exist yet), if two outputs are the same
// file, or if an output's directory is missing, not a directory or not writable ("r.json:
// cannot write into /ro: Permission denied"). Character devices (/dev/null) may be named more
// than once. Empty paths are ignored (an option not given; the commands refuse `-o ""`).
Status CheckOutputPaths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

// An error if two inputs are the same file (same device and inode, or the same normalised path):
// each input of `analyze` / `merge` is one rank, and one file twice is not two ranks.
Status CheckDistinctInputs(const std::vector<std::string>& inputs);

}  // namespace ampscope

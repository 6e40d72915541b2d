// A command's output that could not be written is a failure, not a success: `ampscope analyze
// T > /dev/full` must not exit 0. Each command ends through FinishStdout.
#pragma once

namespace ampscope::cli {

// Flushes stdout (C stdio and std::cout). If any write to it failed (ENOSPC, EIO, EPIPE with
// SIGPIPE ignored...), prints "ampscope <command>: cannot write to standard output: <reason>"
// on stderr and returns 2; otherwise returns `exit_code`.
int FinishStdout(const char* command, int exit_code);

}  // namespace ampscope::cli

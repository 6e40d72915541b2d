// Runs a command the way `ampscope record` needs: execvp (never a shell), extra environment,
// signals forwarded, the child's exit status returned.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ampscope::cli {

struct LaunchResult {
  bool started = false;   // false: the program could not be executed (see exec_errno, error)
  int exec_errno = 0;
  std::string error;
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal killed it
  int pid = -1;
  // The last of SIGINT, SIGTERM, SIGHUP, SIGQUIT this process received while the program ran
  // (0: none). When the program then died by that same signal, the caller dies by it too once
  // it has finished (ReleaseSignals): bash's rule for a wrapper of a foreground job, so that a
  // shell loop around `ampscope record` stops on Ctrl-C.
  int received = 0;
};

// Exit code a shell would report: the child's code, 128 + signal when killed, 127 when the
// program was not found, 126 when it could not be executed.
int ShellExitCode(const LaunchResult& r);

// Finds `program` the way execvp will (PATH search unless it contains '/'); false if there is
// no executable file by that name. `error` (may be null) then says why, as a shell would:
// ENOENT no such file (exit 127), EACCES a file without the exec bit or a directory (126).
bool FindProgram(const std::string& program, std::string* resolved, int* error = nullptr);

// Forks, sets `env` in the child, execvp(argv[0], argv). SIGINT, SIGTERM, SIGHUP and SIGQUIT
// sent to this process are forwarded to the child (except terminal-generated ones, which the
// terminal already delivered to the child's process group), and so are SIGUSR1 (Slurm's
// --signal), SIGUSR2 and SIGALRM, which no longer end this process. The child gets SIGTERM if
// this process dies without forwarding (PR_SET_PDEATHSIG: `kill -9` on ampscope does not
// orphan the program). Waits for the child.
//
// On return SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked and SIGUSR1, SIGUSR2 and SIGALRM
// ignored, so that what the caller writes about the run (session.json) is written whole; a
// signal that arrives meanwhile waits for ReleaseSignals.
LaunchResult RunAndWait(const std::vector<std::string>& argv,
                        const std::vector<std::pair<std::string, std::string>>& env);

// Puts the signals back as they were before RunAndWait. A terminating signal that arrived after
// the program had exited then ends this process; so does `r.received` when the program died by
// it (re-raised, so the shell sees this process killed by it, not an exit status of 128+N).
void ReleaseSignals(const LaunchResult& r);

// The absolute path of libampscope_inject.so: $AMPSCOPE_INJECT_PATH, else next to the
// ampscope binary, else ../collector/ (the build tree), else ../lib/ampscope/ (installed).
// Empty when none exists; `tried` lists what was looked at.
std::string FindInjectionLibrary(std::string* tried);

}  // namespace ampscope::cli

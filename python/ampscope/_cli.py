"""Finding and running the `ampscope` command-line tool.

The package never analyses anything itself: every call runs the installed CLI, so the numbers are
the CLI's. Which binary runs, first match wins:

1. the ``cli=`` argument of a call;
2. the ``AMPSCOPE_CLI`` environment variable (a path to the binary);
3. ``ampscope`` on ``PATH``.
"""
import os
import shutil
import subprocess

ENV_VAR = "AMPSCOPE_CLI"


class AnalysisError(RuntimeError):
    """The CLI failed: ``message`` is its one-line error, ``exit_code`` its exit status.

    ``exit_code`` is 2 for a usage or input error (the message names the file and the byte
    offset), 127 when no ``ampscope`` binary could be found or run. ``stderr`` is everything the
    CLI printed there; ``command`` the argument list that ran.
    """

    def __init__(self, message, exit_code, stderr="", command=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr
        self.command = list(command) if command else []

    def __str__(self):
        return "%s (exit code %s)" % (self.message, self.exit_code)


def find_cli(cli=None):
    """The path of the ``ampscope`` binary to run (see the module's docstring), or AnalysisError."""
    if cli:
        candidate, origin = os.fspath(cli), "cli="
    elif os.environ.get(ENV_VAR):
        candidate, origin = os.environ[ENV_VAR], ENV_VAR
    else:
        found = shutil.which("ampscope")
        if found is None:
            raise AnalysisError(
                "cannot find the ampscope command: put it on PATH (README.md: Install), set %s to its path, "
                "or pass cli=" % ENV_VAR, 127)
        return found
    resolved = shutil.which(candidate) if os.sep not in candidate else candidate
    if resolved is None or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        raise AnalysisError("%s names %r, which is not an executable file" % (origin, candidate), 127)
    return resolved


def error_line(stderr):
    """The CLI's one-line error: the last non-empty line it wrote to stderr."""
    for line in reversed(stderr.splitlines()):
        if line.strip():
            return line.strip()
    return ""


def run(args, cli=None, ok_codes=(0,), timeout=None, env=None):
    """Runs ``ampscope ARGS``; returns the CompletedProcess (text) when its exit code is in
    ``ok_codes``, else raises AnalysisError with the CLI's message and exit code."""
    command = [find_cli(cli)] + [os.fspath(a) for a in args]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=timeout, env=env)
    except OSError as e:
        raise AnalysisError("cannot run %s: %s" % (command[0], e), 127, command=command) from e
    except subprocess.TimeoutExpired as e:
        raise AnalysisError("%s %s did not finish within %s s" % (command[0], args[0] if args else "", timeout),
                            124, command=command) from e
    if done.returncode not in ok_codes:
        if done.returncode < 0:
            message = "%s was killed by signal %d" % (command[0], -done.returncode)
        else:
            message = error_line(done.stderr) or "%s exited with %d" % (command[0], done.returncode)
        raise AnalysisError(message, done.returncode, done.stderr, command)
    return done


def option_args(options, reserved=()):
    """``key=value`` keyword options as CLI flags: ``step_pattern="x"`` is ``--step-pattern x``,
    ``keep_going=True`` is ``--keep-going``, False and None are left out, a list or tuple is
    joined with commas (``ranks=[0, 7]`` is ``--ranks 0,7``)."""
    args = []
    for key, value in options.items():
        if key in reserved:
            raise TypeError("%s is set by the Python API; it cannot be passed as an option" % key)
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args

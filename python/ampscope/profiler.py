"""``ampscope.profiler_handler``: an ``on_trace_ready`` callback for ``torch.profiler.profile``.

It writes each trace as ``torch.profiler.tensorboard_trace_handler`` does (same directory layout
and file names, ``{worker_name}.{time_ns}.pt.trace.json[.gz]``, worker name
``{hostname}_{pid}`` by default, so TensorBoard, HTA and ampscope all read the same folder), then
analyses it with the ampscope CLI and prints the terminal summary and/or writes the report beside
the trace (``{worker_name}.{time_ns}.ampscope.json`` and ``.html``).

It never raises into the training loop: anything that goes wrong (the trace cannot be written, the
CLI is missing, the analysis fails) is logged on the ``ampscope`` logger, and training goes on.
"""
import gzip
import logging
import os
import shutil
import socket
import sys
import threading
import time

from . import _cli
from .report import analyze

log = logging.getLogger("ampscope")

_TRACE_SUFFIX = ".pt.trace.json"


def profiler_handler(dir_name, worker_name=None, use_gzip=False, *, print_summary=True, write_report=False,
                     background=False, cli=None, **options):
    """An ``on_trace_ready`` handler for ``torch.profiler.profile``.

    ``dir_name``, ``worker_name``, ``use_gzip``: as ``torch.profiler.tensorboard_trace_handler``.
    ``print_summary``: print the terminal summary of each trace (stdout).
    ``write_report``: write ``<trace name>.ampscope.json`` and ``.html`` beside the trace.
    ``background``: analyse on a thread of its own, so the training loop does not wait for it
    (``handler.wait()`` waits for the analyses started so far).
    ``cli``, ``options``: as ``ampscope.analyze`` (e.g. ``steps="5.."``: ProfilerStep numbers, ``gpu="H100-SXM5-80GB"``).

    Usage::

        with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
                                    on_trace_ready=ampscope.profiler_handler("./log/run1")) as prof:
            for batch in loader:
                train_step(batch)
                prof.step()
    """
    return ProfilerHandler(dir_name, worker_name, use_gzip, print_summary=print_summary,
                           write_report=write_report, background=background, cli=cli, options=options)


class ProfilerHandler:
    """The callable ``profiler_handler`` returns. ``traces`` lists the trace files written,
    ``reports`` the Reports of the analyses that succeeded, ``errors`` the failures (as logged)."""

    def __init__(self, dir_name, worker_name=None, use_gzip=False, *, print_summary=True, write_report=False,
                 background=False, cli=None, options=None):
        self.dir_name = os.fspath(dir_name)
        self.worker_name = worker_name
        self.use_gzip = use_gzip
        self.print_summary = print_summary
        self.write_report = write_report
        self.background = background
        self.cli = cli
        self.options = dict(options or {})
        self.traces = []
        self.reports = []
        self.errors = []
        self._threads = []
        self._lock = threading.Lock()

    @property
    def last_report(self):
        with self._lock:
            return self.reports[-1] if self.reports else None

    def __call__(self, prof):
        try:
            path = self._export(prof)
        except Exception as e:  # noqa: BLE001 - the training loop must go on
            self._failed("could not write the profiler trace to %s: %s: %s" % (self.dir_name, type(e).__name__, e))
            return
        if self.background:
            thread = threading.Thread(target=self._analyze, args=(path,), name="ampscope-analyze", daemon=True)
            self._threads.append(thread)
            thread.start()
        else:
            self._analyze(path)

    def wait(self, timeout=None):
        """Waits for the background analyses started so far."""
        for thread in list(self._threads):
            thread.join(timeout)
        self._threads = [t for t in self._threads if t.is_alive()]

    # As torch.profiler.tensorboard_trace_handler: create the folder, name the file, export.
    def _export(self, prof):
        os.makedirs(self.dir_name, exist_ok=True)
        if not self.worker_name:
            self.worker_name = "%s_%d" % (socket.gethostname(), os.getpid())
        file_name = "%s.%d%s" % (self.worker_name, time.time_ns(), _TRACE_SUFFIX)
        if self.use_gzip:
            file_name += ".gz"
        path = os.path.join(self.dir_name, file_name)
        prof.export_chrome_trace(path)
        if self.use_gzip:
            _gzip_in_place(path)
        with self._lock:
            self.traces.append(path)
        return path

    def _analyze(self, path):
        try:
            base = path[:path.rindex(_TRACE_SUFFIX)]
            if self.write_report:
                report = analyze(path, output_dir=os.path.dirname(path) or ".",
                                 name=os.path.basename(base) + ".ampscope", tables=False, cli=self.cli,
                                 **self.options)
            else:
                report = analyze(path, tables=False, html=False, cli=self.cli, **self.options)
            with self._lock:
                self.reports.append(report)
            if self.print_summary:
                print("ampscope: %s" % path)
                report.summary()
                sys.stdout.flush()
            if self.write_report:
                log.info("ampscope: wrote %s and %s", report.files["json"], report.files["html"])
        except _cli.AnalysisError as e:
            self._failed("could not analyse %s: %s (exit code %s)" % (path, e.message, e.exit_code))
        except Exception as e:  # noqa: BLE001 - the training loop must go on
            self._failed("could not analyse %s: %s: %s" % (path, type(e).__name__, e))

    def _failed(self, message):
        with self._lock:
            self.errors.append(message)
        log.error("ampscope: %s", message)


def _gzip_in_place(path):
    """torch's export_chrome_trace gzips a path ending in .gz itself; an exporter that does not
    (an older torch) leaves JSON there, which is compressed here so the name tells the truth."""
    with open(path, "rb") as f:
        if f.read(2) == b"\x1f\x8b":
            return
    tmp = path + ".tmp"
    with open(path, "rb") as src, gzip.open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.replace(tmp, path)

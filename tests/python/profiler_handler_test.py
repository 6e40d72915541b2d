#!/usr/bin/python3
"""ampscope.profiler_handler called the way torch.profiler calls it: `on_trace_ready(prof)` with
`prof` a profile object whose export_chrome_trace(path) writes the trace (gzip'd when the path
ends in .gz, as torch's does). Where torch is installed, also under a real torch.profiler.profile;
elsewhere a stand-in with that documented interface, writing a shared trace.

- the file is named as torch.profiler.tensorboard_trace_handler names it:
  {worker_name}.{time_ns}.pt.trace.json[.gz], worker name {hostname}_{pid} by default;
- the summary printed is `ampscope analyze`'s for that file; write_report puts the JSON and HTML
  reports beside the trace;
- nothing raises into the caller: a failed export, an unreadable trace, a missing CLI and a
  folder that cannot be made are logged on the "ampscope" logger.

usage: profiler_handler_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import gzip
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support as ts  # noqa: E402

ampscope = None
TRACE_JSON = None  # the tb_plugin trace, decompressed: what torch's exporter would write


def check_inputs():
    global ampscope, TRACE_JSON
    TRACE_JSON = ts.gunzip_text(ts.shared(ts.TB_PLUGIN))
    ts.use_source_package()
    import ampscope as module
    ampscope = module


class StandInProfile:
    """torch.profiler.profile as on_trace_ready sees it: export_chrome_trace(path) writes the trace
    JSON, and for a path ending in .gz writes it to a temporary file and gzips it into the path
    (torch/profiler/profiler.py does exactly this)."""

    def __init__(self, text, gzip_itself=True, fail=None):
        self.text = text
        self.gzip_itself = gzip_itself
        self.fail = fail
        self.exported = []

    def export_chrome_trace(self, path):
        if self.fail is not None:
            raise self.fail
        self.exported.append(path)
        if path.endswith(".gz") and self.gzip_itself:
            fd, tmp = tempfile.mkstemp(suffix=".json")
            with os.fdopen(fd, "w") as f:
                f.write(self.text)
            with open(tmp) as fin, gzip.open(path, "wt") as fout:
                fout.writelines(fin)
            os.remove(tmp)
        else:
            with open(path, "w") as f:
                f.write(self.text)


def call(handler, prof):
    """handler(prof), as torch.profiler.profile does; returns what it printed."""
    out = io.StringIO()
    with redirect_stdout(out):
        result = handler(prof)
    assert result is None
    return out.getvalue()


class Handler(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ampscope-handler-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_names_like_tensorboard_trace_handler_and_prints_the_summary(self):
        log_dir = os.path.join(self.tmp, "log", "run1")  # made by the handler, as torch's does
        handler = ampscope.profiler_handler(log_dir, use_gzip=True)
        printed = call(handler, StandInProfile(TRACE_JSON))
        files = os.listdir(log_dir)
        self.assertEqual(len(files), 1, files)
        worker = "%s_%d" % (socket.gethostname(), os.getpid())
        self.assertRegex(files[0], r"^%s\.\d{19}\.pt\.trace\.json\.gz$" % re.escape(worker))
        path = os.path.join(log_dir, files[0])
        with open(path, "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b")
        self.assertEqual(handler.traces, [path])
        self.assertEqual(handler.errors, [])
        cli = subprocess.run([ts.AMPSCOPE, "analyze", "--no-color", path], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(printed, "ampscope: %s\n%s" % (path, cli.stdout))
        self.assertEqual(handler.last_report.json["steps"]["count"], 6)  # shared/traces/README.md

    def test_worker_name_plain_json_and_one_file_per_call(self):
        handler = ampscope.profiler_handler(self.tmp, worker_name="trainer-3", print_summary=False)
        prof = StandInProfile(TRACE_JSON)
        self.assertEqual(call(handler, prof), "")
        self.assertEqual(call(handler, prof), "")
        names = sorted(os.listdir(self.tmp))
        self.assertEqual(len(names), 2)
        for n in names:
            self.assertRegex(n, r"^trainer-3\.\d+\.pt\.trace\.json$")
        self.assertEqual(len(handler.reports), 2)

    def test_write_report_beside_the_trace(self):
        handler = ampscope.profiler_handler(self.tmp, worker_name="w0", use_gzip=True, print_summary=False,
                                            write_report=True, steps="5..7")  # ProfilerStep#5..#7
        self.assertEqual(call(handler, StandInProfile(TRACE_JSON)), "")
        names = sorted(os.listdir(self.tmp))
        self.assertEqual(len(names), 3, names)
        stem = names[0].split(".ampscope.")[0]
        self.assertEqual(names, [stem + ".ampscope.html", stem + ".ampscope.json", stem + ".pt.trace.json.gz"])
        self.assertEqual(handler.last_report.json["steps"]["count"], 3)  # the option reached the CLI

    def test_an_exporter_that_does_not_gzip_gets_its_file_gzipped(self):
        handler = ampscope.profiler_handler(self.tmp, worker_name="old", use_gzip=True, print_summary=False)
        call(handler, StandInProfile(TRACE_JSON, gzip_itself=False))
        (name,) = os.listdir(self.tmp)
        self.assertTrue(name.endswith(".pt.trace.json.gz"))
        self.assertEqual(ts.gunzip_text(os.path.join(self.tmp, name)), TRACE_JSON)
        self.assertEqual(handler.errors, [])

    def test_background_analysis(self):
        handler = ampscope.profiler_handler(self.tmp, worker_name="bg", print_summary=False, background=True)
        call(handler, StandInProfile(TRACE_JSON))
        handler.wait(timeout=300)
        self.assertEqual(handler.errors, [])
        self.assertEqual(len(handler.reports), 1)

    def test_failures_are_logged_never_raised(self):
        cases = [
            ("export fails", dict(), StandInProfile(TRACE_JSON, fail=OSError(28, "No space left on device")),
             "could not write the profiler trace"),
            ("unreadable trace", dict(), StandInProfile('{"traceEvents": [ {"ph": "X", "ts": '),
             "exit code 2"),
            ("no CLI", dict(cli="/nonexistent/ampscope"), StandInProfile(TRACE_JSON), "exit code 127"),
            ("folder is a file", dict(), StandInProfile(TRACE_JSON), "could not write the profiler trace"),
        ]
        for what, kwargs, prof, logged in cases:
            with self.subTest(what):
                target = os.path.join(self.tmp, what.replace(" ", "_"))
                if what == "folder is a file":
                    open(target, "w").close()
                handler = ampscope.profiler_handler(target, **kwargs)
                with self.assertLogs("ampscope", level="ERROR") as logs:
                    printed = call(handler, prof)  # must not raise
                self.assertEqual(printed, "")
                self.assertEqual(len(handler.errors), 1, handler.errors)
                self.assertIn(logged, handler.errors[0])
                self.assertIn(logged, "\n".join(logs.output))


class RealTorchProfiler(unittest.TestCase):
    def test_torch_profiler_calls_the_handler(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed: the stand-in profile above is what runs here")
        tmp = tempfile.mkdtemp(prefix="ampscope-torch-test-")
        try:
            handler = ampscope.profiler_handler(tmp, use_gzip=True, print_summary=False)
            model = torch.nn.Linear(64, 64)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                        schedule=torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=1),
                                        on_trace_ready=handler) as prof:
                for _ in range(4):
                    model(torch.randn(8, 64)).sum().backward()
                    prof.step()
            self.assertEqual(len(handler.traces), 1)
            self.assertRegex(os.path.basename(handler.traces[0]), r"\.\d+\.pt\.trace\.json\.gz$")
            # A CPU-only trace may have nothing to analyse; either way the training loop went on.
            self.assertEqual(len(handler.reports) + len(handler.errors), 1)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    ts.main(__name__)

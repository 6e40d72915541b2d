#!/usr/bin/python3
"""Installing ampscope like a tool.

- `cmake --install BUILD --prefix P --strip` into a temporary prefix lays out bin/ampscope,
  lib/ampscope/libampscope_inject.so (where the collector is built), the Python package under
  lib/python3/dist-packages and the docs under share/doc/ampscope;
- the installed binary analyses a shared trace (8772 kernels and 6 steps in the tb_plugin
  ResNet50 trace: shared/traces/README.md);
- `ampscope doctor` and `ampscope record` find the installed injection library, also after the
  prefix is moved (the path is relative to the binary);
- the installed Python package imports with PYTHONPATH alone and finds the installed CLI on PATH.

usage: install_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR BUILD_DIR CMAKE HAVE_COLLECTOR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import test_support as ts  # noqa: E402

BUILD_DIR, CMAKE, HAVE_COLLECTOR = sys.argv[4], sys.argv[5], sys.argv[6] in ("1", "ON", "TRUE")
INJECT = "libampscope_inject.so"


def check_inputs():
    ts.shared(ts.TB_PLUGIN)


def doctor_checks(binary):
    r = subprocess.run([binary, "doctor", "--json"], capture_output=True, text=True, timeout=120)
    # 0 or 1: a machine without a GPU fails the driver checks; the command itself worked.
    assert r.returncode in (0, 1), r.stderr
    return {c["id"]: c for c in json.loads(r.stdout)["checks"]}


class InstalledPrefix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ampscope-install-test-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        r = subprocess.run([CMAKE, "--install", BUILD_DIR, "--prefix", cls.prefix, "--strip"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.binary = os.path.join(cls.prefix, "bin", "ampscope")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_layout(self):
        p = self.prefix
        self.assertTrue(os.access(self.binary, os.X_OK))
        self.assertEqual(os.path.isfile(os.path.join(p, "lib", "ampscope", INJECT)), HAVE_COLLECTOR)
        for rel in ["lib/python3/dist-packages/ampscope/__init__.py", "lib/python3/dist-packages/ampscope/report.py",
                    "share/doc/ampscope/README.md", "share/doc/ampscope/docs/python.md",
                    "share/doc/ampscope/docs/sqlite_schema.md"]:
            self.assertTrue(os.path.isfile(os.path.join(p, rel)), rel)
        # Nothing of the build tree travels: no tests, benchmarks or object files.
        self.assertEqual(sorted(os.listdir(os.path.join(p, "bin"))), ["ampscope"])

    def test_installed_binary_analyses_a_shared_trace(self):
        out = os.path.join(self.tmp, "analyze")
        os.mkdir(out)
        r = subprocess.run([self.binary, "analyze", "-q", "-o", os.path.join(out, "r.json"),
                            "--sqlite", os.path.join(out, "r.db"), ts.shared(ts.TB_PLUGIN)],
                           capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "r.json")) as f:
            self.assertEqual(json.load(f)["steps"]["count"], 6)
        con = sqlite3.connect(os.path.join(out, "r.db"))
        self.assertEqual(con.execute("SELECT COUNT(*) FROM kernels").fetchone()[0], 8772)
        con.close()

    def test_doctor_and_record_find_the_installed_library(self):
        want = os.path.realpath(os.path.join(self.prefix, "lib", "ampscope", INJECT))
        checks = doctor_checks(self.binary)
        lib = checks["injection_library"]
        if HAVE_COLLECTOR:
            self.assertEqual(lib["status"], "pass", lib)
            self.assertEqual(lib["value"], want)
            self.assertNotEqual(checks["nvtx_injection"]["status"], "fail", checks["nvtx_injection"])
            # `record` uses the same library (session.json names it), running a program without CUDA.
            rec = os.path.join(self.tmp, "rec")
            r = subprocess.run([self.binary, "record", "-o", rec, "--", "true"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(rec, "session.json")) as f:
                self.assertEqual(json.load(f)["injection_library"], want)
        else:
            self.assertEqual(lib["status"], "fail", lib)  # record cannot run without it
            self.assertIn(os.path.join("..", "lib", "ampscope", INJECT), lib["value"])

    def test_a_moved_prefix_still_finds_its_library(self):
        moved = os.path.join(self.tmp, "moved")
        shutil.copytree(self.prefix, moved, symlinks=True)
        lib = doctor_checks(os.path.join(moved, "bin", "ampscope"))["injection_library"]
        if HAVE_COLLECTOR:
            self.assertEqual(lib["value"], os.path.realpath(os.path.join(moved, "lib", "ampscope", INJECT)))
        shutil.rmtree(moved)

    def test_installed_python_package_uses_the_installed_cli(self):
        env = {k: v for k, v in os.environ.items() if k not in ("AMPSCOPE_CLI", "PYTHONPATH")}
        env["PATH"] = os.path.join(self.prefix, "bin") + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = os.path.join(self.prefix, "lib", "python3", "dist-packages")
        code = ("import ampscope, json, os\n"
                "r = ampscope.analyze(%r, html=False, tables=False)\n"
                "print(json.dumps([ampscope.__file__, ampscope.find_cli(), r.json['steps']['count']]))\n"
                % ts.shared(ts.TB_PLUGIN))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        module, cli, steps = json.loads(r.stdout)
        self.assertTrue(module.startswith(self.prefix), module)
        self.assertEqual(cli, self.binary)
        self.assertEqual(steps, 6)


if __name__ == "__main__":
    ts.main(__name__)

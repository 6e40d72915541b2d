#!/usr/bin/python3
"""README.md's Python install, run as written, offline: a venv that sees Debian's packages
(python3 -m venv --system-site-packages), then `pip install --no-build-isolation --no-index
./python` (setuptools and wheel from Debian: nothing is downloaded). The installed package then
analyses a shared trace with the binary under test. The checkout is copied first, because
setuptools builds in the source folder.

usage: pip_install_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support as ts  # noqa: E402


def check_inputs():
    ts.shared(ts.TB_PLUGIN)
    ts.require_pandas()
    # setuptools itself comes into the venv with pip (ensurepip's wheels, python3-venv).
    for module, package in (("venv", "python3-venv"), ("ensurepip", "python3-venv"), ("wheel", "python3-wheel")):
        try:
            __import__(module)
        except ImportError:
            raise ts.MissingInput("%s (Debian %s; scripts/setup.sh installs it)" % (module, package))


def readme_commands():
    """The two commands of README.md's Python section (the ones with `venv` and `pip install`)."""
    with open(os.path.join(ts.SOURCE_DIR, "README.md"), encoding="utf-8") as f:
        text = f.read()
    venv = re.search(r"^python3 -m venv --system-site-packages (\S+)$", text, re.M)
    pip = re.search(r"^(\S+)/bin/pip install --no-build-isolation --no-index \./python$", text, re.M)
    assert venv and pip and venv.group(1) == pip.group(1), "README.md's Python install commands changed"
    return venv.group(1)


class PipInstall(unittest.TestCase):
    def test_readme_install_offline_then_analyze(self):
        readme_commands()
        tmp = tempfile.mkdtemp(prefix="ampscope-pip-test-")
        try:
            shutil.copytree(os.path.join(ts.SOURCE_DIR, "python"), os.path.join(tmp, "python"),
                            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            venv = os.path.join(tmp, "venv")
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_INDEX_URL")}
            r = subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv],
                               capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index",
                                "./python"], capture_output=True, text=True, cwd=tmp, env=env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("Successfully installed ampscope", r.stdout)
            env["AMPSCOPE_CLI"] = ts.AMPSCOPE
            code = ("import ampscope, json\n"
                    "r = ampscope.analyze(%r)\n"
                    "print(json.dumps([ampscope.__file__, len(r.kernels), len(r.steps)]))\n" % ts.shared(ts.TB_PLUGIN))
            r = subprocess.run([os.path.join(venv, "bin", "python"), "-c", code], capture_output=True, text=True,
                               env=env, cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            module, kernels, steps = json.loads(r.stdout)
            self.assertTrue(module.startswith(venv), module)  # the installed copy, not the checkout
            self.assertEqual((kernels, steps), (8772, 6))       # shared/traces/README.md
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    ts.main(__name__)

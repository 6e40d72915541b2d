#!/usr/bin/python3
"""The Debian package: `cpack -G DEB` with the build's CPackConfig.cmake makes one
ampscope_<version>_<arch>.deb whose control fields name the libraries the binaries link
(dpkg-shlibdeps), whose files are the installed layout under /usr (bin/ampscope,
lib/ampscope/libampscope_inject.so where the collector is built, the Python package in Debian's
/usr/lib/python3/dist-packages, the docs), stripped; unpacked with dpkg-deb -x, its binary analyses
a shared trace and finds its injection library. (`apt install ./ampscope_*.deb` itself needs root
and changes the machine; README.md says how, this test does not run it.)

usage: package_deb_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR BUILD_DIR CPACK HAVE_COLLECTOR VERSION
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import test_support as ts  # noqa: E402

BUILD_DIR, CPACK, HAVE_COLLECTOR, VERSION = sys.argv[4], sys.argv[5], sys.argv[6] in ("1", "ON", "TRUE"), sys.argv[7]


def check_inputs():
    ts.shared(ts.TB_PLUGIN)
    for tool, package in (("dpkg-deb", "dpkg"), ("dpkg-shlibdeps", "dpkg-dev (build-essential brings it)")):
        if shutil.which(tool) is None:
            raise ts.MissingInput("%s (Debian %s)" % (tool, package))


def dpkg_deb(*args):
    r = subprocess.run(["dpkg-deb"] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


class DebianPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ampscope-deb-test-")
        r = subprocess.run([CPACK, "-G", "DEB", "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake"),
                            "-B", os.path.join(cls.tmp, "out")], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.debs = glob.glob(os.path.join(cls.tmp, "out", "*.deb"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_one_package_with_its_name_version_and_dependencies(self):
        self.assertEqual(len(self.debs), 1, self.debs)
        deb = self.debs[0]
        arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
        self.assertEqual(os.path.basename(deb), "ampscope_%s_%s.deb" % (VERSION, arch))
        self.assertEqual(dpkg_deb("-f", deb, "Package").strip(), "ampscope")
        self.assertEqual(dpkg_deb("-f", deb, "Version").strip(), VERSION)
        depends = dpkg_deb("-f", deb, "Depends")
        # The libraries the CLI links (CMakeLists.txt: fmt, SQLite, zlib), found by dpkg-shlibdeps.
        for lib in ("libc6", "libfmt", "libsqlite3", "zlib1g", "libstdc++6"):
            self.assertIn(lib, depends)

    def test_contents_are_the_installed_layout(self):
        listing = dpkg_deb("-c", self.debs[0])
        files = {line.split()[-1] for line in listing.splitlines() if line.startswith("-")}
        for path in ["./usr/bin/ampscope", "./usr/lib/python3/dist-packages/ampscope/__init__.py",
                     "./usr/share/doc/ampscope/README.md", "./usr/share/doc/ampscope/docs/python.md"]:
            self.assertIn(path, files)
        self.assertEqual("./usr/lib/ampscope/libampscope_inject.so" in files, HAVE_COLLECTOR)
        self.assertFalse([f for f in files if "/tests/" in f or f.endswith(".a")])

    def test_unpacked_binary_runs_and_finds_its_library(self):
        root = os.path.join(self.tmp, "root")
        dpkg_deb("-x", self.debs[0], root)
        binary = os.path.join(root, "usr", "bin", "ampscope")
        # Stripped (CPACK_STRIP_FILES): much smaller than the build tree's binary with its debug info.
        self.assertLess(os.path.getsize(binary), os.path.getsize(ts.AMPSCOPE))
        report = os.path.join(self.tmp, "r.json")
        r = subprocess.run([binary, "analyze", "-q", "-o", report, ts.shared(ts.TB_PLUGIN)], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(report) as f:
            self.assertEqual(json.load(f)["steps"]["count"], 6)  # shared/traces/README.md
        r = subprocess.run([binary, "doctor", "--json"], capture_output=True, text=True)
        lib = {c["id"]: c for c in json.loads(r.stdout)["checks"]}["injection_library"]
        if HAVE_COLLECTOR:
            self.assertEqual(lib["status"], "pass", lib)
            self.assertEqual(lib["value"], os.path.realpath(os.path.join(root, "usr/lib/ampscope/libampscope_inject.so")))


if __name__ == "__main__":
    ts.main(__name__)

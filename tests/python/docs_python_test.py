#!/usr/bin/python3
"""docs/python.md run as a notebook: every ```python block marked `<!-- docs-test: notebook -->`
runs, in order, in one namespace (as cells of one kernel), in a folder holding the shared
ResNet50 trace under the name the page uses, with the package from python/ and the binary under
test. A block followed by a ```text block marked `<!-- docs-output -->` must print exactly that.
Blocks marked `needs matplotlib` need matplotlib (scripts/setup.sh installs python3-matplotlib):
under CI=true its absence fails the test; elsewhere those blocks are reported as not run.

usage: docs_python_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support as ts  # noqa: E402

BLOCK = re.compile(r"<!-- docs-test: notebook(?P<flags>[^>]*)-->\s*```python\n(?P<code>.*?)```"
                   r"(?:\s*<!-- docs-output -->\s*```text\n(?P<out>.*?)```)?", re.S)


def check_inputs():
    ts.shared(ts.TB_PLUGIN)
    ts.require_pandas()
    ts.use_source_package()


class DocsPython(unittest.TestCase):
    def test_cells_run_and_print_what_the_page_shows(self):
        with open(os.path.join(ts.SOURCE_DIR, "docs", "python.md"), encoding="utf-8") as f:
            page = f.read()
        cells = list(BLOCK.finditer(page))
        self.assertGreaterEqual(len(cells), 6)
        self.assertIn("worker0.1623143089861.pt.trace.json.gz", page)
        try:
            import matplotlib  # noqa: F401
            have_matplotlib = True
        except ImportError:
            # Under CI the page's plot must run: scripts/setup.sh installs python3-matplotlib.
            if os.environ.get("CI") == "true":
                self.fail("matplotlib is missing under CI=true: run scripts/setup.sh (python3-matplotlib)")
            have_matplotlib = False
        tmp = tempfile.mkdtemp(prefix="ampscope-docs-python-")
        cwd = os.getcwd()
        try:
            os.symlink(ts.shared(ts.TB_PLUGIN), os.path.join(tmp, os.path.basename(ts.TB_PLUGIN)))
            os.chdir(tmp)
            namespace = {"__name__": "__main__"}
            checked = 0
            for i, cell in enumerate(cells):
                if "needs matplotlib" in cell.group("flags") and not have_matplotlib:
                    print("cell %d not run: matplotlib is not installed" % i)
                    continue
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(compile(cell.group("code"), "docs/python.md cell %d" % i, "exec"), namespace)
                if cell.group("out") is not None:
                    self.assertEqual(out.getvalue().rstrip("\n"), cell.group("out").rstrip("\n"), "cell %d" % i)
                    checked += 1
                if "savefig" in cell.group("code"):
                    self.assertGreater(os.path.getsize("kernel_time_by_category.png"), 1000)
            self.assertGreaterEqual(checked, 3)
            # The plotted numbers are the report's (its kernel time by category, in %).
            by_category = namespace["by_category"]
            want = namespace["report"].json["gpu"]["kernel_time_by_category_pct"]
            got = 100 * by_category / by_category.sum()
            for cat, pct in want.items():
                self.assertAlmostEqual(got.get(cat, 0.0), pct, places=3, msg=cat)
        finally:
            os.chdir(cwd)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    ts.main(__name__)

#!/usr/bin/python3
"""The Python package (python/ampscope) on shared traces and on a small trace written here, run
with Debian's python3 and pandas against the ampscope binary under test:

- analyze(): the DataFrames' row counts equal the report's counts (steps.count, findings,
  checklist, matrix, per rank and for the job) and the counts shared/traces/README.md gives
  (8772 kernels and 6 steps in the tb_plugin ResNet50 trace, 1312 kernels in the CloverLeaf nsys
  export); on the small trace, the hand counts;
- summary() is what `ampscope analyze` prints; _repr_html_() is the HTML report it writes;
- errors raise AnalysisError with the CLI's one-line message and exit code, and leave no report;
- gate() and diff() against the CLI's own verdicts.

usage: python_api_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support as ts  # noqa: E402

ampscope = None


def check_inputs():
    global ampscope
    ts.require_pandas()
    for rel in [ts.TB_PLUGIN, ts.CLOVERLEAF] + ts.DLRM:
        ts.shared(rel)
    ts.use_source_package()
    import ampscope as module
    ampscope = module


class ResNet50(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trace = ts.shared(ts.TB_PLUGIN)
        cls.report = ampscope.analyze(cls.trace)

    def test_dataframes_have_the_reports_rows(self):
        r, j = self.report, self.report.json
        self.assertEqual(len(r.kernels), 8772)  # shared/traces/README.md
        self.assertEqual(len(r.steps), 6)       # ProfilerStep#5..#10
        self.assertEqual(len(r.steps), j["steps"]["count"])
        self.assertEqual(len(r.findings), len(j["findings"]))
        self.assertEqual(len(r.checklist), len(j["checklist"]))
        self.assertEqual(len(r.matrix), len(j["matrix"]))
        self.assertEqual(len(r.checklist), 7)   # DESIGN.md: the seven-item AMP checklist
        self.assertEqual(len(r.matrix), 5)      # and the five dimensions
        self.assertEqual(list(r.findings["id"]), [f["id"] for f in j["findings"]])
        self.assertEqual(sorted(r.checklist["id"]), sorted(c["id"] for c in j["checklist"]))
        self.assertGreater(len(r.ops), 0)
        self.assertEqual(r.kernels["rank"].nunique(), 1)
        # Every table of the database is there, and rows() needs no pandas.
        self.assertLessEqual({"meta", "kernels", "ops", "steps", "findings", "checklist", "matrix"}, set(r.tables()))
        self.assertEqual(len(r.rows("steps")), 6)

    def test_kernel_time_by_category_matches_the_report(self):
        # The report's kernel time by category is over the analysed steps; the kernels table has the
        # same kernels flagged in_window. Independent sums, same trace: within 1 µs per category.
        k = self.report.kernels
        by_cat = k[k["in_window"] == 1].groupby("category")["dur_ns"].sum() / 1000.0
        want = self.report.json["gpu"]["kernel_time_by_category_us"]
        for cat, us in want.items():
            if us:
                self.assertAlmostEqual(by_cat.get(cat, 0.0), us, delta=1.0 + 1e-6 * us, msg=cat)

    def test_summary_is_what_the_cli_prints(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.report.summary()
        cli = subprocess.run([ts.AMPSCOPE, "analyze", "--no-color", self.trace], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(out.getvalue(), cli.stdout)
        self.assertIn("ProfilerStep", out.getvalue() + json.dumps(self.report.json["steps"]))

    def test_repr_html_is_the_html_report(self):
        page = self.report._repr_html_()
        m = re.fullmatch(r'<iframe sandbox="allow-scripts" style="[^"]*" srcdoc="([^"]*)"></iframe>', page, re.S)
        self.assertIsNotNone(m, page[:200])
        self.assertEqual(html.unescape(m.group(1)), self.report.html)
        self.assertTrue(self.report.html.lstrip().lower().startswith("<!doctype html"))
        with open(self.report.files["html"], encoding="utf-8") as f:
            self.assertEqual(f.read(), self.report.html)

    def test_options_reach_the_cli(self):
        # --steps 6..7: ProfilerStep#6 and #7, two of the six steps #5..#10 (step numbers).
        r = ampscope.analyze(self.trace, steps=(6, 7), tables=True, html=False)
        self.assertEqual(r.json["steps"]["count"], 2)
        self.assertEqual(len(r.steps), 2)
        self.assertNotIn("html", r.files)
        r2 = ampscope.analyze(self.trace, steps=range(6, 8), html=False, tables=False)
        self.assertEqual(r2.json["steps"]["count"], 2)
        with self.assertRaises(TypeError):
            ampscope.analyze(self.trace, output="x.json")  # the API's own output

    def test_output_dir_keeps_the_files_and_temporary_dir_goes(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = ampscope.analyze(self.trace, output_dir=os.path.join(tmp, "out"), name="resnet")
            self.assertEqual(sorted(os.listdir(os.path.join(tmp, "out"))), ["resnet.html", "resnet.json", "resnet.sqlite"])
            del r
        r = ampscope.analyze(self.trace, html=False)
        directory = os.path.dirname(r.files["json"])
        self.assertTrue(os.path.isdir(directory))
        r.close()
        self.assertFalse(os.path.exists(directory))


class OtherInputs(unittest.TestCase):
    def test_nsys_export(self):
        r = ampscope.analyze(ts.shared(ts.CLOVERLEAF), html=False)
        self.assertEqual(len(r.kernels), 1312)  # shared/traces/README.md
        self.assertEqual(len(r.findings), len(r.json["findings"]))

    def test_two_ranks_one_job(self):
        r = ampscope.analyze([ts.shared(p) for p in ts.DLRM])
        j = r.json
        self.assertEqual(sorted(r.kernels["rank"].unique()), [0, 1])
        # The job's rows have rank NULL; each rank's rows are that rank's section of the report.
        f = r.findings
        self.assertEqual(int(f["rank"].isna().sum()), len(j["findings"]))
        self.assertEqual(int(r.checklist["rank"].isna().sum()), len(j["checklist"]))
        self.assertEqual(int(r.matrix["rank"].isna().sum()), len(j["matrix"]))
        self.assertEqual(len(j["ranks"]), 2)
        for rank in j["ranks"]:
            n = rank["rank"]
            self.assertEqual(list(f[f["rank"] == n]["id"]), rank["finding_ids"], "rank %d" % n)
            self.assertEqual(int((r.checklist["rank"] == n).sum()), len(rank["checklist_status"]), "rank %d" % n)
            self.assertEqual(int((r.steps["rank"] == n).sum()), rank["steps"]["count"], "rank %d" % n)

    def test_merge_of_per_rank_summaries_is_the_job(self):
        # docs/scale.md: a summary per rank, then one merge, is the report of analysing them together.
        together = ampscope.analyze([ts.shared(p) for p in ts.DLRM], html=False, tables=False)
        with tempfile.TemporaryDirectory() as tmp:
            summaries = []
            for i, p in enumerate(ts.DLRM):
                summaries.append(os.path.join(tmp, "rank%d.summary.json.gz" % i))
                ampscope.analyze(ts.shared(p), summary_out=summaries[-1], html=False, tables=False)
            merged = ampscope.merge(summaries)
            self.assertEqual(merged.json["job"]["ranks"], 2)
            self.assertEqual([f["id"] for f in merged.json["findings"]], [f["id"] for f in together.json["findings"]])
            self.assertEqual(merged.json["steps"], together.json["steps"])
            self.assertIn("<", merged.html)
            with self.assertRaises(ValueError):
                merged.kernels  # a merged report has no database

    def test_small_trace_written_here(self):
        # 4 steps x 3 kernels, other names and sizes than any shared trace (a hand count).
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tiny rank, \"0\".json")
            with open(path, "w") as f:
                f.write(ts.kineto_trace(4, 3, "void my_ext::fused_block_kernel<float, 3>(float*, int)"))
            r = ampscope.analyze(path)
            self.assertEqual(len(r.kernels), 12)
            self.assertEqual(len(r.steps), 4)
            self.assertEqual(r.json["steps"]["count"], 4)
            self.assertEqual(set(r.kernels["name"]), {"void my_ext::fused_block_kernel<float, 3>(float*, int)"})
            self.assertEqual(sorted(r.steps["number"]), [3, 4, 5, 6])
            self.assertTrue((r.kernels["dur_ns"] == 100_000).all())
            self.assertEqual(len(r.findings), len(r.json["findings"]))


class Errors(unittest.TestCase):
    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "nope.json")
            with self.assertRaises(ampscope.AnalysisError) as cm:
                ampscope.analyze(missing, output_dir=os.path.join(tmp, "out"))
            e = cm.exception
            self.assertEqual(e.exit_code, 2)
            self.assertIn("nope.json", e.message)
            self.assertNotIn("\n", e.message)
            self.assertEqual(os.listdir(os.path.join(tmp, "out")), [])  # no partial outputs

    def test_truncated_json_names_the_byte_offset(self):
        with tempfile.TemporaryDirectory() as tmp:
            text = ts.kineto_trace(2, 2, "k")
            path = os.path.join(tmp, "cut.json")
            with open(path, "w") as f:
                f.write(text[:len(text) // 2])
            with self.assertRaises(ampscope.AnalysisError) as cm:
                ampscope.analyze(path)
            e = cm.exception
            self.assertEqual(e.exit_code, 2)
            self.assertIn("cut.json", e.message)
            self.assertRegex(e.message, r"offset|byte")
            self.assertIn(e.message, e.stderr)  # the CLI's own line
            self.assertIn("exit code 2", str(e))

    def test_bad_option_and_missing_cli(self):
        with self.assertRaises(ampscope.AnalysisError) as cm:
            ampscope.analyze(ts.shared(ts.TB_PLUGIN), steps="40..50", html=False, tables=False)
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("--steps", cm.exception.message)
        with self.assertRaises(ampscope.AnalysisError) as cm:
            ampscope.analyze(ts.shared(ts.TB_PLUGIN), cli="/nonexistent/ampscope")
        self.assertEqual(cm.exception.exit_code, 127)

    def test_cli_found_on_path(self):
        saved = dict(os.environ)
        tmp = tempfile.mkdtemp(prefix="ampscope-path-test-")
        try:
            os.symlink(ts.AMPSCOPE, os.path.join(tmp, "ampscope"))
            del os.environ["AMPSCOPE_CLI"]
            os.environ["PATH"] = tmp + os.pathsep + saved.get("PATH", "")
            self.assertEqual(ampscope.find_cli(), os.path.join(tmp, "ampscope"))
            r = ampscope.analyze(ts.shared(ts.TB_PLUGIN), html=False, tables=False)
            self.assertEqual(r.json["steps"]["count"], 6)
            os.environ["PATH"] = "/nonexistent"
            with self.assertRaises(ampscope.AnalysisError) as cm:
                ampscope.find_cli()
            self.assertEqual(cm.exception.exit_code, 127)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            shutil.rmtree(tmp, ignore_errors=True)


class GateAndDiff(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = ampscope.analyze(ts.shared(ts.TB_PLUGIN), html=False, tables=False)

    def test_gate_passes_on_itself_and_fails_on_a_regression(self):
        same = ampscope.gate(self.report, self.report.files["json"])
        self.assertTrue(same.passed)
        self.assertEqual(same.exit_code, 0)
        self.assertIsInstance(same.verdicts, dict)
        # A current report with twice the syncs per step: the CLI's gate says regression (exit 1).
        with tempfile.TemporaryDirectory() as tmp:
            worse = json.loads(json.dumps(self.report.json))
            gm = worse["gate_metrics"]
            gm["kernels_per_step"] = (gm["kernels_per_step"] or 1) * 2
            gm["syncs_per_step"] = (gm["syncs_per_step"] or 1) * 10 + 10
            path = os.path.join(tmp, "worse.json")
            with open(path, "w") as f:
                json.dump(worse, f)
            cli = subprocess.run([ts.AMPSCOPE, "gate", "--baseline", self.report.files["json"], "--current", path, "-q"])
            result = ampscope.gate(self.report, path)
            self.assertEqual(result.exit_code, cli.returncode)
            self.assertEqual(result.exit_code, 1)
            self.assertFalse(result)

    def test_diff(self):
        d = ampscope.diff(self.report, self.report)
        self.assertEqual(d.get("schema"), "ampscope.diff/1")
        text = ampscope.diff(self.report, self.report, as_text=True)
        self.assertIsInstance(text, str)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as bad:
            bad.write("{}")
            bad.flush()
            with self.assertRaises(ampscope.AnalysisError) as cm:
                ampscope.diff(bad.name, self.report)
            self.assertEqual(cm.exception.exit_code, 2)


if __name__ == "__main__":
    ts.main(__name__)

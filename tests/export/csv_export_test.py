#!/usr/bin/python3
"""`ampscope analyze ... --sqlite out.db --csv DIR` on shared traces: DIR has one CSV file per table
of the database and nothing else; each file, read with Python's csv module (RFC 4180), has the
table's columns as its header and the table's rows, value for value (NULL an empty field, reals
that read back to the same double); pandas reads it with the same row count. Counts from
elsewhere too: 8772 kernels in the tb_plugin ResNet50 trace and 1312 in the CloverLeaf nsys
export (shared/traces/README.md). --csv alone writes the same files. Failures: --csv naming a
file is refused before reading (exit 2, nothing written); a set that cannot be written leaves no
CSV and no created folder.

usage: csv_export_test.py SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import csv
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


def check_inputs():
    ts.require_pandas()
    for rel in [ts.TB_PLUGIN, ts.CLOVERLEAF] + ts.DLRM:
        ts.shared(rel)


def run(*args):
    return subprocess.run([ts.AMPSCOPE] + list(args), capture_output=True, text=True)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f, strict=True))


class CsvMatchesSqlite(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ampscope-csv-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def export(self, inputs):
        db = os.path.join(self.tmp, "out.db")
        csv_dir = os.path.join(self.tmp, "tables")
        r = run("analyze", "-q", "--sqlite", db, "--csv", csv_dir, *inputs)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db, csv_dir

    def assert_same(self, db, csv_dir):
        import pandas as pd
        con = sqlite3.connect(db)
        tables = [t for (t,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY rowid")]
        self.assertEqual(sorted(os.listdir(csv_dir)), sorted(t + ".csv" for t in tables))
        counts = {}
        for table in tables:
            path = os.path.join(csv_dir, table + ".csv")
            with open(path, "rb") as f:
                raw = f.read()
            if raw:
                self.assertTrue(raw.endswith(b"\r\n"), table)  # RFC 4180 line ends
            rows = read_csv(path)
            cur = con.execute('SELECT * FROM "%s" ORDER BY rowid' % table)
            columns = [d[0] for d in cur.description]
            self.assertEqual(rows[0], columns, table)
            want = cur.fetchall()
            self.assertEqual(len(rows) - 1, len(want), table)
            self.assertEqual(len(rows) - 1, con.execute('SELECT COUNT(*) FROM "%s"' % table).fetchone()[0])
            for i, (got, exp) in enumerate(zip(rows[1:], want)):
                self.assertEqual(len(got), len(columns), "%s row %d" % (table, i))
                for c, (g, e) in enumerate(zip(got, exp)):
                    where = "%s row %d column %s" % (table, i, columns[c])
                    if e is None:
                        self.assertEqual(g, "", where)
                    elif isinstance(e, float):
                        self.assertEqual(float(g), e, where)
                    elif isinstance(e, int):
                        self.assertEqual(g, str(e), where)
                    else:
                        self.assertEqual(g, e, where)
            frame = pd.read_csv(path)
            self.assertEqual(len(frame), len(want), table)
            counts[table] = len(want)
        con.close()
        return counts

    def test_resnet50(self):
        counts = self.assert_same(*self.export([ts.shared(ts.TB_PLUGIN)]))
        self.assertEqual(counts["kernels"], 8772)
        self.assertEqual(counts["steps"], 6)

    def test_nsys_export(self):
        counts = self.assert_same(*self.export([ts.shared(ts.CLOVERLEAF)]))
        self.assertEqual(counts["kernels"], 1312)

    def test_two_ranks(self):
        db, csv_dir = self.export([ts.shared(p) for p in ts.DLRM])
        self.assert_same(db, csv_dir)
        ranks = {row[0] for row in read_csv(os.path.join(csv_dir, "findings.csv"))[1:]}
        self.assertEqual(ranks, {"", "0", "1"})  # the job's rows (NULL) and each rank's

    def test_small_trace_with_names_that_need_quoting(self):
        trace = os.path.join(self.tmp, "small.json")
        name = 'void gemm<cutlass::half_t, 64>(Params, "tile")'
        with open(trace, "w") as f:
            f.write(ts.kineto_trace(3, 2, name))
        db, csv_dir = self.export([trace])
        counts = self.assert_same(db, csv_dir)
        self.assertEqual(counts["kernels"], 6)  # 3 steps x 2 kernels, by construction
        self.assertEqual(counts["steps"], 3)
        self.assertIn(b'"void gemm<cutlass::half_t, 64>(Params, ""tile"")"', open(os.path.join(csv_dir, "kernels.csv"), "rb").read())

    def test_csv_alone_and_a_nested_new_folder(self):
        out = os.path.join(self.tmp, "a", "b", "tables")
        r = run("analyze", "-q", "--csv", out + "/", ts.shared(ts.TB_PLUGIN))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(read_csv(os.path.join(out, "kernels.csv"))) - 1, 8772)


class Failures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ampscope-csv-fail-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_csv_naming_a_file_is_refused_before_reading(self):
        target = os.path.join(self.tmp, "tables")
        open(target, "w").close()
        report = os.path.join(self.tmp, "r.json")
        r = run("analyze", "-q", "-o", report, "--csv", target, ts.shared(ts.TB_PLUGIN))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("not a directory", r.stderr)
        self.assertFalse(os.path.exists(report))

    def test_a_failed_set_leaves_no_csv_and_no_new_folder(self):
        # -o names a directory: writing the set fails after the CSV folder was made for it.
        report = os.path.join(self.tmp, "report_is_a_dir")
        os.mkdir(report)
        out = os.path.join(self.tmp, "new", "tables")
        r = run("analyze", "-q", "-o", report, "--csv", out, ts.shared(ts.TB_PLUGIN))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "new")))
        # In an existing folder: no CSV appears, what was there stays.
        existing = os.path.join(self.tmp, "existing")
        os.mkdir(existing)
        open(os.path.join(existing, "keep.txt"), "w").close()
        r = run("analyze", "-q", "-o", report, "--csv", existing, ts.shared(ts.TB_PLUGIN))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(os.listdir(existing), ["keep.txt"])

    def test_an_input_inside_the_csv_folder_is_not_overwritten(self):
        out = os.path.join(self.tmp, "tables")
        os.mkdir(out)
        trace = os.path.join(out, "kernels.csv")
        with open(trace, "w") as f:
            f.write(ts.kineto_trace(2, 1, "k"))
        before = open(trace).read()
        r = run("analyze", "-q", "--csv", out, trace)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(open(trace).read(), before)


if __name__ == "__main__":
    ts.main(__name__)

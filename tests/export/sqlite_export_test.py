#!/usr/bin/python3
# `ampscope analyze ... --sqlite out.db` on shared traces, reopened with Python's sqlite3 module and
# the sqlite3 shell (Debian `sqlite3`):
#   - row counts against numbers from elsewhere: the report JSON of the same run (steps, findings,
#     checklist, matrix, kernels in the window), shared/traces/README.md (kernels of the trace), and
#     the nsys export's own CUPTI_ACTIVITY_KIND_KERNEL table (read here with sqlite3);
#   - a query that joins kernels to findings through finding_ranges;
#   - the three queries of docs/sqlite_schema.md, extracted from the doc and run as written, the SQL
#     with /usr/bin/sqlite3 and the pandas variants with this python (Debian python3-pandas);
#   - several ranks: one database with a rank column;
#   - output-path refusal (exit 2 before reading, no file) and a failed write (no partial set).
#
# usage: sqlite_export_test.py DOC AMPSCOPE_BINARY SHARED_DIR
# Exit 0 pass, 1 failure; 77 (CTest's skip code) when SHARED_DIR, sqlite3 or pandas is missing,
# which is a failure under CI=true.
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

DOC, AMPSCOPE, SHARED = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
TB_PLUGIN = "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"
CLOVERLEAF = "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite"
DLRM = ["traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz",
        "traces/kineto/param_dlrm_8ranks/worker1_step_12.1694128201556.pt.trace.json.gz"]
SQLITE3 = "/usr/bin/sqlite3"

failures = []
missing = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def check(cond, message):
    if not cond:
        fail(message)


def inputs_required():
    return os.environ.get("CI", "") not in ("", "0", "false")


def need(what, present):
    if present:
        return True
    if inputs_required():
        fail(what + " is missing (required under CI=true)")
    else:
        print("SKIP: " + what + " is missing")
        missing.append(what)
    return False


def shared(rel):
    return os.path.join(SHARED, rel)


def run(args, cwd=None):
    return subprocess.run([AMPSCOPE] + args, cwd=cwd, capture_output=True, text=True)


def analyze(inputs, workdir, name):
    db = os.path.join(workdir, name + ".db")
    report = os.path.join(workdir, name + ".json")
    r = run(["analyze", "-q", "-o", report, "--sqlite", db] + [shared(i) for i in inputs])
    if r.returncode != 0:
        fail(f"analyze {inputs} exited {r.returncode}: {r.stderr.strip()}")
        return None, None
    with open(report) as f:
        return db, json.load(f)


def count(con, sql, *params):
    return con.execute(sql, params).fetchone()[0]


def doc_blocks():
    """(marker, language, code) for each ```sql / ```python block after <!-- docs-test: marker -->."""
    with open(DOC) as f:
        text = f.read()
    blocks = re.findall(r"<!-- docs-test: ([\w-]+) -->\s*```(sql|python)\n(.*?)```", text, re.S)
    markers = {m for m, _, _ in blocks}
    check(len(markers) == 3, f"docs/sqlite_schema.md has {len(markers)} docs-test queries, expected 3")
    for m in markers:
        langs = sorted(lang for mm, lang, _ in blocks if mm == m)
        check(langs == ["python", "sql"], f"docs query {m} has blocks {langs}, expected one sql and one python")
    return blocks


def check_rank_counts(con, section, rank, label):
    """Rows of one rank against its report section (the report itself for one rank, ranks[i] else)."""
    steps = section["steps"]["per_step"] or []
    check(count(con, "SELECT COUNT(*) FROM steps WHERE rank = ?", rank) == len(steps),
          f"{label}: steps rows != report steps.per_step")
    check(count(con, "SELECT COUNT(*) FROM kernels WHERE rank = ? AND in_window = 1", rank) ==
          section["launches"]["kernels"], f"{label}: in-window kernels != report launches.kernels")
    # Per-step kernels and syncs: the same numbers as the report's per-step series.
    for i, step in enumerate(steps):
        row = con.execute("SELECT kernels, syncs FROM steps WHERE rank = ? AND step = ?", (rank, i)).fetchone()
        check(row == (step["kernels"], step["syncs"]), f"{label}: step {i} kernels/syncs {row} != report")
        check(count(con, "SELECT COUNT(*) FROM kernels WHERE rank = ? AND step = ?", rank, i) == step["kernels"],
              f"{label}: kernels with step = {i} != report per_step kernels")


def check_report_counts(con, report, label):
    ranks = report["ranks"]
    if len(ranks) == 1:
        check_rank_counts(con, report, ranks[0]["rank"] if ranks[0]["rank"] >= 0 else 0, label)
    else:
        for r in ranks:
            check_rank_counts(con, r, r["rank"], f"{label} rank {r['rank']}")
    # The report's findings, checklist and matrix: the job's rows (rank NULL) for several ranks.
    job = "rank IS NULL" if len(ranks) > 1 else "rank IS NOT NULL"
    check(count(con, f"SELECT COUNT(*) FROM findings WHERE {job}") == len(report["findings"]),
          f"{label}: findings rows != report findings")
    check(count(con, f"SELECT COUNT(*) FROM checklist WHERE {job}") == len(report["checklist"]),
          f"{label}: checklist rows != report checklist")
    check(count(con, f"SELECT COUNT(*) FROM matrix WHERE {job}") == len(report["matrix"]),
          f"{label}: matrix rows != report matrix")
    check(count(con, "SELECT value FROM meta WHERE key = 'schema_version'") == "1", f"{label}: schema_version")
    check(count(con, "SELECT value FROM meta WHERE key = 'tool_version'") == report["tool"]["version"],
          f"{label}: meta tool_version != report tool.version")


def run_doc_queries(blocks, workdir, label):
    for marker, lang, code in blocks:
        if lang == "sql":
            if not need("sqlite3 (Debian package sqlite3)", os.access(SQLITE3, os.X_OK)):
                continue
            r = subprocess.run([SQLITE3, "-bail", "out.db"], input=code, cwd=workdir, capture_output=True, text=True)
            check(r.returncode == 0 and not r.stderr, f"{label}: docs query {marker} (sqlite3) failed: {r.stderr}")
        else:
            try:
                import pandas  # noqa: F401  Debian python3-pandas (scripts/setup.sh)
                have_pandas = True
            except ImportError:
                have_pandas = False
            if not need("pandas (Debian package python3-pandas)", have_pandas):
                continue
            r = subprocess.run([sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True)
            check(r.returncode == 0, f"{label}: docs query {marker} (pandas) failed: {r.stderr[-2000:]}")


def main():
    if not need("shared traces (" + SHARED + ")", os.path.isdir(os.path.join(SHARED, "traces"))):
        return
    blocks = doc_blocks()
    tmp = tempfile.mkdtemp(prefix="ampscope_sqlite_")
    try:
        # A Kineto trace with steps and findings. README: 8772 kernels.
        db, report = analyze([TB_PLUGIN], tmp, "tb")
        if db:
            con = sqlite3.connect(db)
            check(count(con, "SELECT COUNT(*) FROM kernels") == 8772, "tb_plugin: kernels rows != 8772 (README)")
            check_report_counts(con, report, "tb_plugin")
            # Every per-step Tensor Core share the docs query computes is the report's (FP32 ResNet: 0).
            for i, step in enumerate(report["steps"]["per_step"]):
                check(step["tensor_core_kernel_pct"] == 0, "tb_plugin is FP32 on a V100: no Tensor Core kernels")
            check(count(con, "SELECT COUNT(*) FROM kernels WHERE precision = 'fp32' AND tensor_core = 'yes'") == 0,
                  "tb_plugin: an fp32 Tensor Core kernel")
            # Kernels to findings: the kernels inside each finding's time ranges.
            joined = con.execute("""
                SELECT f.id, COUNT(k.id) FROM findings f
                JOIN finding_ranges r ON r.rank IS f.rank AND r.finding = f.id
                JOIN kernels k ON k.rank = r.rank AND k.start_ns >= r.start_ns AND k.start_ns < r.end_ns
                GROUP BY f.id""").fetchall()
            ranged = count(con, "SELECT COUNT(DISTINCT finding) FROM finding_ranges")
            check(ranged > 0, "tb_plugin: no finding has time ranges")
            check(len(joined) > 0, "tb_plugin: the kernels-to-findings join found no kernel")
            # Every kernel's op is a CPU op row with that name.
            op_join = """SELECT COUNT(*) FROM kernels k LEFT JOIN ops o ON o.rank = k.rank AND o.id = k.op_id
                         WHERE k.op_id IS NOT NULL AND (o.name IS NULL OR o.name != k.op)"""
            check(count(con, op_join) == 0, "tb_plugin: kernels.op_id does not name its op")
            # ... through the (rank, id) index: without it SQLite scans all ops once per kernel
            # (23,622 x 8,772 rows here, half a minute).
            plan = " ".join(row[-1] for row in con.execute("EXPLAIN QUERY PLAN " + op_join))
            check("SCAN o" not in plan, f"tb_plugin: the kernels-to-ops join scans ops: {plan}")
            check(count(con, "SELECT COUNT(*) FROM ops WHERE kernels > 0") > 0, "tb_plugin: no op launched a kernel")
            con.close()
            shutil.copy(db, os.path.join(tmp, "out.db"))
            run_doc_queries(blocks, tmp, "tb_plugin")

        # An Nsight Systems export: the kernel rows of its own kernel table.
        db, report = analyze([CLOVERLEAF], tmp, "clover")
        if db:
            con = sqlite3.connect(db)
            src = sqlite3.connect("file:" + shared(CLOVERLEAF) + "?mode=ro&immutable=1", uri=True)
            n = count(src, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
            src.close()
            check(n == 1312, f"cloverleaf export has {n} kernel rows, README says 1312")
            check(count(con, "SELECT COUNT(*) FROM kernels") == n, "cloverleaf: kernels rows != the export's")
            check_report_counts(con, report, "cloverleaf")
            con.close()

        # Two ranks of one job: one database, a rank column, the job's rows with rank NULL.
        db, report = analyze(DLRM, tmp, "dlrm")
        if db:
            con = sqlite3.connect(db)
            check(count(con, "SELECT COUNT(DISTINCT rank) FROM kernels") == 2, "dlrm: kernels of 2 ranks")
            check(count(con, "SELECT value FROM meta WHERE key = 'ranks'") == "2", "dlrm: meta ranks")
            for r in report["ranks"]:
                check(count(con, "SELECT COUNT(*) FROM findings WHERE rank = ?", r["rank"]) == len(r["finding_ids"]),
                      f"dlrm: rank {r['rank']} findings rows != report ranks[].finding_ids")
            check_report_counts(con, report, "dlrm")
            con.close()
            shutil.copy(db, os.path.join(tmp, "out.db"))
            run_doc_queries(blocks, tmp, "dlrm")

        # Refused before reading: the output is the input, or two outputs share a path.
        nsys_copy = os.path.join(tmp, "in.sqlite")
        shutil.copy(shared(CLOVERLEAF), nsys_copy)
        before = os.path.getsize(nsys_copy)
        r = run(["analyze", "-q", nsys_copy, "--sqlite", nsys_copy])
        check(r.returncode == 2 and r.stderr.count("\n") == 1, f"--sqlite over the input: exit {r.returncode} {r.stderr}")
        check(os.path.getsize(nsys_copy) == before, "--sqlite over the input changed it")
        shared_out = os.path.join(tmp, "both.out")
        r = run(["analyze", "-q", shared(TB_PLUGIN), "-o", shared_out, "--sqlite", shared_out])
        check(r.returncode == 2, f"-o and --sqlite on one path: exit {r.returncode}")
        check(not os.path.exists(shared_out), "-o and --sqlite on one path left a file")
        # A failed write leaves no partial set: the database cannot be created, so no report either.
        report_path = os.path.join(tmp, "set.json")
        r = run(["analyze", "-q", shared(TB_PLUGIN), "-o", report_path,
                 "--sqlite", os.path.join(tmp, "no_such_dir", "out.db")])
        check(r.returncode == 2 and r.stderr.count("\n") == 1, f"unwritable --sqlite: exit {r.returncode} {r.stderr}")
        check(not os.path.exists(report_path), "a failed --sqlite write left the report behind")
        left = [f for f in os.listdir(tmp) if f.startswith(".") or "tmp" in f]
        check(not left, f"temporary files left behind: {left}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
if missing:
    sys.exit(77)
print("ok")

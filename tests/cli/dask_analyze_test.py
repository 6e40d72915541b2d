#!/usr/bin/python3
"""scripts/dask_analyze.py with a LocalCluster of 2 workers on the shared 8-rank DLRM job: its
report (per-rank summaries as Dask tasks, one merge) equals `ampscope analyze` on the same files,
and on success it prints one summary line. Without ampscope (not on PATH, or a wrong --ampscope)
it says so in one line and exits 2, the documented code, with no traceback.

Usage: dask_analyze_test.py SCRIPT AMPSCOPE SHARED_DIR
Exit: 0 equal, 1 different or failed, 77 an input is missing (the CTest fails under CI=true).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile


def missing(what):
    ci = os.environ.get("CI", "") not in ("", "0", "false")
    print(("FAIL (CI=true): " if ci else "SKIP: ") + what)
    return 1 if ci else 77


def diff(a, b, path, out):
    if type(a) is not type(b):
        out.append("%s: %r != %r" % (path, a, b))
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s/%s: only in one report" % (path, k))
            else:
                diff(a[k], b[k], path + "/" + k, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append("%s: %d != %d items" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s/%d" % (path, i), out)
    elif a != b:
        out.append("%s: %r != %r" % (path, a, b))


def no_ampscope_is_one_line(script):
    """Exit 2 and one line on stderr, before Dask is even needed."""
    bad = []
    env = dict(os.environ, PATH="/nonexistent")
    for args, what in ((["x.json", "-o", "r.json"], "on PATH"),
                       (["--ampscope", "/nonexistent/bin/ampscope", "x.json", "-o", "r.json"], "at /nonexistent/bin/ampscope")):
        r = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, env=env, timeout=60)
        want = "dask_analyze.py: no executable ampscope %s (give its path with --ampscope)\n" % what
        if r.returncode != 2 or r.stderr != want or r.stdout:
            bad.append("without ampscope %s: exit %d, stderr %r (want 2, %r)" % (what, r.returncode, r.stderr, want))
    return bad


def main(script, ampscope, shared):
    bad = no_ampscope_is_one_line(script)
    if bad:
        print("\n".join(bad))
        return 1
    try:
        import distributed  # noqa: F401
    except ImportError:
        return missing("python3-distributed is not installed (scripts/setup.sh installs it)")
    # Absolute, normalised paths: what dask_analyze.py hands its workers (and so the report names).
    files = sorted(os.path.abspath(f) for f in glob.glob(os.path.join(shared, "traces/kineto/param_dlrm_8ranks/*.json.gz")))
    if len(files) != 8:
        return missing("shared traces: traces/kineto/param_dlrm_8ranks (8 rank files) under " + shared)
    with tempfile.TemporaryDirectory(prefix="ampscope-dask-test-") as tmp:
        via_dask = os.path.join(tmp, "dask.json")
        together = os.path.join(tmp, "analyze.json")
        run = subprocess.run([sys.executable, script, "--workers", "2", "--ampscope", ampscope,
                              "--summaries", os.path.join(tmp, "summaries")] + files + ["-o", via_dask],
                             capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            print("dask_analyze.py failed (%d):\n%s%s" % (run.returncode, run.stdout, run.stderr))
            return 1
        want = "dask_analyze.py: 8 ranks analysed as Dask tasks on a LocalCluster of 2 workers and merged: %s\n" % via_dask
        if run.stdout != want:
            print("dask_analyze.py printed %r, expected the one summary line %r" % (run.stdout, want))
            return 1
        summaries = sorted(glob.glob(os.path.join(tmp, "summaries", "*.summary.json")))
        if len(summaries) != 8:
            print("expected 8 summaries, found %d" % len(summaries))
            return 1
        subprocess.run([ampscope, "analyze"] + files + ["-q", "-o", together], check=True, timeout=600)
        a, b = json.load(open(together)), json.load(open(via_dask))
        out = []
        diff(a, b, "", out)
        if out:
            print("%d differences between analyze and Dask, first ones:" % len(out))
            print("\n".join(out[:20]))
            return 1
        if len(b["ranks"]) != 8:
            print("expected 8 ranks in the Dask report, found %d" % len(b["ranks"]))
            return 1
    print("Dask (2 workers) == analyze(files) on the 8-rank DLRM job")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))

#!/usr/bin/python3
"""Analyse the ranks of a job as Dask tasks, then merge them into one job report.

The map step, one task per rank file, is `ampscope analyze FILE --summary-out S -q` (each
task writes one small summary); the reduce step runs once, at the end: `ampscope merge S... -o
report.json`. The result equals `ampscope analyze FILES... -o report.json`.

  scripts/dask_analyze.py --workers 4 FILES... -o report.json          # a LocalCluster
  scripts/dask_analyze.py --scheduler tcp://host:8786 FILES... -o r.json  # an existing cluster

With --scheduler, the workers must see the trace files and the summary directory at the same
paths (a shared file system) and have ampscope at --ampscope PATH.

On success one line on stdout says how many ranks were analysed and where the report is.
Exit codes: 0 merged, 2 usage or input error (one line on stderr each: no ampscope, a failing rank).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def analyze_rank(ampscope, trace, summary, extra):
    """One Dask task: one rank's summary. Returns (trace, exit code, stderr)."""
    cmd = [ampscope, "analyze", trace, "--summary-out", summary, "-q", "-j", "1"] + extra
    try:
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except OSError as e:  # a worker without the binary at that path
        return trace, 2, "cannot run %s: %s" % (ampscope, e.strerror or e)
    return trace, done.returncode, done.stderr.strip()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--workers", type=int, default=2, help="workers of a LocalCluster (default 2)")
    p.add_argument("--ampscope", default="ampscope", help="the ampscope binary (default: ampscope on PATH)")
    p.add_argument("--summaries", help="keep the rank summaries in this directory (default: a temporary one)")
    p.add_argument("--steps", help="passed to every `ampscope analyze` (same meaning)")
    p.add_argument("-o", "--output", required=True, help="the job report (JSON)")
    p.add_argument("--html", help="also an HTML report")
    p.add_argument("--markdown", help="also a Markdown summary")
    p.add_argument("files", nargs="+", help="the rank trace files")
    args = p.parse_args(argv)
    if args.scheduler is None and args.workers < 1:
        p.error("--workers must be at least 1")

    # The binary first: without it every task would fail, with a traceback.
    found = shutil.which(args.ampscope)
    if found is None:
        where = "at " + args.ampscope if os.sep in args.ampscope else "on PATH"
        print("dask_analyze.py: no executable ampscope %s (give its path with --ampscope)" % where, file=sys.stderr)
        return 2

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("dask_analyze.py: Dask is not installed (Debian: apt-get install python3-distributed)", file=sys.stderr)
        return 2

    ampscope = os.path.abspath(found)
    extra = ["--steps", args.steps] if args.steps else []
    with tempfile.TemporaryDirectory(prefix="ampscope-dask-") as tmp:
        outdir = os.path.abspath(args.summaries or tmp)
        os.makedirs(outdir, exist_ok=True)
        files = [os.path.abspath(f) for f in args.files]
        summaries = [os.path.join(outdir, "rank%05d.summary.json" % i) for i in range(len(files))]
        if args.scheduler:
            client = Client(args.scheduler)
            cluster = None
        else:
            # Processes, one thread each: every task is a process of its own anyway.
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            futures = client.map(analyze_rank, [ampscope] * len(files), files, summaries,
                                 [extra] * len(files), pure=False)
            results = client.gather(futures)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        failed = [(t, rc, err) for t, rc, err in results if rc != 0]
        for trace, rc, err in failed:
            print("dask_analyze.py: %s: %s" % (trace, err or "ampscope analyze exited with %d" % rc), file=sys.stderr)
        if failed:
            return 2
        merge = [ampscope, "merge"] + summaries + ["-o", args.output, "-q"]
        if args.html:
            merge += ["--html", args.html]
        if args.markdown:
            merge += ["--markdown", args.markdown]
        merged = subprocess.run(merge).returncode
        if merged == 0:
            workers = args.scheduler or "a LocalCluster of %d worker%s" % (args.workers, "" if args.workers == 1 else "s")
            print("dask_analyze.py: %d rank%s analysed as Dask tasks on %s and merged: %s"
                  % (len(files), "" if len(files) == 1 else "s", workers, args.output))
        return merged


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

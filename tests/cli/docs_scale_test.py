#!/usr/bin/python3
"""Runs docs/scale.md's command blocks as a user would copy them, on the shared 8-rank DLRM job:
every block marked <!-- docs-test: NAME --> (one command, summaries and merge, the Slurm job array,
srun inside an allocation, torchrun's workers), each in a fresh directory holding traces/ as the
block names them. What a laptop lacks is emulated as far as the commands need it: the Slurm array
runs the script once per task with SLURM_ARRAY_TASK_ID, then its (commented) merge line; `srun
--ntasks=N CMD` runs CMD N times with SLURM_PROCID; torch.distributed is a stub whose get_rank()
is $RANK and whose barrier() returns (rank 0 runs last, so it merges after every rank's analysis).
Each block must exit 0 and leave report.json with the job's 8 ranks (the traces' README: all 8
ranks of one job, world size 8) - or 1 rank where the block analyses one.
The Dask block is scripts/dask_analyze.py's own test (dask_analyze_dlrm).

usage: docs_scale_test.py DOC AMPSCOPE_BINARY SHARED_DIR PYTHON_PACKAGE_DIR
Exit 0 pass, 1 failure; 77 (CTest's skip code) when SHARED_DIR is missing, a failure under CI=true.
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOC, AMPSCOPE, SHARED, PYPKG = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], os.path.abspath(sys.argv[4])
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def block(text, marker, language):
    m = re.search(r"<!-- docs-test: " + re.escape(marker) + r" -->\s*```" + language + r"\n(.*?)```", text, re.S)
    if not m:
        fail("docs/scale.md has no ```%s block after <!-- docs-test: %s -->" % (language, marker))
        return None
    return m.group(1)


def workdir(root, name, files, pattern):
    """A fresh directory with traces/<pattern % rank> for every rank file."""
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "traces"))
    for rank, f in enumerate(files):
        target = os.path.join(d, "traces", pattern % rank)
        if target.endswith(".gz"):
            os.symlink(f, target)
        else:
            with gzip.open(f, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    return d


def env_with(**extra):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(AMPSCOPE) + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def run(cmd, cwd, env, what):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail("%s: exit %d\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
    return r.returncode == 0


def check_report(d, ranks, what):
    path = os.path.join(d, "report.json") if os.path.exists(os.path.join(d, "report.json")) else os.path.join(d, "report", "report.json")
    if not os.path.exists(path):
        fail("%s: no report.json" % what)
        return
    job = json.load(open(path))["job"]
    if job["ranks"] != ranks or job["world_size"] != 8:
        fail("%s: job ranks %s, world size %s (want %d, 8)" % (what, job["ranks"], job["world_size"], ranks))
    else:
        print("ok: %s (%d ranks)" % (what, ranks))


def main():
    files = sorted(glob.glob(os.path.join(SHARED, "traces/kineto/param_dlrm_8ranks/*.pt.trace.json.gz")))
    if len(files) != 8:
        ci = os.environ.get("CI", "") not in ("", "0", "false")
        print(("FAIL (CI=true): " if ci else "SKIP: ") + "shared traces: traces/kineto/param_dlrm_8ranks under " + SHARED)
        return 1 if ci else 77
    files = [os.path.abspath(f) for f in files]  # worker0..worker7: rank order
    text = open(DOC, encoding="utf-8").read()
    with tempfile.TemporaryDirectory(prefix="ampscope-docs-scale-") as root:
        # 1. One command (both lines).
        sh = block(text, "one-command", "sh")
        if sh is not None:
            d = workdir(root, "one", files, "rank%d.json.gz")
            if run(["bash", "-e", "-c", sh], d, env_with(), "one-command"):
                check_report(d, 8, "one-command")
        # 2. Summaries and merge, plain and gzip'd: one rank.
        for name in ("summaries", "summaries-gz"):
            sh = block(text, name, "sh")
            if sh is not None:
                d = workdir(root, name, files, "rank%d.json.gz")
                if run(["bash", "-e", "-c", sh], d, env_with(), name):
                    check_report(d, 1, name)
        # The Slurm array: one run per task, then the merge line it leaves commented.
        sh = block(text, "slurm-array", "sh")
        if sh is not None:
            d = workdir(root, "slurm", files, "rank%d.pt.trace.json.gz")
            ok = all(run(["bash", "-e", "-c", sh], d, env_with(SLURM_ARRAY_TASK_ID=str(i)), "slurm-array task %d" % i)
                     for i in range(len(files)))
            merges = [l.lstrip("#").strip() for l in sh.splitlines() if re.match(r"#\s+ampscope merge ", l)]
            if len(merges) != 1:
                fail("slurm-array: expected one commented `ampscope merge` line, found %d" % len(merges))
            elif ok and run(["bash", "-e", "-c", merges[0]], d, env_with(), "slurm-array merge"):
                check_report(d, 8, "slurm-array")
        # srun inside the allocation.
        sh = block(text, "srun", "sh")
        if sh is not None:
            d = workdir(root, "srun", files, "rank%d.json.gz")
            bindir = os.path.join(root, "srun-bin")
            os.makedirs(bindir)
            with open(os.path.join(bindir, "srun"), "w") as f:
                f.write('#!/bin/bash\n# srun --ntasks=N CMD...: CMD once per task, SLURM_PROCID=0..N-1\n'
                        'n=${1#--ntasks=}; shift\nfor ((i = 0; i < n; i++)); do SLURM_PROCID=$i "$@" || exit $?; done\n')
            os.chmod(os.path.join(bindir, "srun"), 0o755)
            env = env_with(WORLD_SIZE=str(len(files)))
            env["PATH"] = bindir + os.pathsep + env["PATH"]
            if run(["bash", "-e", "-c", sh], d, env, "srun"):
                check_report(d, 8, "srun")
        # torchrun's workers: ranks 1..7, then rank 0 (which merges after the barrier).
        py = block(text, "torchrun", "python")
        if py is not None:
            d = workdir(root, "torchrun", files, "rank%d.pt.trace.json")
            stub = os.path.join(root, "torch-stub")
            os.makedirs(os.path.join(stub, "torch", "distributed"))
            open(os.path.join(stub, "torch", "__init__.py"), "w").close()
            with open(os.path.join(stub, "torch", "distributed", "__init__.py"), "w") as f:
                f.write("import os\n\ndef get_rank():\n    return int(os.environ['RANK'])\n\n"
                        "def barrier():\n    pass\n")
            env = env_with(PYTHONPATH=stub + os.pathsep + PYPKG, AMPSCOPE_CLI=AMPSCOPE)
            ok = all(run([sys.executable, "-c", py], d, dict(env, RANK=str(r)), "torchrun rank %d" % r)
                     for r in list(range(1, len(files))) + [0])
            if ok:
                check_report(d, 8, "torchrun")
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

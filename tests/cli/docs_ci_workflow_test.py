#!/usr/bin/python3
# Runs docs/ci.md as a user would copy it: the bootstrap block, then the GitHub Actions workflow's
# steps for three events in order (a pull request before main has a baseline, a push to main, a
# pull request), with the commands exactly as the doc writes them. Not run: actions/checkout, the
# build step (the built ampscope is put on PATH instead) and `ampscope record` (it needs a GPU):
# shared Kineto traces stand in for the recording, linked as trace/<name>.amptrace (ampscope reads
# a trace's format from its first bytes, not from its name). The actions the workflow uses are
# emulated as far as the commands need them: upload/download-artifact copy files through a local
# store, action-junit-report parses the JUnit file.
#
# usage: docs_ci_workflow_test.py DOC AMPSCOPE_BINARY SHARED_DIR
# Exit 0 pass, 1 failure; 77 (CTest's skip code) when SHARED_DIR is missing, a failure under CI=true.
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    import yaml  # Debian python3-yaml (scripts/setup.sh)
except ImportError:
    yaml = None

DOC, AMPSCOPE, SHARED = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
TRACES = {
    # Two runs of the same job (tb_plugin samples): the baseline and the pull request.
    "push": "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz",
    "pull_request": "traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz",
}

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def inputs_required():
    return os.environ.get("CI", "") not in ("", "0", "false")


def marked_block(text, marker, language):
    """The first ```language block after <!-- docs-test: marker -->."""
    m = re.search(r"<!-- docs-test: " + re.escape(marker) + r" -->\s*```" + language + r"\n(.*?)```", text, re.S)
    if not m:
        fail(f"docs/ci.md has no ```{language} block after <!-- docs-test: {marker} -->")
        sys.exit(1)
    return m.group(1)


def evaluate_if(expression, event, outcomes, job_failed):
    """GitHub's `if:` for the forms the doc uses: ==, !=, &&, ||, always(), github.event_name,
    steps.<id>.outcome. Without always()/failure(), a step runs only while the job has not failed."""
    if expression is None:
        return not job_failed
    text = str(expression)
    uses_status = "always()" in text or "failure()" in text
    text = text.replace("always()", "True").replace("failure()", repr(job_failed))
    text = text.replace("&&", " and ").replace("||", " or ")
    text = text.replace("github.event_name", repr(event))
    text = re.sub(r"steps\.(\w+)\.outcome", lambda m: repr(outcomes.get(m.group(1), "")), text)
    if not re.fullmatch(r"[\sA-Za-z_'=!()]*", text.replace("True", "").replace("False", "")):
        fail(f"unsupported if: expression {expression!r}")
        return False
    result = bool(eval(text, {"__builtins__": {}}, {}))  # only literals and and/or/== are left
    return result and (uses_status or not job_failed)


def run_workflow(workflow, event, work, store, summary_lines):
    """Runs the job's steps for `event` in `work`; returns (job_failed, {step name: outcome})."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(AMPSCOPE) + os.pathsep + env.get("PATH", "")
    env["GITHUB_ACTIONS"] = "true"
    env["GITHUB_EVENT_NAME"] = event
    summary = os.path.join(work, "..", f"summary-{event}.md")
    open(summary, "w").close()
    env["GITHUB_STEP_SUMMARY"] = summary
    env["GITHUB_PATH"] = os.path.join(work, "..", "github_path")
    outcomes, by_name, job_failed = {}, {}, False
    (job,) = workflow["jobs"].values()
    for step in job["steps"]:
        name = step.get("name", step.get("uses", "?"))
        if not evaluate_if(step.get("if"), event, outcomes, job_failed):
            by_name[name] = "skipped"
            if "id" in step:
                outcomes[step["id"]] = "skipped"
            continue
        ok = True
        uses = step.get("uses", "")
        run = step.get("run")
        if uses.startswith("actions/checkout"):
            pass  # `work` is the checkout
        elif run is not None and "cmake --build" in run:
            pass  # the build: the ampscope under test is on PATH
        elif run is not None and run.lstrip().startswith("ampscope record"):
            # The GPU step: check what the doc asks for, then stand in with a shared trace.
            m = re.search(r"-o (\S+)", run)
            out_dir = os.path.join(work, m.group(1) if m else "trace")
            os.makedirs(out_dir, exist_ok=True)
            src = os.path.join(SHARED, TRACES[event])
            os.symlink(os.path.abspath(src), os.path.join(out_dir, "rank0.amptrace"))
        elif run is not None:
            r = subprocess.run(["bash", "-e", "-c", run], cwd=work, env=env, capture_output=True, text=True)
            ok = r.returncode == 0
            print(f"[{event}] {name}: exit {r.returncode}\n{r.stdout}{r.stderr}")
            if r.returncode not in (0, 1) or ("ampscope gate" in run and r.returncode != 0):
                # An ampscope usage/input error (2) is a broken doc; so is a gate that fails
                # here (the two runs are of one job and must pass).
                fail(f"[{event}] step '{name}' exited {r.returncode}: {r.stderr.strip()}")
        elif uses.startswith("actions/upload-artifact"):
            path = os.path.join(work, step["with"]["path"])
            if not os.path.isfile(path):
                ok = False
                fail(f"[{event}] step '{name}': {step['with']['path']} to upload does not exist")
            else:
                dest = os.path.join(store, step["with"]["name"])
                os.makedirs(dest, exist_ok=True)
                shutil.copy(path, dest)
        elif uses.startswith("dawidd6/action-download-artifact"):
            src = os.path.join(store, step["with"]["name"])
            if not os.path.isdir(src):
                ok = False  # no artifact yet: the action fails
            else:
                dest = os.path.join(work, step["with"].get("path", "."))
                os.makedirs(dest, exist_ok=True)
                for f in os.listdir(src):
                    shutil.copy(os.path.join(src, f), dest)
        elif uses.startswith("mikepenz/action-junit-report"):
            path = os.path.join(work, step["with"]["report_paths"])
            try:
                ET.parse(path)
            except (OSError, ET.ParseError) as e:
                ok = False
                fail(f"[{event}] step '{name}': {e}")
        else:
            fail(f"[{event}] step '{name}': no emulation for {uses!r}")
            ok = False
        outcome = "success" if ok else "failure"
        by_name[name] = outcome
        if "id" in step:
            outcomes[step["id"]] = outcome
        if not ok and not step.get("continue-on-error", False):
            job_failed = True
    with open(summary) as f:
        summary_lines.extend(f.read().splitlines())
    return job_failed, by_name


def main():
    if not os.path.isdir(os.path.join(SHARED, "traces")):
        print(f"shared traces missing ({SHARED}): get ../shared to run this test")
        return 1 if inputs_required() else 77
    if yaml is None:
        print("python3-yaml missing: apt-get install python3-yaml (scripts/setup.sh)")
        return 1 if inputs_required() else 77
    text = open(DOC, encoding="utf-8").read()
    bootstrap = marked_block(text, "bootstrap", "sh")
    workflow = yaml.safe_load(marked_block(text, "workflow", "yaml"))
    # YAML 1.1 reads the key `on` as True; the doc's triggers must still be push and pull_request.
    triggers = workflow.get("on", workflow.get(True))
    if set(triggers) != {"push", "pull_request"}:
        fail(f"workflow triggers are {sorted(triggers)}, expected push and pull_request")

    root = tempfile.mkdtemp(prefix="ampscope_docs_ci_")
    try:
        store = os.path.join(root, "artifacts")
        os.makedirs(store)

        def checkout(label):
            work = os.path.join(root, label)
            os.makedirs(work)
            # The repository state after the bootstrap: the committed .ampscope/gate.json.
            if os.path.isdir(os.path.join(root, "repo", ".ampscope")):
                shutil.copytree(os.path.join(root, "repo", ".ampscope"), os.path.join(work, ".ampscope"))
            return work

        repo = os.path.join(root, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(AMPSCOPE) + os.pathsep + env.get("PATH", "")
        r = subprocess.run(["bash", "-e", "-c", bootstrap], cwd=repo, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"bootstrap block exited {r.returncode}: {r.stderr.strip()}")
        config = os.path.join(repo, ".ampscope", "gate.json")
        if not os.path.isfile(config):
            fail("the bootstrap block did not create .ampscope/gate.json")

        # 1. A pull request before main has a baseline: passes, without a gate, and says why.
        summary = []
        failed, steps = run_workflow(workflow, "pull_request", checkout("pr-first"), store, summary)
        if failed:
            fail(f"the first pull request (no baseline yet) failed the job: {steps}")
        if steps.get("Gate") != "skipped":
            fail(f"the first pull request ran the gate without a baseline: {steps.get('Gate')}")
        if not any("no baseline" in line for line in summary):
            fail("the first pull request's job summary does not say that there is no baseline yet")

        # 2. The push to main records the baseline.
        failed, steps = run_workflow(workflow, "push", checkout("main"), store, [])
        if failed:
            fail(f"the push to main failed: {steps}")
        if not os.listdir(store):
            fail("the push to main stored no baseline artifact")

        # 3. A pull request: the gate runs against that baseline, the summary gets its Markdown.
        summary = []
        work = checkout("pr")
        failed, steps = run_workflow(workflow, "pull_request", work, store, summary)
        if steps.get("Gate") != "success":
            fail(f"the gate step of the pull request: {steps.get('Gate')} ({steps})")
        if failed:
            fail(f"the pull request failed the job: {steps}")
        if not any(line.startswith("#") and "ampscope" in line for line in summary):
            fail("the pull request's job summary has no gate headline: " + " | ".join(summary[:3]))
        junit = os.path.join(work, "gate-junit.xml")
        if os.path.isfile(junit) and ET.parse(junit).getroot().find(".//testcase") is None:
            fail("gate-junit.xml has no testcase")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("docs/ci.md workflow: all steps ran as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

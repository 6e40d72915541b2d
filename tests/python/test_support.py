"""What the Python tests share: the paths they are given, the shared traces they use, and the suite's
rule for a missing input (tests/support: a skip, exit 77, except under CI=true, where it fails).

Each test script is run by CTest as: /usr/bin/python3 SCRIPT SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR
"""
import gzip
import json
import os
import sys
import unittest

SOURCE_DIR, AMPSCOPE, SHARED = (os.path.abspath(a) for a in sys.argv[1:4]) if len(sys.argv) >= 4 else (None,) * 3

# shared/traces/README.md describes each (and its counts).
TB_PLUGIN = "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"  # ResNet50, 8772 kernels, 6 steps
CLOVERLEAF = "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite"            # nsys export, 1312 kernels
DLRM = ["traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz",
        "traces/kineto/param_dlrm_8ranks/worker1_step_12.1694128201556.pt.trace.json.gz"]


def inputs_required():
    return os.environ.get("CI", "") not in ("", "0", "false")


class MissingInput(Exception):
    pass


def shared(rel):
    path = os.path.join(SHARED, rel)
    if not os.path.exists(path):
        raise MissingInput("shared trace %s (set AMPSCOPE_SHARED_DIR; ../shared next to the checkout)" % path)
    return path


def require_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise MissingInput("pandas (Debian python3-pandas; scripts/setup.sh installs it)")


def use_source_package():
    """Import the package from the checkout (python/), and run the binary under test."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
    os.environ["AMPSCOPE_CLI"] = AMPSCOPE


def kineto_trace(steps, kernels_per_step, kernel_name, device_name="NVIDIA A100-SXM4-80GB"):
    """A small Kineto trace written here by hand: `steps` ProfilerSteps of 1 ms, each with a
    cpu_op launching `kernels_per_step` kernels of 100 µs (runtime launch + kernel, linked by
    correlation id). Returns the JSON text; the counts are the arguments (a hand count)."""
    events = []
    corr = 1000
    t0 = 1_700_000_000_000.0  # µs
    pid, tid = 4242, 4243
    for s in range(steps):
        start = t0 + s * 1000.0
        events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (s + 3), "pid": pid,
                       "tid": tid, "ts": start, "dur": 1000.0})
        events.append({"ph": "X", "cat": "cpu_op", "name": "my_ext::block", "pid": pid, "tid": tid,
                       "ts": start + 1, "dur": 400.0, "args": {"External id": s + 1}})
        for k in range(kernels_per_step):
            corr += 1
            launch = start + 2 + k * 50
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                           "ts": launch, "dur": 5.0, "args": {"correlation": corr, "External id": s + 1}})
            ks = start + 10 + k * 110
            events.append({"ph": "X", "cat": "kernel", "name": kernel_name, "pid": 0, "tid": 7, "ts": ks,
                           "dur": 100.0, "args": {"device": 0, "stream": 7, "correlation": corr,
                                                  "External id": s + 1}})
    return json.dumps({"schemaVersion": 1,
                       "deviceProperties": [{"id": 0, "name": device_name, "computeMajor": 8, "computeMinor": 0,
                                             "totalGlobalMem": 85198045184, "numSms": 108}],
                       "traceEvents": events})


def main(module_name):
    """Runs the module's tests; 77 when an input is missing (a failure under CI=true)."""
    sys.argv[1:] = ["-v"]
    try:
        if SOURCE_DIR is None:
            raise SystemExit("usage: SCRIPT SOURCE_DIR AMPSCOPE_BINARY SHARED_DIR")
        module = sys.modules[module_name]
        if hasattr(module, "check_inputs"):
            module.check_inputs()
    except MissingInput as e:
        print(("FAIL (CI=true): " if inputs_required() else "SKIP: ") + "missing " + str(e))
        sys.exit(1 if inputs_required() else 77)
    result = unittest.main(module=module_name, exit=False).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)


def gunzip_text(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read()

#!/usr/bin/env python3
"""Golden value for queued_work_stalled, from the raw Kineto JSON alone (no ampscope code).

The GPU idle time, inside the step windows, during which the GPU ran nothing although the
work that ended the idle stretch had already been launched: its launch call (the cuda_runtime or
cuda_driver event with the same correlation id) had returned before the stretch began. Idle
stretches are the gaps between the device's merged kernel/memcpy/memset intervals (HTA's idle
time), walked from the first step's start; a stretch under 30 us is HTA's kernel_wait and is not
counted. A step's window (docs/findings.md, "Steps") runs from its ProfilerStep range's start (or
the previous window's end) to the end of that range or of the GPU work launched inside it.

    /usr/bin/python3 tests/analyzers/queued_stall_golden.py TRACE.json.gz

prints the stalled time in us, per step in us, the number of stretches and the longest.
"""
import gzip
import json
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"))
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    gpu = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
                  and e.get("args", {}).get("device", 0) == 0), key=lambda e: e["ts"])
    windows = []
    for s, t in steps:
        end = t
        for e in gpu:
            call = calls.get(e["args"].get("correlation"))
            if call is not None and s <= call["ts"] < t:
                end = max(end, e["ts"] + e["dur"])
        start = max(s, windows[-1][1]) if windows else s
        windows.append((start, end))
    steps = windows
    stalled, stretches, longest = 0.0, 0, 0.0
    busy_end = steps[0][0]
    for e in gpu:
        if e["ts"] + e["dur"] <= steps[0][0]:
            continue
        if e["ts"] >= steps[-1][1]:
            break
        if e["ts"] > busy_end:
            start, end = busy_end, e["ts"]
            call = calls.get(e["args"].get("correlation"))
            if call is not None and call["ts"] + call["dur"] <= start and end - start >= 30:
                for s, t in steps:
                    piece = min(end, t) - max(start, s)
                    if piece > 0:
                        stalled += piece
                        stretches += 1
                        longest = max(longest, piece)
        busy_end = max(busy_end, e["ts"] + e["dur"])
    print(f"stalled_us {stalled:.1f} per_step_us {stalled / len(steps):.1f} stretches {stretches} longest_us {longest:.1f}")


if __name__ == "__main__":
    main(sys.argv[1])

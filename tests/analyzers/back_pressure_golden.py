#!/usr/bin/env python3
"""Golden values for GraphSharedTraces.BackPressuredLaunchesOfTheV100Trace: the launch calls of a
Kineto trace that a full launch queue held back, by the rule of analyzers/graph/graph_builder.cc
(docs/whatif.md, "Launch-queue back-pressure"), computed from the raw JSON alone.

A queued call (a kernel launch, cudaMemsetAsync, or cudaMemcpyAsync that is not a copy into
pageable memory) is back-pressured when it lasts more than 10x its name's median and at least
50 us more, at least 64 GPU activities were launched before it and not done when it began, and it
returned within 20 us after a GPU activity that was launched before it and was still running
median-cost after it began.

usage: back_pressure_golden.py TRACE.json.gz  ->  count and total duration (us) of those calls
"""
import bisect
import gzip
import json
import statistics
import sys


def main(path):
    with gzip.open(path) as f:
        events = json.load(f)["traceEvents"]
    runtime = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "runtime")]
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_corr = {}
    for e in runtime:
        by_corr.setdefault(e["args"].get("correlation"), e)
    pageable_d2h = {g["args"].get("correlation") for g in gpu if "Pageable" in g["name"] and "DtoH" in g["name"]}

    def queued(e):
        n = e["name"]
        if "LaunchKernel" in n or "MemsetAsync" in n:
            return True
        return "MemcpyAsync" in n and e["args"].get("correlation") not in pageable_d2h

    calls = [e for e in runtime if queued(e)]
    by_name = {}
    for e in calls:
        by_name.setdefault(e["name"], []).append(e["dur"])
    median = {n: sorted(d)[len(d) // 2] for n, d in by_name.items()}  # the upper median, as the C++ nth_element
    acts = []
    for g in gpu:
        c = by_corr.get(g["args"].get("correlation"))
        acts.append((g["ts"] + g["dur"], c["ts"] if c is not None else None, g["ts"]))
    keys = sorted(a[1] if a[1] is not None else a[2] for a in acts)
    ends = sorted(a[0] for a in acts)
    launched_acts = sorted((a for a in acts if a[1] is not None), key=lambda a: a[0])
    launched_ends = [a[0] for a in launched_acts]
    count, total = 0, 0.0
    for e in calls:
        own, d, s = median[e["name"]], e["dur"], e["ts"]
        end = s + d
        if d <= 10 * own or d < own + 50:
            continue
        in_flight = bisect.bisect_left(keys, s) - bisect.bisect_right(ends, s)
        if in_flight < 64:
            continue
        i = bisect.bisect_right(launched_ends, end) - 1
        while i >= 0 and launched_ends[i] >= end - 20:
            a = launched_acts[i]
            if a[1] < s and a[0] > s + own:
                count += 1
                total += d
                break
            i -= 1
    print(f"back-pressured calls: {count}, total {total:.3f} us")


if __name__ == "__main__":
    main(sys.argv[1])

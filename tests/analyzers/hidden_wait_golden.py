#!/usr/bin/env python3
"""Golden values for GraphSharedTraces.HiddenWaitsOfTheDeepSeekTrace: the host gaps of a Kineto
trace that waited for GPU work without a recorded sync, by the rule of
analyzers/graph/graph_builder.cc (docs/whatif.md, "hidden wait"), computed from the raw JSON alone.

A gap between two consecutive runtime calls of a thread waited for a GPU activity X when:
  - no CPU op covers at least 1 ms of it, and no DataLoader range of the thread overlaps it;
  - X is the last activity launched on its stream before the gap ends (by any thread), and the
    thread itself launched it before the gap began;
  - X had started when the gap ended, and the gap ended from min(100 us, X's duration / 10)
    before X's end to 20 us after it.

It also prints, for the main thread's kernels, how far the host ran ahead of the GPU (launch call
end to kernel start), the reason a host-bound critical path is wrong on such a run.

usage: hidden_wait_golden.py TRACE.json.gz  ->  one line per wait, then the count
"""
import bisect
import gzip
import json
import statistics
import sys


def merged(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(m, a, b):
    return sum(max(0, min(b, y) - max(a, x)) for x, y in m)


def main(path):
    with gzip.open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X" and "dur" in e]
    runtime = sorted((e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")), key=lambda e: e["ts"])
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    call_of = {e["args"].get("correlation"): e for e in runtime if "args" in e}
    # Per stream: (launch start, launching thread, launch end, start, end, name), by launch start.
    per_stream = {}
    for g in gpu:
        c = call_of.get(g["args"].get("correlation"))
        key = c["ts"] if c else g["ts"]
        per_stream.setdefault((g["args"].get("device"), g["args"].get("stream")), []).append(
            (key, c["tid"] if c else None, c["ts"] + c["dur"] if c else None, g["ts"], g["ts"] + g["dur"], g["name"]))
    for v in per_stream.values():
        v.sort()
    ops, loader, calls = {}, {}, {}
    for e in events:
        if e.get("cat") == "cpu_op":
            ops.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
        if e.get("cat") == "user_annotation" and e["name"].startswith("enumerate(DataLoader)"):
            loader.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for e in runtime:
        calls.setdefault(e["tid"], []).append(e)
    ops = {t: merged(v) for t, v in ops.items()}
    loader = {t: merged(v) for t, v in loader.items()}
    waits = 0
    for tid, cs in calls.items():
        cursor = None
        for c in cs:
            if cursor is not None and c["ts"] < cursor:
                continue  # inside the previous call (a driver call under a runtime call)
            if cursor is not None:
                a, b = cursor, c["ts"]
                free = (b - a) - overlap(ops.get(tid, []), a, b)
                if free >= 1000 and overlap(loader.get(tid, []), a, b) == 0:
                    for items in per_stream.values():
                        i = bisect.bisect_left(items, (b,)) - 1
                        if i < 0:
                            continue
                        key, ltid, _, s, e, name = items[i]
                        if ltid != tid or key >= a or s > b:
                            continue
                        if e - min(100, (e - s) / 10) <= b <= e + 20:
                            waits += 1
                            print(f"thread {tid}: gap {b - a:.0f} us, resumed {b - e:+.0f} us from the end of {name[:60]}")
            cursor = max(cursor or c["ts"], c["ts"] + c["dur"])
    main_tid = max(calls, key=lambda t: len(calls[t]))
    ahead = [g["ts"] - (call_of[g["args"]["correlation"]]["ts"] + call_of[g["args"]["correlation"]]["dur"])
             for g in gpu if g["args"].get("correlation") in call_of and call_of[g["args"]["correlation"]]["tid"] == main_tid]
    print(f"main thread {main_tid}: host ahead of the GPU by a median {statistics.median(ahead):.0f} us over {len(ahead)} activities")
    print(f"hidden waits: {waits}")


if __name__ == "__main__":
    main(sys.argv[1])

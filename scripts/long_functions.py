#!/usr/bin/env python3
"""Lists the functions of the C++ sources that are longer than a limit (STYLE: under ~150 lines).

    scripts/long_functions.py [--limit N] [folders...]   (default: the product folders)

A function is a definition that starts at column 0 (our namespaces are not indented) and ends at
the first line that is a lone '}' at column 0 after it; its length counts both lines. Exit status
1 when any function is over the limit, so CI or a reviewer can run it as a check.
"""
import argparse
import os
import re
import sys

PRODUCT = ["base", "trace", "collector", "analyzers", "pipeline", "reports", "render", "export", "gate",
           "doctor", "fuzz", "cli", "tools"]
# A definition's first line: not a statement, type, namespace or preprocessor line; ends in '{'
# (the signature may span several lines, so the '{' line is what closes it).
SKIP = re.compile(r"^(namespace|struct|class|enum|union|extern|#|//|template\s*<[^>]*>\s*(struct|class))")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i, n = 0, len(lines)
    in_raw = False
    while i < n:
        line = lines[i]
        # Text inside raw string literals (HTML, JS, SQL) is not code.
        if in_raw:
            in_raw = ')"' not in line and ')html"' not in line and ')js"' not in line
            i += 1
            continue
        if 'R"' in line and ')"' not in line.split('R"', 1)[1]:
            in_raw = True
            i += 1
            continue
        if not line or line[0].isspace() or SKIP.match(line) or "(" not in line or line.rstrip().endswith(";"):
            i += 1
            continue
        # A signature at column 0: find its '{' (a definition) or a ';' (a declaration).
        j = i
        while j < n and not lines[j].rstrip().endswith("{") and ";" not in lines[j]:
            j += 1
        if j >= n or ";" in lines[j] and not lines[j].rstrip().endswith("{"):
            i = j + 1
            continue
        k = j + 1
        while k < n and not (lines[k] == "}" or lines[k].startswith("}  //") or lines[k] == "};"):
            k += 1
        m = re.search(r"([A-Za-z_][\w:~]*)\s*\(", line)
        yield (m.group(1) if m else line[:60]), i + 1, k - i + 1
        i = k + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("folders", nargs="*")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = []
    for folder in a.folders or PRODUCT:
        base = os.path.join(root, folder)
        for d, _, files in os.walk(base):
            for fn in files:
                if fn.endswith((".cc", ".h")):
                    p = os.path.join(d, fn)
                    for name, line, n in functions(p):
                        if n > a.limit:
                            rows.append((n, os.path.relpath(p, root), line, name))
    for n, p, line, name in sorted(rows, reverse=True):
        print(f"{n:5d}  {p}:{line}  {name}")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())

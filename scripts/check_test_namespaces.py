#!/usr/bin/env python3
"""Every test file keeps its names in `namespace <file stem>`: the test binaries compile in unity
batches (tests/CMakeLists.txt, AMPSCOPE_TEST_UNITY), where two files' helpers of the same name would
otherwise collide, and which files share a batch changes whenever a file is added.
  scripts/check_test_namespaces.py [TESTS_DIR]   exit 0: all do; 1: lists those that do not."""
import pathlib
import re
import sys

tests = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "tests")
has_test = re.compile(r"^\s*(TEST|TEST_F|TEST_P|TYPED_TEST)\(", re.M)
missing = []
checked = 0
for path in sorted(tests.glob("*/*.cc")):
    text = path.read_text(encoding="utf-8")
    if not has_test.search(text):
        continue
    checked += 1
    stem = re.sub(r"\W", "_", path.stem)
    if not re.search(r"^namespace " + re.escape(stem) + r" \{", text, re.M):
        missing.append(f"{path.relative_to(tests.parent)}: no `namespace {stem} {{` around its names "
                       f"(see AMPSCOPE_TEST_UNITY in tests/CMakeLists.txt)")
if checked == 0:
    print(f"check_test_namespaces: no test file under {tests}", file=sys.stderr)
    sys.exit(1)
for line in missing:
    print(line, file=sys.stderr)
sys.exit(1 if missing else 0)

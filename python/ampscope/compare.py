"""``ampscope.gate`` and ``ampscope.diff``: thin wrappers of ``ampscope gate`` and ``ampscope diff``.

Both take reports as paths of report JSON files or as ``Report`` objects (their JSON file is used).
"""
import json
import os
import tempfile

from . import _cli
from .report import Report


def _report_path(report):
    if isinstance(report, Report):
        return report.files["json"]
    return os.fspath(report)


class GateResult:
    """``ampscope gate``'s verdict: ``passed`` (exit code 0), ``exit_code`` (0 pass, 1 a
    regression), ``verdicts`` (the ``--json`` verdicts as a dict) and ``text`` (its table)."""

    def __init__(self, exit_code, verdicts, text):
        self.exit_code = exit_code
        self.passed = exit_code == 0
        self.verdicts = verdicts
        self.text = text

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return "<ampscope.GateResult %s>" % ("pass" if self.passed else "regression")


def gate(baseline, current, config=None, junit=None, markdown=None, allow_env_mismatch=False, cli=None,
         timeout=None):
    """Runs ``ampscope gate --baseline BASELINE --current CURRENT`` (docs/ci.md).

    ``config``: the gate rules (JSON path); ``junit``, ``markdown``: further outputs to write.
    Returns a GateResult (a regression is a result, not an error: ``result.passed`` is False).
    Raises ``AnalysisError`` on a usage or input error, or an environment mismatch (exit code 2).
    """
    with tempfile.TemporaryDirectory(prefix="ampscope-gate-") as tmp:
        verdicts_path = os.path.join(tmp, "gate.json")
        args = ["gate", "--baseline", _report_path(baseline), "--current", _report_path(current),
                "--json", verdicts_path]
        args += _cli.option_args({"config": config, "junit": junit, "markdown": markdown,
                                  "allow_env_mismatch": allow_env_mismatch})
        done = _cli.run(args, cli=cli, ok_codes=(0, 1), timeout=timeout)
        with open(verdicts_path, encoding="utf-8") as f:
            verdicts = json.load(f)
    return GateResult(done.returncode, verdicts, done.stdout)


def diff(a, b, top=None, as_text=False, cli=None, timeout=None):
    """Runs ``ampscope diff A B``: the diff as a dict (schema ``ampscope.diff/1``), or, with
    ``as_text=True``, the tables the CLI prints. ``top``: how many slower/faster kernels to list.
    Raises ``AnalysisError`` on a usage or input error (exit code 2)."""
    args = ["diff", _report_path(a), _report_path(b)] + _cli.option_args({"top": top})
    if not as_text:
        args.append("--json")
    done = _cli.run(args, cli=cli, timeout=timeout)
    return done.stdout if as_text else json.loads(done.stdout)

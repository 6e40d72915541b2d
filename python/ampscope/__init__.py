"""ampscope from Python and notebooks.

Pure Python (standard library; pandas for DataFrames). Every call runs the ``ampscope``
command-line tool: ``cli=`` of the call, else ``$AMPSCOPE_CLI``, else ``ampscope`` on PATH.

    import ampscope
    report = ampscope.analyze("worker0.pt.trace.json.gz")
    report.summary()                       # the terminal summary
    report.kernels                         # a DataFrame per table of the SQLite export
    report.json["findings"]                # the JSON report as a dict
    report                                 # in Jupyter: the HTML report

    torch.profiler.profile(..., on_trace_ready=ampscope.profiler_handler("./log"))

docs/python.md is the walk-through.
"""
from ._cli import AnalysisError, find_cli
from .compare import GateResult, diff, gate
from .profiler import ProfilerHandler, profiler_handler
from .report import Report, analyze, merge

__version__ = "0.1.0"

__all__ = ["AnalysisError", "GateResult", "ProfilerHandler", "Report", "analyze", "diff", "find_cli", "gate", "merge",
           "profiler_handler"]

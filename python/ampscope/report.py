"""``ampscope.analyze``: run ``ampscope analyze`` and read what it wrote.

One run writes the JSON report, the HTML report and the SQLite database (docs/sqlite_schema.md)
into a directory, and keeps the terminal summary it printed. ``Report`` reads them:

- ``Report.json``: the report as a dict (docs/report_schema.md);
- ``Report.kernels``, ``.ops``, ``.steps``, ``.findings``, ``.checklist``, ``.matrix``: the
  database's tables as pandas DataFrames (``Report.table(name)`` for any table, ``Report.rows``
  for a list of dicts without pandas);
- ``Report.summary()``: prints the terminal summary;
- in Jupyter the HTML report is shown (``_repr_html_``).
"""
import html
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import urllib.request
import weakref

from . import _cli

# Options the API sets itself (the outputs it reads, and the summary it keeps).
_RESERVED = ("output", "o", "sqlite", "html", "quiet", "q", "no_color", "traces")


def _steps_text(steps):
    """``steps`` as ``--steps`` takes it: "2..5", 3, (2, 5), (2, None), range(2, 6)."""
    if isinstance(steps, range):
        if steps.step != 1 or len(steps) == 0:
            raise ValueError("steps=range(...) must be a non-empty range with step 1")
        return "%d..%d" % (steps.start, steps.stop - 1)
    if isinstance(steps, (tuple, list)):
        if len(steps) != 2:
            raise ValueError("steps=(first, last) takes two values (None for an open end)")
        first, last = steps
        return "%s..%s" % ("" if first is None else int(first), "" if last is None else int(last))
    return str(steps)


def _as_paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [os.fspath(paths)]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("no input given")
    return paths


def analyze(paths, output_dir=None, name="report", cli=None, timeout=None, tables=True, html=True, **options):
    """Analyses trace files (several files are ranks of one job) with ``ampscope analyze``.

    ``paths``: a trace path or a list of them (Kineto ``.json``/``.json.gz``, ``.amptrace``, Nsight
    Systems ``.sqlite`` export).
    ``output_dir``: where ``NAME.json``, ``NAME.html`` and ``NAME.sqlite`` are written and kept;
    by default a temporary directory that goes away with the Report.
    ``tables=False`` skips the database (no DataFrames), ``html=False`` the HTML report.
    ``options``: the CLI's options of ``ampscope analyze --help`` with ``_`` for ``-``:
    ``steps="2..5"`` (or ``(2, 5)``, ``range(2, 6)``), ``step_pattern``, ``gpu``, ``gpu_peaks``,
    ``jobs``, ``ranks=[0, 7]``, ``keep_going=True``, ``verbose=True`` (the summary's),
    ``markdown``, ``chrome_trace``, ``perfetto``, ``csv``, ``summary_out`` (further outputs).
    ``cli``: the ampscope binary (default: ``$AMPSCOPE_CLI``, else ``ampscope`` on PATH).

    Returns a ``Report``. Raises ``AnalysisError`` (``.message``, ``.exit_code``) when the CLI fails.
    """
    inputs = _as_paths(paths)
    if "steps" in options and options["steps"] is not None:
        options["steps"] = _steps_text(options["steps"])
    return _run("analyze", inputs, output_dir, name, cli, timeout, tables, html, options)


def merge(summaries, output_dir=None, name="report", cli=None, timeout=None, html=True, **options):
    """The job report from per-rank summaries (``ampscope merge``; docs/scale.md): each rank's
    ``analyze(..., summary_out="rankN.summary.json")``, then one merge. The Report has the JSON
    and HTML reports and the summary; it has no tables (summaries carry no events).
    ``options``: ``jobs``, ``verbose``, ``markdown``. Raises ``AnalysisError`` like ``analyze``."""
    return _run("merge", _as_paths(summaries), output_dir, name, cli, timeout, False, html, options)


def _run(command, inputs, output_dir, name, cli, timeout, tables, html, options):
    """Runs ``ampscope COMMAND`` writing NAME.json (and .html, .sqlite) into ``output_dir`` or a
    temporary directory owned by the returned Report."""
    flags = _cli.option_args(options, reserved=_RESERVED)
    temporary = output_dir is None
    directory = tempfile.mkdtemp(prefix="ampscope-") if temporary else os.fspath(output_dir)
    try:
        if not temporary:
            os.makedirs(directory, exist_ok=True)
        files = {"json": os.path.join(directory, name + ".json")}
        if html:
            files["html"] = os.path.join(directory, name + ".html")
        if tables:
            files["sqlite"] = os.path.join(directory, name + ".sqlite")
        args = [command, "--no-color", "-o", files["json"]]
        if html:
            args += ["--html", files["html"]]
        if tables:
            args += ["--sqlite", files["sqlite"]]
        done = _cli.run(args + flags + ["--"] + inputs, cli=cli, timeout=timeout)
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    return Report(files, done.stdout, inputs, done.stderr, directory if temporary else None)


class Report:
    """What one ``ampscope analyze`` run wrote (see the module's docstring)."""

    # The tables read into DataFrames by attribute (docs/sqlite_schema.md has every column).
    TABLES = ("kernels", "ops", "steps", "findings", "checklist", "matrix")

    def __init__(self, files, summary_text, inputs, stderr="", temporary_dir=None):
        self.files = dict(files)  # {"json": path, "html": path, "sqlite": path} as written
        self.inputs = list(inputs)
        self.summary_text = summary_text
        self.stderr = stderr  # the CLI's warnings, if any
        with open(self.files["json"], encoding="utf-8") as f:
            self.json = json.load(f)
        self._frames = {}
        self._cleanup = (weakref.finalize(self, shutil.rmtree, temporary_dir, True)
                         if temporary_dir is not None else None)

    # The DataFrames.
    @property
    def kernels(self):
        return self.table("kernels")

    @property
    def ops(self):
        return self.table("ops")

    @property
    def steps(self):
        return self.table("steps")

    @property
    def findings(self):
        return self.table("findings")

    @property
    def checklist(self):
        return self.table("checklist")

    @property
    def matrix(self):
        return self.table("matrix")

    def _connect(self):
        path = self.files.get("sqlite")
        if path is None:
            raise ValueError("this report has no database (made with tables=False, or by merge)")
        uri = "file:" + urllib.request.pathname2url(os.path.abspath(path)) + "?mode=ro"
        return sqlite3.connect(uri, uri=True)

    def tables(self):
        """The names of the database's tables."""
        with self._connect() as con:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                               "AND name NOT LIKE 'sqlite%' ORDER BY rowid").fetchall()
        return [r[0] for r in rows]

    def table(self, name):
        """A table of the database as a pandas DataFrame (read once, then cached)."""
        if name not in self._frames:
            try:
                import pandas as pd
            except ImportError as e:
                raise ImportError("Report tables as DataFrames need pandas (Debian: apt install python3-pandas; "
                                  "else pip install pandas); Report.rows(name) needs nothing") from e
            if name not in self.tables():
                raise KeyError("no table %r in the database (tables: %s)" % (name, ", ".join(self.tables())))
            con = self._connect()
            try:
                self._frames[name] = pd.read_sql_query('SELECT * FROM "%s" ORDER BY rowid' % name, con)
            finally:
                con.close()
        return self._frames[name]

    def rows(self, name):
        """A table as a list of dicts (standard library only)."""
        if name not in self.tables():
            raise KeyError("no table %r in the database" % name)
        con = self._connect()
        try:
            con.row_factory = sqlite3.Row
            return [dict(r) for r in con.execute('SELECT * FROM "%s" ORDER BY rowid' % name)]
        finally:
            con.close()

    # The text and HTML renderings.
    def summary(self, file=None):
        """Prints the terminal summary the CLI printed for this run."""
        print(self.summary_text, end="", file=file if file is not None else sys.stdout)

    @property
    def html(self):
        """The self-contained HTML report, as text."""
        path = self.files.get("html")
        if path is None:
            raise ValueError("this report was made with html=False")
        with open(path, encoding="utf-8") as f:
            return f.read()

    def _repr_html_(self):
        # In an iframe of its own: the report's styles and script stay out of the notebook's page,
        # and its Content-Security-Policy applies as in a browser. No same-origin access.
        if "html" not in self.files:
            return "<pre>%s</pre>" % html.escape(self.summary_text)
        return ('<iframe sandbox="allow-scripts" style="width:100%%;height:900px;border:0" srcdoc="%s"></iframe>'
                % html.escape(self.html, quote=True))

    def __repr__(self):
        steps = self.json.get("steps", {}) if isinstance(self.json, dict) else {}
        return "<ampscope.Report %s: %s steps, %d findings>" % (
            ", ".join(os.path.basename(p) for p in self.inputs[:3]) + (", ..." if len(self.inputs) > 3 else ""),
            steps.get("count", "?"), len(self.json.get("findings", [])))

    def close(self):
        """Removes the temporary directory now (it also goes when the Report is garbage-collected)."""
        self._frames.clear()
        if self._cleanup is not None:
            self._cleanup()

"""The result of a run: tables as DataFrames, the summary, the gates, the
report, and ``save()`` with the command line's bytes."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import GateFailedError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars
    import pyarrow

__all__ = ["Result", "Tables"]

# The badge colours of the report's tones.
_TONES = {"pass": "#1a7f37", "fail": "#cf222e", "warn": "#9a6700", "info": "#57606a"}


def _need(module: str, what: str) -> Any:
    """Imports ``module`` or says which package ``what`` needs."""
    try:
        return __import__(module)
    except ImportError as e:  # pragma: no cover - depends on the venv
        raise ImportError(
            f"{what} needs the {module} package: pip install {module}"
        ) from e


def _pandas_of(arrow: Any) -> "pandas.DataFrame":
    """The pandas DataFrame of a result table handed over as Arrow (its
    first column the index, ``""`` for an unnamed one), as
    ``pd.read_csv(file, index_col=0)`` makes it of the table's CSV file."""
    pa = _need("pyarrow", "Result.tables")
    pd = _need("pandas", "Result.tables")
    table = pa.RecordBatchReader.from_stream(arrow).read_all()
    frame = table.to_pandas()
    for name, column in zip(table.column_names, table.columns):
        if pa.types.is_boolean(column.type) and column.null_count:
            # pandas reads booleans with empty cells as an object column
            # of True, False and NaN.
            frame[name] = pd.Series(
                [float("nan") if v is None else v for v in column.to_pylist()],
                dtype=object,
                index=frame.index,
            )
    first = table.column_names[0]
    frame = frame.set_index(first)
    if first == "":
        frame.index.name = None
    if len(frame.columns) == 0:
        frame.columns = pd.Index([], dtype=object)
    return frame


class Tables(Mapping):
    """The tables of a run, by name (the file stem without the experiment
    id: ``"eval"``, ``"eval_short"``, ...), as pandas DataFrames equal to
    ``pd.read_csv(file, index_col=0)`` of the command line's CSV file,
    made from the table handed over as Arrow (no CSV written or parsed).
    Each DataFrame is made when first asked for."""

    def __init__(self, names: list[str], arrow: Any) -> None:
        self._names = names
        self._arrow = arrow
        self._frames: dict[str, Any] = {}

    def __getitem__(self, name: str) -> "pandas.DataFrame":
        if name not in self._frames:
            if name not in self._names:
                raise KeyError(
                    f"no table {name!r}; the tables are {', '.join(self._names)}"
                )
            self._frames[name] = _pandas_of(self._arrow(name))
        return self._frames[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Tables({', '.join(self._names)})"


class Result:
    """What a run computed, and where it was written.

    Made by :func:`rsmreport.build` and the other kinds; not made
    directly.

    Attributes
    ----------
    kind : str
        The report kind (``"build"``, ``"compare"``, ...).
    id : str
        The experiment id, the prefix of every file name.
    output_dir : pathlib.Path or None
        The folder written (``None`` until the result is saved).
    lines : list of str
        The terminal lines the command line prints for this run.
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        self.kind: str = native.kind
        self.id: str = native.id
        out = native.output_dir
        self.output_dir: Path | None = Path(out) if out is not None else None
        self._written: list[str] = [str(p) for p in native.written]
        self._names: list[str] | None = None
        self._card_data: dict | None = None
        self._tables: Tables | None = None
        self._summary: dict | None = None
        self._gates: dict | None = None
        self._files: dict[str, bytes] | None = None

    # ------------------------------------------------------------ tables

    def _table_names(self) -> list[str]:
        if self._names is None:
            self._names = list(self._native.table_names())
        return self._names

    def _checked(self, name: str) -> str:
        names = self._table_names()
        if name not in names:
            raise KeyError(f"no table {name!r}; the tables are {', '.join(names)}")
        return name

    def arrow(self, name: str) -> Any:
        """Table ``name`` as an object with ``__arrow_c_stream__`` (the
        Arrow PyCapsule interface), for any Arrow consumer: the columns of
        the command line's CSV file, the index first (named ``""`` when
        unnamed), typed as ``pd.read_csv`` types them. Needs no package."""
        return self._native.table_arrow(self._checked(name))

    @property
    def tables(self) -> Tables:
        """The tables, a mapping from name to pandas DataFrame (see
        :class:`Tables`)."""
        if self._tables is None:
            self._tables = Tables(self._table_names(), self.arrow)
        return self._tables

    def table_csv(self, name: str) -> bytes:
        """The bytes of table ``name`` as the command line's CSV file."""
        return self._native.table_csv(self._checked(name))

    def to_polars(self, name: str) -> "polars.DataFrame":
        """Table ``name`` as a polars DataFrame, from Arrow (no parsing;
        the index is the first column). Needs polars."""
        pl = _need("polars", "Result.to_polars")
        return pl.DataFrame(self.arrow(name))

    def to_arrow(self, name: str) -> "pyarrow.Table":
        """Table ``name`` as a pyarrow Table, from Arrow (no parsing; the
        index is the first column). Needs pyarrow."""
        pa = _need("pyarrow", "Result.to_arrow")
        return pa.RecordBatchReader.from_stream(self.arrow(name)).read_all()

    # ----------------------------------------------------------- summary

    @property
    def summary(self) -> dict:
        """The summary JSON document (``output/<id>_summary.json``), as a dict:
        the envelope (``kind``, ``summary_version``, ``experiment_id``,
        ``model_version``, ``description``), then the kind's own keys."""
        if self._summary is None:
            self._summary = json.loads(self._native.summary_json())
        return self._summary

    def _gates_doc(self) -> dict:
        if self._gates is None:
            self._gates = json.loads(self._native.gates_json())
        return self._gates

    @property
    def gates(self) -> list[dict]:
        """Every gate result line (as in ``output/<id>_gates.json``'s
        ``results``); empty without gates."""
        return list(self._gates_doc()["results"])

    @property
    def passed(self) -> bool:
        """``False`` when a quality gate of severity ``fail`` failed (the
        command line's exit code 3); ``True`` otherwise, and without gates."""
        return not self._native.gates_failed()

    def raise_for_gates(self) -> "Result":
        """Raises :class:`GateFailedError` when a gate of severity
        ``fail`` failed; returns the result otherwise (for chaining).

        Raises
        ------
        GateFailedError
            With the failing lines in ``.failed``.
        """
        if self.passed:
            return self
        failed = [g for g in self.gates if g.get("fails")]
        names = ", ".join(f"{g['name']} ({g['status']})" for g in failed)
        error = GateFailedError(f"a quality gate of severity fail failed: {names}")
        error.failed = failed
        raise error

    @property
    def lines(self) -> list[str]:
        """The terminal lines the command line prints for this run."""
        return list(self._native.lines())

    # ------------------------------------------------------- files, report

    def files(self) -> dict[str, bytes]:
        """Every output file (relative path -> bytes): what :meth:`save`
        writes, the command line's bytes. Rendered on first use."""
        if self._files is None:
            self._files = dict(self._native.files())
        return self._files

    def save(self, output_dir: str | os.PathLike, overwrite: bool = False) -> Path:
        """Writes every file into ``output_dir``, as the command line would
        write them there (a non-empty folder is replaced only with
        ``overwrite``, and only once the new output is complete).

        Returns
        -------
        pathlib.Path
            The folder, now also :attr:`output_dir`.

        Raises
        ------
        ConfigError
            When the folder may not be used (an input, inside one, or
            non-empty without ``overwrite``).
        """
        written = self._native.save(os.fspath(output_dir), overwrite)
        self.output_dir = Path(output_dir)
        self._written = [str(p) for p in written]
        return self.output_dir

    @property
    def report_path(self) -> Path | None:
        """The HTML report written (``None`` when nothing was written)."""
        if self.output_dir is None:
            return None
        for p in self._written:
            q = Path(p)
            if q.suffix == ".html" and q.parent.name == "report":
                return self.output_dir / q
        return None

    @property
    def report_html(self) -> str | None:
        """The HTML report's text (``None`` for ``check``, which has none)."""
        path = self.report_path
        if path is not None and path.is_file():
            return path.read_text(encoding="utf-8")
        for name, data in self.files().items():
            if name.endswith(".html") and name.startswith("report/"):
                return data.decode("utf-8")
        return None

    # ------------------------------------------------------------ display

    def _card(self) -> dict:
        """The decision and key figures of the report's header (made once)."""
        if self._card_data is None:
            self._card_data = dict(self._native.card())
        return self._card_data

    def _card_lines(self, most: int = 8) -> list[str]:
        """The first terminal lines of the run (the kind's own account of
        its headline numbers), for a kind without key figures."""
        lines = [
            line
            for line in self.lines
            if not line.startswith(("output: ", "report: ")) and " wrote " not in line
        ]
        start = next((i for i, line in enumerate(lines) if line.startswith("compare ")), 0)
        lines = lines[start:]
        return lines[:most] + (["..."] if len(lines) > most else [])

    def _repr_html_(self) -> str:
        """A card for notebooks: the report's decision badge and sentence,
        its key figures (with intervals), the quality gates and where the
        report is; every text escaped."""
        e = html.escape
        card = self._card()
        parts = [f"<div><b>rsmreport {e(self.kind)}</b>: {e(self.id)}</div>"]
        decision = card.get("decision")
        if decision:
            colour = _TONES.get(decision["tone"], _TONES["info"])
            parts.append(
                "<div style='margin:6px 0'>"
                f"<span class='rsmreport-badge rsmreport-{e(decision['tone'])}' "
                f"style='background:{colour};color:#fff;border-radius:4px;"
                f"padding:1px 6px;font-weight:bold'>{e(decision['badge'])}</span> "
                f"{e(decision['sentence'])}</div>"
            )
            for warning in decision.get("warnings", []):
                parts.append(f"<div>&#9888; {e(warning)}</div>")
        glance = card.get("glance") or []
        if glance:
            rows = "".join(
                f"<tr title='{e(g['title'])}'><th style='text-align:left'>{e(g['label'])}</th>"
                f"<td>{e(g['value'])}</td><td>{e(g['ci'])}</td></tr>"
                for g in glance
            )
            parts.append(f"<table class='rsmreport-glance'>{rows}</table>")
        else:
            parts.append(
                "<pre style='margin:4px 0;white-space:pre-wrap'>"
                + e("\n".join(self._card_lines()))
                + "</pre>"
            )
        gates = self.gates
        if not gates:
            parts.append("<div>no quality gates</div>")
        elif self.passed:
            parts.append(f"<div>&#10003; quality gates passed ({len(gates)} results)</div>")
        else:
            failed = [g for g in gates if g.get("fails")]
            items = "".join(
                f"<li>{e(str(g.get('name', '')))} ({e(str(g.get('status', '')))})</li>"
                for g in failed[:8]
            )
            more = f"<li>... {len(failed) - 8} more</li>" if len(failed) > 8 else ""
            parts.append(
                f"<div>&#10007; {len(failed)} quality gate result(s) failed</div>"
                f"<ul style='margin:0'>{items}{more}</ul>"
            )
        path = self.report_path
        if path is not None:
            uri = e(path.resolve().as_uri())
            link = f"<a href='{uri}' target='_blank'>{e(str(path))}</a>"
        else:
            link = "not written (<code>show()</code> displays it; <code>save(dir)</code> writes it)"
        parts.append(f"<div>report: {link}</div>")
        return (
            "<div class='rsmreport-result' style='border:1px solid #8886;"
            "border-radius:6px;padding:8px 12px;display:inline-block'>"
            + "".join(parts)
            + "</div>"
        )

    def show(self, height: int = 700) -> Any:
        """Shows the HTML report in the notebook's output: an iframe whose
        ``srcdoc`` is the self-contained report (figures inline; its links
        to table files work only once saved). Returns the
        ``IPython.display.HTML`` shown (the iframe's HTML text without
        IPython).

        Raises
        ------
        ValueError
            For a run without a report page (``check``, ``predict``).
        """
        page = self.report_html
        if page is None:
            raise ValueError(f"a {self.kind} run has no report page")
        frame = (
            f"<iframe srcdoc=\"{html.escape(page, quote=True)}\" "
            f"style='width:100%;height:{int(height)}px;border:1px solid #8886' "
            "sandbox='allow-scripts allow-popups'></iframe>"
        )
        try:
            from IPython.display import HTML, display
        except ImportError:
            return frame
        shown = HTML(frame)
        display(shown)
        return shown

    def __repr__(self) -> str:
        where = f", output_dir={str(self.output_dir)!r}" if self.output_dir else ""
        return (
            f"<rsmreport.Result kind={self.kind!r} id={self.id!r}"
            f" tables={len(self._table_names())} passed={self.passed}{where}>"
        )

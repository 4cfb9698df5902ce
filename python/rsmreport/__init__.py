"""rsmreport from Python: the same engine as the ``rsmreport`` command,
with DataFrames out.

Every report kind is one function with the same shape: a configuration
(a path, or a dict whose relative paths resolve against the working
directory, as RSMTool's), ``output_dir=None`` (compute, write nothing; the
result can :meth:`Result.save` later with the command line's bytes) or a
folder to write, and ``overwrite``. Each returns a :class:`Result` or
raises :class:`ConfigError` (exit code 2 of the command line) or
:class:`DataError` (1), with the command line's ``error:`` text.

The functions of the kinds that read one experiment file (``build``,
``classify``, ``sequence``, ``spans``, ``agree``, ``preferences``, and any
kind added to the engine's kind table) are made from that table
(``_rsmreport.kinds()``); ``check``, ``compare`` and ``summarize`` are
written here.

>>> import rsmreport
>>> r = rsmreport.build("examples/exp.toml")
>>> r.tables["eval_short"]          # a pandas DataFrame
>>> r.save("example", overwrite=True)

Runs release the GIL. The command line ships too: ``rsmreport ...`` and
``python -m rsmreport ...`` are the binary's own code.
"""

from __future__ import annotations

import json
import os
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

from . import _rsmreport
from ._errors import (
    ConfigError,
    DataError,
    GateFailedError,
    InternalError,
    RsmreportError,
)
from ._result import Result, Tables

__version__: str = _rsmreport.version()

PathLike = Union[str, "os.PathLike[str]"]
Config = Union[PathLike, Mapping[str, Any]]


def _jsonable(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"{type(value).__name__} cannot be part of a configuration dict")


def _config(config: Config | None, what: str = "config") -> dict[str, Any]:
    """The native arguments of a configuration: a path, or a dict's JSON."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        try:
            text = json.dumps(dict(config), default=_jsonable, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"the configuration dict is not valid: {e}") from None
        return {"config_json": text}
    if isinstance(config, (str, os.PathLike)):
        return {"config": os.fspath(config)}
    raise TypeError(
        f"{what} must be a path or a dict, not {type(config).__name__}"
    )


def _path(value: PathLike | None) -> str | None:
    return None if value is None else os.fspath(value)


# The engine's kind table: one dict per kind (name, about, experiment,
# runner, gates_file, tables).
_KINDS: dict[str, dict[str, Any]] = {k["name"]: k for k in _rsmreport.kinds()}


def _run(kind: str, config: Config | None = None, tables: dict[str, Any] | None = None,
         **kwargs: Any) -> Result:
    """Runs ``kind`` with its configuration and input tables given as data
    (any object with ``__arrow_c_stream__``: imported through the Arrow C
    stream interface in the native module, no file written; a dict
    configuration gets the key each one replaces)."""
    given = [(role, data) for role, data in (tables or {}).items() if data is not None]
    return Result(_rsmreport.run(kind, **_config(config), tables=given, **kwargs))


# What the function of a kind says beyond the kind table's line: the
# kinds' documentation, the only part of a kind written here.
_NOTES: dict[str, str] = {
    "build": (
        "``scale`` is the scale table of ``scale_with`` (the experiment's\n"
        "``scale_with`` must name a file)."
    ),
    "sequence": (
        "``predictions`` is Input A, the table with ``id_column``,\n"
        "``reference_columns``, ``system_columns`` and ``subgroups`` (cells\n"
        "verbatim; a null cell is a missing reference). Text files (Input B)\n"
        "and ``logprobs_file`` are read from files."
    ),
    "spans": (
        "``spans`` is the span table of ``format = \"table\"`` (Prodigy, CoNLL\n"
        "and BIO JSON lines input is read from its file); ``documents`` the\n"
        "documents table (document text, coverage, subgroup columns)."
    ),
}

_RETURNS_RAISES = """
Returns
-------
Result
    Failed quality gates do not raise: see :attr:`Result.passed` and
    :meth:`Result.raise_for_gates`.

Raises
------
ConfigError
    A configuration key, an argument or the output folder is wrong (the
    command line's exit code 2).
DataError
    The data are wrong or unreadable, or writing failed (exit code 1).
"""


def _docstring(entry: dict[str, Any]) -> str:
    """The docstring of a kind's function, from its kind-table entry."""
    name = entry["name"]
    parts = [
        f"{entry['about']} (``rsmreport {name}``).",
        "",
        "Parameters",
        "----------",
        "config : str, os.PathLike or dict",
        f"    {entry['experiment']} Or a dict of its keys (relative paths in it",
        "    resolve against the working directory).",
        "output_dir : str or os.PathLike, optional",
        "    The folder to write. ``None`` (the default) computes and writes",
        "    nothing; :meth:`Result.save` writes later.",
        "overwrite : bool, default False",
        "    Replace a non-empty earlier rsmreport output folder (only once the",
        "    new output is complete): the command line's ``--force``.",
    ]
    if entry["gates_file"]:
        parts += [
            "gates : str or os.PathLike, optional",
            "    A gates file to evaluate besides the experiment's own gates",
            "    (``--gates``).",
        ]
    for role, key in entry["tables"]:
        parts += [
            f"{role} : table, optional",
            f"    The table of ``{key}`` given as data (``__arrow_c_stream__``:",
            "    pandas 2.2+ with pyarrow, polars, pyarrow, duckdb), imported in",
            "    memory (no file written) and typed as a parquet file of the same",
            "    data; the report names it as data (``pandas.DataFrame in memory``)",
            "    with the SHA-256 of a canonical encoding of its values. A dict",
            f"    configuration then needs no ``{key}``; a configuration file's",
            "    named file is replaced (it must exist).",
        ]
    if name in _NOTES:
        parts += ["", _NOTES[name]]
    return "\n".join(parts) + "\n" + _RETURNS_RAISES


def _kind_function(entry: dict[str, Any]) -> Callable[..., Result]:
    """The function of an experiment-file kind: ``name(config, *,
    output_dir=None, overwrite=False[, gates=None], <table>=None, ...)``."""
    name = entry["name"]
    roles = [role for role, _ in entry["tables"]]
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("config", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("output_dir", kw, default=None),
        inspect.Parameter("overwrite", kw, default=False),
    ]
    if entry["gates_file"]:
        params.append(inspect.Parameter("gates", kw, default=None))
    params += [inspect.Parameter(role, kw, default=None) for role in roles]
    signature = inspect.Signature(params)

    def run(*args: Any, **kwargs: Any) -> Result:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}() {e}") from None
        bound.apply_defaults()
        a = bound.arguments
        extra = {"gates": _path(a["gates"])} if entry["gates_file"] else {}
        return _run(
            name,
            a["config"],
            {role: a[role] for role in roles},
            output_dir=_path(a["output_dir"]),
            overwrite=a["overwrite"],
            **extra,
        )

    run.__name__ = run.__qualname__ = name
    run.__module__ = __name__
    run.__doc__ = _docstring(entry)
    run.__signature__ = signature  # type: ignore[attr-defined]
    return run


_EXPERIMENT_KINDS = [k for k, e in _KINDS.items() if e["runner"] == "experiment"]

for _name in _EXPERIMENT_KINDS:
    globals()[_name] = _kind_function(_KINDS[_name])
del _name

__all__ = [
    *_EXPERIMENT_KINDS,
    "check",
    "compare",
    "summarize",
    "run_evaluation",
    "Result",
    "Tables",
    "RsmreportError",
    "ConfigError",
    "DataError",
    "GateFailedError",
    "InternalError",
    "__version__",
]


def check(
    config: Config,
    *,
    kind: str | None = None,
    gates: PathLike | None = None,
    **tables: Any,
) -> Result:
    """Validates an experiment of any kind and its data and computes what
    a run would (``rsmreport check``); never writes. :attr:`Result.lines`
    is the command's account; failed gates of severity ``fail`` make
    :attr:`Result.passed` false, as a run's.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment of any kind that reads one experiment file (as for
        its function).
    kind : str, optional
        Its kind (``"classify"``, ...); default: the kind its keys say
        (``"build"`` when they say none).
    gates : str or os.PathLike, optional
        As for :func:`build` (build experiments only).
    **tables : table, optional
        The kind's input tables given as data, as for its function
        (``predictions=``, ``spans=``, ...).

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run("check", config, tables, gates=_path(gates), check_kind=kind)


def compare(
    baseline: PathLike,
    candidate: PathLike,
    *,
    config: Config | None = None,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    gates: PathLike | None = None,
    unpaired: bool = False,
) -> Result:
    """Compares two archived output folders (``rsmreport compare``):
    paired differences with intervals, p-values and verdicts.

    Parameters
    ----------
    baseline, candidate : str or os.PathLike
        Experiment folders of ``build`` (or of RSMTool's rsmeval/rsmtool),
        or their ``output/`` subfolders.
    config : str, os.PathLike or dict, optional
        A ``compare.toml`` (labels, score type, subgroups, intervals,
        margins), or a dict of its keys.
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    gates : str or os.PathLike, optional
        A gates file (``delta.*`` gates on the differences too).
    unpaired : bool, default False
        Folders that share no response: unpaired differences.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "compare",
        config,
        baseline=os.fspath(baseline),
        candidate=os.fspath(candidate),
        output_dir=_path(output_dir),
        overwrite=overwrite,
        gates=_path(gates),
        unpaired=unpaired,
    )


def summarize(
    folders: Sequence[PathLike],
    *,
    baseline: PathLike | None = None,
    order: str = "given",
    id: str = "versions",
    output_dir: PathLike | None = None,
    overwrite: bool = False,
) -> Result:
    """Summarizes archived output folders of model versions
    (``rsmreport summarize``).

    Parameters
    ----------
    folders : sequence of str or os.PathLike
        The experiment folders, in order.
    baseline : str or os.PathLike, optional
        The folder the others are compared with (default: the first).
    order : {"given", "model_version"}, default "given"
        The order of the rows.
    id : str, default "versions"
        The summary's id, the prefix of its files.
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` writes nothing.
    overwrite : bool, default False
        As for :func:`build`.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    if isinstance(folders, (str, os.PathLike)):
        raise TypeError("folders must be a list of folders, not one path")
    return _run(
        "summarize",
        folders=[os.fspath(f) for f in folders],
        baseline=_path(baseline),
        order=order,
        id=id,
        output_dir=_path(output_dir),
        overwrite=overwrite,
    )


def run_evaluation(
    config: Config, output_dir: PathLike, overwrite_output: bool = False
) -> Result:
    """RSMTool's ``rsmtool.run_evaluation`` with its name and argument
    order: :func:`build` into ``output_dir``.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment (an rsmeval ``.json`` config works as it is).
    output_dir : str or os.PathLike
        The folder to write.
    overwrite_output : bool, default False
        Replace an earlier output folder.

    Returns
    -------
    Result
    """
    return build(config, output_dir=output_dir, overwrite=overwrite_output)

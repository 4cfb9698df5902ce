"""rsmreport from Python: the same engine as the ``rsmreport`` command,
with DataFrames out.

Every report kind is one function with the same shape: a configuration
(a path, or a dict whose relative paths resolve against the working
directory, as RSMTool's), ``output_dir=None`` (compute, write nothing; the
result can :meth:`Result.save` later with the command line's bytes) or a
folder to write, and ``overwrite``. Each returns a :class:`Result` or
raises :class:`ConfigError` (exit code 2 of the command line) or
:class:`DataError` (1), with the command line's ``error:`` text.

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
from collections.abc import Mapping, Sequence
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
from ._inputs import parquet_inputs
from ._result import Result, Tables

__all__ = [
    "build",
    "check",
    "compare",
    "summarize",
    "agree",
    "preferences",
    "classify",
    "sequence",
    "spans",
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


def _run(kind: str, config: Config | None = None, tables: dict[str, Any] | None = None,
         **kwargs: Any) -> Result:
    """Runs ``kind`` with its configuration and input tables given as data."""
    as_dict = config if isinstance(config, Mapping) else None
    with parquet_inputs(kind, as_dict, tables or {}) as (as_dict, native):
        cfg = _config(as_dict if as_dict is not None else config)
        return Result(_rsmreport.run(kind, **cfg, tables=native, **kwargs))


def build(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    gates: PathLike | None = None,
    predictions: Any = None,
    scale: Any = None,
) -> Result:
    """Evaluates an experiment's predictions (``rsmreport build``).

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment: a ``.toml`` file, an rsmeval ``.json`` config, or
        a dict of the same keys (relative paths in it resolve against the
        working directory).
    output_dir : str or os.PathLike, optional
        The folder to write. ``None`` (the default) computes and writes
        nothing; :meth:`Result.save` writes later.
    overwrite : bool, default False
        Replace a non-empty earlier rsmreport output folder (only once the
        new output is complete): the command line's ``--force``.
    gates : str or os.PathLike, optional
        A gates file to evaluate besides the experiment's own gates
        (``--gates``).
    predictions, scale : table, optional
        The predictions table, and the scale table of ``scale_with``,
        given as data instead of the files the configuration names: any
        object with the Arrow stream interface (``__arrow_c_stream__``:
        pandas 2.2+ with pyarrow, polars, pyarrow, duckdb), read as a
        parquet file of the same data. A dict configuration then needs no
        ``predictions_file``; a configuration file's named files are
        replaced (they must exist).

    Returns
    -------
    Result
        Failed quality gates do not raise: see :attr:`Result.passed` and
        :meth:`Result.raise_for_gates`.

    Raises
    ------
    ConfigError
        A configuration key, an argument or the output folder is wrong
        (the command line's exit code 2).
    DataError
        The data are wrong or unreadable, or writing failed (exit code 1).
    """
    return _run(
        "build",
        config,
        {"predictions": predictions, "scale": scale},
        output_dir=_path(output_dir),
        overwrite=overwrite,
        gates=_path(gates),
    )


def check(
    config: Config,
    *,
    gates: PathLike | None = None,
    predictions: Any = None,
    scale: Any = None,
) -> Result:
    """Validates an experiment and its data and computes what a build
    would (``rsmreport check``); never writes. :attr:`Result.lines` is
    the command's account.

    Parameters
    ----------
    config : str, os.PathLike or dict
        As for :func:`build`.
    gates : str or os.PathLike, optional
        As for :func:`build`.
    predictions, scale : table, optional
        As for :func:`build`.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "check", config, {"predictions": predictions, "scale": scale}, gates=_path(gates)
    )


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


def agree(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    annotations: Any = None,
) -> Result:
    """Agreement among raters of an annotation file (``rsmreport agree``).

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment file (``.toml``), or a dict of its keys (relative
        paths in it resolve against the working directory).
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` (the default) writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    annotations : table, optional
        The table of ``annotations_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``annotations_file``.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "agree",
        config,
        {"annotations": annotations},
        output_dir=_path(output_dir),
        overwrite=overwrite,
    )


def preferences(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    pairs: Any = None,
) -> Result:
    """Audits pairwise preference annotations against a reference
    annotator (``rsmreport preferences``).

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment file (``.toml``), or a dict of its keys (relative
        paths in it resolve against the working directory).
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` (the default) writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    pairs : table, optional
        The table of ``pairs_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``pairs_file``.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "preferences",
        config,
        {"pairs": pairs},
        output_dir=_path(output_dir),
        overwrite=overwrite,
    )


def classify(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    predictions: Any = None,
) -> Result:
    """Classifiers against gold labels (``rsmreport classify``): per-class
    and averaged metrics, curves, calibration, intervals and paired
    verdicts.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment file (``.toml``), or a dict of its keys (relative
        paths in it resolve against the working directory).
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` (the default) writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    predictions : table, optional
        The table of ``predictions_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``predictions_file``.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "classify",
        config,
        {"predictions": predictions},
        output_dir=_path(output_dir),
        overwrite=overwrite,
    )


def sequence(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    predictions: Any = None,
) -> Result:
    """Generated text against references (``rsmreport sequence``):
    sacreBLEU's BLEU, chrF and TER, jiwer's WER family and CER,
    perplexity, paired resampling and verdicts.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment file (``.toml``), or a dict of its keys (relative
        paths in it resolve against the working directory).
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` (the default) writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    predictions : table, optional
        The table of ``predictions_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``predictions_file``.
        Input A, the table with ``id_column``, ``reference_columns``,
        ``system_columns`` and ``subgroups``, read as a parquet file of
        the same data (cells verbatim; a null cell is a missing reference).
        Text files (Input B) and ``logprobs_file`` are read from files.

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "sequence",
        config,
        {"predictions": predictions},
        output_dir=_path(output_dir),
        overwrite=overwrite,
    )


def spans(
    config: Config,
    *,
    output_dir: PathLike | None = None,
    overwrite: bool = False,
    spans: Any = None, documents: Any = None,
) -> Result:
    """Span annotations (``rsmreport spans``): agreement among annotators,
    and systems against a reference (exact, overlap and nervaluate
    criteria), with intervals.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The experiment file (``.toml``), or a dict of its keys (relative
        paths in it resolve against the working directory).
    output_dir : str or os.PathLike, optional
        The folder to write; ``None`` (the default) writes nothing.
    overwrite : bool, default False
        As for :func:`build`.
    spans : table, optional
        The table of ``input_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``input_file``.
    documents : table, optional
        The table of ``documents_file`` given as data (``__arrow_c_stream__``: pandas
        2.2+ with pyarrow, polars, pyarrow, duckdb), read as a parquet file
        of the same data; a dict configuration then needs no ``documents_file``.
        ``spans`` is the span table of ``format = "table"`` (Prodigy, CoNLL
        and BIO JSON lines input is read from its file); ``documents`` the
        documents table (document text, coverage, subgroup columns).

    Returns
    -------
    Result

    Raises
    ------
    ConfigError, DataError
        As :func:`build`.
    """
    return _run(
        "spans",
        config,
        {"spans": spans, "documents": documents},
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

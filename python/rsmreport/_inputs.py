"""Input tables given as data: any object with the Arrow PyCapsule stream
interface (``__arrow_c_stream__``: pandas 2.2+ with pyarrow, polars,
pyarrow, duckdb) becomes a parquet file that the kind reads as it reads a
parquet file of the same data (the same typing rules, checksum and
checks). The file lies in ``<temp>/rsmreport-python/<hash>/``, named by
its content so that the same data give the same report bytes, and is
removed after the run."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

def _write_parquet(data: Any, path: Path, role: str) -> None:
    """Writes the Arrow stream of ``data`` as parquet (with pyarrow, or
    with polars when pyarrow is not installed)."""
    if not hasattr(data, "__arrow_c_stream__"):
        raise TypeError(
            f"{role}= takes a table with the Arrow stream interface "
            f"(__arrow_c_stream__: a pandas 2.2+, polars, pyarrow or duckdb "
            f"table), not {type(data).__name__}"
        )
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = None
    if pa is not None:
        table = pa.RecordBatchReader.from_stream(data).read_all()
        pq.write_table(table, path)
        return
    try:
        import polars as pl
    except ImportError as e:
        raise ImportError(
            f"{role}= as data needs pyarrow or polars: pip install pyarrow"
        ) from e
    pl.DataFrame(data).write_parquet(path)


@contextlib.contextmanager
def parquet_inputs(
    keys: Mapping[str, str], config: Mapping[str, Any] | None, tables: dict[str, Any]
) -> Iterator[tuple[Mapping[str, Any] | None, list[tuple[str, str]]]]:
    """Writes each table given as data; yields the configuration dict with
    their keys pointing at the files (when the configuration is a dict;
    ``keys``: the key each role replaces, from the kind table) and the
    native ``tables`` argument; removes the files afterwards."""
    given = {role: data for role, data in tables.items() if data is not None}
    if not given:
        yield config, []
        return
    root = Path(tempfile.gettempdir()) / "rsmreport-python"
    root.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    native: list[tuple[str, str]] = []
    try:
        for role, data in given.items():
            with tempfile.TemporaryDirectory(dir=root) as tmp:
                staged = Path(tmp) / f"{role}.parquet"
                _write_parquet(data, staged, role)
                digest = hashlib.sha256(staged.read_bytes()).hexdigest()[:16]
                folder = root / digest
                folder.mkdir(exist_ok=True)
                final = folder / f"{role}.parquet"
                os.replace(staged, final)
            made.append(folder)
            native.append((role, os.fspath(final)))
        if config is not None:
            config = dict(config)
            for role, path in native:
                if role in keys:
                    config[keys[role]] = path
        yield config, native
    finally:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)

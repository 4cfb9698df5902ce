"""The exceptions of rsmreport, one per exit code of the command line,
created in the native module (``create_exception!``; ``ConfigError`` has
two bases, ``RsmreportError`` and ``ValueError``) and raised there without
a lookup.

Every message is the command line's ``error:`` text (without the prefix),
so ``docs/errors.md`` applies to both. Each class has ``code``, the
command line's exit code: 2 ``ConfigError``, 1 ``DataError``, 3
``GateFailedError`` (only from :meth:`rsmreport.Result.raise_for_gates`,
with the failing gate lines in ``.failed``), 101 ``InternalError`` (a
panic: the binary's exit code of a panic).
"""

from __future__ import annotations

from ._rsmreport import (
    ConfigError,
    DataError,
    GateFailedError,
    InternalError,
    RsmreportError,
)

__all__ = [
    "RsmreportError",
    "ConfigError",
    "DataError",
    "GateFailedError",
    "InternalError",
]

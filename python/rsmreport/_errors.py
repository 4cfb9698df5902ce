"""The exceptions of rsmreport: one per failing exit code of the command line
(2 configuration, 1 data, 3 failed gates), and one for a bug.

Every message is the command line's ``error:`` text (without the prefix),
so ``docs/errors.md`` applies to both.
"""

from __future__ import annotations

__all__ = [
    "RsmreportError",
    "ConfigError",
    "DataError",
    "GateFailedError",
    "InternalError",
]


class RsmreportError(Exception):
    """Base class of every rsmreport error.

    Attributes
    ----------
    code : int
        The command line's exit code for this error: 2 configuration,
        1 data, 3 failed gates (``rsmreport_core::error::Class::exit_code``
        and ``rsmreport_cli::cli::exit_code``). :class:`InternalError` has
        70 (``EX_SOFTWARE`` of ``sysexits.h``), which the command line never
        returns: after a panic it exits with Rust's panic code, 101.
    """

    code: int = 1


class ConfigError(RsmreportError, ValueError):
    """The request cannot be run as given: a configuration key, an
    argument or the output folder (the command line's exit code 2).

    Also a :class:`ValueError`.
    """

    code = 2


class DataError(RsmreportError):
    """The inputs are wrong or unreadable, or writing failed (exit code 1)."""

    code = 1


class GateFailedError(RsmreportError):
    """A quality gate of severity ``fail`` failed (exit code 3).

    Raised only by :meth:`rsmreport.Result.raise_for_gates`; a run with
    failed gates still returns its result (and writes its files), as the
    command line does.

    Attributes
    ----------
    failed : list of dict
        The failing gate lines (as in ``gates.json``).
    """

    code = 3

    def __init__(self, message: str, failed: list[dict] | None = None) -> None:
        super().__init__(message)
        self.failed = failed or []


class InternalError(RsmreportError):
    """A bug in rsmreport (a panic in the Rust code, caught at the
    boundary so that ``except Exception`` sees it). Please report it.

    Its ``code`` is 70 (``EX_SOFTWARE``); the command line (the binary and
    ``python -m rsmreport``) exits with 101 after a panic instead.
    """

    code = 70

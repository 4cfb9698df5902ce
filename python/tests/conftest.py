"""Shared fixtures of the Python tests: the repository's examples and the
command line's own output folders to compare with.

The command line is ``$RSMREPORT_BIN`` when set (CI points it at the
cargo-built binary, so the module is checked against the binary itself),
else ``python -m rsmreport`` (the same code, in the extension).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import rsmreport

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def cli_command() -> list[str]:
    binary = os.environ.get("RSMREPORT_BIN")
    if binary:
        return [binary]
    return [sys.executable, "-m", "rsmreport"]


def run_cli(*args: str | os.PathLike, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    return subprocess.run(
        [*cli_command(), *map(os.fspath, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
    )


def folder_bytes(dir: Path) -> dict[str, bytes]:
    """Every file under ``dir`` (relative POSIX path -> bytes)."""
    return {
        p.relative_to(dir).as_posix(): p.read_bytes()
        for p in sorted(dir.rglob("*"))
        if p.is_file()
    }


# Each kind's bundled example: (kind, config, CLI arguments).
EXAMPLE_CASES = {
    "build": (EXAMPLES / "exp.toml", ["build", EXAMPLES / "exp.toml"]),
    "agree": (EXAMPLES / "agree" / "exp.toml", ["agree", EXAMPLES / "agree" / "exp.toml"]),
    "preferences": (
        EXAMPLES / "preferences" / "exp.toml",
        ["preferences", EXAMPLES / "preferences" / "exp.toml"],
    ),
    "classify": (
        EXAMPLES / "classify" / "exp.toml",
        ["classify", EXAMPLES / "classify" / "exp.toml"],
    ),
    "sequence": (
        EXAMPLES / "sequence" / "exp.toml",
        ["sequence", EXAMPLES / "sequence" / "exp.toml"],
    ),
    "spans": (EXAMPLES / "spans" / "exp.toml", ["spans", EXAMPLES / "spans" / "exp.toml"]),
}


@pytest.fixture(autouse=True)
def _fixed_time(monkeypatch):
    """The same generation time in the module and the command line."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


@pytest.fixture(scope="session")
def cli_out(tmp_path_factory) -> dict[str, Path]:
    """The command line's output folder of every kind's example, and of a
    compare and a summarize over two builds."""
    base = tmp_path_factory.mktemp("cli")
    out: dict[str, Path] = {}
    for kind, (_, args) in EXAMPLE_CASES.items():
        dir = base / kind
        done = run_cli(*args, "--output-dir", dir)
        assert done.returncode == 0, done.stderr.decode()
        out[kind] = dir
    # A second version for compare and summarize: the example whose
    # gates fail (exit code 3, every file written).
    worse = base / "gates_fail"
    done = run_cli("build", EXAMPLES / "gates-fail" / "exp.toml", "--output-dir", worse)
    assert done.returncode == 3, done.stderr.decode()
    out["gates_fail"] = worse
    for kind, args in {
        "compare": ["compare", out["build"], worse, "--unpaired"],
        "summarize": ["summarize", out["build"], worse],
    }.items():
        dir = base / kind
        done = run_cli(*args, "--output-dir", dir)
        assert done.returncode == 0, done.stderr.decode()
        out[kind] = dir
    return out


def python_run(kind: str, cli_out: dict[str, Path], **kw):
    if kind in EXAMPLE_CASES:
        return getattr(rsmreport, kind)(EXAMPLE_CASES[kind][0], **kw)
    if kind == "compare":
        return rsmreport.compare(cli_out["build"], cli_out["gates_fail"], unpaired=True, **kw)
    if kind == "summarize":
        return rsmreport.summarize([cli_out["build"], cli_out["gates_fail"]], **kw)
    raise AssertionError(kind)


KINDS = [*EXAMPLE_CASES, "compare", "summarize"]


@pytest.fixture(scope="session")
def py_results(cli_out) -> dict[str, rsmreport.Result]:
    """Every kind's result, computed once without an output folder."""
    return {kind: python_run(kind, cli_out) for kind in KINDS}

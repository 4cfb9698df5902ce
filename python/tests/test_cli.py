"""``python -m rsmreport`` and the ``rsmreport`` script: the binary's
arguments, output bytes and exit codes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, folder_bytes


def python_m(*args, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    return subprocess.run(
        [sys.executable, "-m", "rsmreport", *map(os.fspath, args)],
        capture_output=True,
        env=env,
        cwd=cwd,
    )


def test_exit_codes(tmp_path):
    assert python_m("--version").returncode == 0
    assert python_m("--help").stdout.startswith(b"Evaluation reports")
    usage = python_m("build")
    assert usage.returncode == 2 and b"Usage: rsmreport build" in usage.stderr
    assert python_m("build", tmp_path / "missing.toml").returncode == 2
    worse = python_m("build", EXAMPLES / "gates-fail" / "exp.toml", "-o", tmp_path / "g")
    assert worse.returncode == 3
    assert b"gate FAILED" in worse.stderr


def test_the_same_folder_and_lines_as_the_binary(cli_out, tmp_path):
    done = python_m("build", EXAMPLES / "exp.toml", "--output-dir", tmp_path / "b")
    assert done.returncode == 0, done.stderr
    assert folder_bytes(tmp_path / "b") == folder_bytes(cli_out["build"])
    out = done.stdout.decode()
    assert "example_report.html" in out
    # The binary's last line is the decision (issue 38).
    assert out.rstrip().splitlines()[-1].startswith("overall: ")
    binary = os.environ.get("RSMREPORT_BIN")
    if binary:
        again = subprocess.run(
            [binary, "build", EXAMPLES / "exp.toml", "--output-dir", tmp_path / "b", "--force"],
            capture_output=True,
            env=dict(os.environ, SOURCE_DATE_EPOCH="1700000000"),
        )
        assert again.returncode == 0
        assert again.stdout == done.stdout
        assert again.stderr == done.stderr


def test_the_console_script(tmp_path):
    script = shutil.which("rsmreport", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no rsmreport script beside this Python (not installed with pip)")
    done = subprocess.run([script, "check", EXAMPLES / "exp.toml"], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert b"example" in done.stdout

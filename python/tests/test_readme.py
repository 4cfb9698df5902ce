"""The README's Python example runs as written (from a clone's folder)."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

pytest.importorskip("pandas")


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_the_readme_example_runs(tmp_path, monkeypatch):
    # The clone's folder, without writing into it: its examples beside.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    code = readme_example()
    assert len(code.strip().splitlines()) <= 10
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    r = scope["r"]
    assert r.output_dir is not None
    assert (tmp_path / "example_py" / "report" / "example_report.html").is_file()
    assert r.tables["eval_short"].shape[0] == 1
    assert r.passed

"""The API as issue 37 states it: every report kind of the command line
has its function, with the stated names and argument order; the module
needs no DataFrame library to import."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys

import rsmreport

from conftest import cli_command

# Subcommands that make no report (and so have no function).
NOT_KINDS = {"simulate", "help"}


def cli_subcommands() -> set[str]:
    done = subprocess.run([*cli_command(), "--help"], capture_output=True, check=True)
    text = done.stdout.decode()
    block = text.split("Commands:", 1)[1].split("\n\n", 1)[0]
    return {m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", block, re.M)}


def test_every_report_kind_of_the_command_line_has_a_function():
    kinds = cli_subcommands() - NOT_KINDS
    assert {"build", "check", "compare", "summarize", "sequence", "spans"} <= kinds
    for kind in kinds:
        assert kind in rsmreport.__all__, kind
        assert callable(getattr(rsmreport, kind)), kind
        assert getattr(rsmreport, kind).__doc__, kind


def params(fn) -> list[tuple[str, str, object]]:
    return [
        (p.name, p.kind.name, p.default) for p in inspect.signature(fn).parameters.values()
    ]


def test_the_signatures_of_the_issue():
    E = inspect.Parameter.empty
    kw = "KEYWORD_ONLY"
    assert params(rsmreport.build) == [
        ("config", "POSITIONAL_OR_KEYWORD", E),
        ("output_dir", kw, None),
        ("overwrite", kw, False),
        ("gates", kw, None),
        ("predictions", kw, None),
        ("scale", kw, None),
    ]
    assert params(rsmreport.run_evaluation) == [
        ("config", "POSITIONAL_OR_KEYWORD", E),
        ("output_dir", "POSITIONAL_OR_KEYWORD", E),
        ("overwrite_output", "POSITIONAL_OR_KEYWORD", False),
    ]
    assert [p[0] for p in params(rsmreport.compare)[:2]] == ["baseline", "candidate"]
    assert params(rsmreport.summarize)[0][:2] == ("folders", "POSITIONAL_OR_KEYWORD")
    tables = {
        "agree": ["annotations"],
        "preferences": ["pairs"],
        "classify": ["predictions"],
        "sequence": ["predictions"],
        "spans": ["spans", "documents"],
    }
    for kind, roles in tables.items():
        assert params(getattr(rsmreport, kind)) == [
            ("config", "POSITIONAL_OR_KEYWORD", E),
            ("output_dir", kw, None),
            ("overwrite", kw, False),
            *[(role, kw, None) for role in roles],
        ], kind
    # Every kind that writes takes output_dir=None and overwrite=False.
    for kind in set(rsmreport.__all__) & (cli_subcommands() - NOT_KINDS - {"check"}):
        p = {name: default for name, _, default in params(getattr(rsmreport, kind))}
        assert p.get("output_dir", "absent") is None and p.get("overwrite") is False, kind


def test_the_functions_of_the_kinds_come_from_the_kind_table():
    from rsmreport import _rsmreport

    table = _rsmreport.kinds()
    names = [k["name"] for k in table]
    assert names[0] == "build" and {"compare", "summarize"} <= set(names)
    # Every kind of the table is a subcommand and a function, and every
    # subcommand but check is a kind of the table.
    assert set(names) == cli_subcommands() - NOT_KINDS - {"check"}
    kw = "KEYWORD_ONLY"
    for k in table:
        fn = getattr(rsmreport, k["name"])
        assert k["name"] in rsmreport.__all__
        if k["runner"] != "experiment":
            continue
        assert k["about"] in fn.__doc__ and f"rsmreport {k['name']}" in fn.__doc__
        expected = [("config", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
                    ("output_dir", kw, None), ("overwrite", kw, False)]
        if k["gates_file"]:
            expected.append(("gates", kw, None))
        expected += [(role, kw, None) for role, _ in k["tables"]]
        assert params(fn) == expected, k["name"]
        for _, key in k["tables"]:
            assert f"``{key}``" in fn.__doc__


def test_importing_needs_no_dataframe_library():
    code = (
        "import sys, rsmreport; "
        "print(sorted(m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.decode().strip() == "[]"

"""Every kind from Python against the command line's own files."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

import rsmreport

from conftest import EXAMPLE_CASES, EXAMPLES, KINDS, folder_bytes, python_run, run_cli

pd = pytest.importorskip("pandas")
tomllib = pytest.importorskip("tomllib")  # Python 3.11+


@pytest.mark.parametrize("kind", KINDS)
def test_tables_equal_the_cli_files(kind, cli_out, py_results):
    r = py_results[kind]
    assert r.output_dir is None
    out = cli_out[kind] / "output"
    csv = {p.name for p in out.glob("*.csv")}
    assert {f"{r.id}_{name}.csv" for name in r.tables} == csv
    assert len(r.tables) > 0
    for name in r.tables:
        file = out / f"{r.id}_{name}.csv"
        assert r.table_csv(name) == file.read_bytes(), name
        expected = pd.read_csv(file, index_col=0)
        pd.testing.assert_frame_equal(r.tables[name], expected)


@pytest.mark.parametrize("kind", KINDS)
def test_save_writes_the_cli_folder_bytes(kind, cli_out, py_results, tmp_path):
    r = py_results[kind]
    assert r.report_path is None
    assert r.files() == folder_bytes(cli_out[kind])
    assert r.save(tmp_path / "saved") == tmp_path / "saved"
    assert folder_bytes(tmp_path / "saved") == folder_bytes(cli_out[kind])
    assert r.report_path is not None and r.report_path.is_file()
    assert r.report_html == r.report_path.read_text(encoding="utf-8")
    # save() refuses a non-empty folder unless told to replace it.
    with pytest.raises(rsmreport.ConfigError):
        r.save(tmp_path / "saved")
    r.save(tmp_path / "saved", overwrite=True)


@pytest.mark.parametrize("kind", ["agree", "compare"])
def test_output_dir_writes_the_cli_folder_bytes(kind, cli_out, tmp_path):
    r = python_run(kind, cli_out, output_dir=tmp_path / "out")
    assert r.output_dir == tmp_path / "out"
    assert folder_bytes(tmp_path / "out") == folder_bytes(cli_out[kind])
    assert r.report_path is not None and r.report_path.is_file()


@pytest.mark.parametrize("kind", KINDS)
def test_summary_is_the_summary_file(kind, cli_out, py_results):
    r = py_results[kind]
    file = cli_out[kind] / "output" / f"{r.id}_summary.json"
    assert r.summary == json.loads(file.read_text())
    envelope = ["kind", "summary_version", "experiment_id", "model_version", "description"]
    assert all(key in r.summary for key in envelope)
    assert r.summary["kind"] == kind
    assert r.summary["experiment_id"] == r.id


def test_nothing_is_written_without_output_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = rsmreport.build(EXAMPLES / "exp.toml")
    assert r.tables["eval_short"].shape[0] > 0
    assert r.report_html is not None and r.report_html.startswith("<!")
    assert list(tmp_path.iterdir()) == []


def test_a_dict_config_resolves_paths_against_the_working_directory(cli_out, monkeypatch):
    config = tomllib.loads((EXAMPLES / "agree" / "exp.toml").read_text())
    monkeypatch.chdir(EXAMPLES / "agree")
    r = rsmreport.agree(config)
    out = cli_out["agree"] / "output"
    for name in r.tables:
        assert r.table_csv(name) == (out / f"{r.id}_{name}.csv").read_bytes(), name


def test_a_dict_config_for_build(cli_out, monkeypatch):
    config = tomllib.loads((EXAMPLES / "exp.toml").read_text())
    monkeypatch.chdir(EXAMPLES)
    r = rsmreport.build(config)
    out = cli_out["build"] / "output"
    for name in r.tables:
        assert r.table_csv(name) == (out / f"{r.id}_{name}.csv").read_bytes(), name


def test_check_writes_nothing_and_gives_the_account(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = rsmreport.check(EXAMPLES / "exp.toml")
    assert r.output_dir is None
    assert any("example" in line for line in r.lines)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", list(EXAMPLE_CASES))
def test_check_reads_every_kind_and_matches_the_command(kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = EXAMPLE_CASES[kind][0]
    r = rsmreport.check(config)
    assert r.output_dir is None and list(tmp_path.iterdir()) == []
    assert r.lines[0].startswith("experiment: ")
    done = run_cli("check", config, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == r.lines
    # The same kind named, and a wrong one: the hint names the right kind.
    assert rsmreport.check(config, kind=kind).lines == r.lines
    wrong = "agree" if kind != "agree" else "classify"
    with pytest.raises(rsmreport.ConfigError, match=f"looks like a `{kind}` experiment"):
        rsmreport.check(config, kind=wrong)


def test_check_takes_a_dict_and_tables_of_its_kind(monkeypatch):
    config = tomllib.loads((EXAMPLES / "classify" / "exp.toml").read_text())
    del config["predictions_file"]
    monkeypatch.chdir(EXAMPLES / "classify")
    table = pd.read_csv("predictions.csv")
    r = rsmreport.check(config, predictions=table)
    assert r.lines[0] == "experiment: intent_v2 (classify)"
    assert any(line.startswith("predictions file: ") for line in r.lines)


def test_run_evaluation_keeps_rsmtool_argument_order(cli_out, tmp_path):
    r = rsmreport.run_evaluation(EXAMPLES / "exp.toml", tmp_path / "out")
    assert folder_bytes(tmp_path / "out") == folder_bytes(cli_out["build"])
    with pytest.raises(rsmreport.ConfigError):
        rsmreport.run_evaluation(EXAMPLES / "exp.toml", tmp_path / "out")
    rsmreport.run_evaluation(EXAMPLES / "exp.toml", tmp_path / "out", overwrite_output=True)
    assert r.passed


def test_polars_and_arrow_views(py_results):
    r = py_results["classify"]
    name = next(iter(r.tables))
    df = r.tables[name]
    pl = pytest.importorskip("polars")
    p = r.to_polars(name)
    assert isinstance(p, pl.DataFrame)
    assert p.height == len(df) and p.width == len(df.columns) + 1
    pa = pytest.importorskip("pyarrow")
    a = r.to_arrow(name)
    assert isinstance(a, pa.Table)
    assert a.num_rows == len(df)
    with pytest.raises(KeyError, match="no table"):
        r.to_polars("no_such_table")


@pytest.mark.parametrize("kind", ["build", "classify", "spans"])
def test_arrow_views_hold_the_csv_columns_typed(kind, py_results):
    """to_arrow and to_polars come from the Arrow stream (any consumer of
    ``__arrow_c_stream__`` reads it), with the CSV file's columns and the
    values of the pandas table."""
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    r = py_results[kind]
    for name in r.tables:
        df = r.tables[name]
        a = r.to_arrow(name)
        header = r.table_csv(name).split(b"\n", 1)[0].decode()
        assert len(a.column_names) == len(df.columns) + 1, name
        assert a.num_rows == len(df) == r.arrow(name).num_rows
        assert pa.table(r.arrow(name)).equals(a), name
        p = r.to_polars(name)
        assert p.columns == a.column_names and p.height == a.num_rows
        if "\"" not in header:
            assert a.column_names[1:] == header.split(",")[1:], name
        for column, values in zip(a.column_names[1:], a.columns[1:]):
            if pa.types.is_floating(values.type) or pa.types.is_integer(values.type):
                expected = df[column].to_numpy(dtype=float, na_value=float("nan"))
                got = values.to_numpy(zero_copy_only=False).astype(float)
                assert ((got == expected) | (got != got) & (expected != expected)).all()


def test_repr_html_is_a_small_card(py_results):
    r = py_results["build"]
    card = r._repr_html_()
    assert "rsmreport build" in card and "example" in card
    assert "quality gates passed" in card
    saved = r.report_path
    assert ("save(dir)" in card) if saved is None else (saved.name in card)
    assert len(card) < 5000
    assert "rsmreport.Result" in repr(r)


def test_a_run_releases_the_gil():
    """Python keeps running while a run computes in another thread."""
    import threading

    done = []
    worker = threading.Thread(
        target=lambda: done.append(rsmreport.classify(EXAMPLES / "classify" / "exp.toml"))
    )
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert done and done[0].tables
    # Holding the GIL, the loop would only run in the thread's few Python
    # steps (a few thousand turns); released, it spins for the whole run.
    assert spins > 200_000, spins


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_a_small_card(kind, py_results):
    r = py_results[kind]
    card = r._repr_html_()
    assert f"<b>rsmreport {kind}</b>: {r.id}" in card
    saved = r.report_path
    assert ("save(dir)" in card) if saved is None else (saved.name in card)
    assert "<html" not in card
    assert len(card) < 5000
    # The headline numbers: the report's key figures, or the kind's own
    # lines (a kind whose report has none).
    assert "rsmreport-glance" in card or "<pre" in card
    # The decision badge of the report, when the kind decides.
    decision = r._card()["decision"]
    if decision is not None:
        assert f"rsmreport-{decision['tone']}" in card
        assert html.escape(decision["badge"]) in card


def test_the_card_shows_the_report_header(py_results):
    r = py_results["classify"]
    card = r._card()
    assert card["decision"]["badge"] and card["decision"]["tone"] in {
        "pass", "fail", "warn", "info"}
    assert card["glance"], "classify's report has key figures"
    page = r.report_html
    for tile in card["glance"]:
        assert html.escape(tile["label"]) in page
        assert html.escape(tile["label"]) in r._repr_html_()


def test_the_card_escapes_its_texts(py_results, monkeypatch):
    r = py_results["build"]
    monkeypatch.setattr(
        r, "_card", lambda: {
            "decision": {"tone": "fail", "badge": "<b>x</b>", "sentence": "a & <i>b</i>",
                         "warnings": ["<script>"]},
            "glance": [{"label": "<l>", "value": "<v>", "ci": "[1, 2]", "title": "'t'"}],
        })
    card = r._repr_html_()
    for raw in ["<b>x</b>", "<i>b</i>", "<script>", "<l>", "<v>"]:
        assert raw not in card
    assert "&lt;b&gt;x&lt;/b&gt;" in card and "a &amp; &lt;i&gt;b&lt;/i&gt;" in card


def test_show_puts_the_self_contained_report_in_an_iframe(py_results, monkeypatch):
    import builtins

    r = py_results["classify"]
    real_import = builtins.__import__

    def no_ipython(name, *args, **kwargs):
        if name.startswith("IPython"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ipython)
    frame = r.show(height=400)
    assert frame.startswith("<iframe srcdoc=\"") and "height:400px" in frame
    assert html.unescape(frame.split('srcdoc="', 1)[1].split('"', 1)[0]) == r.report_html
    with pytest.raises(ValueError, match="no report page"):
        rsmreport.check(EXAMPLES / "exp.toml").show()

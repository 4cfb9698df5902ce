"""Input tables given as data (``__arrow_c_stream__``) give the tables of
the same data read from a file."""

from __future__ import annotations



import pytest

import rsmreport

from conftest import EXAMPLES

pd = pytest.importorskip("pandas")
tomllib = pytest.importorskip("tomllib")  # Python 3.11+
pl = pytest.importorskip("polars")
pytest.importorskip("pyarrow")

# kind -> (config, {role: data file})
CASES = {
    "build": (
        EXAMPLES / "exp.toml",
        {"predictions": EXAMPLES / "predictions.csv", "scale": EXAMPLES / "scale.csv"},
    ),
    "agree": (EXAMPLES / "agree" / "exp.toml", {"annotations": EXAMPLES / "agree" / "labels.csv"}),
    "preferences": (
        EXAMPLES / "preferences" / "exp.toml",
        {"pairs": EXAMPLES / "preferences" / "pairs.csv"},
    ),
    "classify": (
        EXAMPLES / "classify" / "exp.toml",
        {"predictions": EXAMPLES / "classify" / "predictions.csv"},
    ),
    "sequence": (
        EXAMPLES / "sequence" / "exp.toml",
        {"predictions": EXAMPLES / "sequence" / "outputs.csv"},
    ),
    "spans": (
        EXAMPLES / "spans" / "exp.toml",
        {
            "spans": EXAMPLES / "spans" / "spans.csv",
            "documents": EXAMPLES / "spans" / "documents.csv",
        },
    ),
}


@pytest.mark.parametrize("reader", ["pandas", "polars"])
@pytest.mark.parametrize("kind", list(CASES))
def test_data_gives_the_tables_of_the_file(kind, reader, py_results):
    config, files = CASES[kind]
    if reader == "pandas":
        read = pd.read_csv
    else:
        def read(path):
            return pl.read_csv(path, infer_schema_length=None)

    tables = {role: read(path) for role, path in files.items()}
    r = getattr(rsmreport, kind)(config, **tables)
    expected = py_results[kind]
    assert list(r.tables) == list(expected.tables)
    for name in r.tables:
        assert r.table_csv(name) == expected.table_csv(name), name
    assert r.summary.keys() == expected.summary.keys()


def test_a_dict_configuration_needs_no_file_key(py_results, tmp_path, monkeypatch):
    config = tomllib.loads((EXAMPLES / "agree" / "exp.toml").read_text())
    del config["annotations_file"]
    monkeypatch.chdir(tmp_path)
    labels = pd.read_csv(EXAMPLES / "agree" / "labels.csv")
    r = rsmreport.agree(config, annotations=labels)
    for name in r.tables:
        assert r.table_csv(name) == py_results["agree"].table_csv(name), name
    assert list(tmp_path.iterdir()) == []


def test_no_file_is_written_for_data(tmp_path, monkeypatch):
    # The native module's temporary folder (std::env::temp_dir: TMPDIR).
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    r = rsmreport.classify(
        EXAMPLES / "classify" / "exp.toml",
        predictions=pl.read_csv(EXAMPLES / "classify" / "predictions.csv"),
    )
    assert r.tables
    # A dict configuration too is read from memory.
    config = tomllib.loads((EXAMPLES / "agree" / "exp.toml").read_text())
    del config["annotations_file"]
    d = rsmreport.agree(config, annotations=pd.read_csv(EXAMPLES / "agree" / "labels.csv"))
    assert d.tables
    assert list(work.iterdir()) == []
    assert list(temp.iterdir()) == []


def _inputs(result):
    return {i["role"]: i for i in result.summary["inputs"]}


def test_the_report_names_data_in_memory_with_a_checksum_of_the_data():
    df = pd.read_csv(EXAMPLES / "predictions.csv")
    r = rsmreport.build(EXAMPLES / "exp.toml", predictions=df)
    info = _inputs(r)["predictions"]
    assert info["path"] == "pandas.DataFrame in memory (predictions=)"
    assert info["rows"] == len(df)
    assert len(info["sha256"]) == 64
    html = r.report_html
    assert "pandas.DataFrame in memory (predictions=)" in html
    # The same data from polars and pyarrow: the same checksum (the values,
    # names and types, not the producer or its chunks).
    import pyarrow as pa

    for data, name in [
        (pl.from_pandas(df), "polars.DataFrame"),
        (pa.Table.from_pandas(df, preserve_index=False), "pyarrow.Table"),
        (pa.Table.from_batches(pa.Table.from_pandas(df, preserve_index=False).to_batches(500)),
         "pyarrow.Table"),
    ]:
        other = _inputs(rsmreport.build(EXAMPLES / "exp.toml", predictions=data))["predictions"]
        assert other["path"] == f"{name} in memory (predictions=)"
        assert other["sha256"] == info["sha256"], name
    # Other data: another checksum.
    changed = df.copy()
    changed.loc[0, "L1"] = "Klingon"
    other = _inputs(rsmreport.build(EXAMPLES / "exp.toml", predictions=changed))["predictions"]
    assert other["sha256"] != info["sha256"]


def test_the_same_data_give_the_same_report_bytes():
    df = pd.read_csv(EXAMPLES / "predictions.csv")
    a = rsmreport.build(EXAMPLES / "exp.toml", predictions=df).files()
    b = rsmreport.build(EXAMPLES / "exp.toml", predictions=df.copy()).files()
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name


def test_data_are_typed_as_a_parquet_file_of_the_same_data(tmp_path):
    """Every column type a DataFrame may hold reaches the reader as it
    would from a parquet file written by pyarrow (the previous route)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = pd.read_csv(EXAMPLES / "classify" / "predictions.csv")
    n = len(df)
    df["int_na"] = pd.array([None if i % 7 == 0 else i for i in range(n)], dtype="Int64")
    df["flag"] = [i % 2 == 0 for i in range(n)]
    df["cat"] = pd.Categorical(["a" if i % 3 else "b" for i in range(n)])
    df["f32"] = pd.Series(range(n), dtype="float32") / 4
    config = tomllib.loads((EXAMPLES / "classify" / "exp.toml").read_text())
    base = EXAMPLES / "classify"
    for key, value in list(config.items()):
        if key.endswith("_file") and isinstance(value, str):
            config[key] = str(base / value)
    # Each type as a subgroup (read as text) and the float32 as a score.
    config["subgroups"] = ["cat", "flag", "int_na"]
    config["intervals"]["replicates"] = 50
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp_path / "p.parquet")
    from_file = rsmreport.classify({**config, "predictions_file": str(tmp_path / "p.parquet")})
    del config["predictions_file"]
    from_data = rsmreport.classify(config, predictions=df)
    assert list(from_data.tables) == list(from_file.tables)
    for name in from_file.tables:
        assert from_data.table_csv(name) == from_file.table_csv(name), name
    # A timestamp column: refused by both (the polars build has no dates).
    df["when"] = pd.date_range("2024-01-01", periods=n, freq="h")
    with pytest.raises(rsmreport.DataError, match="Timestamp"):
        rsmreport.classify(config, predictions=df)


def test_an_object_without_the_arrow_interface_is_refused():
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        rsmreport.classify(EXAMPLES / "classify" / "exp.toml", predictions=[1, 2, 3])
    with pytest.raises(TypeError, match="unexpected keyword"):
        rsmreport.agree(EXAMPLES / "agree" / "exp.toml", predictions=pd.DataFrame())


def test_a_corrupt_cell_in_data_is_a_data_error():
    df = pd.read_csv(EXAMPLES / "classify" / "predictions.csv")
    df["v1_p_tech"] = df["v1_p_tech"].astype(str)
    df.loc[3, "v1_p_tech"] = "x"
    with pytest.raises(rsmreport.DataError, match=r"item 't0004' \(row 4\) holds \"x\", which is not a number"):
        rsmreport.classify(EXAMPLES / "classify" / "exp.toml", predictions=df)


def test_spans_dict_configuration_needs_neither_file_key(py_results, tmp_path, monkeypatch):
    config = tomllib.loads((EXAMPLES / "spans" / "exp.toml").read_text())
    del config["input_file"], config["documents_file"]
    monkeypatch.chdir(tmp_path)
    r = rsmreport.spans(
        config,
        spans=pl.read_csv(EXAMPLES / "spans" / "spans.csv"),
        documents=pd.read_csv(EXAMPLES / "spans" / "documents.csv"),
    )
    for name in r.tables:
        assert r.table_csv(name) == py_results["spans"].table_csv(name), name
    assert list(tmp_path.iterdir()) == []


def test_sequence_dict_configuration_needs_no_predictions_file(py_results, monkeypatch):
    config = tomllib.loads((EXAMPLES / "sequence" / "exp.toml").read_text())
    del config["predictions_file"]
    # logprobs_file stays a file: relative to the working directory.
    monkeypatch.chdir(EXAMPLES / "sequence")
    r = rsmreport.sequence(config, predictions=pd.read_csv("outputs.csv"))
    for name in r.tables:
        assert r.table_csv(name) == py_results["sequence"].table_csv(name), name


def test_a_table_the_experiment_does_not_read_is_a_config_error(tmp_path):
    # spans= replaces the span table of format = "table" only.
    (tmp_path / "ner.conll").write_text("Ana B-PER O\nleft O O\n", encoding="utf-8")
    (tmp_path / "exp.toml").write_text(
        'experiment_id = "c"\nformat = "conll"\ninput_file = "ner.conll"\n'
        'columns = ["token", "gold", "sys"]\nannotators = ["gold", "sys"]\n',
        encoding="utf-8",
    )
    table = pd.read_csv(EXAMPLES / "spans" / "spans.csv")
    with pytest.raises(rsmreport.ConfigError, match='format is not "table"'):
        rsmreport.spans(tmp_path / "exp.toml", spans=table)
    # predictions= replaces Input A's table, not Input B's text files.
    (tmp_path / "ref.txt").write_text("a b\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_text("a b\n", encoding="utf-8")
    (tmp_path / "seq.toml").write_text(
        'experiment_id = "t"\nreferences = ["ref.txt"]\nmetrics = ["bleu"]\n'
        '[systems]\nsys = "sys.txt"\n',
        encoding="utf-8",
    )
    with pytest.raises(rsmreport.ConfigError, match="names no predictions_file"):
        rsmreport.sequence(tmp_path / "seq.toml", predictions=table)
    with pytest.raises(TypeError, match="unexpected keyword"):
        rsmreport.spans(tmp_path / "exp.toml", predictions=table)


def test_a_corrupt_span_offset_in_data_is_a_data_error():
    df = pd.read_csv(EXAMPLES / "spans" / "spans.csv")
    df["start"] = df["start"].astype(str)
    df.loc[2, "start"] = "x"
    with pytest.raises(
        rsmreport.DataError, match="column 'start': the offset \"x\" is not a non-negative integer"
    ):
        rsmreport.spans(EXAMPLES / "spans" / "exp.toml", spans=df)

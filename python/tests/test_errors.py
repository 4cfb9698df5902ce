"""The exceptions: classes, codes and the command line's messages."""

from __future__ import annotations

import pytest

import rsmreport
from rsmreport import _rsmreport

from conftest import EXAMPLES, run_cli


def test_the_hierarchy():
    assert issubclass(rsmreport.ConfigError, ValueError)
    for cls, code in [
        (rsmreport.ConfigError, 2),
        (rsmreport.DataError, 1),
        (rsmreport.GateFailedError, 3),
        (rsmreport.InternalError, 101),
    ]:
        assert issubclass(cls, rsmreport.RsmreportError)
        assert issubclass(cls, Exception)
        assert cls.code == code


def test_the_classes_are_the_native_modules():
    for name in ["RsmreportError", "ConfigError", "DataError", "GateFailedError",
                 "InternalError"]:
        cls = getattr(rsmreport, name)
        assert cls is getattr(_rsmreport, name)
        assert cls.__module__ == "rsmreport" and cls.__name__ == name
    assert rsmreport.ConfigError.__mro__[1:3] == (rsmreport.RsmreportError, ValueError)
    assert rsmreport.GateFailedError("x").failed == ()


def cli_error(cwd, *args) -> tuple[int, str]:
    done = run_cli(*args, cwd=cwd)
    text = done.stderr.decode().strip()
    assert text.startswith("error: "), text
    return done.returncode, text.removeprefix("error: ")


def test_config_error_has_the_cli_message(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(
        (EXAMPLES / "agree" / "exp.toml").read_text()
        + '\nannotations_file_typo = "x"\n'
    )
    code, message = cli_error(tmp_path, "agree", exp, "-o", tmp_path / "o")
    with pytest.raises(rsmreport.ConfigError) as e:
        rsmreport.agree(exp)
    assert code == e.value.code == 2
    assert str(e.value) == message
    assert isinstance(e.value, ValueError)


def test_config_error_for_a_missing_file(tmp_path):
    with pytest.raises(rsmreport.ConfigError, match="not found"):
        rsmreport.build(tmp_path / "missing.toml")


def test_config_error_for_an_output_folder_that_is_an_input(tmp_path):
    with pytest.raises(rsmreport.ConfigError):
        rsmreport.build(EXAMPLES / "exp.toml", output_dir=EXAMPLES)


def test_data_error_has_the_cli_message(tmp_path):
    # An empty pairs file beside the configuration.
    (tmp_path / "pairs.csv").write_text("")
    exp = tmp_path / "exp.toml"
    exp.write_text((EXAMPLES / "preferences" / "exp.toml").read_text())
    code, message = cli_error(tmp_path, "preferences", exp, "-o", tmp_path / "o")
    assert code == 1
    with pytest.raises(rsmreport.DataError) as e:
        rsmreport.preferences(exp)
    assert e.value.code == 1
    assert str(e.value) == message
    assert "empty" in message
    assert not isinstance(e.value, ValueError)


def test_gates_fail_only_through_raise_for_gates(tmp_path):
    r = rsmreport.build(EXAMPLES / "gates-fail" / "exp.toml", output_dir=tmp_path / "o")
    assert (tmp_path / "o" / "output").is_dir()
    assert r.passed is False
    assert any(g["fails"] for g in r.gates)
    with pytest.raises(rsmreport.GateFailedError) as e:
        r.raise_for_gates()
    assert e.value.code == 3
    assert e.value.failed and all(g["fails"] for g in e.value.failed)
    assert "failed" in r._repr_html_()
    ok = rsmreport.build(EXAMPLES / "exp.toml")
    assert ok.raise_for_gates() is ok


def test_a_panic_is_an_internal_error():
    with pytest.raises(rsmreport.InternalError) as e:
        _rsmreport._panic_for_tests()
    # The binary's exit code of a panic (Rust's), as `cli_main` returns it.
    assert e.value.code == 101
    assert "internal error" in str(e.value)
    # `except Exception` catches it (a PanicException would escape).
    try:
        _rsmreport._panic_for_tests()
    except Exception:
        pass
    # Reading a finished outcome (tables, summary, gates, lines) too.
    with pytest.raises(rsmreport.InternalError, match="GIL held"):
        _rsmreport._panic_for_tests(held=True)


def test_wrong_argument_types():
    with pytest.raises(TypeError):
        rsmreport.build(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rsmreport.summarize("one/folder")  # type: ignore[arg-type]

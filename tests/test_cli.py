import argparse
import subprocess
import sys
from typing import Any

import pytest

from benchmarks.cli._common import UsageError, model_spec, nonneg_int, port, positive_int
from benchmarks.cli.main import WvaArgumentParser, main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(err: str, prefix: str = "wva: error:") -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), err
    assert "Traceback" not in err and "usage:" not in err


SERVER_OPTIONS = {"slow_s": float, "require_api_key": str}


def fake_simserver(monkeypatch: pytest.MonkeyPatch, run_server_cli: Any) -> None:
    """Stands in for the server loop of `wva sim-server`, so that no socket is opened."""
    from benchmarks.cli import sim_server

    monkeypatch.setattr(sim_server, "run_server_cli", run_server_cli)


@pytest.fixture
def fake_server(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, dict[str, Any]]]:
    """Stands in for the server loop so no socket is opened; records what it was asked."""
    calls: list[tuple[str, int, dict[str, Any]]] = []

    def run_server_cli(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        calls.append((host, port, knobs))
        return 0

    fake_simserver(monkeypatch, run_server_cli)
    return calls


@pytest.mark.parametrize("argv", [["--help"], ["sim-server", "--help"], ["models", "--help"], ["--version"]])
def test_help_exits_zero(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, out, err = run_cli(capsys, *argv)
    assert status == 0 and err == ""
    assert out.strip()


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "--help")
    assert "models" in out and "sim-server" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "no command given"),
        (["nope"], "invalid choice: 'nope'"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["models", "--bogus"], "see 'wva models --help'"),
        (["models", "extra"], "unrecognized arguments: extra"),
        (["sim-server", "--port", "abc"], "argument --port: expected a port number"),
        (["sim-server", "--port", "70000"], "got 70000"),
        (["sim-server", "--port"], "expected one argument"),
        (["sim-server", "--po", "1"], "unrecognized arguments: --po"),  # no abbreviations
        (["sim-server", "--knob", "novalue"], "expected name=value"),
        (["sim-server", "--knob", "eror_rate=0.1"], "unknown sim knob 'eror_rate': valid knobs are"),
        (["sim-server", "--knob", "seed=abc"], "bad value 'abc' for sim knob 'seed'"),
        (["sim-server", "--knob", "slow_s=soon"], "bad value 'soon' for option 'slow_s'"),
        (["sim-server", "--knob", "seed=1", "--knob", "seed=2"], "given twice"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], fake_server: list[Any], argv: list[str], says: str
) -> None:
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert_one_error_line(err)
    assert says in err
    assert out == "" and fake_server == []


def test_sim_server_passes_typed_knobs(capsys: pytest.CaptureFixture[str], fake_server: list[Any]) -> None:
    status, _, err = run_cli(capsys, "sim-server", "--port", "9000", "--knob", "seed=3", "--knob", "error_rate=0.25")
    assert status == 0, err
    assert fake_server == [("127.0.0.1", 9000, {"seed": 3, "error_rate": 0.25})]


def test_sim_server_passes_server_options(capsys: pytest.CaptureFixture[str], fake_server: list[Any]) -> None:
    status, _, err = run_cli(capsys, "sim-server", "--knob", "slow_s=2", "--knob", "require_api_key=k")
    assert status == 0, err
    assert fake_server[0][2] == {"slow_s": 2.0, "require_api_key": "k"}


def test_a_value_the_server_rejects_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def check(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        raise ValueError("SimModel knob error_rate: must be in [0, 1], got 2.0 (valid knobs: ...)")

    fake_simserver(monkeypatch, check)
    status, _, err = run_cli(capsys, "sim-server", "--knob", "error_rate=2")
    assert status == 2 and "must be in [0, 1]" in err
    assert_one_error_line(err)


def test_a_port_in_use_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def taken(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        raise OSError(98, "Address already in use")

    fake_simserver(monkeypatch, taken)
    status, _, err = run_cli(capsys, "sim-server", "--port", "8765")
    assert status == 1
    assert err == "wva: error: cannot listen on 127.0.0.1:8765: Address already in use\n"


def test_models_lists_spec_forms_and_every_knob(capsys: pytest.CaptureFixture[str]) -> None:
    from patterns.sim import SimModel

    status, out, _ = run_cli(capsys, "models")
    assert status == 0
    assert "anthropic:<model-id>" in out and "replay:<path>" in out
    for name, (_, default, description) in SimModel.KNOBS.items():
        assert f"{name} " in out and description in out
        shown = "-" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        assert shown in out  # `-`: checker_error_rate unset, i.e. error_rate's value


def test_a_usage_error_from_a_command_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        raise UsageError("port 1 needs root:\nuse a port above 1023")

    fake_simserver(monkeypatch, refuse)
    status, _, err = run_cli(capsys, "sim-server")
    assert status == 2 and "port 1 needs root: use a port above 1023" in err
    assert_one_error_line(err)


@pytest.mark.parametrize("debug", ["", "1"])
def test_an_unexpected_exception_is_an_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, debug: str
) -> None:
    def crash(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        raise RuntimeError("boom")

    fake_simserver(monkeypatch, crash)
    monkeypatch.setenv("WVA_DEBUG", debug)
    status, _, err = run_cli(capsys, "sim-server")
    assert status == 1
    assert err.splitlines()[-1] == "wva: internal error: RuntimeError: boom"
    assert ("Traceback" in err) == bool(debug)


def test_keyboard_interrupt_exits_130(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(host: str, port: int, knobs: dict[str, Any], **_: Any) -> int:
        raise KeyboardInterrupt

    fake_simserver(monkeypatch, interrupted)
    status, _, err = run_cli(capsys, "sim-server")
    assert status == 130
    assert_one_error_line(err, prefix="wva: interrupted")


@pytest.mark.parametrize(
    ("helper", "text", "ok"),
    [
        (positive_int, "3", 3),
        (positive_int, "0", None),
        (positive_int, "x", None),
        (nonneg_int, "0", 0),
        (nonneg_int, "-1", None),
        (port, "65535", 65535),
        (port, "65536", None),
        (model_spec, "sim", "sim"),
        (model_spec, "foo", None),
        (model_spec, "anthropic:", None),
    ],
)
def test_type_helpers(helper: Any, text: str, ok: Any) -> None:
    if ok is None:
        with pytest.raises(argparse.ArgumentTypeError):
            helper(text)
    else:
        assert helper(text) == ok


def test_a_bad_model_spec_flag_names_the_valid_forms() -> None:
    parser = WvaArgumentParser(prog="wva run")
    parser.add_argument("--model", type=model_spec)
    with pytest.raises(UsageError, match=r"unknown model spec 'gpt': use sim\[:knob=value,...\]"):
        parser.parse_args(["--model", "gpt"])


def test_the_installed_entry_point_reports_usage_errors_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.cli.main", "models", "--bogus"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert_one_error_line(done.stderr)
    assert done.stdout == ""

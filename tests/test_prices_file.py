"""`--prices FILE`: entries add to or replace the built-in table, for any provider's ids; $0 is not unknown;
an `openai:` run (a local model through the real SDK, against the sim server) gets a cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli.main import main
from patterns.pricing import PRICES_ENV, added_prices, cost_usd, price_for, use_prices
from patterns.sim.server import SimServer
from patterns.usage import Usage

USAGE = Usage(input_tokens=1_000_000, output_tokens=1_000_000)


def write(tmp_path: Path, models: dict[str, object], **more: object) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": models, **more}), encoding="utf-8")
    return path


def entry(i: float, o: float) -> dict[str, float]:
    return {"input": i, "output": o, "cache_write": i, "cache_read": i / 10}


def test_a_file_adds_a_local_model_replaces_a_builtin_and_zero_is_not_unknown(tmp_path: Path) -> None:
    assert price_for("qwen2.5-1.5b-instruct") is None and cost_usd("free-local", USAGE) is None
    path = write(tmp_path, {"qwen2.5-1.5b-instruct": entry(0.1, 0.2), "claude-haiku-4-5": entry(2.0, 4.0),
                            "free-local": entry(0, 0)})
    assert use_prices(path) == ["claude-haiku-4-5", "free-local", "qwen2.5-1.5b-instruct"]
    assert cost_usd("qwen2.5-1.5b-instruct", USAGE) == pytest.approx(0.3)  # hand-computed: 0.1 + 0.2
    assert cost_usd("claude-haiku-4-5-20251001", USAGE) == pytest.approx(6.0)  # replaced, dated ids follow it
    assert cost_usd("claude-sonnet-4-5", USAGE) == pytest.approx(18.0)  # the rest of the table is kept
    assert cost_usd("free-local", USAGE) == 0.0  # explicitly free: a number, not None
    assert (added_prices() or {})["free-local"]["output"] == 0.0


@pytest.mark.parametrize(("content", "says"), [
    ("not json", "not JSON"),
    (json.dumps({"models": {"m": {"input": 1}}}), "model 'm' needs input, output, cache_write, cache_read"),
    (json.dumps({"models": {"m": entry(-1, 1)}}), "a number >= 0"),
    (json.dumps([1, 2]), "the shape of patterns/prices.json"),
    (json.dumps({"models": {"m": entry(1, 1)}, "aliases": {"x": "nowhere"}}), "aliases point to unknown models"),
])
def test_a_bad_prices_file_is_one_line_exit_2_and_nothing_changes(tmp_path: Path, content: str, says: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.json"
    path.write_text(content, encoding="utf-8")
    assert main(["run", "agent", "pipeline", "--prices", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
    import os

    assert not os.environ.get(PRICES_ENV)


def test_prices_give_an_openai_run_a_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    from benchmarks.tasks.registry import load_task

    path = write(tmp_path, {"my-local-model": entry(1.0, 2.0)})
    with SimServer(policies=[load_task("pipeline").policy()]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-prices")
        assert main(["run", "chain", "pipeline", "--model", "openai:my-local-model", "--json",
                     "--prices", str(path)]) == 0
        priced = json.loads(capsys.readouterr().out)
    assert price_for("my-local-model") is not None
    usage = priced["usage"]
    assert priced["cost_usd"] == pytest.approx((usage["input_tokens"] * 1.0 + usage["output_tokens"] * 2.0) / 1e6)
    assert priced["cost_usd"] > 0


@pytest.mark.parametrize(("content", "says"), [
    (json.dumps({"models": {"m": entry(1e308, 1e308)}}), "at most 1,000,000"),
    ("[" * 100_000, "nested too deep"),
    (b"\xff\xfe junk", "not UTF-8"),
])
def test_absurd_prices_files_are_refused_naming_the_file(tmp_path: Path, content: str | bytes, says: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 44 attacks 9-10: every price 1e308 was accepted and made the costs infinite after every trial ran
    (exit 1); 100,000 nested `[` was a RecursionError (exit 1)."""
    path = tmp_path / "p.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["run", "agent", "pipeline", "--prices", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and str(path) in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("content", ["not json", None])
def test_wva_prices_naming_a_bad_file_is_one_line_exit_2(tmp_path: Path, content: str | None,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "env.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    monkeypatch.setenv(PRICES_ENV, str(path))
    assert main(["run", "agent", "pipeline", "--json"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"wva: error: {PRICES_ENV} {path}: ") and err.count("\n") == 1
    assert json.loads(out)["status"] == 2

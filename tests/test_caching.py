"""Prompt caching end to end: where the breakpoints go (patterns/caching.py), that every pattern sends them
and never keeps them, and what `--prompt-cache on|off` changes in a benchmark (only the bill)."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.report.write import write_report
from patterns import RequestOptions, ScriptedModel, ToolSet, message, run_agent, tool, tool_use_block
from patterns.caching import MAX_BREAKPOINTS, MarkCounter, count_breakpoints, uncached_cost_usd, with_breakpoints
from patterns.pricing import price_for
from patterns.usage import Usage
from patterns.workflows import LLM, Chain, run_workflow

E = {"type": "ephemeral"}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS = ToolSet([add])


def marks(params: dict[str, Any]) -> list[str]:
    """Where the breakpoints are, as readable paths."""
    out = [f"tools.{i}" for i, t in enumerate(params.get("tools") or []) if "cache_control" in t]
    system = params.get("system")
    if isinstance(system, list):
        out += [f"system.{j}" for j, b in enumerate(system) if "cache_control" in b]
    for i, m in enumerate(params.get("messages") or []):
        if isinstance(m["content"], list):
            out += [f"messages.{i}.{j}" for j, b in enumerate(m["content"]) if "cache_control" in b]
    return out


def test_breakpoints_go_on_the_last_message_the_system_prompt_and_the_last_tool() -> None:
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
               {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}]
    params = {"system": "Be terse.", "tools": [*TOOLS.params, {"name": "b", "input_schema": {"type": "object"}}],
              "messages": history, "max_tokens": 10}
    before = copy.deepcopy(params)
    sent = with_breakpoints(params)
    assert params == before  # nothing the caller passed was mutated
    assert marks(sent) == ["tools.1", "system.0", "messages.2.1"]
    assert sent["system"] == [{"type": "text", "text": "Be terse.", "cache_control": E}]
    assert sent["messages"][:2] == params["messages"][:2] and sent["messages"][0] is params["messages"][0]
    string_last = with_breakpoints({"messages": [{"role": "user", "content": "hello"}]})
    assert string_last["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hello",
                                                                     "cache_control": E}]}]


def test_breakpoints_skip_blocks_the_api_refuses_and_respect_automatic_caching() -> None:
    thinking = {"role": "assistant", "content": [{"type": "text", "text": "t"},
                                                 {"type": "thinking", "thinking": "hm", "signature": "s"}]}
    sent = with_breakpoints({"messages": [{"role": "user", "content": "q"}, thinking]})
    assert marks(sent) == ["messages.1.0"]
    assert marks(with_breakpoints({"messages": [{"role": "user", "content": ""}], "system": ""})) == []
    automatic = {"messages": [{"role": "user", "content": "q"}], "system": "s", "cache_control": E}
    assert with_breakpoints(automatic) == automatic


@pytest.mark.parametrize("already", range(MAX_BREAKPOINTS + 1))
def test_never_more_than_four_breakpoints_the_last_message_first(already: int) -> None:
    user = [{"role": "user", "content": [{"type": "text", "text": f"u{i}", "cache_control": E}]} for i in range(3)]
    history: list[dict[str, Any]] = []
    for i in range(4):
        u = user[i] if i < already and i < 3 else {"role": "user", "content": f"u{i}"}
        history += [u, {"role": "assistant", "content": [{"type": "text", "text": f"a{i}"}]}]
    history.append({"role": "user", "content": "last"})
    system = [{"type": "text", "text": "s", "cache_control": E}] if already == 4 else "s"
    sent = with_breakpoints({"messages": history, "system": system, "tools": TOOLS.params})
    assert count_breakpoints(sent) == min(MAX_BREAKPOINTS, already + 3)
    assert ("messages.8.0" in marks(sent)) == (already < MAX_BREAKPOINTS)


def test_a_runs_count_of_the_callers_breakpoints_follows_a_growing_history_and_rescans_a_rewritten_one() -> None:
    counter = MarkCounter()
    doc = {"role": "user", "content": [{"type": "text", "text": "doc", "cache_control": E}]}
    history: list[dict[str, Any]] = [doc, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]
    assert counter.count(history) == 1
    history.append({"role": "user", "content": [{"type": "text", "text": "b", "cache_control": E}]})
    assert counter.count(history) == 2 == count_breakpoints({"messages": history})
    assert counter.count([{"role": "user", "content": "doc"}, *history[1:]]) == 1  # a new first message: rescanned
    assert counter.count(history[:1]) == 1  # shorter than before: rescanned


def test_every_model_call_carries_breakpoints_and_the_result_keeps_none() -> None:
    model = ScriptedModel([message("adding", tool_use_block("add", {"a": 2, "b": 3})), message("5")])
    res = run_agent(model, "What is 2+3?", system="Be terse.", tools=TOOLS)
    assert [marks(r) for r in model.requests] == [["tools.0", "system.0", "messages.0.0"],
                                                  ["tools.0", "system.0", "messages.2.0"]]
    assert "cache_control" not in json.dumps(res.messages, default=str)
    chain = Chain([LLM("a", "A: {input}"), LLM("b", "B: {input}")])
    model = ScriptedModel([message("one"), message("two")])
    res = run_workflow(chain, model, "go")
    assert [marks(r) for r in model.requests] == [["messages.0.0"]] * 2
    assert "cache_control" not in json.dumps([res.messages, res.extra], default=str)


def test_prompt_cache_off_sends_no_breakpoint() -> None:
    model = ScriptedModel([message("adding", tool_use_block("add", {"a": 2, "b": 3})), message("5")])
    run_agent(model, "What is 2+3?", system="Be terse.", tools=TOOLS, options=RequestOptions(prompt_cache=False))
    assert "cache_control" not in json.dumps(model.requests, default=str)
    with pytest.raises(ValueError, match="prompt_cache"):
        RequestOptions(prompt_cache="off")  # type: ignore[arg-type]


def test_uncached_cost_bills_writes_and_reads_as_input() -> None:
    p = price_for("claude-sonnet-4-5")
    assert p is not None and p.cache_write == pytest.approx(1.25 * p.input) and p.cache_read == pytest.approx(
        0.1 * p.input)
    u = Usage(input_tokens=100, output_tokens=10, cache_write_tokens=2000, cache_read_tokens=5000)
    assert uncached_cost_usd("claude-sonnet-4-5", u) == pytest.approx((7100 * p.input + 10 * p.output) / 1e6)
    assert uncached_cost_usd("no-such-model", u) is None


def _bench(out: Path, **kwargs: Any) -> pd.DataFrame:
    config = BenchConfig(tasks=("multihop",), patterns=("agent", "chain"), instances=8, trials=1, out=out,
                         workers=1, **kwargs)
    asyncio.run(run_bench(config))
    return pd.read_csv(out / "runs.csv")


def test_multihop_agent_reads_from_the_cache_by_default_and_not_with_the_cache_off(tmp_path: Path) -> None:
    on = _bench(tmp_path / "on")
    off = _bench(tmp_path / "off", options=RequestOptions(prompt_cache=False))
    agent_on, agent_off = on[on.pattern == "agent"], off[off.pattern == "agent"]
    assert agent_on["cache_read_tokens"].sum() > 0 and (agent_off["cache_read_tokens"] == 0).all()
    assert (off["cache_write_tokens"] == 0).all()
    both = on.merge(off, on="run_id", suffixes=("_on", "_off"))
    assert len(both) == len(on) == len(off)
    # the same decisions, the same prompts; only the bill differs
    assert (both["success_on"] == both["success_off"]).all() and (both["steps_on"] == both["steps_off"]).all()
    prompt_on = both["input_tokens_on"] + both["cache_read_tokens_on"] + both["cache_write_tokens_on"]
    assert (prompt_on == both["input_tokens_off"]).all()
    assert both["uncached_cost_usd_on"].to_numpy() == pytest.approx(both["cost_usd_off"].to_numpy())
    assert agent_on["cost_usd"].mean() < agent_off["cost_usd"].mean()
    manifest = json.loads((tmp_path / "on" / "manifest.json").read_text())
    assert manifest["prompt_cache"] == "on" and "prompt_cache" not in manifest["limits"]  # a setting, not a bound
    assert json.loads((tmp_path / "off" / "manifest.json").read_text())["prompt_cache"] == "off"
    write_report(tmp_path / "on")
    report = (tmp_path / "on" / "REPORT.md").read_text()
    row = next(line for line in report.splitlines() if line.startswith("| multihop | agent |"))
    cached, uncached = (float(cell.strip().lstrip("$")) for cell in row.split("|")[3:5])
    assert cached == pytest.approx(agent_on["cost_usd"].mean(), abs=5e-5)
    assert uncached == pytest.approx(agent_off["cost_usd"].mean(), abs=5e-5)


def test_the_cli_switch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["run", "agent", "multihop", "--prompt-cache", "off"]) == 0
    out = capsys.readouterr().out
    assert "0 cache read, 0 cache write" in out and "prompt cache off" in out
    assert main(["run", "agent", "multihop", "--instance", "3", "--prompt-cache", "on"]) == 0
    assert "prompt cache on" in capsys.readouterr().out
    assert main(["bench", "--prompt-cache", "maybe", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected on or off, got 'maybe'" in err and not (tmp_path / "x").exists()


def test_a_resume_with_the_other_cache_setting_is_refused_before_anything_runs(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main(["bench", "--tasks", "multihop", "--patterns", "agent", "--instances", "2", "--trials", "1",
                 "--workers", "1", "--quiet", "--out", str(out), "--prompt-cache", "off"]) == 0
    before = (out / "runs.csv").read_text()
    capsys.readouterr()
    assert main(["bench", "--tasks", "multihop", "--patterns", "agent", "--instances", "3", "--trials", "1",
                 "--workers", "1", "--quiet", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was run with --prompt-cache off" in err
    assert (out / "runs.csv").read_text() == before
    assert main(["bench", "--tasks", "multihop", "--patterns", "agent", "--instances", "3", "--trials", "1",
                 "--workers", "1", "--quiet", "--out", str(out), "--resume", "--prompt-cache", "off"]) == 0
    assert len(pd.read_csv(out / "runs.csv")) == 3

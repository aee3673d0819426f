"""Both compaction stages through the REAL `anthropic` SDK, against the sim server with a small context window.

The scripted policy answers the agent's turns; the compaction requests are answered by SimModel's
summariser (`patterns/sim/summary.py`), as `wva sim-server` answers them.
"""

from __future__ import annotations

from typing import Any

import pytest

from patterns import Kind, Limits, Terminal
from patterns.compaction_summary import CLIPPED, SUMMARY_HEADER
from patterns.conversation import validate_conversation
from patterns.sim import Reply

from .sdk_harness import FAST, TOOLS, Tapped, agent, assert_accounted, kinds, say, sdk, use

pytestmark = pytest.mark.timeout(60)
PAGES = [Reply([use("page", {"n": n})]) for n in range(1, 7)]


def stages(res: Any) -> list[str]:
    return [e.name for e in kinds(res, Kind.COMPACTION)]


def summary_calls(res: Any) -> list[Any]:
    return [e for e in kinds(res, Kind.MODEL_CALL) if e.name == "compaction"]


def check(res: Any, server: Tapped, window: int) -> None:
    assert all(validate_conversation(r.messages) == [] for r in server.script.requests)
    assert all(b["usage"]["input_tokens"] <= window for b in server.replies)
    assert server.script.done
    assert_accounted(res, server)


def test_six_pages_in_a_small_window_collapse_then_summarise_and_finish() -> None:
    with Tapped(*PAGES, "done", context_window=800) as server:
        res = sdk(server, agent("Read six pages.", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "done"
    assert "collapse" in stages(res) and "summary" in stages(res)
    assert len(summary_calls(res)) == stages(res).count("summary") and res.steps == 6 + 1 + len(summary_calls(res))
    after = server.script.requests[-1]  # the run went on from the task and the summary
    assert after.messages[0]["content"][0] == {"type": "text", "text": "Read six pages."}
    summary = after.messages[0]["content"][-1]["text"]
    assert summary.startswith(SUMMARY_HEADER + "\nTask: Read six pages.\n")
    check(res, server, 800)


def test_a_task_longer_than_the_window_is_summarised_at_once_with_its_head_and_tail() -> None:
    task = "Start here. " + "Background. " * 300 + "End here."
    with Tapped("done", context_window=600) as server:
        res = sdk(server, agent(task, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "done"
    assert stages(res) == ["summary"] and len(summary_calls(res)) == 1
    [seen] = server.script.requests
    first = seen.first_user_text()
    assert first.startswith("Start here.") and "End here." in first and CLIPPED.split("{")[0] in first
    check(res, server, 600)


def test_a_reply_that_fills_the_window_keeps_its_text_then_compacts() -> None:
    long = Reply([say("word " * 3000)])
    with Tapped(*PAGES[:2], long, " and the rest.", context_window=1500) as server:
        res = sdk(server, agent("Read two pages, then write.", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output.startswith("word word")
    assert res.output.endswith(" and the rest.")
    stops = [e.stop_reason for e in kinds(res, Kind.MODEL_CALL)]
    assert "model_context_window_exceeded" in stops
    assert "summary" in stages(res)
    assert all("model_context_window_exceeded" in e.detail for e in kinds(res, Kind.COMPACTION)[:1])
    check(res, server, 1500)


def test_compact_at_tokens_compacts_before_any_400() -> None:
    with Tapped(*PAGES, "done") as server:
        res = sdk(server, agent("Read six pages.", tools=TOOLS, retry=FAST, limits=Limits(compact_at_tokens=700)))
    assert res.terminal is Terminal.COMPLETED and res.output == "done"
    assert kinds(res, Kind.ERROR) == [] and stages(res)
    assert all("compact_at_tokens" in e.detail for e in kinds(res, Kind.COMPACTION))
    check(res, server, 200_000)


def test_still_too_long_after_stage_2_is_a_context_overflow() -> None:
    with Tapped("never", context_window=10) as server:
        res = sdk(server, agent("This first prompt alone is longer than ten tokens.", retry=FAST))
    assert res.terminal is Terminal.ERROR and [e.kind for e in res.errors] == ["ContextOverflow"]
    assert server.posts == 3 and server.script.requests == [] and res.steps == 0

"""The mechanical simulated policy of a task file: it walks each generic design from the request alone."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.dataset import DatasetTask
from benchmarks.tasks.dataset.policy import shaped_argument
from patterns.sim import Decider, Request, SimModel
from patterns.workflows import arun_workflow

TOML = Path(__file__).resolve().parents[2] / "examples" / "tickets" / "tickets.toml"


class Recorder:
    """The task's policy, keeping every request it answered (as SimModel hands it over)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: list[Request] = []

    def accepts(self, request: Request) -> bool:
        return self.inner.accepts(request)

    def respond(self, request: Request, decide: Decider) -> Any:
        self.seen.append(request)
        return self.inner.respond(request, decide)


def first_request(pattern: str, row: int = 0) -> tuple[DatasetTask, Request]:
    """The first model request `pattern`'s generic design sends for a row, as the policy sees it."""
    task = DatasetTask.from_file(TOML)
    instance = task.instances(row + 1, 0)[row]
    recorder = Recorder(task.policy())
    env = task.environment(instance, Path("."))
    asyncio.run(arun_workflow(task.design(pattern, env), SimModel(recorder), instance.prompt))
    return task, recorder.seen[0]


def answer(task: DatasetTask, request: Request, error_rate: float = 0.0) -> list[dict]:
    return task.policy().respond(request, Decider(random.Random(0), error_rate)).content


def test_the_planner_gets_a_json_list_and_the_classifier_a_route() -> None:
    task, plan = first_request("orchestrate")
    assert task.policy().accepts(plan)
    assert json.loads(answer(task, plan)[0]["text"]) == [task.instances(1, 0)[0].prompt]
    task, classify = first_request("route", row=1)  # T-002 is a shipping question
    assert answer(task, classify)[0]["text"] == "shipping"
    assert answer(task, classify, error_rate=1.0)[0]["text"] in ("billing", "account")


def test_the_first_tool_call_takes_the_identifier_shaped_like_the_example() -> None:
    task, request = first_request("agent", row=2)  # T-003: a locked account
    use = answer(task, request)[-1]
    assert use["type"] == "tool_use" and use["name"] == "get_account"
    assert use["input"] == {"email": "grace.mark53@example.com"}


@pytest.mark.parametrize(("name", "description", "text", "value"), [
    ("customer_id", "the customer ID, like C-1234", "Customer C-9552 here", "C-9552"),
    ("order_id", "the order number, like ORD-12345", "order ORD-80803 and C-1", "ORD-80803"),
    ("email", "the address", "mail me at a.b@example.com.", "a.b@example.com"),
    ("code", "a code, like X-1", "nothing here", None),
    ("q", "a free text query", "anything", None),
])
def test_shaped_arguments(name: str, description: str, text: str, value: str | None) -> None:
    assert shaped_argument(name, description, text) == value

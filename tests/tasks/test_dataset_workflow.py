"""A task file draws its own workflow (`[workflow]`): its graph, its checks, and on the `invoices` example
("look up, then compute") a model that does each step right succeeds on every instance, as the agent does."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.tasks.dataset import DatasetTask
from patterns.sim import Decider, Reply, Request, SimModel

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "invoices"
TOML = EXAMPLE / "invoices.toml"
CUSTOMER = re.compile(r"\bC-\d{4}\b")
USD = re.compile(r"([\d.]+) USD")
EUR = re.compile(r"= ([\d.]+) EUR")


def _say(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _use(name: str, args: dict[str, object]) -> Reply:
    return Reply([{"type": "tool_use", "name": name, "input": args}])


class RightEveryStep:
    """A simulated model that does the invoices task right from each request alone (never the targets): the
    workflow's steps by their instructions, the agent by the tool results it has so far."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        said = request.instructions()
        if "Reply with the customer ID" in said:
            return _say(CUSTOMER.findall(said)[-1])
        if "Reply with the invoice's amount" in said:
            return _say(USD.findall(said)[-1])
        if "Answer the question from the conversion" in said:
            return _say("Answer: " + EUR.findall(said)[-1])
        results = [r["content"] for r in request.tool_results()]
        if not results:
            return _use("get_invoice", {"customer_id": CUSTOMER.search(said).group()})  # type: ignore[union-attr]
        if "EUR" not in results[-1]:
            return _use("usd_to_eur", {"amount": float(USD.findall(results[-1])[-1])})
        return _say(f"The invoice comes to {results[-1]}.\n\nAnswer: {results[-1].split('= ')[1]}")


class Keeps:
    """A simulated model running `policy` in every trial: its forks hide `policy`, so the bench, which gives a
    plain SimModel the task's own policy, keeps this one (as examples/tickets/record_cassette.py does)."""

    def __init__(self, policy: object) -> None:
        self.sim = SimModel(policy)
        self.clock, self.price_id = self.sim.clock, self.sim.price_id

    def fork(self, stream: str) -> _Fork:
        return _Fork(self.sim.fork(stream))

    async def create(self, **params: object) -> object:
        return await self.sim.create(**params)


class _Fork:
    def __init__(self, sim: SimModel) -> None:
        self.sim = sim
        self.clock, self.price_id = sim.clock, sim.price_id

    async def create(self, **params: object) -> object:
        return await self.sim.create(**params)


def _copy(tmp_path: Path, toml: str) -> Path:
    folder = tmp_path / "inv"
    shutil.copytree(EXAMPLE, folder)
    (folder / "invoices.toml").write_text(toml)
    return folder / "invoices.toml"


def test_the_drawn_workflow_is_the_tasks_comparator_and_draws_as_written() -> None:
    task = DatasetTask.from_file(TOML)
    assert task.natural_workflow == "chain"
    env = task.environment(task.instances(1, 0)[0], Path("."))
    graph = task.design("chain", env).graph
    labels = [graph.nodes[n]["label"] for n in graph if n not in ("input", "output")]
    kinds = [graph.nodes[n]["kind"] for n in graph if n not in ("input", "output")]
    assert labels == ["customer", "get_invoice", "amount", "usd_to_eur", "answer"]
    assert kinds == ["llm", "tool", "llm", "tool", "llm"]
    assert DatasetTask.from_file(ROOT / "examples" / "tickets" / "tickets.toml").natural_workflow is None


def test_a_model_right_at_every_step_solves_every_instance_with_the_drawn_graph_as_the_agent_does(
        tmp_path: Path) -> None:
    config = BenchConfig(tasks=(str(TOML),), patterns=("chain", "agent"), instances=20, trials=1,
                         model="sim-right", out=tmp_path, workers=1)
    runs = asyncio.run(run_bench(config, model=Keeps(RightEveryStep()))).runs
    assert len(runs) == 40
    by = runs.groupby("pattern")["success"].mean()
    assert by["chain"] == 1.0 and by["agent"] == 1.0
    chain = runs[runs["pattern"] == "chain"]
    assert (chain["steps"] == 3).all() and (chain["tool_calls"] == 2).all()  # three model steps, two tools in code


def test_the_generic_chain_calls_the_tools_in_a_fixed_order(tmp_path: Path) -> None:
    """Without [workflow], the generic chain gives each tool a round of its own, in the module's order."""
    path = _copy(tmp_path, TOML.read_text().split("[[workflow.steps]]")[0])
    task = DatasetTask.from_file(path)
    assert task.natural_workflow is None
    graph = task.design("chain", task.environment(task.instances(1, 0)[0], tmp_path)).graph
    tools = [graph.nodes[n]["label"] for n in graph if graph.nodes[n]["kind"] == "tool"]
    assert tools == ["get_invoice", "usd_to_eur"]
    config = BenchConfig(tasks=(str(path),), patterns=("chain",), instances=5, trials=1, model="sim-right",
                         out=tmp_path / "out", workers=1)
    runs = asyncio.run(run_bench(config, model=Keeps(_GenericRight()))).runs
    assert runs["success"].all() and (runs["tool_calls"] == 2).all()


class _GenericRight(RightEveryStep):
    """Right at the generic chain's steps: the plan, each tool step, the composed answer."""

    def respond(self, request: Request, decide: Decider) -> Reply:
        said = request.instructions()
        if "Plan only" in said:
            return _say("1. Look the invoice up. 2. Convert it. 3. Answer.")
        if "Compose the final answer" in said:
            return _say("Answer: " + EUR.findall(said)[-1])
        if "Use the tool offered now" in said:
            results = request.tool_results()
            if results:
                return _say(results[-1]["content"])
            found = USD.findall(said)
            if request.tools[0]["name"] == "usd_to_eur":
                return _use("usd_to_eur", {"amount": float(found[-1])})
            return _use("get_invoice", {"customer_id": CUSTOMER.search(said).group()})  # type: ignore[union-attr]
        return super().respond(request, decide)


@pytest.mark.parametrize(("steps", "message"), [
    ('name = "a"\nprompt = "x"\ntool = "get_invoice"', "exactly one of 'prompt'"),
    ('name = "a"\nprompt = "use {nope}"', "{nope} is neither task, input nor an earlier step"),
    ('name = "a"\ntool = "send_money"\nargs = {}', "no tool 'send_money'"),
    ('name = "a"\ntool = "get_invoice"\nargs = { id = "{task}" }', "the arguments of get_invoice are customer_id"),
    ('name = "task"\nprompt = "x"', "'name' must be an identifier other than task and input"),
    ('name = "a"\nprompt = "x"\ncolour = "red"', "unknown key 'colour'"),
])
def test_a_bad_workflow_table_is_one_line_naming_the_step(tmp_path: Path, steps: str, message: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    head = TOML.read_text().split("[[workflow.steps]]")[0]
    path = _copy(tmp_path, f"{head}[[workflow.steps]]\n{steps}\n")
    with pytest.raises(ValueError, match=re.escape(message)):
        DatasetTask.from_file(path)
    assert main(["bench", "--tasks", str(path), "--instances", "1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "workflow step 1" in err[0] and not (tmp_path / "o").exists()


def test_a_repeated_name_is_refused(tmp_path: Path) -> None:
    head = TOML.read_text().split("[[workflow.steps]]")[0]
    path = _copy(tmp_path, f'{head}[[workflow.steps]]\nname = "a"\nprompt = "x"\n'
                           f'[[workflow.steps]]\nname = "a"\nprompt = "y"\n')
    with pytest.raises(ValueError, match="workflow step 2: the name 'a' is used twice"):
        DatasetTask.from_file(path)


def test_the_bench_declares_the_drawn_workflow_as_the_comparator(tmp_path: Path) -> None:
    assert main(["bench", "--tasks", str(TOML), "--instances", "3", "--trials", "1", "--out", str(tmp_path),
                 "--quiet"]) == 0
    criterion = pd.read_csv(tmp_path / "criterion.csv")
    assert criterion.loc[0, "comparator"] == "chain" and criterion.loc[0, "comparator_mode"] == "declared by the family"

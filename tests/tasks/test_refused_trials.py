"""Issue 41 §2, refused is not lost: trials refused or failed in the task's or the design's own code never count in
success, the verdict, the familywise reading, stability, `wva plan` or the Pareto front, and a task with such
trials gets no verdict, whatever model ran it — an oracle-cassette replay included."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.read import load_inputs, refused_trials
from benchmarks.criterion.withheld import WITHHELD, withhold
from benchmarks.harness.code_errors import describe, whole
from examples.oracle import record

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = ["--trials", "1", "--quiet", "--workers", "1", "--no-drawn"]
BROKEN_CHAIN = '''
def design(pattern, env):
    if pattern == "chain":
        raise RuntimeError("a bug in the design module's chain")
    return None
'''


def test_a_long_reason_is_cut_at_a_word_never_mid_word() -> None:
    reason = "workflow: agent-like: " + " ".join(f"word{i}" for i in range(80))
    text = describe("CodeError:AgentLike", ValueError(reason))
    assert len(text) <= 290 and text.endswith("…") and "\n" not in text
    assert text[:-1].split()[-1] in reason.split()  # the last word is whole
    assert whole("short and whole") == "short and whole"


def test_withholding_clears_every_reading_of_a_verdict_without_a_future_warning() -> None:
    df = pd.DataFrame({"task": ["t", "u"], "verdict": ["agent", "workflow"], "comparator": ["chain", "chain"],
                       "reason": [float("nan")] * 2, "note": [float("nan")] * 2, "agrees": [True, True],
                       "claim_p": [1e-4, 0.01], "verdict_familywise": ["agent", "workflow"],
                       "familywise_p": [2e-4, 0.01]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pandas FutureWarning was printed on every task-file criterion
        out = withhold(df, {"t": "no verdict: refused"})
    assert out.loc[0, "verdict"] == WITHHELD and out.loc[0, "reason"] == "no verdict: refused"
    assert out.loc[0, ["agrees", "claim_p", "verdict_familywise", "familywise_p"]].isna().all()
    assert out.loc[1, "verdict"] == "workflow" and out.loc[1, "claim_p"] == 0.01


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An oracle cassette of a task file whose chain fails in the design module's own code on every trial, replayed:
    the agent and `single` run, every chain trial is a CodeError."""
    tmp = tmp_path_factory.mktemp("refused")
    folder = tmp / "invoices"
    shutil.copytree(EXAMPLES / "invoices", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "design.py").write_text(BROKEN_CHAIN, encoding="utf-8")
    toml = folder / "invoices.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('scorer = "number:0.01"', 'scorer = "number:0.01"\ndesign = "design.py"', 1))
    cassette = tmp / "cassette.jsonl"
    record(toml, cassette, instances=4)
    out = tmp / "r"
    main(["bench", "--tasks", str(toml), "--patterns", "chain,single,agent", "--instances", "4",
          "--model", f"replay:{cassette}", "--out", str(out), *SMALL])
    return out, json.dumps(pd.read_csv(out / "criterion.csv").iloc[0].to_dict(), default=str)


def test_an_oracle_replay_with_refused_chain_trials_names_no_winner(replayed: tuple[Path, str]) -> None:
    out, _ = replayed
    runs = pd.read_csv(out / "runs.csv")
    assert (runs.loc[runs["pattern"] == "chain", "error_kinds"] == "CodeError:RuntimeError").all()
    row = pd.read_csv(out / "criterion.csv").iloc[0]
    assert row["verdict"] == WITHHELD and "chain 4 of 4 (CodeError:RuntimeError)" in row["reason"]
    assert pd.isna(row["verdict_familywise"]) and pd.isna(row["claim_p"])
    assert "chain" not in str(row["pareto"]).split(";")  # a refused design is on no front
    assert refused_trials(out) == {"invoices": row["reason"]}


def test_refused_trials_are_left_out_where_runs_are_read(replayed: tuple[Path, str],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = replayed
    runs, _, _ = load_inputs(out)
    assert set(runs["pattern"]) == {"single", "agent"} and len(runs) == 8
    assert main(["criterion", str(out)]) == 0
    text = capsys.readouterr().out
    assert "invoices: WITHHELD" in text and "AGENT" not in text and "WORKFLOW" not in text
    assert main(["plan", str(out), "--max-instances", "50"]) == 0
    plan = pd.read_csv(out / "plan.csv")
    assert "chain" not in set(plan["comparator"].astype(str))  # no size is read off the refused chain

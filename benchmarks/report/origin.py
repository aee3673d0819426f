"""Who made a results folder's replies, in the words every part of the report uses (its text, costs and charts).

A replayed cassette is not one thing: a real model's run re-analysed offline, the simulator's own recording, or an
oracle's (`examples/oracle.py`: a script answering every request right from the dataset's targets, on the
simulator's tokens and latency). The manifest's `recorded_by` says which (written when the sweep started, from the
cassette: `patterns.replay.recorded_by`); a folder from before it is read from the cassette, if it is still there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from patterns.replay import recorded_by
from patterns.specs import ModelSpec, provider_of

MECHANICS = "these figures measure the mechanics, not the quality of any real model"
SIM_NOTE = f"Simulated model (sim): {MECHANICS}."
ORACLE_NOTE = ("Replay of an oracle's recording (a script answering right, on the simulator's tokens and latency): "
               f"{MECHANICS}.")
SIM_RECORDING_NOTE = f"Replay of the simulated model's recording: {MECHANICS}."


@dataclass(frozen=True)
class Origin:
    kind: str  # sim, oracle, sim-recording, model-recording, unknown-recording, model
    modelled: bool  # the costs and latencies are the simulator's model of them, not a provider's bill
    chart_note: str | None  # under every chart; None for a real model's figures
    sentence: str  # REPORT.md's words, after "Every number below was produced by the model …"


def origin_of(runs: pd.DataFrame, manifest: dict[str, Any]) -> Origin:
    model = str(runs["model"].iloc[0]) if "model" in runs and len(runs) else str(manifest.get("model") or "")
    provider = provider_of(model)
    if provider == "sim":
        return Origin("sim", True, SIM_NOTE, (
            " `sim` is the embedded simulated model, a measuring instrument and not a language model: these figures "
            "measure the **mechanics** — how cost, latency and success respond to a task's shape and to a set "
            "per-decision error rate — **not the quality of any real model**. Re-run with "
            "`--model anthropic:<model-id>` to measure one."))
    if provider != "replay":
        return Origin("model", False, None, "")
    path = ModelSpec.parse(model).target
    made = manifest.get("recorded_by") or recorded_by(path)
    if made and "oracle" in str(made).split(","):
        return Origin("oracle", True, ORACLE_NOTE, (
            " The replies were replayed from a cassette an **oracle** recorded (`examples/oracle.py`: a script that "
            "answers every request right from the dataset's targets, inside the simulator, so tokens, latency and "
            "costs are the simulator's). These figures measure each design's **mechanics** with a model that is "
            "never wrong — success lost only to a design's own steps — **not the quality of any real model**: "
            "record a real one (`RecordingModel` around `anthropic:<model-id>`) for that."))
    if made == "sim":
        return Origin("sim-recording", True, SIM_RECORDING_NOTE, (
            " The replies were replayed from a cassette the simulated model recorded: like any `sim` run, these "
            "figures measure the **mechanics**, **not the quality of any real model**."))
    if made:
        return Origin("model-recording", False, None, (
            f" The replies were replayed from a cassette of a real model's run (`{str(made).removeprefix('model:')}`), "
            "re-analysed offline."))
    return Origin("unknown-recording", False, None, (
        f" The replies were replayed from a recorded cassette whose recorder is not known (`{path}` is not readable "
        "here and the manifest does not say): they may be a real model's or a script's."))

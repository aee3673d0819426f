"""REPORT.md's words on drawability: its sentence in a task's paragraph, where its walks came from, and the drawn
graph's caption."""

from __future__ import annotations

from typing import Any

from benchmarks.criterion import render
from benchmarks.criterion.drawability import D
from benchmarks.names import REPEATS


def drawability_sentence(r: Any, c: render.Cells) -> str:
    if c.drawability == render.NA:
        reason = getattr(r, "drawability_reason", None)
        if isinstance(reason, str) and reason:  # the estimator's own word on why
            return f"Drawability was {reason}."
        many = getattr(r, "drawability_instances", 0) >= D + 2
        return "Drawability could not be measured: " + ("the folder recorded no walk of the agent (no events)."
                                                        if many else f"fewer than {D + 2} instances with walks.")
    return (f"A graph drawn from the agent's walks on {int(r.drawability_d)} instances — {c.drawing} — covered "
            f"**{c.drawability}** of its walks on the instances it had not seen (drawability, 95% CI over "
            f"{int(r.drawability_instances)} instances).")


def walks_note(manifest: dict[str, Any], read: bool) -> str:
    """Where drawability read the agent's walks, when it read the repeats phase (`read`: the criterion read it):
    there, and not in the folder itself, and the drawn graph, its picture and the drawn comparator with it."""
    block = manifest.get(REPEATS)
    if not read or not isinstance(block, dict):
        return ""
    return (f" Drawability, and the drawn graph with its picture, read the repeats phase's walks "
            f"(`{block.get('folder', REPEATS)}/`: the agent alone at {block.get('trials_per_instance', '?')} trials "
            f"on the first {block.get('instances', '?')} instances), where an instance's trials show its slips.")


def drawn_caption(task: str, d: int, json_name: str) -> tuple[str, str]:
    return (f"The graph drawn from the agent's walks: {task}", f"Learned from the agent's walks on a seeded drawing "
            f"set of {d} instances (the walks drawability reads), drawn as the workflow it compiles into (each box "
            "a step offered only its tools, with its bounds; an arc back is a bounded loop; the answer step is the "
            f"agent's). As data: [`{json_name}`]({json_name}).")

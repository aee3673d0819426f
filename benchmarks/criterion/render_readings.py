"""The reviewer's readings of a criterion row as text (`benchmarks.criterion.readings`): the claim's p-value,
the seeds (pooled verdict and agreement), the familywise reading, and the other comparator's reading.
`render.cells` takes its table cells from here, and the report its sentences, so they read the same everywhere."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

NA = "n/a"


def _get(row: Any, name: str) -> Any:
    value = row.get(name, None) if isinstance(row, dict) else getattr(row, name, None)
    return None if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else value


def claim_text(row: Any) -> str:
    """A winner's claim p-value, e.g. "0.0018"; "no claim" for `either` and `inconclusive` ("n/a": no verdict)."""
    p, verdict = _get(row, "claim_p"), str(_get(row, "verdict") or "")
    if p is None:
        return NA
    return f"{p:.2g}" if verdict in ("workflow", "agent") else "no claim"


def seeds_text(row: Any) -> str:
    """e.g. "pooled workflow; 3 of 4 seeds agree" ("-" without replicates)."""
    pooled, agreement, seeds = _get(row, "pooled_verdict"), _get(row, "seed_agreement"), _get(row, "seeds")
    parts = [f"pooled {pooled}"] if pooled else []
    if agreement is not None and seeds:
        runs = len(str(seeds).split(","))
        parts.append(f"{round(agreement * runs)} of {runs} seeds agree")
    return "; ".join(parts) or "-"


def familywise_text(row: Any) -> str:
    """The familywise verdict, with the Holm-adjusted p of a winner (e.g. "workflow (p 0.04)")."""
    verdict, p = _get(row, "verdict_familywise"), _get(row, "familywise_p")
    if not verdict:
        return NA
    won = str(_get(row, "verdict")) in ("workflow", "agent")
    return f"{verdict} (p {p:.2g})" if won and p is not None else str(verdict)


def other_text(row: Any) -> str:
    """The other comparator's reading, e.g. "inconclusive vs evaluate_optimize (selected)" ("-": none)."""
    verdict, comparator, mode = _get(row, "other_verdict"), _get(row, "other_comparator"), _get(row, "other_mode")
    if not verdict:
        return "-"
    kind = "selected" if str(mode).startswith("selected") else "declared"
    return f"{verdict} vs {comparator} ({kind})"


def readings_sentence(row: Any) -> str:
    """The report's sentences under a task's verdict ("" when the row has no readings)."""
    if _get(row, "claim_p") is None:
        return ""
    claim = claim_text(row)
    text = (f"**Claim p** {claim}: the smallest error budget at which this winner still comes out (what the "
            "interval says, in one number; not the chance that the verdict is right)." if claim != "no claim" else
            "**Claim p**: none (`either` and `inconclusive` name no winner).")
    if _get(row, "pooled_verdict"):
        text += (f" **Seeds {_get(row, 'seeds')}, pooled** (every seed's instances, each a cluster of its own): "
                 f"{_get(row, 'pooled_verdict')}, agent − workflow {_get(row, 'pooled_diff'):+.2f} "
                 f"[{_get(row, 'pooled_ci_low'):+.2f}, {_get(row, 'pooled_ci_high'):+.2f}] over "
                 f"{_get(row, 'pooled_instances'):.0f} instances; {seeds_text(row).split('; ')[-1]} on their own "
                 "(a share, not a test: a seed short of power says inconclusive without contradicting anything).")
    text += f" **Familywise** (Holm over the table's tasks): {familywise_text(row)}."
    if _get(row, "other_verdict"):
        text += (f" **The other comparator**: against {_get(row, 'other_mode')} `{_get(row, 'other_comparator')}` "
                 f"the rule says {_get(row, 'other_verdict')}; the verdict above reads the comparator fixed "
                 "before the data, whichever reading looks better.")
    return text


def readings_method() -> str:
    """The report's method bullet for the readings."""
    return ("- **Which reading is shown.** The verdict column reads the comparator fixed before any data (the "
            "family's declared workflow, or the one named with `--comparator`), each task at its own 5% error "
            "budget; it never changes after the other reading is seen. Beside it: the *claim p*, the smallest "
            "error budget at which a winner still comes out (`either` and `inconclusive` make no claim); the "
            "*familywise* verdict, Holm's step-down over the table's tasks, so that the chance of any false "
            "winner in the whole table is at most 5% (a winner Holm does not confirm reads inconclusive there); "
            "the *other comparator's* reading (the selected best workflow against a declared one, and the "
            "reverse); and, when the same sweep ran at other seeds, the *pooled* verdict on every seed's "
            "instances at once, with the share of seeds whose own verdict agrees. No rule asks every seed to "
            "agree: at 80% power per seed, three seeds all agree only half the time, so unanimity measures power, "
            "not correctness.")


def familywise_line(df: pd.DataFrame) -> str:
    """Under the verdicts table: which reading it shows, and how many winners the familywise one keeps."""
    from benchmarks.criterion.familywise import reading_text

    fw = reading_text(df)
    return ("The verdict column is each task's own reading against its pre-declared comparator"
            + (f". {fw}" if fw else "."))


def familywise_sweep(sweep: pd.DataFrame) -> str:
    """A sweep's familywise sentence (Holm over all its settings), "" for a sweep.csv written without it."""
    if "verdict_familywise" not in sweep or "claim_p" not in sweep:
        return ""
    from benchmarks.criterion.familywise import familywise_columns, reading_text

    fw = familywise_columns(sweep)  # again over every setting: an old sweep.csv may hold each folder's own
    return reading_text(fw.assign(task=[f"{r.param}={r.value}" for r in fw.itertuples()])).replace(
        "comparisons", "settings")

"""The reviewer's readings of a criterion row as text (`benchmarks.criterion.readings`): how stable the verdict
is, the familywise reading, and the other comparator's reading. `render.cells` takes its table cells from here,
and the report its sentences, so they read the same everywhere."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

NA = "n/a"


def _get(row: Any, name: str) -> Any:
    value = row.get(name, None) if isinstance(row, dict) else getattr(row, name, None)
    return None if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else value


def stability_text(row: Any) -> str:
    """e.g. "99%", "59% unstable", "75%, 3 of 4 seeds, unstable" ("n/a" without a verdict)."""
    share = _get(row, "stability")
    if share is None:
        return NA
    text = f"{share:.0%}"
    agreement, seeds = _get(row, "seed_agreement"), _get(row, "seeds")
    if agreement is not None and seeds:
        runs = len(str(seeds).split(","))
        text += f", {round(agreement * runs)} of {runs} seeds"
    stable = _get(row, "stable")
    return text + ("" if stable is None or bool(stable) else " unstable")


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
    if _get(row, "stability") is None:
        return ""
    parts = [f"**Stability**: the same verdict on {_get(row, 'stability'):.0%} of resamples of the instances"]
    agreement, seeds = _get(row, "seed_agreement"), _get(row, "seeds")
    if agreement is not None and seeds:
        parts.append(f"and on {agreement:.0%} of the runs at seeds {seeds}")
    stable = _get(row, "stable")
    unstable = stable is not None and not bool(stable)  # a pandas or numpy boolean from a table, not only False
    text = " ".join(parts) + ("; **unstable**: another sample could well say otherwise." if unstable else "; stable.")
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
            "budget; it never changes after the other reading is seen. Beside it: the *other comparator's* "
            "reading (the selected best workflow against a declared one, and the reverse); the *familywise* "
            "verdict, Holm's step-down over the table's tasks, so that the chance of any false winner in the whole "
            "table is at most 5% (a winner Holm does not confirm reads inconclusive there); and the *stability*, "
            "the share of 1,000 resamples of the instances that give the same verdict (and, when the same sweep ran "
            "at other seeds, the share of those runs that agree). Below 90%, or with a seed that disagrees, a "
            "verdict is marked unstable.")


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

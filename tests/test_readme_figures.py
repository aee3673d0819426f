"""The README's table of the default run says what results/criterion.csv says, figure for figure.

Every number in the table under "## The default run" is compared with its column of criterion.csv at the
precision the README prints it (`95%` to a whole percent, `+0.06` to two decimals), and every word (the
comparator, the verdict) as it is. When results/ is regenerated, this fails until the README's table is
updated: print the new rows with `python -m tests.test_readme_figures`.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from .conftest import ROOT

SECTION = "## The default run"
# A column of the README's table (its header up to " [") -> the criterion.csv columns its figures come
# from, in the order they are printed. A word column has one source, compared as text.
SOURCES = {
    "task": ["task"],
    "comparator": ["comparator"],
    "agent": ["agent_success"],
    "workflow": ["workflow_success"],
    "agent − workflow": ["success_diff", "diff_ci_low", "diff_ci_high"],
    "cost ratio workflow ÷ agent": ["cost_ratio", "cost_ci_low", "cost_ci_high"],
    "verdict": ["verdict"],
    "instances": ["instances"],
    "claim p": ["claim_p"],
    "predictability": ["predictability", "predictability_ci_low", "predictability_ci_high"],
    "drawability": ["drawability", "drawability_ci_low", "drawability_ci_high"],
}
WORDS = {"task", "comparator", "verdict"}
NUMBER = re.compile(r"[+\-−]?\d+(?:\.\d+)?%?")


def readme_table() -> tuple[list[str], list[list[str]]]:
    """The header and rows of the first table in the README's default-run section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SECTION in text, f"the README has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    return cells[0], [row for row in cells[2:]]


def figures(cell: str) -> list[tuple[float, int, bool]]:
    """The numbers of a cell: (value, decimals printed, a percentage)."""
    out = []
    for token in NUMBER.findall(cell.replace("−", "-")):
        percent = token.endswith("%")
        digits = token.rstrip("%")
        out.append((float(digits), len(digits.partition(".")[2]), percent))
    return out


def printed(value: float, decimals: int, percent: bool) -> float:
    """`value` as the README would print it."""
    return float(f"{value * 100 if percent else value:.{decimals}f}")


def column(head: str) -> str:
    name = head.split(" [")[0].strip()
    assert name in SOURCES, f"the README's table has a column this test does not know: {head!r} (add it to SOURCES)"
    return name


def level(head: str) -> float | None:
    """The interval level a header states (`[97.5% CI]` -> 0.975), if any."""
    found = re.search(r"\[(\d+(?:\.\d+)?)% CI\]", head)
    return float(found.group(1)) / 100 if found else None


@pytest.fixture(scope="module")
def criterion() -> pd.DataFrame:
    return pd.read_csv(ROOT / "results" / "criterion.csv").set_index("task", drop=False)


def test_the_table_has_a_row_per_task_of_the_default_run(criterion: pd.DataFrame) -> None:
    header, rows = readme_table()
    assert [row[header.index("task")] for row in rows] == list(criterion["task"])


def test_every_figure_of_the_table_is_the_default_runs(criterion: pd.DataFrame) -> None:
    header, rows = readme_table()
    wrong = []
    for row in rows:
        truth = criterion.loc[row[header.index("task")]]
        for head, cell in zip(header, row, strict=True):
            sources = SOURCES[column(head)]
            if column(head) in WORDS:
                if cell.strip("*` ") != str(truth[sources[0]]):
                    wrong.append(f"{truth['task']} {head}: README {cell!r}, criterion.csv {truth[sources[0]]!r}")
                continue
            found = figures(cell)
            assert len(found) == len(sources), f"{truth['task']} {head}: expected {len(sources)} figures in {cell!r}"
            for (value, decimals, percent), source in zip(found, sources, strict=True):
                if value != printed(float(truth[source]), decimals, percent):
                    wrong.append(f"{truth['task']} {head}: README {cell!r}, criterion.csv {source} = {truth[source]}")
    assert wrong == [], "the README's default-run table is not results/criterion.csv:\n" + "\n".join(wrong)


def test_the_interval_levels_in_the_header_are_the_ones_the_csv_holds(criterion: pd.DataFrame) -> None:
    header, _ = readme_table()
    diff = next(h for h in header if column(h) == "agent − workflow")
    levels = criterion["diff_level"].round(4).unique()
    if len(levels) > 1:  # a sequential run reads each row at its own look's level: the header may not quote one
        assert level(diff) is None, f"the header quotes one level, the rows have {sorted(levels)}"
    else:
        assert level(diff) == pytest.approx(float(levels[0]))


def test_the_comparison_catches_a_figure_off_by_one_in_its_last_digit() -> None:
    assert figures("+0.06 [−0.04, +0.15]") == [(0.06, 2, False), (-0.04, 2, False), (0.15, 2, False)]
    assert figures("83%") == [(83.0, 0, True)]
    assert printed(0.827778, 0, True) == 83.0 and printed(0.0555556, 2, False) == 0.06
    assert printed(0.0555556, 2, False) != 0.05 and printed(-0.0376631, 2, False) == -0.04


def rows_text() -> str:
    """The table's rows from results/criterion.csv, in the README's columns (for updating the README)."""
    header, _ = readme_table()
    df = pd.read_csv(ROOT / "results" / "criterion.csv")
    lines = []
    for r in df.to_dict("records"):
        cells = []
        for head in header:
            sources = SOURCES[column(head)]
            if column(head) in WORDS:
                cells.append(str(r[sources[0]]))
                continue
            values = [f"{r[s]:+.2f}".replace("-", "−") for s in sources]
            if sources[0].endswith("_success"):
                values = [f"{r[sources[0]]:.0%}"]
            elif sources[0] in ("cost_ratio", "predictability", "drawability"):
                values = [f"{r[s]:.2f}" for s in sources]
                values[0] += "×" if sources[0] == "cost_ratio" else ""
            cells.append(values[0] + (f" [{values[1]}, {values[2]}]" if len(values) == 3 else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(rows_text())

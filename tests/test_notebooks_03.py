"""Notebook 03 runs top to bottom on the simulator, at test_notebooks.py's smaller size (the other notebooks and
every check of their form are there; 03 has this file so that `--dist loadfile` can run it beside 02)."""

from __future__ import annotations

from .test_notebooks import NAMES, run_on_sim  # skips this file, as that one, without nbformat or nbclient


def test_03_runs_top_to_bottom_on_sim() -> None:
    assert NAMES[2] == "03_selection_criterion.ipynb"
    run_on_sim(NAMES[2])

"""The notebooks: committed small and without outputs, one parameters cell at the top, and each runs top to
bottom on the simulator (nbclient, this interpreter's ipykernel, working directory notebooks/; at a smaller size,
SMALLER); each cell is held to a hang guard, and how long a notebook takes is measured, never asserted."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = ROOT / "notebooks"
NAMES = ["01_loop_anatomy.ipynb", "02_workflow_vs_agent.ipynb", "03_selection_criterion.ipynb"]
PARAMETERS = ("MODEL", "INSTANCES", "TRIALS", "SEED", "USE_COMMITTED_RESULTS")
MAX_BYTES = 40_000  # text only: a notebook committed with its charts embedded would be megabytes
MAX_CODE_LINES = 30  # an article with short code cells, not a code dump
CELL_TIMEOUT_S = 180  # a hang guard per cell, not a timing test (timings are measured, not asserted)
# The run is at a smaller size than a reader's defaults, set as papermill does: a cell after the parameters cell.
# Every cell's code runs all the same (the same tasks, every chart and table); only the counts are smaller (03 keeps
# 12 instances: 10 draw the graph and the drawn phase needs two more). The defaults took 50-80 s a notebook.
SMALLER = {
    "02_workflow_vs_agent.ipynb": "INSTANCES = 3\nTRIALS = 1",
    "03_selection_criterion.ipynb": 'INSTANCES = 12\nTRIALS = 1\nHOPS = ["2", "4"]\nERROR_RATES = [0, 0.2]\n'
                                    "ERROR_INSTANCES = 2",
}


def read(name: str):
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def test_the_three_notebooks_are_there() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_committed_small_and_without_outputs(name: str) -> None:
    assert (NOTEBOOKS / name).stat().st_size < MAX_BYTES
    nb = read(name)
    nbformat.validate(nb)
    for cell in code_cells(nb):
        assert cell.outputs == [], f"{name}: a cell was committed with its outputs"
        assert cell.execution_count is None, f"{name}: a cell was committed with an execution count"


@pytest.mark.parametrize("name", NAMES)
def test_one_parameters_cell_at_the_top(name: str) -> None:
    nb = read(name)
    code = code_cells(nb)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert tagged == [code[0]], "exactly one cell tagged `parameters`, the first code cell"
    for param in PARAMETERS:
        assert re.search(rf"^{param} = ", code[0].source, re.M), f"{name}: the parameters cell lacks {param}"
        for cell in code[1:]:
            assert not re.search(rf"^{param} = ", cell.source, re.M), f"{name}: {param} is set again later"
    assert re.search(r"^USE_COMMITTED_RESULTS = False\b", code[0].source, re.M)
    assert re.search(r'^MODEL = "sim', code[0].source, re.M), "the default model is the simulator"


@pytest.mark.parametrize("name", NAMES)
def test_reads_as_an_article(name: str) -> None:
    nb = read(name)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= len(code_cells(nb)) // 2
    for cell in code_cells(nb):
        assert len(cell.source.splitlines()) <= MAX_CODE_LINES, f"{name}: a code cell is long:\n{cell.source}"


# 03 runs in test_notebooks_03.py: a file of its own, so that the CI's `--dist loadfile` runs it beside 02
@pytest.mark.parametrize("name", NAMES[:2])
def test_runs_top_to_bottom_on_sim(name: str) -> None:
    run_on_sim(name)


def run_on_sim(name: str) -> None:
    nb = read(name)
    if name in SMALLER:
        injected = nbformat.v4.new_code_cell(SMALLER[name], metadata={"tags": ["injected-parameters"]})
        nb.cells.insert(nb.cells.index(code_cells(nb)[0]) + 1, injected)
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint(sys.prefix)"))  # which Python ran it
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT_S,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()  # a cell that raises fails the test (CellExecutionError names the cell)
    prefix = "".join(o.get("text", "") for o in nb.cells[-1].outputs).strip()
    assert prefix == sys.prefix, f"the kernel ran {prefix}, not this environment's Python ({sys.prefix})"
    for cell in code_cells(nb)[:-1]:
        assert not [o for o in cell.outputs if o.output_type == "error"]


# A measured figure in a notebook's prose goes stale the moment the code or the model moves: the narrative
# says what to look at, the cells print the figures. Interval levels (95%, 97.5%, 90%) are method, not data.
MEASURED = re.compile(r"(?<![\w.])[+\-−]?\d+(?:\.\d+)?\s*[%×]|(?<![\w.\d])[+\-−]?0\.\d{2,}")
LEVELS = re.compile(r"\b(?:95|97\.5|90|80)\s*%")


def figures_in_prose(text: str) -> list[str]:
    return MEASURED.findall(LEVELS.sub("", text))


def test_the_figure_scan_finds_a_figure_and_passes_a_level() -> None:
    assert figures_in_prose("the agent succeeded in 83% at 1.6× the cost, drawability 0.72") == ["83%", "1.6×", "0.72"]
    assert figures_in_prose("its 95% interval and the 97.5% one") == []


@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_no_notebook_quotes_a_measured_figure_in_its_prose(name: str) -> None:
    prose = [c.source for c in read(name).cells if c.cell_type == "markdown"]
    assert [f for text in prose for f in figures_in_prose(text)] == []

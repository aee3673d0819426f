"""A task file may draw several workflows (`[workflow.<name>]`), each run as the design `chain:<name>`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.tasks.dataset import DatasetTask
from benchmarks.tasks.variants import design_for, variants_of
from patterns.sim import SimModel
from patterns.workflows import run_workflow

from .test_dataset_workflow import EXAMPLE, TOML, RightEveryStep


def _named(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """The invoices example with its one [workflow] drawn again under each of `names`."""
    shutil.copytree(EXAMPLE, tmp_path / "invoices")
    text = TOML.read_text()
    head, _, steps = text.partition("[[workflow.steps]]")
    tables = "".join(("[[workflow.steps]]" + steps).replace("[[workflow.steps]]", f"[[workflow.{n}.steps]]")
                     for n in names)
    path = tmp_path / "invoices" / "invoices.toml"
    path.write_text(head + tables)
    return path


def test_each_named_workflow_is_a_design_and_the_first_is_declared(tmp_path: Path) -> None:
    task = DatasetTask.from_file(_named(tmp_path, ("current", "ladder")))
    assert task.natural_workflow == "chain:current"
    assert {"chain:current", "chain:ladder"} <= set(variants_of(task))
    for instance in task.instances(3, 0):
        env = task.environment(instance, tmp_path)
        for name in ("chain:current", "chain:ladder"):
            result = run_workflow(design_for(task, name, env), SimModel(RightEveryStep()), instance.prompt)
            assert task.grade(instance, env, result.output) == 1.0, (name, result.output)


def test_a_badly_named_workflow_table_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\[workflow.Bad\]: a workflow's name"):
        DatasetTask.from_file(_named(tmp_path, ("Bad",)))

"""Bring your own task: a TOML task file naming a dataset, tools, a scorer and optional routes.

`DatasetTask.from_file(path)` is a task family like the built-in ones (see `task.py`); any
command that takes a task spec accepts the file's path (`wva bench --tasks tickets.toml`).
"""

from benchmarks.tasks.dataset.task import SIM_WARNING, DatasetTask, sim_warning

__all__ = ["SIM_WARNING", "DatasetTask", "sim_warning"]

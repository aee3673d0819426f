"""The task families: from a graph known in advance (`pipeline`) to one that cannot be drawn (`repair`).

Each built-in family is a package with the same modules, each with one role:
- `family.py`: the Family (`base.Family`): parameters, seeded instances, a fresh environment per
  trial, one `design_<pattern>(env)` method per pattern (found by `base.design_of`), the grade;
- `prompts.py`: its vocabulary: the marker its policy recognises, and the prompts and phrases the
  designs write and the policy reads, in one place so that they cannot drift;
- `tools.py`: `make_tools(...)`, the tools one trial's environment offers;
- `answers.py`: what the grader (and a design's code steps) read out of a model's reply;
- `policy.py`: how `SimModel` behaves on the family's prompts; it sees the request only;
- `skills.py`: what that policy knows how to do with the family's text, right or with one slip.
The pieces they share (`FamilyBase`: their `__init__`, seeded `instances` and `design` dispatch;
parameter parsers, `design_of`, `look_up`, `marked`) are in `base.py`; the one list of
built-in names is `benchmarks.names.DEFAULT_TASKS`, read by `registry.py`. `dataset/` is the family
that a task file (.toml) describes.
"""

from benchmarks.tasks.base import PATTERNS, Environment, Family, Instance, IntRange, Param
from benchmarks.tasks.dataset import DatasetTask
from benchmarks.tasks.registry import BUILTIN, builtin_families, load_task, split_task_list

__all__ = [
    "BUILTIN",
    "PATTERNS",
    "DatasetTask",
    "Environment",
    "Family",
    "Instance",
    "IntRange",
    "Param",
    "builtin_families",
    "load_task",
    "split_task_list",
]

"""The benchmark: task families, the harness, metrics, the criterion, charts and the `wva` CLI.

`benchmarks.load_results(folder)` gives a results folder's tables as pandas DataFrames.
"""

from typing import Any

__all__ = ["load_results"]


def __getattr__(name: str) -> Any:
    # pandas is imported on first use, so `wva --help` stays fast
    if name == "load_results":
        from benchmarks.harness.outputs import load_results

        return load_results
    raise AttributeError(f"module 'benchmarks' has no attribute {name!r}")

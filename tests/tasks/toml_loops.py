"""A task file's bounded loop written out as TOML, for the tests that load one (the `[workflow]` loop of
docs/own-task.md): one place to spell the step and its inner steps."""

from __future__ import annotations


def loop_step(max_rounds: int, field: str, equals: str, *steps: str, name: str = "walk") -> str:
    """A `[[workflow.steps]]` loop named `name` that runs `steps` (each an inner step's TOML lines, ending in a
    newline) round after round until the last one's `field` equals `equals`, `max_rounds` at most."""
    head = (f'[[workflow.steps]]\nname = "{name}"\nmax_rounds = {max_rounds}\n'
            f'until = {{ field = "{field}", equals = "{equals}" }}\n')
    return head + "".join(f"[[workflow.steps.steps]]\n{step}" for step in steps)

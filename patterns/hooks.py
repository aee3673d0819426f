"""Optional callables between a run's phases. Each may be sync or async; all default to None.

- `before_model(params)`: sees the request about to be sent (a dict; do not keep it).
- `before_tool(name, tool_input)`: return None to allow, or a reason (str) to deny; the model
  then sees an `is_error` "Permission denied" tool_result.
- `after_step(message)`: sees each `anthropic.types.Message` the model returned.
Any of them may set the run's `Abort` to stop it at the next phase boundary.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Hooks:
    before_model: Callable[[dict[str, Any]], Any] | None = None
    before_tool: Callable[[str, Any], Any] | None = None
    after_step: Callable[[Any], Any] | None = None


async def call_hook(hook: Callable[..., Any] | None, *args: Any) -> Any:
    if hook is None:
        return None
    value = hook(*args)
    if inspect.isawaitable(value):
        value = await value
    return value

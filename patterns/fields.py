"""Code-readable values: the fields of a structured text that code fixed in advance may read.

One rule, shared by the workflows a user draws (a dispatch on a field), drawability (which learns such
dispatches from the agent's walks) and the simulator's families (whose tool results are either structured or
prose):
- a text is structured when it is a JSON object or array — the whole text, or else its first fenced ```json
  block. Its fields are its scalar leaves, named by their path (`next.tool`, `items.0.id`), each value as text
  (`true`, `3`, `K-4411`; null is `null`);
- a text that opens with a status word in capitals and a colon (`VALID: ...`, `FAIL: line 3 ...`, `OK: ...`), as
  validators answer, has one field, `status`, that word: code branches on it as on a JSON field (a `Gate`, a
  `Loop`'s exit), and what follows the colon is prose.
Anything else is prose and has no fields: what it says only a model call can read.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```json\s*\n(.*?)\n\s*```", re.S)
_STATUS = re.compile(r"([A-Z][A-Z_]{1,19}):")
MAX_FIELDS = 64  # a huge result is still read, up to this many leaves (in document order)


def structured(text: str) -> Any:
    """The JSON value a text carries (whole, or its first ```json block), or None for prose."""
    text = text.strip()
    if text[:1] in "{[":
        try:
            return json.loads(text)
        except ValueError:
            pass
    m = _FENCE.search(text)
    if m:
        try:
            return json.loads(m.group(1))
        except ValueError:
            return None
    return None


def fields(text: str | None) -> dict[str, str]:
    """The code-readable fields of `text`: path -> value as text (empty for prose, or a JSON scalar)."""
    value = structured(text or "")
    if not isinstance(value, dict | list):
        status = _STATUS.match((text or "").lstrip())
        return {"status": status.group(1)} if status else {}
    out: dict[str, str] = {}
    _flatten(value, "", out)
    return out


def _flatten(value: Any, path: str, out: dict[str, str]) -> None:
    if len(out) >= MAX_FIELDS:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _flatten(v, f"{path}.{i}" if path else str(i), out)
    else:
        out[path] = json.dumps(value) if not isinstance(value, str) else value

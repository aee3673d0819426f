"""`--json` on the commands that have it: one JSON document on stdout, built from the same data the text shows.

Tables become lists of records built generically from their DataFrames (`records`), so a column added to
`criterion.csv` or `summary.csv` appears in the JSON with no change here; NaN and ±inf become null. Every
document carries `schema` (`wva.<command>/<version>`); an error, a refused pre-flight request included, is
`{"schema": "wva.error/1", "command": ..., "error": ..., "status": ...}` (`main.py`). The schemas:
docs/json.md.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

VERSION = 1
PRINTED: list[dict[str, Any]] = []  # the document this call printed (main prints no second one, Ctrl-C included)


def schema(command: str) -> str:
    return f"wva.{command}/{VERSION}"


def records(df: pd.DataFrame | None) -> list[dict[str, Any]]:
    """A DataFrame's rows as JSON-ready dicts (every column, NaN/inf/NA as null, numpy scalars as Python's)."""
    if df is None or df.empty:
        return []
    return json.loads(df.to_json(orient="records", double_precision=15, default_handler=str))


def emit(doc: dict[str, Any]) -> None:
    """Print one document (strict JSON: no NaN) on stdout."""
    print(json.dumps(doc, ensure_ascii=False, allow_nan=False, default=str))
    PRINTED.append(doc)


def error_doc(command: str | None, message: str, status: int) -> dict[str, Any]:
    return {"schema": schema("error"), "command": command, "error": message, "status": status}


class JsonDone(Exception):
    """A failure whose JSON document was printed already (main prints no second one); exit `status`."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.exit_status = status
        self.json_done = True

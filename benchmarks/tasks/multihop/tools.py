"""The `multihop` family's one tool, `read_document`, over one trial's copy of the knowledge base.

Every read is appended to `state["reads"]`; an unknown id is an error that says what ids look like.
"""

from __future__ import annotations

from typing import Any

from benchmarks.tasks.base import look_up
from patterns.tools import ToolSet, tool


def make_tools(state: dict[str, Any]) -> ToolSet:
    """`read_document` over `state["documents"]`."""

    @tool(timeout_s=None)
    def read_document(doc_id: str) -> str:
        """Read one document of the knowledge base by its id: its title and text. Documents mention other
        documents by id.

        Args:
            doc_id: the document's id as written in the question or in another document, e.g. "doc-4821".
        """
        key = doc_id.strip().lower()
        key = f"doc-{key}" if key.isdigit() else key
        state["reads"].append(key)
        return str(look_up(state["documents"], key, f"no document {doc_id!r} in the knowledge base; check the id "
                           "(ids look like doc-4821)"))

    return ToolSet([read_document])

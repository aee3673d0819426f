"""Whether a design is agent-like, read when it is built (`patterns.workflows.choices`): what a task file's
generic designs and a sweep's designs are checked with (`benchmarks.harness.drawn_check`)."""

from __future__ import annotations

from typing import Any

from patterns.workflows import AgentLike, agent_like


def agent_like_reason(build: Any) -> str | None:
    """Why the design `build()` returns is agent-like (refused while it is built, or read off its graph), or None.
    A design that fails to build for another reason is left to the trials, which report it."""
    try:
        spec = build()
    except AgentLike as exc:
        return " ".join(str(exc).split())
    except Exception:  # not this check's business: the trial names it
        return None
    try:
        return agent_like(spec)
    except Exception:  # a spec without a graph is not one this check can read
        return None

"""`tool_choice`, honoured after the policy has replied: the simulator's wire is as strict as the API's.

A policy decides what the model says; it sees `Request.tool_choice` and may follow it itself.
Whatever it replies, `honoured(reply, request)` then makes the reply obey the request's
`tool_choice`, as the Messages API documents it (`auto`, `any`, `tool`, `none`, and
`disable_parallel_tool_use`; chat completions' `required` and named function arrive as `any` and
`tool`):
- `auto` or absent: the reply is unchanged;
- `none`: the reply has no tool_use block (any the policy made are dropped; it was offered no tools, and
  `Request.may_call` tells a policy to answer now from what it has, as the built-in families' policies do,
  so that a drawn workflow's answer step never answers with the lead-in of a call it may not make);
- `any` / `tool`: the reply calls a tool it was offered (for `tool`, the named one, the only one
  offered). A reply that does is kept, minus its text: the API starts a forced turn with the tool
  call, so the model writes nothing before it. A reply that does not (no tool_use, or only calls
  to tools it was not offered) is replaced by a call SimModel makes itself: the named tool, or
  for `any` the first offered tool, with arguments `synthesise_arguments` draws from that tool's
  `input_schema` and the request's latest input (the text of the last tool results, else of the
  last user message);
- `disable_parallel_tool_use`: at most one tool_use (`auto`), exactly one (`any`, `tool`): the first.
A forced reply's stop_reason is `tool_use`. No decision is drawn here: forcing consumes no randomness,
so the policy's decisions (and every figure of a run that sends no `tool_choice`) do not move.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..conversation import field
from .generic import synthesise_arguments
from .policy import Reply, Request


def honoured(reply: Reply, request: Request) -> Reply:
    """`reply`, made to obey `request.tool_choice` (see the module docstring)."""
    choice = request.tool_choice
    kind = field(choice, "type") if choice is not None else "auto"
    single = bool(field(choice, "disable_parallel_tool_use", False)) if choice is not None else False
    if kind == "auto" and not single:
        return reply
    content = list(reply.content)
    uses = [b for b in content if b.get("type") == "tool_use"]
    if kind == "none":
        return _with(reply, [b for b in content if b.get("type") != "tool_use"])
    if kind == "auto" or not request.tools:
        extra = uses[1:] if single else []
        return _with(reply, [b for b in content if not any(b is u for u in extra)]) if extra else reply
    offered = set(request.tool_names())
    allowed = [b for b in uses if b.get("name") in offered]
    if not allowed:
        allowed = [_made_call(request)]
    kept = allowed[:1] if single else allowed
    return Reply([b for b in content if b.get("type") == "thinking"] + kept, stop_reason=None)


def _with(reply: Reply, content: list[dict[str, Any]]) -> Reply:
    stop = None if reply.stop_reason == "tool_use" else reply.stop_reason
    return replace(reply, content=content, stop_reason=stop)


def _made_call(request: Request) -> dict[str, Any]:
    tool = request.tools[0]  # for `tool` the only one offered (validate.py), for `any` the first
    arguments = synthesise_arguments(tool.get("input_schema") or {}, _latest_input(request))
    return {"type": "tool_use", "name": tool.get("name", ""), "input": arguments}


def _latest_input(request: Request) -> str:
    results = request.last_tool_results()
    if results:
        return "\n".join(r["content"] for r in results)
    return request.last_user_text() or request.first_user_text()

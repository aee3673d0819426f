"""`GenericPolicy`: a task-agnostic behaviour so that SimModel is usable on its own.

It makes one decision per call (`decide.correct()`), and behaves like this:
- tools offered, none called yet: call the FIRST offered tool with arguments synthesised from
  its `input_schema` and the first user message (`synthesise_arguments`);
  a wrong decision either passes one wrong argument or stops early with a text answer;
- the last tool result is an error and at most `max_retries` retries were made: call the same
  tool again with freshly synthesised arguments (noticing the feedback and correcting);
- otherwise, after tool results: answer `Result: <last tool result>`; a wrong decision reports
  a wrong value (a number in it off by one) or a truncated result;
- no tools: answer `Answer: <the prompt, whitespace-normalised, at most 200 characters>`;
  a wrong decision stops halfway through it.
It accepts every request, so it is the sim server's fallback.

Tool calls and results a client sends back as plain text, as smolagents does, count as calls and
results too (`textual_calls`, `textual_results`): an assistant message holding `Action: {"name": ...,
"arguments": {...}}` (smolagents' tool-calling prompt) or `Calling tools: [{... "function": {"name":
..., "arguments": ...}}]` (how smolagents replays the calls it made, a Python list), then a user
message starting `Observation:` (the result) or `Error:` (an error result, after an optional
`Call id: ...` line). A tool named `final_answer` (smolagents' convention: the only way its agent
ends) is never the first tool called when another is offered, and receives the `Result: ...` answer
as its arguments instead of a text reply.
"""

from __future__ import annotations

import ast
import json
import random
import re
from typing import Any

from ..conversation import blocks_of
from .policy import Decider, Reply, Request

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[^\W\d][\w'-]*")
SNIPPET_CHARS = 200
FINAL_ANSWER = "final_answer"
_CALL_MARKS = re.compile(r"\b(?:Action|Calling tools):\s*")
_OBSERVATION = re.compile(r"\s*Observation:\s*")
_ERROR = re.compile(r"\s*(?:Call id:[^\n]*\n\s*)?Error:\s*")


def _numbers(text: str) -> list[int | float]:
    return [float(n) if "." in n else int(n) for n in _NUMBER.findall(text)]


def _schema_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "string")
    if isinstance(kind, list):  # ["integer", "null"]: the first non-null type
        kind = next((k for k in kind if k != "null"), "string")
    return str(kind)


def synthesise_arguments(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """Arguments for every property of `schema`, taken from `text` in order.

    Numbers in the text fill number/integer parameters one by one (0 when they run out); a lone
    string parameter gets the whole text, several get one word each; an enum gets the first
    value the text mentions (else its first value); booleans are true; an array gets all the
    numbers or all the words (by its item type); an object is empty.
    """
    props: dict[str, Any] = schema.get("properties") or {}
    numbers, words = _numbers(text), _WORD.findall(text)
    strings = [n for n, s in props.items() if _schema_type(s) == "string" and "enum" not in s]
    args: dict[str, Any] = {}
    n_i = w_i = 0
    for name, spec in props.items():
        kind = _schema_type(spec)
        if spec.get("enum"):
            lowered = text.lower()
            args[name] = next((v for v in spec["enum"] if str(v).lower() in lowered), spec["enum"][0])
        elif kind in ("integer", "number"):
            value = numbers[n_i] if n_i < len(numbers) else 0
            args[name] = int(value) if kind == "integer" else value
            n_i += 1
        elif kind == "string":
            args[name] = text.strip() if len(strings) == 1 or not words else words[w_i % len(words)]
            w_i += 1
        elif kind == "boolean":
            args[name] = True
        elif kind == "array":
            item = _schema_type(spec.get("items") or {})
            args[name] = list(numbers) if item in ("integer", "number") else list(words)
        elif kind == "object":
            args[name] = {}
        else:
            args[name] = text.strip()
    return args


def perturb(value: Any, rng: random.Random, text: str = "") -> Any:
    """A plausible wrong version of an argument or value (never equal to it)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((-1, 1)) * (1 + rng.randrange(9))
    if isinstance(value, float):
        return value + rng.choice((-1.0, 1.0)) * (1 + rng.randrange(9))
    if isinstance(value, str):
        others = [w for w in _WORD.findall(text) if w != value]
        if others:
            return rng.choice(others)
        flipped = value[::-1]
        return flipped if flipped != value else value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    return None


def _snippet(text: str) -> str:
    return " ".join(text.split())[:SNIPPET_CHARS]


class GenericPolicy:
    """See the module docstring; `max_retries` bounds the retries after an error result."""

    def __init__(self, max_retries: int = 2) -> None:
        self.max_retries = max_retries

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        if not request.tools:
            return self._plain_answer(request, decide)
        uses, results, previous = _history(request)
        if not uses:
            first = next((t for t in request.tools if t.get("name") != FINAL_ANSWER), request.tools[0])
            return self._call(request, decide, first)
        if results and results[-1]["is_error"] and len(uses) <= self.max_retries:
            offered = {t.get("name"): t for t in request.tools}
            tool = offered.get(uses[-1].get("name"), request.tools[0])
            return self._call(request, decide, tool)
        if not previous:
            return self._plain_answer(request, decide)
        return self._report(request, previous[-1]["content"], decide)

    def _call(self, request: Request, decide: Decider, tool: dict[str, Any]) -> Reply:
        text = request.first_user_text()
        args = synthesise_arguments(tool.get("input_schema") or {}, text)
        if not decide.correct():
            if not args or decide.rng.random() < 0.5:  # stop early, without the tool
                return Reply([{"type": "text", "text": f"Answer: {_snippet(text)[:SNIPPET_CHARS // 2]}"}])
            name = decide.rng.choice(sorted(args))
            args = {**args, name: perturb(args[name], decide.rng, text)}
        use = {"type": "tool_use", "name": tool.get("name", ""), "input": args}
        return Reply([{"type": "text", "text": f"I'll use the {tool.get('name', '')} tool."}, use])

    def _report(self, request: Request, content: str, decide: Decider) -> Reply:
        if not decide.correct():
            match = _NUMBER.search(content)
            if match:
                wrong = perturb(_numbers(match.group())[0], decide.rng)
                content = content[: match.start()] + str(wrong) + content[match.end():]
            else:
                content = content[: len(content) // 2] if len(content) > 1 else "unknown"
        final = next((t for t in request.tools if t.get("name") == FINAL_ANSWER), None)
        if final is None:
            return Reply([{"type": "text", "text": f"Result: {content}"}])
        answer = synthesise_arguments(final.get("input_schema") or {}, f"Result: {content}")
        return Reply([{"type": "tool_use", "name": FINAL_ANSWER, "input": answer}])

    def _plain_answer(self, request: Request, decide: Decider) -> Reply:
        snippet = _snippet(request.last_user_text()) or "(no question)"
        if not decide.correct():
            snippet = snippet[: len(snippet) // 2] if len(snippet) > 1 else "unknown"
        return Reply([{"type": "text", "text": f"Answer: {snippet}"}])


def _history(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(the tool calls so far, the results the model answers now, every result): as blocks, else as text."""
    uses = request.tool_uses()
    if uses:
        return uses, request.last_tool_results(), request.tool_results()
    uses = textual_calls(request)
    if not uses:
        return [], [], []
    every = textual_results(request)
    last_user = max((i for i, m in enumerate(request.messages) if m.get("role") == "user"), default=-1)
    return uses, [r for i, r in every if i == last_user], [r for _, r in every]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in blocks_of(content) if b.get("type") == "text")


def textual_calls(request: Request) -> list[dict[str, Any]]:
    """Tool calls the assistant's messages hold as text (`Action: {...}`, `Calling tools: [...]`), as tool_use dicts."""
    calls: list[dict[str, Any]] = []
    for message in request.messages:
        if message.get("role") != "assistant":
            continue
        text = _text(message.get("content"))
        for mark in _CALL_MARKS.finditer(text):
            found = _literal(text[mark.end():])
            for call in found if isinstance(found, list) else [found]:
                function = call.get("function", call) if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("name"), str):
                    arguments = function.get("arguments")
                    calls.append({"type": "tool_use", "name": function["name"],
                                  "input": arguments if isinstance(arguments, dict) else {}})
    return calls


def textual_results(request: Request) -> list[tuple[int, dict[str, Any]]]:
    """(message index, result) for each user message that is a result as text: `Observation: ...` or `Error: ...`."""
    out: list[tuple[int, dict[str, Any]]] = []
    for i, message in enumerate(request.messages):
        text = _text(message.get("content")) if message.get("role") == "user" else ""
        for pattern, is_error in ((_OBSERVATION, False), (_ERROR, True)):
            head = pattern.match(text)
            if head:
                out.append((i, {"tool_use_id": "", "content": text[head.end():].strip(), "is_error": is_error}))
                break
    return out


def _literal(text: str) -> Any:
    """The JSON value, or the Python literal (as smolagents prints its calls), that `text` starts with; else None."""
    text = text.lstrip()
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        pass
    for end in (len(text), max(text.rfind("]"), text.rfind("}")) + 1):
        try:
            return ast.literal_eval(text[:end])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None

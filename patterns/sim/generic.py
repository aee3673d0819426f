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
"""

from __future__ import annotations

import random
import re
from typing import Any

from .policy import Decider, Reply, Request

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[^\W\d][\w'-]*")
SNIPPET_CHARS = 200


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
        uses = request.tool_uses()
        results = request.last_tool_results()
        if not uses:
            return self._call(request, decide, request.tools[0])
        if results and results[-1]["is_error"] and len(uses) <= self.max_retries:
            offered = {t.get("name"): t for t in request.tools}
            tool = offered.get(uses[-1].get("name"), request.tools[0])
            return self._call(request, decide, tool)
        previous = results or request.tool_results()
        if not previous:
            return self._plain_answer(request, decide)
        return self._report(previous[-1]["content"], decide)

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

    def _report(self, content: str, decide: Decider) -> Reply:
        if not decide.correct():
            match = _NUMBER.search(content)
            if match:
                wrong = perturb(_numbers(match.group())[0], decide.rng)
                content = content[: match.start()] + str(wrong) + content[match.end():]
            else:
                content = content[: len(content) // 2] if len(content) > 1 else "unknown"
        return Reply([{"type": "text", "text": f"Result: {content}"}])

    def _plain_answer(self, request: Request, decide: Decider) -> Reply:
        snippet = _snippet(request.last_user_text()) or "(no question)"
        if not decide.correct():
            snippet = snippet[: len(snippet) // 2] if len(snippet) > 1 else "unknown"
        return Reply([{"type": "text", "text": f"Answer: {snippet}"}])

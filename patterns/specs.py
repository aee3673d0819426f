"""`load_model(spec)`: a model from one short string, as a command line or a config gives it.

    sim                               the embedded simulator with its defaults
    sim:error_rate=0.1,seed=3         ... with knobs set (every `SimModel.KNOBS` entry)
    anthropic:<model-id>              Claude through the official SDK
    openai:<model-id>                 any OpenAI-compatible chat-completions endpoint (OPENAI_BASE_URL)
    replay:<path>                     a recorded cassette, offline

Every mistake is a `ValueError` of one line that names the valid choices, so a command line
can show it as it is; nothing deeper than this module's own checks reaches the user.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SPEC_FORMS = "sim[:knob=value,...], anthropic:<model-id>, openai:<model-id> or replay:<path>"
_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def sim_knobs() -> dict[str, tuple[type, Any, str]]:
    """`SimModel.KNOBS`: name -> (type, default, description)."""
    from .sim import SimModel  # the simulator is heavy; load it only when a spec needs it

    return dict(SimModel.KNOBS)


def parse_knob_value(name: str, kind: Any, text: str, *, label: str = "sim knob") -> Any:
    """`text` as a value of the knob's type; booleans are true/false/1/0."""
    value = text.strip()
    where = f"{label} {name!r}"
    if kind is bool:
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ValueError(f"bad value {text!r} for {where}: use true, false, 1 or 0")
    if kind is int or kind is float:
        try:
            number = kind(value)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ValueError(f"bad value {text!r} for {where}: expected {what}") from None
        if kind is float and not math.isfinite(number):
            raise ValueError(f"bad value {text!r} for {where}: expected a finite number")
        return number
    if kind is str or not isinstance(kind, type):
        return value
    try:
        return kind(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad value {text!r} for {where}: {_one_line(exc)}") from None


def parse_sim_knobs(items: Iterable[str], *, extra: Mapping[str, type] | None = None) -> dict[str, Any]:
    """`["error_rate=0.1", "seed=3"]` -> `{"error_rate": 0.1, "seed": 3}`, typed by `SimModel.KNOBS`.

    `extra` adds options of the caller's own (the sim server's `slow_s`, ...), name -> type.
    """
    types = {name: spec[0] for name, spec in sim_knobs().items()}
    extra = dict(extra or {})
    valid = ", ".join([*types, *extra])
    parsed: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"bad sim knob {item.strip()!r}: write knob=value; valid knobs are {valid}")
        if name not in types and name not in extra:
            raise ValueError(f"unknown sim knob {name!r}: valid knobs are {valid}")
        if name in parsed:
            raise ValueError(f"sim knob {name!r} is given twice")
        if name in types:
            parsed[name] = parse_knob_value(name, types[name], text)
        else:
            parsed[name] = parse_knob_value(name, extra[name], text, label="option")
    return parsed


def load_model(spec: str) -> Any:
    """The model `spec` names (see the module docstring); a bad spec is a one-line ValueError."""
    if not isinstance(spec, str):
        raise ValueError(f"a model spec must be a string, got {type(spec).__name__}: use {SPEC_FORMS}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "sim":
        return _load_sim(rest)
    if kind in ("anthropic", "openai"):
        return _load_provider(kind, spec, rest.strip())
    if kind == "replay":
        return _load_replay(rest.strip())
    raise ValueError(f"unknown model spec {spec!r}: use {SPEC_FORMS}")


def _load_sim(rest: str) -> Any:
    from .sim import SimModel

    items = [item for item in rest.split(",") if item.strip()]
    knobs = parse_sim_knobs(items)
    try:
        return SimModel(**knobs)
    except ValueError as exc:  # the simulator's own range checks, which name the valid knobs
        raise ValueError(_one_line(exc)) from None


_EXAMPLES = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1-mini"}


def _load_provider(kind: str, spec: str, model_id: str) -> Any:
    """`anthropic:<id>` or `openai:<id>`; the openai extra is checked here, so a missing one is one line."""
    if not model_id:
        raise ValueError(f"model spec {spec!r} has no model id: use {kind}:<model-id>, e.g. {kind}:{_EXAMPLES[kind]}")
    if any(c.isspace() for c in model_id):
        raise ValueError(f"model id {model_id!r} has whitespace in it: use {kind}:<model-id>")
    if kind == "anthropic":
        from .model import AnthropicModel

        return AnthropicModel(model_id)
    from importlib.util import find_spec

    if find_spec("openai") is None:
        raise ValueError("openai:<model-id> needs the openai SDK: pip install 'workflow-vs-agent[openai]'")
    from .openai_model import OpenAIModel

    return OpenAIModel(model_id)


def _load_replay(path: str) -> Any:
    if not path:
        raise ValueError("model spec 'replay:' has no path: use replay:<path> to a cassette (.jsonl) file")
    if not Path(path).is_file():
        raise ValueError(f"replay cassette {path!r} does not exist: use replay:<path> to a cassette (.jsonl) file")
    from .replay import ReplayModel

    try:
        return ReplayModel(path, ordered=False)  # a sweep runs trials concurrently: match by request
    except ValueError as exc:  # a malformed cassette names its line
        raise ValueError(_one_line(exc)) from None


def describe_model_specs() -> str:
    """The spec forms and SimModel's knobs, for `--help` and `wva models`."""
    lines = [
        "model specs:",
        "  sim                          the embedded simulator (no network, seeded)",
        "  sim:knob=value,...           the simulator with knobs set, e.g. sim:error_rate=0.1,seed=3",
        "  anthropic:<model-id>         Claude via the anthropic SDK (ANTHROPIC_API_KEY), e.g.",
        "                               anthropic:claude-sonnet-4-5",
        "  openai:<model-id>            any OpenAI-compatible endpoint via the openai SDK (OPENAI_API_KEY,",
        "                               OPENAI_BASE_URL for llama.cpp, vLLM, Ollama), e.g. openai:gpt-4.1-mini",
        "  replay:<path>                replay a recorded cassette (JSONL) offline",
    ]
    try:
        knobs = sim_knobs()
    except ImportError as exc:  # keep --help working even if the simulator is broken
        return "\n".join([*lines, "", f"sim knobs: unavailable ({_one_line(exc)})"])
    lines += ["", "sim knobs (name, type, default, meaning):"]
    rows = [
        (name, getattr(kind, "__name__", str(kind)), _as_spec_text(default), description)
        for name, (kind, default, description) in knobs.items()
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    for name, type_name, default, description in rows:
        lines.append(f"  {name:<{widths[0]}}  {type_name:<{widths[1]}}  {default:<{widths[2]}}  {description}")
    return "\n".join(lines)


def _as_spec_text(value: Any) -> str:
    """A default as one would write it in a spec (`realtime=false`, `name=sim`; `-` for unset)."""
    if value is None:
        return "-"
    return str(value).lower() if isinstance(value, bool) else str(value)

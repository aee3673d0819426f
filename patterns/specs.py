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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDKs load with the provider that needs them, never with this module
    from .model import Model

SPEC_FORMS = "sim[:knob=value,...], anthropic:<model-id>, openai:<model-id> or replay:<path>"


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def sim_knobs() -> dict[str, tuple[type, Any, str]]:
    """`SimModel.KNOBS`: name -> (type, default, description)."""
    from .sim import SimModel  # the simulator is heavy; load it only when a spec needs it

    return dict(SimModel.KNOBS)


def parse_knob_value(name: str, kind: Any, text: str, *, label: str = "sim knob") -> Any:
    """`text` as a value of the knob's type (`patterns.sim.knobs.parse_value`: the one parser of knob text)."""
    from .sim.knobs import parse_value

    try:
        return parse_value(kind, text)
    except ValueError as exc:
        raise ValueError(f"bad value {text!r} for {label} {name!r}: {exc}") from None


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


def provider_of(text: object) -> str:
    """The provider a spec's text names (`sim`, `anthropic`, `openai`, `replay`), "" for none: the one
    reading of a spec's kind, also for text that need not parse in full (a results folder's `model` column)."""
    kind = str(text).strip().partition(":")[0].lower()
    return kind if kind in PROVIDERS else ""


@dataclass(frozen=True)
class ModelSpec:
    """A model spec as a value: `ModelSpec.parse("sim:error_rate=0.1")`, `str(spec)` gives the text back.

    `provider` is a key of `PROVIDERS` (`sim`, `anthropic`, `openai`, `replay`); `target` the model id or
    the cassette's path (empty for `sim`); `knobs` the simulator's knobs as written, in order. The text is
    parsed once, here: every question about a spec (is it the simulator? what knobs?) is asked of this
    value, never of the string. Knob values are checked by `load` (the simulator's ranges).
    """

    provider: str
    target: str = ""
    knobs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str | ModelSpec) -> ModelSpec:
        """The spec `text` names; a one-line ValueError naming the valid forms for anything else."""
        if isinstance(text, ModelSpec):
            return text
        if not isinstance(text, str):
            raise ValueError(f"a model spec must be a string, got {type(text).__name__}: use {SPEC_FORMS}")
        rest = text.strip().partition(":")[2]
        provider = provider_of(text)
        if not provider:
            raise ValueError(f"unknown model spec {text!r}: use {SPEC_FORMS}")
        if provider != "sim":
            return cls(provider, rest.strip())
        items = [item for item in rest.split(",") if item.strip()]
        parsed = parse_sim_knobs(items)  # names, types, duplicates
        return cls("sim", "", tuple((name, item.partition("=")[2].strip()) for name, item in zip(parsed, items,
                                                                                                strict=True)))

    @property
    def is_sim(self) -> bool:
        return self.provider == "sim"

    def knob_values(self) -> dict[str, Any]:
        """The simulator's knobs, typed (empty for another provider)."""
        return parse_sim_knobs([f"{name}={text}" for name, text in self.knobs])

    def with_knob(self, name: str, value: object) -> ModelSpec:
        """The same spec with one simulator knob set: a knob already given is replaced, never repeated."""
        if not self.is_sim:
            raise ValueError(f"a model knob ({name}) can only be set (or swept) on the sim model, not {str(self)!r}")
        text = _as_spec_text(value)
        parse_sim_knobs([f"{name}={text}"])  # the knob's name and type
        kept = tuple((k, v) for k, v in self.knobs if k != name)
        position = [k for k, _ in self.knobs].index(name) if name in dict(self.knobs) else len(kept)
        return ModelSpec("sim", "", (*kept[:position], (name, text), *kept[position:]))

    def load(self) -> Model:
        """The `Model` this spec names (see `PROVIDERS`); a one-line ValueError for a bad spec."""
        return PROVIDERS[self.provider](self)

    def __str__(self) -> str:
        if self.is_sim:
            return "sim" + (":" + ",".join(f"{k}={v}" for k, v in self.knobs) if self.knobs else "")
        return f"{self.provider}:{self.target}"


def load_model(spec: str | ModelSpec) -> Model:
    """The model `spec` names (see the module docstring); a bad spec is a one-line ValueError."""
    return ModelSpec.parse(spec).load()


def _load_sim(spec: ModelSpec) -> Model:
    from .sim import SimModel

    try:
        return SimModel(**spec.knob_values())
    except ValueError as exc:  # the simulator's own range checks, which name the valid knobs
        raise ValueError(_one_line(exc)) from None


_EXAMPLES = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1-mini"}


def _check_model_id(spec: ModelSpec) -> str:
    kind, model_id = spec.provider, spec.target
    if not model_id:
        raise ValueError(f"model spec {str(spec)!r} has no model id: use {kind}:<model-id>, e.g. "
                         f"{kind}:{_EXAMPLES[kind]}")
    if any(c.isspace() for c in model_id):
        raise ValueError(f"model id {model_id!r} has whitespace in it: use {kind}:<model-id>")
    return model_id


def _load_anthropic(spec: ModelSpec) -> Model:
    from .model import AnthropicModel

    return AnthropicModel(_check_model_id(spec))


def _load_openai(spec: ModelSpec) -> Model:
    """`openai:<id>`; the openai extra is checked here, so a missing one is one line."""
    model_id = _check_model_id(spec)
    from importlib.util import find_spec

    if find_spec("openai") is None:
        raise ValueError("openai:<model-id> needs the openai SDK: pip install 'workflow-vs-agent[openai]'")
    from .openai_model import OpenAIModel

    return OpenAIModel(model_id)


def _load_replay(spec: ModelSpec) -> Model:
    path = spec.target
    if not path:
        raise ValueError("model spec 'replay:' has no path: use replay:<path> to a cassette (.jsonl) file")
    if not Path(path).is_file():
        raise ValueError(f"replay cassette {path!r} does not exist: use replay:<path> to a cassette (.jsonl) file")
    from .replay import ReplayModel

    try:
        return ReplayModel(path, ordered=False)  # a sweep runs trials concurrently: match by request
    except ValueError as exc:  # a malformed cassette names its line
        raise ValueError(_one_line(exc)) from None


# The providers: a spec's first word -> how to build its model. A new provider is one function and one entry.
PROVIDERS: dict[str, Callable[[ModelSpec], Model]] = {
    "sim": _load_sim, "anthropic": _load_anthropic, "openai": _load_openai, "replay": _load_replay,
}


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

"""Walk processes whose answer is known: is the agent's next step drawable in advance, or not?

Each process is an agent's way of choosing its next tool call from the input and what the tools said, and the
tools' answers. The same definition generates synthetic walks directly (`generate`, for choosing and checking
drawability's threshold over many folders) and drives the `walks` task family (`family.py`), whose simulated
agent calls the tools, so that `wva bench` + `wva criterion` can be checked on it end to end.

A case's input is JSON: `{"case": <n>}` plus what code may read (`flags`, `reads`). What the model "knows" about a
case beyond that (which lookup a ticket needs, its own preferences on an open-ended walk) is a seeded function
of the case number that only the model's policy applies (`world`): the same in every trial of a case, so that a
choice it decides is a function of the instance. What varies from trial to trial comes from the trial's own
random stream (`rng`), and a *slip* (a decision made wrongly, at the error rate) from the caller.

Drawable: `retries` (a fixed path, a call retried when its result says it failed), `bounded_loop` (read as often
as the input says), `branching` (classify, then the handler the case needs), `routing` (the one lookup of five the
case needs), `parallel_map` (five lookups in any order), `optional_flags` (a fixed pipeline whose five optional
steps the input's flags switch on), `code_dispatch` (each result names the next tool, over ten tools).
Not drawable: `open_ended` (per case, a transition table the model draws its next tool from), `random_walk` (the
next tool at random, new in every trial), `first_random` (the first tool one of eight at random, then a reply).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.tasks.walks import known

Call = tuple[str, dict[str, Any]]
History = list[tuple[str, dict[str, Any], bool]]  # (tool, result, is_error) per call so far
Next = Callable[["Process", dict[str, Any], History, random.Random, bool], "Call | None"]


@dataclass(frozen=True)
class Process:
    name: str
    drawable: bool
    tools: tuple[str, ...]
    choose: Next
    settings: dict[str, Any] = field(default_factory=dict)

    def world(self, case: dict[str, Any]) -> random.Random:
        """What the model knows of a case beyond its input: the same stream in every trial of the case."""
        return random.Random(f"{self.name}:{case['case']}:{sorted(self.settings.items())}")

    def case(self, i: int, rng: random.Random) -> dict[str, Any]:
        """Case i's input, drawn from `rng` (its number names the case's world: another seed, other cases)."""
        if self.name in known.PLANS:
            return known.case_of(self, i, rng)
        out: dict[str, Any] = {"case": i * 1_000_000 + rng.randrange(1_000_000)}
        if self.name == "bounded_loop":
            out["reads"] = rng.randint(1, self.settings.get("most", 6))
        if self.name == "optional_flags":
            out["flags"] = {t: rng.random() < 0.5 for t in self.tools[:-1]}
        if self.name == "code_dispatch":  # the input names the trail's first step, as each result names the next
            out["next"] = _trail(self, out)[0]
        return out

    def result(self, case: dict[str, Any], tool: str, args: dict[str, Any], history: History) -> tuple[Any, bool]:
        """The tool's answer: an error when the call's `key` is not the case's; a trail names its next step."""
        if self.name in known.PLANS:
            return known.answer(self, case, tool, args, history)
        if args.get("key") != f"K-{case['case']}":
            return {"error": f"no record {args.get('key')!r}"}, True
        if self.name != "code_dispatch":
            return {"ok": True}, False
        trail = _trail(self, case)
        before, after = _hops(trail, history), _hops(trail, [*history, (tool, {}, False)])
        if len(after) >= len(trail):
            return {"found": "the answer", "next": None}, False
        return {"found": "a clue" if len(after) > len(before) else "nothing here", "next": trail[len(after)]}, False

    def next(self, case: dict[str, Any], history: History, rng: random.Random, slip: bool) -> Call | None:
        return self.choose(self, case, history, rng, slip)

    def round(self, case: dict[str, Any], rounds: known.Done, rng: random.Random, slip: bool) -> list[Call] | None:
        """The next round's calls from the rounds so far (one call, except an orchestrator's parallel round)."""
        if self.name in known.PLANS:
            return known.next_round(self, case, rounds, rng, slip)
        call = self.next(case, [(t, r if isinstance(r, dict) else {}, f) for rs in rounds for t, r, f in rs], rng, slip)
        return None if call is None else [call]


def _key(case: dict[str, Any], slip: bool) -> dict[str, Any]:
    return {"key": f"K-{case['case']}" if not slip else f"K-{case['case']}x"}


def _retried(history: History, most: int = 3) -> str | None:
    """The tool to call again when the last call failed (at most `most` tries in a row), else None."""
    if history and history[-1][2]:
        tool = history[-1][0]
        tries = 0
        for t, _, _ in reversed(history):
            if t != tool:
                break
            tries += 1
        return tool if tries < most else None
    return None


def _path(p: Process, case: dict[str, Any], history: History, slip: bool, path: tuple[str, ...]) -> Call | None:
    """Walk a fixed `path`, each call retried after a failure."""
    again = _retried(history)
    if again is not None:
        return again, _key(case, slip)
    done = sum(1 for _, _, err in history if not err)
    return (path[done], _key(case, slip)) if done < len(path) else None


def _retries(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    return _path(p, case, history, slip, p.tools)


def _bounded_loop(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    reads = sum(1 for t, _, _ in history if t == "read")
    if not history:
        return "plan", _key(case, False)
    if history[-1][0] == "summarise":
        return None
    more = reads < case["reads"] or (slip and reads == case["reads"])  # a slip: one more read than needed
    return ("read" if more else "summarise"), _key(case, False)


def _branching(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    shares = p.settings.get("shares", (0.5, 0.3, 0.2))
    handler = p.tools[1:-1][_pick(p.world(case), shares)]
    return _path(p, case, history, slip, ("classify", handler, "reply"))


def _routing(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    shares = p.settings.get("shares", (0.3, 0.25, 0.2, 0.15, 0.1))
    lookup = p.tools[:-1][_pick(p.world(case), shares)]
    return _path(p, case, history, slip, (lookup, "reply"))


def _parallel_map(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    done = {t for t, _, err in history if not err}
    left = [t for t in p.tools[:-1] if t not in done]
    if left:
        return rng.choice(left), _key(case, False)
    return None if "reply" in done else ("reply", _key(case, False))


def _optional_flags(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    path = (*(t for t in p.tools[:-1] if case["flags"][t]), p.tools[-1])
    return _path(p, case, history, slip, path)


def _open_ended(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    world, k = p.world(case), len(p.tools)
    concentration = p.settings.get("concentration", 0.3)
    first = _dirichlet(world, k, concentration)
    table = [_dirichlet(world, k, concentration) for _ in range(k)]
    if _ends(p, history, rng):
        return None
    weights = first if not history else table[p.tools.index(history[-1][0])]
    return p.tools[_pick(rng, weights)], _key(case, False)


def _random_walk(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    if _ends(p, history, rng):
        return None
    return rng.choice(p.tools), _key(case, False)


def _ends(p: Process, history: History, rng: random.Random) -> bool:
    """Does a random walk end after its calls so far: once it has `shortest` calls, with the chance that makes
    its length uniform on shortest..longest (decided call by call: a model keeps no state between calls)."""
    lo, hi, done = p.settings.get("shortest", 2), p.settings.get("longest", 8), len(history)
    return done >= lo and rng.random() < 1 / (hi - done + 1)


def _first_random(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    if not history:
        return rng.choice(p.tools[:-1]), _key(case, False)
    return None if history[-1][0] == "reply" else ("reply", _key(case, False))


def _code_dispatch(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    trail = _trail(p, case)
    if not history:
        right = trail[0]
    else:
        last = history[-1][1]
        if "next" not in last or last["next"] is None:
            return None
        right = last["next"]
    if slip:
        return rng.choice([t for t in p.tools if t != right]), _key(case, False)
    return right, _key(case, False)


def _trail(p: Process, case: dict[str, Any]) -> list[str]:
    world = p.world(case)
    hops = world.randint(p.settings.get("shortest", 2), p.settings.get("longest", 8))
    return world.sample(list(p.tools), min(hops, len(p.tools)))


def _hops(trail: list[str], history: History) -> list[str]:
    """The trail's steps the history has reached, in order (a wrong tool in between is a detour)."""
    got: list[str] = []
    for tool, _, err in history:
        if not err and len(got) < len(trail) and tool == trail[len(got)]:
            got.append(tool)
    return got


def _pick(rng: random.Random, weights: Any) -> int:
    u, total = rng.random() * sum(weights), 0.0
    for i, w in enumerate(weights):
        total += w
        if u < total:
            return i
    return len(weights) - 1


def _dirichlet(rng: random.Random, k: int, alpha: float) -> list[float]:
    draws = [rng.gammavariate(alpha, 1.0) for _ in range(k)]
    total = sum(draws) or 1.0
    return [d / total for d in draws]


_HANDLERS = ("refund", "track", "reset", "escalate", "upgrade")
_LOOKUPS = ("get_account", "track_order", "get_invoice", "search_kb", "get_plan", "get_device")
_CHOOSE: dict[str, tuple[bool, Next]] = {
    "retries": (True, _retries), "bounded_loop": (True, _bounded_loop), "branching": (True, _branching),
    "routing": (True, _routing), "parallel_map": (True, _parallel_map), "optional_flags": (True, _optional_flags),
    "code_dispatch": (True, _code_dispatch), "open_ended": (False, _open_ended),
    "random_walk": (False, _random_walk), "first_random": (False, _first_random),
}
NAMES = (*_CHOOSE, *known.PLANS)


def _tools(name: str, settings: dict[str, Any]) -> tuple[str, ...]:
    k = int(settings.get("tools", 0))
    fixed = {"retries": ("fetch", "parse", "save"), "bounded_loop": ("plan", "read", "summarise"),
             "parallel_map": ("lookup_a", "lookup_b", "lookup_c", "lookup_d", "lookup_e", "reply"),
             "optional_flags": ("step_1", "step_2", "step_3", "step_4", "step_5", "finish")}
    if name in fixed:
        return fixed[name]
    if name == "branching":
        return ("classify", *_HANDLERS[: len(settings.get("shares", (0.5, 0.3, 0.2)))], "reply")
    if name == "routing":
        return (*_LOOKUPS[: len(settings.get("shares", (0.3, 0.25, 0.2, 0.15, 0.1)))], "reply")
    if name == "code_dispatch":
        return tuple(f"place_{i}" for i in range(k or 10))
    if name == "first_random":
        return (*(f"tool_{i}" for i in range(k or 8)), "reply")
    return tuple(f"tool_{i}" for i in range(k or (5 if name == "open_ended" else 2)))


def make(name: str, **settings: Any) -> Process:
    """A process by name, with its settings (`tools`, `shortest`, `longest`, `most`, `shares`, `concentration`)."""
    if name in known.PLANS:
        return Process(name, known.PLANS[name][0], known.tools_of(name, settings), _known, dict(settings))
    if name not in _CHOOSE:
        raise ValueError(f"unknown process {name!r}: choose from {', '.join(NAMES)}")
    drawable, choose = _CHOOSE[name]
    return Process(name, drawable, _tools(name, settings), choose, dict(settings))


def _known(p: Process, case: dict, history: History, rng: random.Random, slip: bool) -> Call | None:
    raise TypeError(f"{p.name} walks in rounds: call Process.round")


def simulate(p: Process, case: dict[str, Any], rng: random.Random, error: float = 0.0,
             most: int = 60) -> list[list[tuple[str, dict[str, Any], Any, bool]]]:
    """One trial's rounds, each its calls (tool, arguments, result, is_error): the process's own agent, slipping at
    `error` per round."""
    history: History = []
    rounds: known.Done = []
    out = []
    for _ in range(most):
        calls = p.round(case, rounds, rng, rng.random() < error)
        if not calls:
            break
        done = []
        for tool, args in calls:
            result, failed = p.result(case, tool, args, history)
            done.append((tool, args, result, failed))
        history += [(t, r, f) for t, _, r, f in done]
        rounds.append([(t, r, f) for t, _, r, f in done])
        out.append(done)
    return out

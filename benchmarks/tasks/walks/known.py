"""The processes of drawability's known-truth table, as rounds of tool calls (`processes.py` runs them).

Each is the right next round, read from the input, the world of the case (what the model knows of it that code
cannot read) and the rounds accepted so far; and each tool's answer. A *slip* (at the error rate, per round) is
one call to a wrong tool, after which the process goes on: the round that slipped is not accepted (in a parallel
round, the slip is one worker too many, and the round still counts), so the next right round is the one the
slip replaced. Tools answer JSON code may read, except where the row says the next step is named in prose.

| process | truth | rounds |
|---|---|---|
| `poll`: submit, poll until a JSON status says ready (`shortest`-`longest` polls), fetch | drawn | |
| `pipeline`: a fixed sequence of `shortest`-`longest` steps | drawn | |
| `chaining`: follow a chain of keys, each from the previous result, then reply | drawn | |
| `lookup_json`: a lookup whose JSON names 1 of 6 handlers, then reply | drawn | |
| `lookup_prose`: a lookup whose prose the model reads to route to 1 of 6 handlers, then reply | drawn: routing | |
| `orchestrator`: 2-5 typed workers named by the input, in one parallel round, then a synthesis | drawn | |
| `retry`: fetch, retried after an error, at most 3 tries, then a fallback; then reply | drawn | |
| `prose_trail`: a trail over `tools` places, the next place named only in prose | not | |

(The code dispatch, the coin walk and the random first pick are `processes.py`'s `code_dispatch`, `random_walk`
and `first_random`.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Call = tuple[str, dict[str, Any]]
Done = list[list[tuple[str, Any, bool]]]  # the accepted rounds: (tool, result, is_error) per call
Plan = Callable[[Any, dict[str, Any], Done], "list[str] | None"]  # (process, case, accepted rounds) -> tools
WORKERS = ("work_price", "work_stock", "work_reviews", "work_specs", "work_shipping", "work_returns")
HANDLERS = ("refund", "track", "reset", "escalate", "upgrade", "cancel")
PROSE = "Noted. The clerk's note says where to go next, in words."


def length(p: Any, case: dict[str, Any], lo: int, hi: int) -> int:
    """The case's length (polls, steps, hops), a function of the case as the model knows it."""
    return p.world(case).randint(p.settings.get("shortest") or lo, p.settings.get("longest") or hi)


def _poll(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    if not done:
        return ["submit"]
    last = done[-1][0]
    if last[0] == "fetch_result":
        return None
    ready = last[0] == "poll" and isinstance(last[1], dict) and last[1].get("status") == "ready"
    return ["fetch_result"] if ready else ["poll"]


def _pipeline(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    steps = length(p, case, 3, 3)
    return [p.tools[len(done)]] if len(done) < steps else None


def _chaining(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    if done and done[-1][0][0] == "reply":
        return None
    finished = bool(done) and isinstance(done[-1][0][1], dict) and done[-1][0][1].get("done") is True
    return ["reply"] if finished else ["follow"]


def _handler(p: Any, case: dict[str, Any]) -> str:
    return p.world(case).choice(HANDLERS)


def _lookup(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    path = ("lookup", _handler(p, case), "reply")
    return [path[len(done)]] if len(done) < len(path) else None


def _orchestrator(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    path: list[list[str]] = [list(case["subtasks"]), ["synthesise"]]
    return path[len(done)] if len(done) < len(path) else None


def _retry(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    tools = [r[0][0] for r in done]
    if not tools:
        return ["fetch"]
    if tools[-1] == "reply":
        return None
    if tools[-1] == "fetch" and done[-1][0][2]:
        return ["fetch"] if tools.count("fetch") < 3 else ["fallback"]
    return ["reply"]


def _prose_trail(p: Any, case: dict[str, Any], done: Done) -> list[str] | None:
    trail = trail_of(p, case)
    return [trail[len(done)]] if len(done) < len(trail) else None


def trail_of(p: Any, case: dict[str, Any]) -> list[str]:
    hops = length(p, case, 2, 4)
    return p.world(case).sample(list(p.tools), min(hops, len(p.tools)))


PLANS: dict[str, tuple[bool, Plan]] = {
    "poll": (True, _poll), "pipeline": (True, _pipeline), "chaining": (True, _chaining),
    "lookup_json": (True, _lookup), "lookup_prose": (True, _lookup), "orchestrator": (True, _orchestrator),
    "retry": (True, _retry), "prose_trail": (False, _prose_trail),
}


def tools_of(name: str, settings: dict[str, Any]) -> tuple[str, ...]:
    fixed = {"poll": ("submit", "poll", "fetch_result"), "chaining": ("follow", "reply"),
             "lookup_json": ("lookup", *HANDLERS, "reply"), "lookup_prose": ("lookup", *HANDLERS, "reply"),
             "orchestrator": (*WORKERS, "synthesise"), "retry": ("fetch", "fallback", "reply")}
    if name in fixed:
        return fixed[name]
    if name == "pipeline":
        steps = max(settings.get("longest") or 3, settings.get("shortest") or 0, 3)  # a slip needs another step
        return tuple(f"step_{i + 1}" for i in range(steps))
    return tuple(f"place_{i}" for i in range(int(settings.get("tools") or 12)))


def case_of(p: Any, i: int, rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {"case": i * 1_000_000 + rng.randrange(1_000_000)}
    if p.name == "orchestrator":
        out["subtasks"] = sorted(rng.sample(WORKERS, rng.randint(2, 5)))
    if p.name == "chaining":
        out["key"] = f"K-{out['case']}-0"
    return out


def answer(p: Any, case: dict[str, Any], tool: str, args: dict[str, Any], history: list) -> tuple[Any, bool]:
    """The tool's answer to a call, given the calls before it ((tool, result, is_error) each)."""
    key = f"K-{case['case']}"
    if p.name == "chaining" and tool == "follow":
        hop = str(args.get("key", "")).removeprefix(key + "-")
        if not hop.isdigit():
            return {"error": f"no record {args.get('key')!r}"}, True
        hops = length(p, case, 3, 3)
        return ({"done": True} if int(hop) + 1 >= hops else {"done": False, "key": f"{key}-{int(hop) + 1}"}), False
    if args.get("key") != key:
        return {"error": f"no record {args.get('key')!r}"}, True
    polls = sum(1 for t, _, _ in history if t == "poll") + (tool == "poll")
    if p.name == "poll" and tool == "poll":
        return {"status": "ready" if polls >= length(p, case, 1, 3) else "pending"}, False
    if p.name == "retry" and tool == "fetch":
        failures = p.world(case).randint(0, 3)
        tries = sum(1 for t, _, _ in history if t == "fetch")
        return ({"error": "the service is busy"}, True) if tries < failures else ({"ok": True}, False)
    if p.name == "lookup_json" and tool == "lookup":
        return {"handler": _handler(p, case)}, False
    if p.name in ("lookup_prose", "prose_trail"):
        return PROSE, False
    return {"ok": True}, False


def arguments(p: Any, case: dict[str, Any], tool: str, done: Done) -> dict[str, Any]:
    """A call's arguments: the case's key, or for a chain's next hop the key the last result named."""
    if p.name == "chaining" and tool == "follow":
        last = done[-1][0][1] if done and isinstance(done[-1][0][1], dict) else {}
        return {"key": last.get("key", case["key"])}
    return {"key": f"K-{case['case']}"}


def accepted(p: Any, case: dict[str, Any], rounds: Done) -> Done:
    """The rounds the process accepts: each holding the tools it expected then (a slipped round is dropped)."""
    plan = PLANS[p.name][1]
    done: Done = []
    for r in rounds:
        want = plan(p, case, done)
        if want is not None and set(want) <= {t for t, _, _ in r} and (len(want) > 1 or len(r) == 1):
            done.append(r)
    return done


def next_round(p: Any, case: dict[str, Any], rounds: Done, rng: random.Random, slip: bool) -> list[Call] | None:
    """The next round's calls, slipping (see the module docstring) when `slip`."""
    done = accepted(p, case, rounds)
    want = PLANS[p.name][1](p, case, done)
    if want is None:
        return None
    calls = [(t, arguments(p, case, t, done)) for t in want]
    if not slip:
        return calls
    if len(want) > 1:  # one worker too many in the parallel round
        extra = [t for t in p.tools if t not in want and t.startswith("work_")]
        return [*calls, (rng.choice(extra), arguments(p, case, extra[0], done))] if extra else calls
    wrong = rng.choice([t for t in p.tools if t != want[0]])
    return [(wrong, arguments(p, case, wrong, done))]

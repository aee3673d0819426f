"""A walk's transitions as a drawing reads them: its steps after fan-out merging, each transition with the
fields code could read there (`learn.py` says what is learned from them).

Two labels are *order-free* when, in at least `ORDER_FREE` of the drawing instances whose trials hold both, they
came first in either order; a stretch of a walk made of distinct, pairwise order-free labels is one step (five
lookups in any order are one step of five lookups, as a parallel map is drawn). Labels met in one order (fetch,
then parse), or in an order the instance decides (a trail, the same in each of its trials), stay apart; with one
trial per instance no order can be seen to vary.

A *parallel round* (one reply calling several tools at once) is order-free by construction, and which of its
typed workers it calls is the planner's business, not a different step: the tools ever called together in one
round form a worker pool (`PAR` marks it among the order-free pairs), and every round of that pool is one step
named after the whole pool (an orchestrator calling any 2-5 of six typed workers is one step, not 56).

The reserved nodes `START` and `END` are spelled with characters no tool name may hold (the Messages API allows
`[a-zA-Z0-9_-]` only), so a tool named `start` or `end` is a step like any other.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.criterion.drawability.walks import Fields, Walk, name_of

START, END = "<start>", "<end>"  # no tool name can collide with them
PAR = "||"  # marks a worker pool among the order-free sets (never a tool name either)
ORDER_FREE = 0.5  # both orders within one instance's trials, in this share of the instances: order-free
MIN_INSTANCES = 2  # a rule generalises over instances, not one's trials (the one-pass counts check 'more than one')


@dataclass(frozen=True)
class Move:
    """One transition of a walk: from node `u`, with what code could read there, to node `v`."""

    instance: int
    u: str
    v: str
    feats: Mapping[str, str]
    calls: tuple[tuple[str, str], ...] = ()  # the calls of step `v`: (tool, arguments JSON)
    stretch: int = 0  # how many times in a row the walk had been at `u` when it left (0 at the start)
    path: tuple[str, ...] = ()  # the nodes the walk went through before `u` (how the process got here)

    def state(self) -> tuple[tuple[str, ...], str, tuple[tuple[str, str], ...]]:
        """Where the decision was made, as trials are lined up by: the way here, the node, what code could read
        (two trials are at the same point of the process only if they got there the same way: after a slip's
        detour, the process's state is not what the node alone says)."""
        return self.path, self.u, tuple(sorted(self.feats.items()))


def order_free(walks: Sequence[Walk], instances: Sequence[int] | None = None,
               share: float = ORDER_FREE) -> frozenset[frozenset[str]]:
    """The pairs of node names whose order does not matter (see the module docstring): among the instances whose
    every trial (two or more) holds both, the share in which they came first in either order, and last in either
    order, is at least `share`, and at least `MIN_INSTANCES` of them (a slip that visits a step early changes
    which comes first, not which comes last). An order the instance decides (a trail) is the same in each of
    its trials, and a step only a slip visits is not in every trial; with one trial per instance no order can be
    seen to vary, and no pair is order-free."""
    owners = list(instances) if instances is not None else list(range(len(walks)))
    orders: dict[int, dict[tuple[str, str], list[tuple[bool, bool]]]] = {}
    trials: Counter[int] = Counter(owners)
    par = frozenset(frozenset({PAR, *pool}) for pool in pools(walks))
    for walk, i in zip(walks, owners, strict=True):
        names = [pool_name(s.label, par) for s in walk.steps]
        first = {n: k for k, n in reversed(list(enumerate(names)))}
        last = {n: k for k, n in enumerate(names)}
        mine = orders.setdefault(i, {})
        for x, y in itertools.combinations(sorted(first), 2):
            mine.setdefault((x, y), []).append((first[x] < first[y], last[x] < last[y]))
    both: Counter[tuple[str, str]] = Counter()
    held: Counter[tuple[str, str]] = Counter()
    for i, mine in orders.items():
        for pair, ways in mine.items():
            if trials[i] >= 2 and len(ways) == trials[i]:  # in every trial of the instance: part of its walk
                held[pair] += 1
                both[pair] += len({f for f, _ in ways}) == 2 and len({la for _, la in ways}) == 2
    pairs = {frozenset(p) for p, k in held.items() if both[p] >= max(MIN_INSTANCES, share * k)}
    return frozenset(pairs | par)


def pools(walks: Sequence[Walk]) -> list[frozenset[str]]:
    """The worker pools: tools called together in one round, joined transitively (see the module docstring)."""
    found: list[set[str]] = []
    for walk in walks:
        for step in walk.steps:
            if len(step.label) < 2:
                continue
            joined = set(step.label)
            for pool in [p for p in found if p & joined]:
                joined |= pool
                found.remove(pool)
            found.append(joined)
    return [frozenset(p) for p in found]


def pool_name(label: frozenset[str], free: frozenset[frozenset[str]]) -> str:
    """A round's node name: a parallel round is named after its worker pool (the pools it touches, joined)."""
    if len(label) < 2:
        return name_of(label)
    tools = set(label)
    for p in free:
        if PAR in p and p & label:
            tools |= p - {PAR}
    return name_of(frozenset(tools))


def merged(walk: Walk, free: frozenset[frozenset[str]]) -> list[tuple[str, Fields, tuple[tuple[str, str], ...]]]:
    """The walk as (node name, fields, calls) steps, each stretch of distinct pairwise order-free labels one step."""
    out: list[tuple[set[str], list[str], dict[str, str], list[tuple[str, str]]]] = []
    for s in walk.steps:
        name = pool_name(s.label, free)
        last = out[-1] if out else None
        if free and last is not None and name not in last[1] and all(frozenset((name, o)) in free for o in last[1]):
            last[0].update(s.label)
            last[1].append(name)
            last[2].update(s.fields)
            last[3].extend(s.calls)
        else:
            out.append((set(name.split("+")), [name], dict(s.fields), list(s.calls)))
    return [(name_of(frozenset(tools)), tuple(sorted(f.items())), tuple(c)) for tools, _, f, c in out]


def moves(walk: Walk, free: frozenset[frozenset[str]], instance: int = 0) -> list[Move]:
    """The walk's transitions, start to end, each with the fields code could read there: the input's, and those
    of the last round (a single call's without the tool's name: `next.tool`, `is_error`)."""
    inputs = dict(walk.inputs)
    path, out, feats = merged(walk, free), [], inputs
    prev, run, way = START, 0, ()
    for name, fields, calls in path:
        out.append(Move(instance, prev, name, feats, calls, run, way))
        feats = {**inputs, **plain(name, fields)}
        run = run + 1 if name == prev else 1
        way, prev = (*way, prev), name
    out.append(Move(instance, prev, END, feats, (), run, way))
    return out


def plain(name: str, fields: Fields) -> dict[str, str]:
    """A single tool's fields under their own path (`next.tool`, `is_error`: the step already says which tool);
    a fan-out's, under each tool's name (`get_item.price`, `get_item#2.price`)."""
    if "+" in name:
        return dict(fields)
    cut = len(name) + 1
    return {k[cut:] if k.startswith(name + ".") else k: v for k, v in fields}



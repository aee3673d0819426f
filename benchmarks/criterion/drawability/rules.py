"""The code dispatches a drawing learns (`learn.py`): a decision list per step, the rules that hold everywhere,
a pipeline whose optional steps the input switches on, and where the arguments of a dispatched call come from.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from benchmarks.criterion.drawability.decisions import consistent, lined_up
from benchmarks.criterion.drawability.moves import END, MIN_INSTANCES, START, Move

PIPELINE = 0.8  # a pipeline explains this share of the moves between different steps (a loop's are not)
ACCURACY = 0.6  # a dispatch rule is right at least this often where it applies (where trials line up: `lined_up`)


@dataclass(frozen=True)
class Rule:
    """A code dispatch: `names` (go to the tool `field` names), `equals` (if `field` == `value`, go to `target`),
    `always` (go to `target`)."""

    kind: str
    field: str = ""
    value: str = ""
    target: str = ""

    def predict(self, feats: Mapping[str, str]) -> str | None:
        if self.kind == "always":
            return self.target
        got = feats.get(self.field)
        if got is None:
            return None
        if self.kind == "names":
            return got if got not in ("", "null") else None  # a field naming nothing names no step
        return self.target if got == self.value else None

    def text(self) -> str:
        target = "end" if self.target == END else self.target  # as a reader calls it (no tool can be `<end>`)
        if self.kind == "names":
            return f"the tool {self.field} names"
        return target if self.kind == "always" else f"{self.field} = {self.value} → {target}"


def decision_list(moves_: Sequence[Move], pooled: bool = False) -> tuple[Rule, ...]:
    """The rules that explain a step's next steps, learned greedily (see the module docstring); `pooled`: over
    every step's moves at once, so no `always` rule (a fixed edge belongs to one step)."""
    remaining, rules = lined_up(moves_), []
    while remaining:
        rule = next((r for r in _candidates(remaining, pooled) if _holds(r, remaining)), None)
        if rule is None:
            break
        rules.append(rule)
        remaining = [m for m in remaining if rule.predict(m.feats) is None]
    return tuple(rules)


def _holds(rule: Rule, ms: Sequence[Move]) -> bool:
    """A rule is the process, its misses the agent's slips, only where it is right at least as often as the
    agent agrees with itself at the same states (`decisions.consistent`): a majority the agent departs from
    consistently (the exit of a loop the input counts) is no rule. A retry on an error, left at the longest
    stretch the drawing walks made, is leaving at the loop's bound (the drawing keeps it), not a miss."""
    covered = [(m, got) for m in ms if (got := rule.predict(m.feats)) is not None]
    on_error = rule.kind == "equals" and "error" in rule.field and rule.value != "false"
    if covered and on_error and all(got == m.u for m, got in covered):  # a retry: leaving at its longest is its bound
        top = max(m.stretch for m, _ in covered)
        covered = [(m, got) for m, got in covered if m.stretch < top or m.v == m.u]
    ways = len({m.v for m in ms})  # the coin a rule must beat picks among the step's next steps, not the rule's
    return consistent([m for m, _ in covered], [got == m.v for m, got in covered], ways)


def _candidates(ms: Sequence[Move], pooled: bool = False) -> list[Rule]:
    """The rules that hold on these moves' counts, the one predicting the most right first (see the module
    docstring).

    Counted in one pass with plain dicts (it runs for every step of every drawing set): per (field, value, next
    step) how many moves, and whether more than one instance made them."""
    counts: dict[tuple[str, str, str], int] = {}
    totals: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str, str], int] = {}
    several: set[tuple[str, str, str]] = set()
    for m in ms:
        for f, val in m.feats.items():
            k = (f, val, m.v)
            n = counts.get(k)
            if n is None:
                counts[k], first[k] = 1, m.instance
            else:
                counts[k] = n + 1
                if first[k] != m.instance:
                    several.add(k)
            totals[f, val] = totals.get((f, val), 0) + 1
    candidates: list[tuple[tuple[int, float, int, int, str, str], Rule]] = []
    targets = Counter(m.v for m in ms)
    target, n = targets.most_common(1)[0]
    if not pooled and n >= ACCURACY * len(ms) and len({m.instance for m in ms}) >= MIN_INSTANCES:
        candidates.append(((n, n / len(ms), 0, 0, "", ""), Rule("always", target=target)))
    for k in several:  # at least two instances: MIN_INSTANCES
        f, val, target = k
        right, total = counts[k], totals[f, val]
        if right >= ACCURACY * total:
            candidates.append(((right, right / total, 1, -len(f), f, val), Rule("equals", f, val, target)))
    if (names := best_names(ms)) is not None:
        right = sum(1 for m in ms if m.feats.get(names.field) == m.v)
        candidates.append(((right, 1.0, 2, -len(names.field), names.field, ""), names))
    return [rule for _, rule in sorted(candidates, key=lambda c: c[0], reverse=True)]


def best_names(ms: Sequence[Move]) -> Rule | None:
    """The `names` rule (the next step is the tool a field names) that predicts most of `ms` right and holds."""
    matched: dict[str, int] = {}
    right: dict[str, int] = {}
    first: dict[str, int] = {}
    several: set[str] = set()
    for m in ms:
        for f, val in m.feats.items():
            matched[f] = matched.get(f, 0) + 1
            if val == m.v:
                right[f] = right.get(f, 0) + 1
                if first.setdefault(f, m.instance) != m.instance:
                    several.add(f)
    held = [(right[f], -len(f), f) for f in several if right[f] >= ACCURACY * matched[f]]
    return Rule("names", max(held)[2]) if held else None


def pipeline(per_walk: Sequence[Sequence[Move]]) -> tuple[tuple[str, str, str], ...]:
    """A pipeline whose optional steps the input switches on: every step's first visit in one order in every
    walk, and each step either in every walk or in exactly those whose input has one field's value (at least
    `MIN_INSTANCES` instances with and without it). Empty when the walks are not such a pipeline."""
    paths = [list(dict.fromkeys(m.v for m in ms[:-1])) for ms in per_walk]
    precedes = nx.DiGraph([pair for path in paths for pair in itertools.pairwise(path)])
    precedes.add_nodes_from(n for path in paths for n in path)
    if not len(precedes) or not nx.is_directed_acyclic_graph(precedes):
        return ()
    order = list(nx.lexicographical_topological_sort(precedes))
    rank = {n: i for i, n in enumerate(order)}
    inputs = [ms[0].feats for ms in per_walk]
    steps = []
    for n in sorted(order, key=rank.__getitem__):
        present = [n in path for path in paths]
        if all(present):
            steps.append((n, "", ""))
            continue
        switch = _switch(present, inputs, [ms[0].instance for ms in per_walk])
        if switch is None:
            return ()
        steps.append((n, *switch))
    # it must be what the drawing walks did: their moves between different steps, as often as a rule must be
    between = [(m, ms[0].feats) for ms in per_walk for m in ms if m.u != m.v]
    right = sum(in_sequence(tuple(steps), m.u, feats) == m.v for m, feats in between)
    return tuple(steps) if right >= PIPELINE * len(between) else ()


def in_sequence(sequence: Sequence[tuple[str, str, str]], node: str, feats: Mapping[str, str]) -> str | None:
    """A pipeline's next step after `node` whose switch is on (END after the last; None: `node` is not in it)."""
    names = [n for n, _, _ in sequence]
    if not names or (node != START and node not in names):
        return None
    for n, f, value in sequence[names.index(node) + 1 if node != START else 0:]:
        if not f or feats.get(f) == value:
            return n
    return END


def arguments_of(per_walk: Sequence[Sequence[Move]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per tool, where code finds each argument of its calls: a field whose value was the argument in at least
    `ACCURACY` of the drawing calls of the tool (the rest: the agent's slips, a mistyped key, as a dispatch rule
    allows), over at least `MIN_INSTANCES` instances; the field right most often, then the shortest. A tool with
    an argument no field gives is left out: code cannot call it, only the model can. A field is named without
    `input.`: the first call reads it from the input (`input.next.key`), a later one from a result (`next.key`)."""
    seen: dict[str, list[tuple[dict[str, str], Mapping[str, str], int]]] = {}
    for ms in per_walk:
        for m in ms:
            for tool, args in m.calls if len(m.calls) == 1 else ():
                seen.setdefault(tool, []).append((_texts(args), m.feats, m.instance))
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for tool, calls in seen.items():
        if len({i for _, _, i in calls}) < MIN_INSTANCES or len({tuple(a) for a, _, _ in calls}) != 1:
            continue
        found = [(arg, _source(arg, calls)) for arg in calls[0][0]]
        if all(f is not None for _, f in found):
            out[tool] = tuple((arg, str(f)) for arg, f in found)
    return out


def _source(arg: str, calls: Sequence[tuple[dict[str, str], Mapping[str, str], int]]) -> str | None:
    """The field that held `arg`'s value in at least `ACCURACY` of the calls (a field read after a step and the
    input's of the same name count as one), or None."""
    right: Counter[str] = Counter()
    for args, feats, _ in calls:
        right.update({f.removeprefix("input.") for f, v in feats.items() if v == args.get(arg)})
    kept = [f for f, n in right.items() if n >= ACCURACY * len(calls)]
    return min(kept, key=lambda f: (-right[f], len(f), f)) if kept else None


def _texts(call_json: str) -> dict[str, str]:
    """A call's arguments as the text a field would hold (`patterns.fields`' spelling)."""
    try:
        value = json.loads(call_json)
    except ValueError:
        return {}
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _switch(present: Sequence[bool], inputs: Sequence[Mapping[str, str]],
            owners: Sequence[int]) -> tuple[str, str] | None:
    """The input field and value present exactly where the step is (ties: the shortest field name)."""
    on = {i for i, p in zip(owners, present, strict=True) if p}
    off = {i for i, p in zip(owners, present, strict=True) if not p}
    if len(on) < MIN_INSTANCES or len(off) < MIN_INSTANCES:
        return None
    candidates = {(f, v) for feats, p in zip(inputs, present, strict=True) if p for f, v in feats.items()}
    held = [(len(f), f, v) for f, v in candidates
            if all((feats.get(f) == v) == p for feats, p in zip(inputs, present, strict=True))]
    return (min(held)[1], min(held)[2]) if held else None

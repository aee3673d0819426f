"""Learn the graph an engineer would draw from some walks: its steps, its bounded loops, the dispatches code can
make, and the few choices left to the model (`learn`), in the one sense of "drawn" the patterns use
(`patterns.workflows.choices`): who decides the next step.

1. **Fan-out steps.** Labels whose order varies from trial to trial of the same input are one step: two labels
   are *order-free* when, in at least `ORDER_FREE` of the drawing instances whose trials hold both, they came
   first in either order; a stretch of a walk made of distinct, pairwise order-free labels is merged into one
   step (five lookups in any order are one step of five lookups, as a parallel map is drawn). Labels met in one
   order (fetch, then parse), or in an order the instance decides (a trail), stay apart.
2. **Code dispatches.** At each step, the next step is explained by code when a rule reads it off a
   code-readable value of the last result or of the input (`walks.py`): a decision list per step, learned
   greedily — `names` (the next step is the tool a field names: `next.tool`), `equals` (a field's value picks a
   step: `is_error == true` → again, `input.flag_3 == true` → step 3) or `always` (a fixed edge). Rules are
   learned where the instance's trials line up (`decisions.lined_up`: a state reached once is a slip's
   aftermath), kept when they predict the next step for at least `MIN_INSTANCES` drawing instances, right at
   least `ACCURACY` of the times they apply and at least as often as the agent agrees with itself there
   (`decisions.consistent`: the rest are its slips). A `names` rule that holds over every step is kept for
   the drawing as a whole (`anywhere`): it reaches steps no drawing walk went to.
3. **Model choices.** Where no rule applies the model decides (`decisions.py`): its choices that follow each
   other are one choice, with its ways counted over the tree, whether it is on a loop, and how much it depends on
   the instance. An edge no rule explains is kept as a way on when at least `min_share` of the drawing walks took
   it, the most taken first (ties: by name); a router not on a loop keeps them all (routing, however wide), an
   agent-like choice at most `cap` (`patterns.workflows.K`: the drawn workflow never offers more on a loop), the
   start's at most `routes` (None: no limit).
4. **Bounds.** A step may repeat in a row as often as one instance repeated it in two of its walks (any walk,
   where instances have one), be visited as often as any
   drawing walk visited it, and a walk may be as long as the longest drawing walk; a step only a dispatch
   reaches is bounded as the drawing's most visited step.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from benchmarks.criterion.drawability.decisions import Choice, choices_of, lined_up, repeats
from benchmarks.criterion.drawability.moves import END, START, Move, moves, order_free
from benchmarks.criterion.drawability.rules import Rule, arguments_of, decision_list, in_sequence, pipeline
from benchmarks.criterion.drawability.walks import Walk
from patterns.workflows.choices import K

CAP = K
ROUTES: int | None = None
MIN_SHARE = 0.05

__all__ = ["CAP", "END", "MIN_SHARE", "ROUTES", "START", "Drawing", "Move", "Rule", "learn", "moves"]


@dataclass(frozen=True)
class Drawing:
    """A learned drawing (see the module docstring): what `fit` reads."""

    walks: int
    cap: int
    min_share: float
    routes: int | None
    free: frozenset[frozenset[str]]  # order-free pairs of node names
    rules: Mapping[str, tuple[Rule, ...]]  # per node, its decision list
    anywhere: tuple[Rule, ...]  # rules that hold over every step
    edges: Mapping[str, tuple[str, ...]]  # per node, the model's kept ways on (most taken first)
    bound: Mapping[str, int]  # most repeats in a row
    visits: Mapping[str, int]  # most visits in one walk
    longest: int  # most steps in one walk
    tools: Mapping[str, tuple[str, ...]]  # per node, its tools
    taken: Mapping[tuple[str, str], int] = field(default_factory=dict)  # drawing walks per transition
    through: Mapping[str, int] = field(default_factory=dict)  # drawing walks per node
    sequence: tuple[tuple[str, str, str], ...] = ()  # a pipeline's steps in order, each (node, field, value)
    args: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # per tool: (argument, field)
    choices: Mapping[str, Choice] = field(default_factory=dict)  # per node where the model decides, its choice

    @cached_property
    def _plan(self) -> dict[str, tuple[tuple[Rule, ...], bool, tuple[Rule, ...]]]:
        """Per node: its retry rules (back to itself), whether the pipeline holds it, its other rules."""
        nodes = {*self.rules, START, *(n for n, _, _ in self.sequence)}
        held = {START, *(n for n, _, _ in self.sequence)} if self.sequence else set()
        return {n: (tuple(r for r in self.rules.get(n, ()) if r.target == n), n in held, self.rules.get(n, ()))
                for n in nodes}

    def predict(self, node: str, feats: Mapping[str, str]) -> str | None:
        """What code decides after `node`: the step's own retry (a rule back to itself), else the pipeline's next
        step, else the step's other rules, else the rules that hold everywhere (None: the model decides)."""
        plan = self._plan.get(node)
        if plan is not None:
            retry, in_pipeline, own = plan
            got = _first(retry, feats) if retry else None
            if got is None and in_pipeline:
                got = in_sequence(self.sequence, node, feats)
            if got is None and own:
                got = _first(own, feats)
            if got is not None:
                return got
        return _first(self.anywhere, feats)

    def in_sequence(self, node: str, feats: Mapping[str, str]) -> str | None:
        return in_sequence(self.sequence, node, feats)


def _first(rules: Sequence[Rule], feats: Mapping[str, str]) -> str | None:
    for rule in rules:
        got = rule.predict(feats)
        if got is not None:
            return got
    return None


def learn(walks: Sequence[Walk], *, cap: int = CAP, min_share: float = MIN_SHARE, routes: int | None = ROUTES,
          instances: Sequence[int] | None = None, moves_of: Callable[[int, frozenset[frozenset[str]]],
                                                                      list[Move]] | None = None,
          full: bool = True) -> Drawing:
    """The drawing learned from `walks` (see the module docstring); `instances[i]` says which instance walk i
    is of (default: each its own), for the rules' support. `moves_of(i, free)` may give walk i's moves (a cache
    across drawing sets); `full=False` leaves out what only drawing and running it need (the walks per node and
    edge, the arguments' fields), as drawability's hundreds of drawing sets do."""
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    if routes is not None and routes < 1:
        raise ValueError(f"routes must be >= 1 or None, got {routes}")
    if not 0 <= min_share < 1:
        raise ValueError(f"min_share must be in [0, 1), got {min_share}")
    owners = list(instances) if instances is not None else list(range(len(walks)))
    free = order_free(walks, owners)
    per_walk = [moves(w, free, i) if moves_of is None else moves_of(k, free)
                for k, (w, i) in enumerate(zip(walks, owners, strict=True))]
    everything = [m for ms in per_walk for m in ms]
    by_node: dict[str, list[Move]] = {}
    for m in everything:
        by_node.setdefault(m.u, []).append(m)
    rules = {u: r for u, ms in by_node.items() if (r := decision_list(ms))}
    anywhere = decision_list(everything, pooled=True)
    draft = Drawing(len(walks), cap, min_share, routes, free, rules, anywhere, {}, {}, {}, 0, {},
                    sequence=pipeline(per_walk))
    unexplained: Counter[tuple[str, str]] = Counter()
    model: list[Move] = []
    code: set[tuple[str, str]] = set()
    for ms in per_walk:
        predicted = [draft.predict(m.u, m.feats) for m in ms]
        unexplained.update({(m.u, m.v) for m, p in zip(ms, predicted, strict=True) if p != m.v})
        code.update((m.u, m.v) for m, p in zip(ms, predicted, strict=True) if p == m.v)
        model += [m for m, p in zip(ms, predicted, strict=True) if p is None]
    return _finish(draft, per_walk, unexplained, choices_of(lined_up(model), code, repeats(owners)), full)


def _repeated(runs: dict[tuple[int, str], list[int]]) -> dict[str, int]:
    """A node's bound where trials repeat: the longest run at it that one instance made in two or more of its walks
    (a slip that drags a retry on in one trial does not move the loop's bound); none where nothing repeats."""
    out: dict[str, int] = {}
    for (_, name), ks in runs.items():
        if len(ks) >= 2:
            out[name] = max(out.get(name, 1), sorted(ks)[-2])
    return out


def _finish(draft: Drawing, per_walk: list[list[Move]], unexplained: Counter[tuple[str, str]],
            choices: Mapping[str, Choice], full: bool = True) -> Drawing:
    common = {e: k for e, k in unexplained.items() if k >= draft.min_share * draft.walks}
    edges: dict[str, tuple[str, ...]] = {}
    for u in sorted({u for u, _ in common}):
        ranked = sorted((v for uu, v in common if uu == u), key=lambda v: (-common[u, v], v))
        wide = u in choices and choices[u].agent_like
        edges[u] = tuple(ranked[: draft.routes if u == START else draft.cap if wide else None])
    bound: dict[str, int] = {}
    visits: dict[str, int] = {}
    tools: dict[str, tuple[str, ...]] = {}
    taken: Counter[tuple[str, str]] = Counter()
    through: Counter[str] = Counter()
    runs: dict[tuple[int, str], list[int]] = {}  # (instance, node): each walk's longest run at it
    for ms in per_walk:
        names = [m.v for m in ms[:-1]]
        longest_run: dict[str, int] = {}
        for name, run in itertools.groupby(names):
            longest_run[name] = max(longest_run.get(name, 1), len(list(run)))
            bound[name] = max(bound.get(name, 1), longest_run[name])
        for name, k in longest_run.items():
            runs.setdefault((ms[0].instance, name), []).append(k)
        for name, k in Counter(n for n, _ in itertools.groupby(names)).items():
            visits[name] = max(visits.get(name, 0), k)
        tools.update({name: tuple(name.split("+")) for name in names})
        if full:
            taken.update({(m.u, m.v) for m in ms})
            through.update(set(names))
    longest = max((len(ms) - 1 for ms in per_walk), default=0)
    bound.update(_repeated(runs))
    return Drawing(draft.walks, draft.cap, draft.min_share, draft.routes, draft.free, draft.rules, draft.anywhere,
                   edges, bound, visits, longest, tools, dict(taken), dict(through), draft.sequence,
                   arguments_of(per_walk) if full else {}, dict(choices))



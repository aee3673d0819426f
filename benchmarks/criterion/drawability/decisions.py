"""Decisions, not walks: who decides each transition of a walk, and whether that decision is drawn.

A walk is read as its decisions, each a transition taken at a *state*: the node, how many times in a row it has
been visited, and what code could read there. The trials of one instance are lined up by state: a state two or
more trials reached is a point where the agent's self-agreement can be read.

**Where code decides** (a rule of the drawing predicts the next step; a bounded loop past its bound exits to one
of its kept ways), the agent's deviations are judged against its own consistency. At the instance's lined-up
states of that node, the rule is right with rate R and the agent agrees with itself (two of its moves at the same
state chose the same step) with rate A. When R >= A the deviations are the agent's slips: a rule it follows at
least as often as it repeats itself is the process, and the decision scores 1; otherwise R / A.

**Where the model decides** (no rule applies), the choices that follow each other form one *choice*: a model
decision whose chosen step is again a model decision over overlapping ways belongs to the same choice tree, and its
width counts the ways of the whole tree (`patterns.workflows.choices.model_choices` on the graph of the choice).
Whether it is on a loop (the model picks again after what it picked has answered) is read by the one definition,
`patterns.workflows.choices.on_loop`, on the drawing's graph (`ways_graph`). The choice is drawn only when it is not
agent-like (more than K ways on a loop) and it depends on the instance: agreement within an instance's trials
exceeds agreement between instances by at least `KAPPA`, corrected for chance (Cohen's kappa,
(W - B) / (1 - B)), measured on the drawing instances, *and* by more than chance: a one-sided permutation test
(`dependence`: each move's instance shuffled among the moves at the same state, `PERMUTATIONS` times) puts the
within-instance agreement in its top `ALPHA`. Or, where every instance makes the same choice at the same state
(B as high as W: a fixed way, or one the state decides, that the agent sometimes leaves), the agent agrees with
itself there at least `AGREE` of the time and takes the most taken way more often than a coin over the ways
taken would (`beats_chance`, a one-sided binomial test at `ALPHA`, the way picked after the fact counted).
A coin (W about 1/2 over two ways, 1/8 over eight) is
neither: with ten drawing instances × 3 trials the point thresholds alone passed one in five coins by chance. A
drawn choice is then judged as code's is, R being the share of the instance's moves that take one of its kept
ways; an undrawn one scores 0.

**An instance's score** is the lowest of its decisions' scores, so one undrawable decision is not diluted by ten
code steps. States only one trial reached (the aftermath of a slip) are not judged: the slip that led there was.
With one trial per instance nothing lines up, every state is judged and A is taken as 1.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from benchmarks.criterion.drawability.chance import ALPHA, beats_chance, dependence
from benchmarks.criterion.drawability.moves import END, START, Move
from patterns.workflows.choices import K, model_choices

KAPPA = 0.3  # within-instance agreement must exceed between-instance agreement by this share of what chance left
AGREE = 0.6  # or the agent agrees with itself this often there: a fixed way it sometimes leaves, not a coin
ALONE = 0.8  # ... and this often where no state was reached twice (the measure's line before trials lined up)
FLOOR = 0.65  # a rule is right at least this often where trials line up (a coin's majority is no rule)

State = tuple[tuple[str, ...], str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Choice:
    """A model choice of a drawing: its nodes, its ways (the tree's leaves), whether it sits on a loop, its
    chance-corrected instance dependence, and whether it is drawn."""

    nodes: frozenset[str]
    ways: int
    loop: bool
    kappa: float
    within: float = 1.0  # agreement among an instance's trials at the same state
    p: float = 0.0  # the permutation test's p-value for that agreement, no dependence on the instance (`dependence`)
    fixed: bool = True  # whether the most taken way beats a coin over the ways taken (`beats_chance`)
    measured: bool = True  # whether the drawing instances had the repeats that kappa and within read (`repeats`)

    @property
    def agent_like(self) -> bool:
        return self.loop and self.ways > K

    @property
    def drawn(self) -> bool:
        return not self.agent_like and ((self.kappa >= KAPPA and self.p <= ALPHA)
                                        or (self.within >= AGREE and self.fixed))

    @property
    def gate(self) -> bool | None:
        """Whether the choice is drawn; None when that rests on an instance dependence that was not measured (an
        agent-like choice is undrawn however its instances agree)."""
        return None if not self.measured and not self.agent_like else self.drawn


def repeats(owners: Sequence[Hashable]) -> bool:
    """Whether walks of these instances (one owner per walk) can show a model choice's dependence on the instance:
    at least half of the instances, and at least one, were run at two or more trials. With one trial each, the
    agent's agreement with itself is not seen, and a coin over a few ways cannot be told from the instance's own
    choice."""
    per = Counter(owners)
    repeated = sum(k >= 2 for k in per.values())
    return repeated >= 1 and 2 * repeated >= len(per)


def agreement(groups: Mapping[Hashable, Sequence[str]]) -> tuple[int, int]:
    """(agreeing pairs, pairs) among the choices of each group."""
    agree = total = 0
    for choices in groups.values():
        n = len(choices)
        total += n * (n - 1) // 2
        agree += sum(k * (k - 1) // 2 for k in Counter(choices).values())
    return agree, total


def shared(m: Move) -> Hashable:
    """A move's state without the input's fields: what two instances' moves may share."""
    way, u, feats = m.state()
    return way, u, tuple((k, v) for k, v in feats if not k.startswith("input."))


def between(moves: Sequence[Move]) -> tuple[int, int]:
    """(agreeing pairs, pairs) among moves at the same state (`shared`) made on different instances."""
    agree = total = 0
    by_state: dict[Hashable, list[Move]] = defaultdict(list)
    for m in moves:
        by_state[shared(m)].append(m)
    for ms in by_state.values():
        per: Counter[int] = Counter(m.instance for m in ms)
        pair: Counter[tuple[int, str]] = Counter((m.instance, m.v) for m in ms)
        way: Counter[str] = Counter(m.v for m in ms)
        total += (len(ms) ** 2 - sum(k * k for k in per.values())) // 2
        agree += (sum(k * k for k in way.values()) - sum(k * k for k in pair.values())) // 2
    return agree, total


def kappa(moves: Sequence[Move]) -> float:
    """Chance-corrected agreement within instances (lined up by state) over agreement between them; 1 when it
    cannot be read (one way only, one trial, one instance): nothing contradicts the choice being the instance's."""
    return agreements(moves)[0]


def agreements(moves: Sequence[Move]) -> tuple[float, float, float]:
    """(kappa, agreement within instances, the permutation test's p-value): see `kappa`. Where kappa cannot be
    read (nothing lines up, one instance, every instance the same way) the agreement is 1 or as read, and p is 0:
    as kappa's 1 there, nothing contradicts the choice being the instance's (a fixed way is judged by `AGREE`)."""
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for m in moves:
        groups[m.instance, m.state()].append(m.v)
    w_agree, w_total = agreement(groups)
    b_agree, b_total = between(moves)
    w = w_agree / w_total if w_total else 1.0
    if not w_total or not b_total or b_agree == b_total:
        return 1.0, w, 0.0
    b = b_agree / b_total
    return (w - b) / (1 - b), w, dependence(moves, shared)


def repeated_ways(model: Sequence[Move]) -> dict[str, set[str]]:
    """Per node, the ways the model takes there as part of the process: taken at least twice by one instance (a
    slip is rarely made twice); with one trial per instance nothing repeats, and every way taken counts."""
    taken: Counter[tuple[int, str, str]] = Counter((m.instance, m.u, m.v) for m in model)
    ways: dict[str, set[str]] = defaultdict(set)
    several = any(k >= 2 for k in Counter((m.instance, m.u) for m in model).values())
    for (_, u, v), k in taken.items():
        if k >= 2 or not several:
            ways[u].add(v)
    return ways


def ways_graph(model: Sequence[Move], code: Collection[tuple[str, str]] = ()) -> nx.DiGraph:
    """The drawing's graph as `patterns.workflows.choices` reads a learned one: the steps code takes (`code`, the
    transitions a rule explained) and the model's kept ways (`repeated_ways`), these marked `model=True`."""
    graph = nx.DiGraph()
    graph.add_edges_from(code)
    for u, vs in repeated_ways(model).items():
        graph.add_edges_from(((u, v) for v in vs), model=True)
    return graph


def choice_pools(model: Sequence[Move], code: Collection[tuple[str, str]] = ()) -> \
        dict[str, tuple[frozenset[str], bool]]:
    """Per model-decision node, the nodes of its choice and whether that choice is on a loop. A way u -> v the
    process takes joins u and v into one choice tree when v is a model decision too over overlapping ways; the tree
    is on a loop when one of its nodes is (`patterns.workflows.choices.on_loop` on `ways_graph`: the model picks
    there again after its pick has answered), the one definition `check_drawn` and `wva audit` use."""
    ways = repeated_ways(model)
    looped = {c.node for c in model_choices(ways_graph(model, code)) if c.how == "learned" and c.on_loop}
    graph = nx.Graph()
    graph.add_nodes_from({m.u for m in model})
    for u, vs in ways.items():
        for v in vs:
            if u != START and v != END and (ways[u] & ways.get(v, set())) - {END}:
                graph.add_edge(u, v)
    out: dict[str, tuple[frozenset[str], bool]] = {}
    for part in nx.connected_components(graph):
        nodes = frozenset(part)
        out.update({n: (nodes, bool(nodes & looped)) for n in nodes})
    return out


def width(nodes: frozenset[str], targets: Sequence[str]) -> int:
    """The choice's ways as the patterns count them: its nodes offer the tools of every way taken, read by
    `patterns.workflows.choices.model_choices` as one LLM step offered those tools (a tree counted by its leaves)."""
    tools = sorted({t for v in targets if v != END for t in v.split("+")})
    if not tools:
        return 1
    g = nx.DiGraph()
    g.add_node("choose", kind="llm", label="choose")
    g.add_node("offer", kind="tool", tools=tuple(tools), label="|".join(sorted(nodes)))
    g.add_edge("choose", "offer")
    return max((c.branches for c in model_choices(g)), default=len(tools))


def choices_of(model: Sequence[Move], code: Collection[tuple[str, str]] = (), measured: bool = True) -> \
        dict[str, Choice]:
    """Per node where the model decided in the drawing walks, its `Choice` (nodes, ways, loop, kappa); `code`: the
    steps code takes, through which a loop may pass; `measured`: whether the walks had repeats (`repeats`)."""
    out: dict[str, Choice] = {}
    ways = repeated_ways(model)
    for node, (nodes, loop) in choice_pools(model, code).items():
        if node in out:
            continue
        mine = [m for m in model if m.u in nodes]
        kept = {v for n in nodes for v in ways.get(n, ())}
        taken = Counter(m.v for m in mine)
        fixed = beats_chance(max(taken.values(), default=0), len(mine), len(taken))
        choice = Choice(nodes, width(nodes, sorted(kept)), loop, *agreements(mine), fixed, measured)
        out.update({n: choice for n in nodes})
    return out


def lined_up(ms: Sequence[Move]) -> list[Move]:
    """The moves made at a state their instance reached more than once (its trials lined up there); all of them
    when nothing was reached twice (one trial per instance). Rules are learned from these: the moves after a slip,
    at a state only that trial reached, are its aftermath, not the process."""
    seen = Counter((m.instance, m.state()) for m in ms)
    lined = [m for m in ms if seen[m.instance, m.state()] >= 2]
    return lined or list(ms)


def consistent(moves: Sequence[Move], right: Sequence[bool], ways: int = 1) -> bool:
    """Does a rule that is right on `right` of these moves hold as the process, the rest slips? Right at least as
    often as the agent agrees with itself, and at least `FLOOR`, both read where an instance reached the same
    state more than once (a state reached once is a slip's aftermath); where nothing was reached twice, right at
    least `ALONE` of the time. Either way more often than a coin over the step's `ways` next steps could be
    (`chance.beats_chance`): a coin's majority over 30 moves reaches `FLOOR` one time in ten."""
    groups: dict[Hashable, list[tuple[str, bool]]] = defaultdict(list)
    for m, ok in zip(moves, right, strict=True):
        groups[m.instance, m.state()].append((m.v, ok))
    lined = {k: g for k, g in groups.items() if len(g) >= 2}
    agree, total = agreement({k: [v for v, _ in g] for k, g in lined.items()})
    hits, count = sum(ok for g in lined.values() for _, ok in g), sum(len(g) for g in lined.values())
    if not count:  # nothing lines up (one trial per instance): slips cannot be told from choices, be strict
        return sum(right) >= ALONE * len(moves) and beats_chance(sum(right), len(moves), ways)
    return hits >= FLOOR * count and (not total or hits * total >= agree * count) and beats_chance(hits, count, ways)


def judged(right: Sequence[tuple[State, bool, str]], lined_up: bool) -> float:
    """One decision's score on one instance: 1 when its rule is right (R) at least as often as the agent agrees
    with itself at those states (A), else R / A (see the module docstring)."""
    if not right:
        return 1.0
    r = sum(ok for _, ok, _ in right) / len(right)
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for s, _, v in right:
        groups[s].append(v)
    agree, total = agreement(groups)
    a = agree / total if lined_up and total else 1.0
    return 1.0 if r >= a else r / a

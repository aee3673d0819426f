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
decision whose chosen step is again a model decision over overlapping ways is the same choice made again, on a
loop (the model picks again after what it picked has answered); its width counts the ways of the whole tree
(`patterns.workflows.choices.model_choices` on the graph of the choice). The choice is drawn only when it is not
agent-like (more than K ways on a loop) and it depends on the instance: agreement within an instance's trials
exceeds agreement between instances by at least `KAPPA`, corrected for chance (Cohen's kappa,
(W - B) / (1 - B)), measured on the drawing instances. A drawn choice is then judged as code's is, R being the
share of the instance's moves that take one of its kept ways; an undrawn one scores 0.

**An instance's score** is the lowest of its decisions' scores, so one undrawable decision is not diluted by ten
code steps. States only one trial reached (the aftermath of a slip) are not judged: the slip that led there was.
With one trial per instance nothing lines up, every state is judged and A is taken as 1.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from benchmarks.criterion.drawability.moves import END, MIN_INSTANCES, START, Move
from patterns.workflows.choices import K, model_choices

KAPPA = 0.3  # within-instance agreement must exceed between-instance agreement by this share of what chance left

State = tuple[str, int, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Choice:
    """A model choice of a drawing: its nodes, its ways (the tree's leaves), whether it sits on a loop, its
    chance-corrected instance dependence, and whether it is drawn."""

    nodes: frozenset[str]
    ways: int
    loop: bool
    kappa: float

    @property
    def agent_like(self) -> bool:
        return self.loop and self.ways > K

    @property
    def drawn(self) -> bool:
        return not self.agent_like and self.kappa >= KAPPA


def agreement(groups: Mapping[Hashable, Sequence[str]]) -> tuple[int, int]:
    """(agreeing pairs, pairs) among the choices of each group."""
    agree = total = 0
    for choices in groups.values():
        n = len(choices)
        total += n * (n - 1) // 2
        agree += sum(k * (k - 1) // 2 for k in Counter(choices).values())
    return agree, total


def between(moves: Sequence[Move]) -> tuple[int, int]:
    """(agreeing pairs, pairs) among moves at the same node made on different instances."""
    agree = total = 0
    by_node: dict[str, list[Move]] = defaultdict(list)
    for m in moves:
        by_node[m.u].append(m)
    for ms in by_node.values():
        per: Counter[int] = Counter(m.instance for m in ms)
        pair: Counter[tuple[int, str]] = Counter((m.instance, m.v) for m in ms)
        way: Counter[str] = Counter(m.v for m in ms)
        total += (len(ms) ** 2 - sum(k * k for k in per.values())) // 2
        agree += (sum(k * k for k in way.values()) - sum(k * k for k in pair.values())) // 2
    return agree, total


def kappa(moves: Sequence[Move]) -> float:
    """Chance-corrected agreement within instances (lined up by state) over agreement between them; 1 when it
    cannot be read (one way only, one trial, one instance): nothing contradicts the choice being the instance's."""
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for m in moves:
        groups[m.instance, m.state()].append(m.v)
    w_agree, w_total = agreement(groups)
    b_agree, b_total = between(moves)
    if not w_total or not b_total or b_agree == b_total:
        return 1.0
    w, b = w_agree / w_total, b_agree / b_total
    return (w - b) / (1 - b)


def choice_pools(model: Sequence[Move]) -> dict[str, tuple[frozenset[str], bool]]:
    """Per model-decision node, the nodes of its choice and whether that choice is on a loop (see the module
    docstring): a model move u -> v joins u and v when v is a model decision too over overlapping ways."""
    ways: dict[str, set[str]] = defaultdict(set)
    for m in model:
        if m.v != END:
            ways[m.u].add(m.v)
    graph = nx.Graph()
    graph.add_nodes_from(ways)
    looped: set[str] = set()
    for m in model:
        if m.u != START and m.v in ways and ways[m.u] & ways[m.v]:
            graph.add_edge(m.u, m.v)
            looped.add(m.u)
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


def choices_of(model: Sequence[Move]) -> dict[str, Choice]:
    """Per node where the model decided in the drawing walks, its `Choice` (nodes, ways, loop, kappa)."""
    out: dict[str, Choice] = {}
    for node, (nodes, loop) in choice_pools(model).items():
        if node in out:
            continue
        mine = [m for m in model if m.u in nodes]
        seen: dict[str, set[int]] = defaultdict(set)
        for m in mine:
            seen[m.v].add(m.instance)
        kept = [v for v, owners in seen.items() if len(owners) >= MIN_INSTANCES] or list(seen)
        choice = Choice(nodes, width(nodes, kept), loop, kappa(mine))
        out.update({n: choice for n in nodes})
    return out


def consistent(moves: Sequence[Move], right: Sequence[bool]) -> bool:
    """Does a rule that is right on `right` of these moves hold as the process, the rest slips: right at least
    as often as the agent agrees with itself at the same state of the same instance (no pairs: it holds)?"""
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for m in moves:
        groups[m.instance, m.state()].append(m.v)
    agree, total = agreement(groups)
    return not total or sum(right) * total >= agree * len(moves)


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

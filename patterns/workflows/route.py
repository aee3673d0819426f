"""`Route`: one classification call picks a label; the input goes to that label's handler.

The classifier is usually a model call (`LLM`); it may be a `Code` step, for a branch decided in code
(a validator said VALID or INVALID): the same switch, with no model call.

A label the model invents is a typed failure (`UnknownLabel`, naming the valid labels), not a
KeyError. The label is matched after `normalise_label` (case, spaces, punctuation), so "Billing."
finds the `billing` route; a reply that is not a bare label ("**Category:** billing", "This is a
billing question.") finds the one route it names as a whole word (`patterns.answers.mentioned`).
A reply naming no route, or two, is `UnknownLabel`: a wrong label is a wrong label.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import networkx as nx

from ..answers import mentioned
from ..events import Kind
from ..run import Failure, Run
from .graph import graph_of, node
from .steps import Step


def normalise_label(text: str) -> str:
    words = re.findall(r"[a-z0-9_\-]+", text.strip().lower())
    return words[0] if len(words) == 1 else "_".join(words)


@dataclass(frozen=True)
class Route:
    classifier: Step
    routes: Mapping[str, Step]
    parse: Callable[[str], str] = normalise_label
    name: str = "route"
    pattern: str = "route"

    def __post_init__(self) -> None:
        if not self.routes:
            raise ValueError("a Route needs at least one route")

    async def __call__(self, run: Run, text: str) -> str:
        raw = await self.classifier(run, text)
        label = self.parse(raw)
        if label not in self.routes and len(named := mentioned(raw, self.routes)) == 1:
            label = named[0]
        run.extra["route"] = label
        handler = self.routes.get(label)
        run.record(Kind.DECISION, run.elapsed(), name=self.name, detail=f"route -> {label}")
        if handler is None:
            valid = ", ".join(self.routes)
            raise Failure("UnknownLabel", f"the classifier answered {raw.strip()[:80]!r}; valid labels: {valid}",
                          self.name)
        return await handler(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries, cls_exits = self.classifier.add_to(graph, prefix)
        # the handlers receive the route's input, not the classifier's reply (`choices.model_wrote` traces it)
        switch = node(graph, prefix + self.name + ".switch", "code", "route by label", switch=True,
                      passes=tuple(entries))
        for e in cls_exits:
            graph.add_edge(e, switch)
        exits: list[str] = []
        for label, handler in self.routes.items():
            h_entries, h_exits = handler.add_to(graph, f"{prefix}{label}:")
            for h in h_entries:
                graph.add_edge(switch, h, label=label)
            exits += h_exits
        return entries, exits

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "routing")

"""The verdict rule on interval ends, vectorised over replicates: one function decides a results folder's
task, a planned run's simulated replicates and a sequential design's looks alike.

With a success margin δ and a cost margin c (the cheaper side must cost at most 1 − c times the other),
on `Bounds` (the agent against m workflows; a declared comparator is m = 1):

1. `workflow` if some workflow is significantly more successful: its (simultaneous) success-leg interval
   lies below 0;
2. `agent` if the agent is significantly more successful than every workflow (each interval above 0: an
   intersection–union test, no adjustment);
3. `workflow` if some workflow is non-inferior (its simultaneous 90% upper end below δ) *and* cheaper by
   at least the cost margin (its simultaneous cost-ratio upper end below 1 − c);
4. `agent` if the agent is non-inferior to every workflow (each 90% lower end above −δ) and, against each
   one, significantly more successful or cheaper by at least the cost margin (the ratio's lower end above
   1 / (1 − c));
5. `either` if the agent and the best workflow are equivalent within ±δ (the agent non-inferior to every
   workflow, and some workflow non-inferior to the agent);
6. `inconclusive` otherwise.

**Monotone:** "either" does not ask that neither side be cheaper, and non-inferiority reads the same 90%
interval as equivalence, so equivalence implies non-inferiority both ways: being cheaper can only move an
`either` to that side's name, never to `inconclusive`. An unknown cost (NaN) is never cheaper.
"""

from __future__ import annotations

import numpy as np

from benchmarks.criterion.bounds import Bounds

TOO_FEW, INCONCLUSIVE, WORKFLOW_BETTER, AGENT_BETTER, WORKFLOW_CHEAPER, AGENT_CHEAPER, EITHER = range(7)
VERDICT = {TOO_FEW: "inconclusive", INCONCLUSIVE: "inconclusive", WORKFLOW_BETTER: "workflow",
           AGENT_BETTER: "agent", WORKFLOW_CHEAPER: "workflow", AGENT_CHEAPER: "agent", EITHER: "either"}
WINNERS = (WORKFLOW_BETTER, AGENT_BETTER, WORKFLOW_CHEAPER, AGENT_CHEAPER)


def _first_most_successful(claims: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Per replicate, the index of the claiming workflow with the lowest agent − workflow (-1: none)."""
    masked = np.where(claims, diff, np.inf)
    idx = np.argmin(masked, axis=1)
    return np.where(claims.any(axis=1), idx, -1)


def decide(b: Bounds, margin: float, cost_margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(code per replicate, index of the workflow a workflow claim names or -1). Codes: this module's."""
    cheap_flow, cheap_agent = 1.0 - cost_margin, 1.0 / (1.0 - cost_margin)
    too_few = np.isnan(b.win_lo).any(axis=1) | np.isnan(b.eq_lo).any(axis=1)
    flow_better = b.win_sim_hi < 0
    agent_better = (b.win_lo > 0).all(axis=1)
    flow_cheaper = (b.eq_sim_hi < margin) & (b.cost_sim_hi < cheap_flow)
    agent_ok = b.eq_lo > -margin
    agent_cheaper = (agent_ok & ((b.win_lo > 0) | (b.cost_lo > cheap_agent))).all(axis=1)
    either = agent_ok.all(axis=1) & (b.eq_sim_hi < margin).any(axis=1)
    code = np.select([too_few, flow_better.any(axis=1), agent_better, flow_cheaper.any(axis=1), agent_cheaper,
                      either], [TOO_FEW, WORKFLOW_BETTER, AGENT_BETTER, WORKFLOW_CHEAPER, AGENT_CHEAPER, EITHER],
                     INCONCLUSIVE)
    which = np.where(code == WORKFLOW_BETTER, _first_most_successful(flow_better, b.diff),
                     np.where(code == WORKFLOW_CHEAPER, _first_most_successful(flow_cheaper, b.diff), -1))
    return code, which


def verdicts(code: np.ndarray) -> np.ndarray:
    """The verdict names of an array of codes."""
    return np.vectorize(VERDICT.get, otypes=[object])(code)

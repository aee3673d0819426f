"""The physics of SimModel's errors: how one call's error rates follow from the knobs and the request.

Three knobs shape them, generically (no task family knows about them):

- `context_decay`: a decision in a call whose prompt holds `input_tokens` errs at
  `error_rate * (1 + context_decay * input_tokens / 10_000)` (capped at 1): the long-context
  degradation real models show, so an agent re-sending a growing history errs more per decision
  than a workflow step that starts fresh.
- `checker_error_rate` (None: the same as `error_rate`): how often a *judgement* (an evaluator's
  or validator's PASS/FAIL, a self-check of one's own result) is wrong. Context decay applies to it too.
- `error_correlation`: the chance that a decision made again repeats the first time's outcome, right
  or wrong. Correlation belongs to the decision, not to the request text: a policy names what each
  decision is about (`Decider.correct(key)`: the same field of the same record, the same lookup, the
  same hop), and within one trial the k-th decision of a key reuses the first one's randomness with
  probability `error_correlation`, else draws afresh (`repeat_of`). So an agent redoing a decision after
  a failure (its request has grown by then) is correlated exactly as a workflow retry or a vote is.
  A decision without a key is keyed by the request's content, so only an identical request repeats
  it. At 1 a vote of n identical requests is exactly as accurate as one; at 0 the samples err
  independently.
"""

from __future__ import annotations

from dataclasses import dataclass

DECAY_TOKENS = 10_000  # context_decay is per this many input tokens


@dataclass(frozen=True)
class ErrorPhysics:
    error_rate: float = 0.0
    checker_error_rate: float | None = None
    context_decay: float = 0.0
    error_correlation: float = 0.0

    def rates(self, input_tokens: int) -> tuple[float, float]:
        """(decision error rate, judgement error rate) of one call whose prompt is `input_tokens` long."""
        scale = 1.0 + self.context_decay * max(0, input_tokens) / DECAY_TOKENS
        checker = self.error_rate if self.checker_error_rate is None else self.checker_error_rate
        return min(1.0, self.error_rate * scale), min(1.0, checker * scale)

    def repeat_of(self, n: int, u: float) -> int:
        """The sample whose decision randomness the n-th sample of a request uses; `u` uniform in [0, 1)."""
        return 0 if n > 0 and u < self.error_correlation else n

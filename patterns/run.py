"""`Run`: the recorder every pattern shares. It makes the model calls, runs the tools, and keeps the trace.

A pattern is a plain coroutine over a `Run`: it calls `run.sample(...)` for each model call and
`run.call_tools(...)` for each round of tools, and raises `StopRun` or `Failure` to end early.
`Run.execute(body)` is the one place where every way of ending becomes a `Result`, with the
partial usage and the events recorded up to that moment, on every exit path.

Usage and cost: each reply's usage is priced and summed; a reply that reports no usage is counted
with an estimate, marked on its event, and makes the cost unknown (`patterns/usage.py`). A run
whose every model call failed has cost None (unknown: nothing says what the failed calls were
billed), not 0.0; a run that made no call at all costs 0.0.
A 400 saying that the prompt fits but `max_tokens` does not (the Messages API's "input length and
`max_tokens` exceed context limit", which the `openai:` adapter also gives for vLLM's "'max_tokens'
or 'max_completion_tokens' is too large") is not a prompt too long: the call is sent once more with
`max_tokens` lowered to what the server says fits (a `recovery` event), never compacted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anthropic
from anthropic.types import Message

from .caching import MarkCounter, with_breakpoints
from .clock import Clock, clock_of, gather_timed
from .compaction import output_room
from .events import RESULT_CHARS, Event, Kind
from .hooks import Hooks, call_hook
from .limits import Abort, Limits
from .model import Model
from .options import RequestOptions
from .pricing import cost_usd
from .redact import redact
from .result import ErrorInfo, Result, Terminal
from .retry import RetryPolicy
from .tools import ToolOutcome, ToolSet
from .usage import Usage, estimate_usage, usage_missing


class StopRun(Exception):
    """A typed end that is not an error: a limit, an abort, a refusal."""

    def __init__(self, terminal: Terminal, detail: str) -> None:
        super().__init__(detail)
        self.terminal = terminal
        self.detail = detail


class Failure(Exception):
    """A workflow's typed failure (a gate that fails, an invented label, a malformed plan)."""

    def __init__(self, kind: str, message: str, where: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.where = where


def _arguments(tool_input: Any) -> str:
    """A tool call's input as the trace keeps it: JSON (sorted keys, so equal inputs read equal), redacted."""
    try:
        text = json.dumps(tool_input, sort_keys=True, ensure_ascii=False, default=str)
    except ValueError:  # a circular input: kept as its repr
        text = repr(tool_input)
    return redact(text)[:RESULT_CHARS]


def _kept(content: str) -> str:
    """A tool result as the trace keeps it: redacted, cut at RESULT_CHARS with a closing `…`."""
    text = redact(content)
    return text if len(text) <= RESULT_CHARS else text[: RESULT_CHARS - 1] + "…"


def error_info(exc: BaseException, where: str = "") -> ErrorInfo:
    if isinstance(exc, Failure):
        return ErrorInfo(exc.kind, redact(exc.message), exc.where or where)
    return ErrorInfo(type(exc).__name__, redact(str(exc))[:1000], where)


class Run:
    """Mutable bookkeeping for one pattern run; what it produces (`Result`, `Event`) is immutable."""

    def __init__(
        self,
        model: Model,
        *,
        pattern: str = "",
        limits: Limits | None = None,
        options: RequestOptions | None = None,
        abort: Abort | None = None,
        hooks: Hooks | None = None,
        retry: RetryPolicy | None = None,
        seed: int = 0,
    ) -> None:
        if not callable(getattr(model, "create", None)):
            raise TypeError(f"model must have an async create(**params) method, got {model!r}")
        self.model = model
        self.pattern = pattern
        self.limits = limits or Limits()
        self.options = options or RequestOptions()
        self.abort = abort or Abort()
        self.hooks = hooks or Hooks()
        self.retry = retry or RetryPolicy()
        self.seed = seed
        self._rng: random.Random | None = None  # built on the first retry: seeding one costs more than a step
        self.clock: Clock = clock_of(model)
        self.price_id: str | None = getattr(model, "price_id", None)
        self.t0 = self.clock.now()
        self.events: list[Event] = []
        self.usage = Usage()
        self.cost: float | None = 0.0
        self.estimated = 0  # calls whose reply reported no usage: counted with an estimate (usage.py)
        self.sent = False  # a model call was attempted: if none returned, the cost is unknown
        self.steps = 0
        self.in_flight = 0  # calls sent but not returned: concurrent branches must not overshoot max_steps
        self.task = ""  # the run's original input, which workflow prompts may quote as {task}
        self.tool_calls = 0
        self.errors: list[ErrorInfo] = []
        self.extra: dict[str, Any] = {}
        self._marks = MarkCounter()  # the caller's own cache breakpoints in a growing history

    @property
    def rng(self) -> random.Random:
        """Retry jitter: seeded, so a simulated run replays exactly."""
        if self._rng is None:
            self._rng = random.Random(self.seed)
        return self._rng

    def elapsed(self) -> float:
        return self.clock.now() - self.t0

    def record(self, kind: Kind, start: float, **fields: Any) -> Event:
        event = Event(kind=kind, start=start, end=self.elapsed(), **fields)
        self.events.append(event)
        return event

    def check(self) -> None:
        """Raise `StopRun` if the run was aborted or a limit was reached. Called before each model call."""
        lim = self.limits
        if self.abort.is_set:
            raise StopRun(Terminal.ABORTED, self.abort.reason or "aborted")
        if lim.max_steps is not None and self.steps + self.in_flight >= lim.max_steps:
            raise StopRun(Terminal.MAX_STEPS, f"max_steps={lim.max_steps} model calls made")
        if lim.token_budget is not None and self.usage.total_tokens >= lim.token_budget:
            estimated = f", estimated for {self.estimated} calls without usage" if self.estimated else ""
            raise StopRun(Terminal.BUDGET, f"token_budget={lim.token_budget} reached ({self.usage.total_tokens}"
                          f"{estimated})")
        if lim.cost_budget_usd is not None and self.cost is not None and self.cost >= lim.cost_budget_usd:
            raise StopRun(Terminal.BUDGET, f"cost_budget_usd={lim.cost_budget_usd} reached (${self.cost:.4f})")
        if lim.time_budget_s is not None and self.elapsed() >= lim.time_budget_s:
            raise StopRun(Terminal.TIMEOUT, f"time_budget_s={lim.time_budget_s} reached")

    async def sample(self, *, name: str = "", **params: Any) -> Message:
        """One model call, through the limits, the hooks and the retry policy.

        Raises `StopRun` (limit, abort), or the SDK's exception once retries are exhausted or the
        error is not retryable. Failed attempts are `retry`/`error` events; the call that returns
        is one `model_call` event with its usage and cost.
        """
        self.check()
        params.setdefault("max_tokens", self.options.max_tokens)
        if self.hooks.before_model is not None:
            await call_hook(self.hooks.before_model, params)
        if self.options.prompt_cache:  # the one place every pattern's calls pass: see patterns/caching.py
            params = with_breakpoints(params, counter=self._marks)
        self.in_flight += 1
        self.sent = True
        try:
            start = self.elapsed()
            failed: anthropic.APIError | None = None
            try:
                message = await self.model.create(**params)
            except anthropic.APIError as exc:
                failed = exc
            if failed is not None:  # retried outside the except block: a later failure is not chained to this one
                message = await self._retried(name, params, failed, start)
            estimated = usage_missing(message.usage)
            if estimated:
                usage, price = estimate_usage(params, message.content), None
                self.estimated += 1
            else:
                usage = Usage.from_api(message.usage)
                price = cost_usd(self.price_id or message.model, usage)
            self.usage = self.usage + usage
            self.cost = None if price is None or self.cost is None else self.cost + price
            self.events.append(Event(kind=Kind.MODEL_CALL, start=start, end=self.elapsed(), name=name,
                                     model=message.model, usage=usage, usage_estimated=estimated, cost_usd=price,
                                     stop_reason=message.stop_reason, position=self.steps))
            self.steps += 1
            if self.hooks.after_step is not None:
                await call_hook(self.hooks.after_step, message)
            return message
        finally:
            self.in_flight -= 1

    async def _retried(self, name: str, params: dict[str, Any], exc: anthropic.APIError, start: float) -> Message:
        """After a failed first attempt: retry while the policy allows, or record the error and re-raise it.

        (Kept out of `sample`, so that the call that succeeds at once, nearly every call, pays for no loop.)
        A first failure saying `max_tokens` does not fit is sent once more with the `max_tokens` that fits."""
        room = output_room(exc)
        if room is not None and room < params.get("max_tokens", room + 1):
            self.record(Kind.RECOVERY, start, name=name, error_type=type(exc).__name__, error=redact(str(exc))[:500],
                        detail=f"max_tokens {params['max_tokens']} -> {room}: the prompt fit, the output did not")
            params, start = {**params, "max_tokens": room}, self.elapsed()
            try:
                return await self.model.create(**params)
            except anthropic.APIError as again:
                exc = again
        policy, first = self.retry, start
        for attempt in range(1, policy.max_retries + 2):
            retried = attempt <= policy.max_retries and policy.is_retryable(exc)
            wait = policy.delay_s(attempt - 1, exc, self.rng) if retried else 0.0  # the jitter drawn only then
            if not (retried and policy.in_time(self.elapsed() - first, wait)):
                self.record(Kind.ERROR, start, name=name, error_type=type(exc).__name__,
                            error=redact(str(exc))[:500], attempt=attempt)
                raise exc
            self.record(Kind.RETRY, start, name=name, error_type=type(exc).__name__,
                        error=redact(str(exc))[:500], attempt=attempt, detail=f"wait {wait:.3f}s")
            await self.clock.sleep(wait)
            if self.abort.is_set:
                raise StopRun(Terminal.ABORTED, self.abort.reason or "aborted") from None
            start = self.elapsed()
            try:
                return await self.model.create(**params)
            except anthropic.APIError as failed:
                exc = failed
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def call_tool(self, tools: ToolSet, block: Any, name: str = "") -> dict[str, Any]:
        """Execute one tool_use block (object or dict) into its tool_result block."""
        if isinstance(block, dict):
            tool_name, tool_id, tool_input = str(block.get("name", "")), str(block.get("id", "")), block.get("input")
        else:
            tool_name, tool_id, tool_input = block.name, block.id, block.input
        start = self.elapsed()
        denied = None if self.hooks.before_tool is None else await call_hook(self.hooks.before_tool, tool_name,
                                                                              tool_input)
        if denied:
            reason = denied if isinstance(denied, str) else "denied by the permission hook"
            outcome = ToolOutcome(content=f"Permission denied: {reason}", is_error=True, error_type="PermissionDenied")
        else:
            outcome = await tools.execute(tool_name, tool_input)
        self.tool_calls += 1
        fee = tools.tools[tool_name].cost_usd if tool_name in tools.tools and not denied else 0.0
        if fee and self.cost is not None:
            self.cost += fee
        self.events.append(Event(kind=Kind.TOOL_CALL, start=start, end=self.elapsed(), name=name or tool_name,
                                 tool_name=tool_name, tool_use_id=tool_id, is_error=outcome.is_error,
                                 error_type=outcome.error_type,
                                 error=outcome.content[:300] if outcome.is_error else None,
                                 arguments=_arguments(tool_input), result=_kept(outcome.content),
                                 cost_usd=fee or None))
        return outcome.block(tool_id)

    async def call_tools(self, tools: ToolSet, blocks: Sequence[Any], name: str = "") -> list[dict[str, Any]]:
        """Execute tool_use blocks concurrently; results in the blocks' order."""
        if self.abort.is_set:
            raise StopRun(Terminal.ABORTED, self.abort.reason or "aborted")
        if len(blocks) == 1:
            return [await self.call_tool(tools, blocks[0], name)]
        return await gather_timed(self.clock, (self.call_tool(tools, b, name) for b in blocks))

    async def gather(self, aws: Sequence[Awaitable[Any]]) -> list[Any]:
        """Run branches concurrently; the run's clock resumes at the slowest branch's end."""
        return await gather_timed(self.clock, aws)

    def result(self, terminal: Terminal, output: str, messages: list[dict[str, Any]], detail: str = "") -> Result:
        cost = None if self.sent and not self.steps else self.cost  # every call failed: what it cost is unknown
        return Result(
            terminal=terminal, output=output, messages=messages, steps=self.steps, tool_calls=self.tool_calls,
            usage=self.usage, cost_usd=cost, latency_s=self.elapsed(), errors=tuple(self.errors),
            events=tuple(self.events), pattern=self.pattern, detail=detail, extra=dict(self.extra),
        )

    async def execute(self, body: Callable[[], Awaitable[str]], messages: Callable[[], list[dict[str, Any]]]
                      | None = None) -> Result:
        """Await `body()` and turn every way it can end into a `Result`: the one place exits are caught.

        Programming errors (TypeError in the caller's code and the like) propagate.
        """
        terminal, output, detail = Terminal.COMPLETED, "", ""
        try:
            output = await body()
        except StopRun as stop:
            terminal, detail = stop.terminal, stop.detail
            self.record(Kind.LIMIT, self.elapsed(), detail=detail)
        except (Failure, anthropic.APIError) as exc:
            terminal = Terminal.ERROR
            info = error_info(exc)
            detail = f"{info.kind}: {info.message}"
            self.errors.append(info)
        return self.result(terminal, output, messages() if messages else [], detail)

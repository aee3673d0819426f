"""`SimModel`: the embedded default model, a Messages API look-alike that needs no network.

`create(**params)` takes the Messages API arguments (minus `model`) and returns a real
`anthropic.types.Message`, or raises the SDK's own exceptions. In order, it: validates the
request as the API does (400 `invalid_request_error`); counts input tokens over the whole
request (`tokens.py`); rejects a prompt over `context_window` ("prompt is too long: N tokens >
M maximum"); draws the injected faults; splits the prompt into cache reads, writes and
plain input by its `cache_control` breakpoints (`cache.py`); asks the policy for a reply (one
`Decider` per call) and makes it obey `tool_choice` (`forcing.py`: a forced call the policy did not
make is made with synthesised arguments; `none` drops tool calls);
assigns ids; applies stop sequences and max_tokens (`shaping.py`); sleeps the modelled
latency on `self.clock` (virtual by default, so nothing really waits).

**Seeding.** Every call's randomness comes from its own `random.Random`, seeded from
sha256(seed, stream, purpose, a digest of the request's content, n), where n counts the calls
made so far with that same content. It never comes from a shared stream consumed in
scheduling order, so concurrent trials sharing one SimModel get the same per-trial results
whatever the interleaving, and the same seed gives the same run bit for bit (ids included).
The content digest covers system, tools, messages, tool_choice, stop_sequences and
`metadata`, so identical trials (same instance, trial 1 and 2) are told apart only by n:
give each trial its own stream (`fork(name)`, or `metadata={"user_id": ...}`) when their
results must not depend on which of them called first. Faults and decisions use separate
counters: a retried call draws a fresh fault, but the policy sees the same draw it would have
seen without the fault, so fault rates do not perturb the decisions. A repeated sample of the same
request reuses the first sample's decision randomness with probability `error_correlation`, and
the call's error rates grow with its prompt by `context_decay` (`physics.py`).

**Messages must not be mutated in place after being sent**: token counts are cached by
object identity (see `tokens.py`).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

import anthropic
from anthropic.types import Message

from ..clock import REAL_CLOCK, Clock, VirtualClock
from ..conversation import GrowingConversations
from . import continuation, faults, forcing, summary
from .cache import PromptCache, min_cacheable_tokens, split
from .generic import GenericPolicy
from .knobs import KNOBS, check_knobs, fault_probabilities, parse_knobs
from .latency import REJECT_S, Latency
from .physics import ErrorPhysics
from .policy import Decider, Policy, Request
from .shaping import shape
from .tokens import TokenCounter, canonical_json
from .validate import Prepared, prepare

_BLOCK_TYPES = ("text", "thinking", "tool_use")
_DEFAULTS = check_knobs({name: spec[1] for name, spec in KNOBS.items()}, {})


class SimModel:
    KNOBS: ClassVar[dict[str, tuple[type, Any, str]]] = KNOBS

    def __init__(
        self, policy: Policy | None = None, *, error_rate: float = 0.0, seed: int = 0, fault_rate: float = 0.0,
        error_correlation: float = KNOBS["error_correlation"][1], checker_error_rate: float | None = None,
        context_decay: float = KNOBS["context_decay"][1],
        fault_mix: str | tuple[float, ...] = "1/1/1/1", rate_limit_rate: float = 0.0,
        overloaded_rate: float = 0.0, server_error_rate: float = 0.0, timeout_rate: float = 0.0,
        retry_after_s: float = 1.0, timeout_s: float = 60.0, context_window: int = 200_000,
        max_output_tokens: int = KNOBS["max_output_tokens"][1],
        ttft_s: float = KNOBS["ttft_s"][1], prefill_tps: float = KNOBS["prefill_tps"][1],
        decode_tps: float = KNOBS["decode_tps"][1], realtime: bool = False,
        price_as: str = "claude-sonnet-4-5", name: str = "sim", **unknown: Any,
    ) -> None:
        given = {name_: value for name_, value in locals().items() if name_ in KNOBS}
        self.knobs: dict[str, Any] = check_knobs(given, unknown)
        k = self.knobs
        self.policy: Policy = policy if policy is not None else GenericPolicy()
        self.error_rate: float = k["error_rate"]
        self.physics = ErrorPhysics(k["error_rate"], k["checker_error_rate"], k["context_decay"],
                                    k["error_correlation"])
        self.seed: int = k["seed"]
        self.context_window: int = k["context_window"]
        self.retry_after_s: float = k["retry_after_s"]
        self.timeout_s: float = k["timeout_s"]
        self.latency = Latency(k["ttft_s"], k["prefill_tps"], k["decode_tps"])
        self.fault_probabilities = fault_probabilities(k)
        self.name: str = k["name"]
        self.price_id: str = k["price_as"]
        self.clock: Clock = REAL_CLOCK if k["realtime"] else VirtualClock()
        self.tokens = TokenCounter()
        self.conversations = GrowingConversations()  # shared by forks, like the token cache
        self._stream = ""
        self._lock = threading.Lock()
        self._tallies: list[SimModel] = []  # models whose counters also count this one's (`fork(tally=True)`)
        self._reset_counters()

    @classmethod
    def from_text(cls, raw: Mapping[str, str], policy: Policy | None = None) -> SimModel:
        """A SimModel from knob values given as text: `{"error_rate": "0.1"}`."""
        return cls(policy, **parse_knobs(raw))

    def _reset_counters(self) -> None:
        self.calls = 0  # create() calls, whatever their outcome
        self.replies = 0  # calls that returned a Message
        self.faults_injected: dict[str, int] = dict.fromkeys(faults.FAULT_KINDS, 0)
        self.rejected: dict[str, int] = {"invalid_request": 0, "prompt_too_long": 0}
        self.decisions = 0
        self.judgements = 0
        self.mistakes = 0
        self._attempts: dict[bytes, int] = {}
        self._answers: dict[bytes, int] = {}
        self._decided: dict[bytes, int] = {}  # decisions made so far per key, in this fork (trial)
        self._drawn: dict[tuple[bytes, int], list[float]] = {}  # each call's draws, for a continuation to replay
        self.prompt_cache = PromptCache(min_cacheable_tokens(self.price_id))  # per fork: a trial reads only its own

    def fork(self, stream: str, *, tally: bool = False) -> SimModel:
        """The same model (knobs, policy, token cache, clock) on its own random stream and counters; with
        `tally`, its calls, replies, faults and decisions also count in this model's counters (the sim server
        answers each trial on a fork and reports the totals)."""
        twin = copy.copy(self)
        twin._stream = f"{self._stream}/{stream}"
        twin._lock = threading.Lock()
        twin._reset_counters()
        twin._tallies = [*self._tallies, self] if tally else []
        return twin

    def _counted(self, update: Callable[[SimModel], None]) -> None:
        """Apply a counter update to this model and to every model it tallies into, each under its lock."""
        for model in (self, *self._tallies):
            with model._lock:
                update(model)

    def __repr__(self) -> str:
        changed = {n: v for n, v in self.knobs.items() if v != _DEFAULTS[n]}
        args = ", ".join(f"{n}={v!r}" for n, v in changed.items())
        return f"SimModel({type(self.policy).__name__}{', ' if args else ''}{args})"

    async def create(self, **params: Any) -> Message:
        return await self.generate(params)

    async def generate(self, params: Mapping[str, Any], *, inject_faults: bool = True) -> Message:
        """`create` with the params as a mapping; `inject_faults=False` skips the fault draw (the
        sim server uses it to serve a timed-out request late instead of never)."""
        self._counted(lambda m: setattr(m, "calls", m.calls + 1))
        call, layout, input_tokens = await self._accepted(params)
        digest = self._digest(call)
        if inject_faults:
            await self._maybe_fault(digest)
        read, written = self.prompt_cache.account(call, layout, self.tokens, now=self.clock.now(),
                                                  ready_at=self.clock.now() + self.latency.seconds(input_tokens, 0))
        plain = [self.tokens.entry(m).plain for m in call.messages]
        cut = continuation.split(plain)
        said = cut[1] if cut else None
        if cut is not None:  # answer the request that was cut, from the same draw, and go on from the cut
            plain = plain[: cut[0]]
            digest = self._digest(replace(call, messages=call.messages[: cut[0]]))
            n = max(0, self._answers.get(digest, 1) - 1)
        else:
            n = self._next(self._answers, digest)
        rng = self._rng("policy", digest, self.physics.repeat_of(n, self._rng("repeat", digest, n).random()))
        draws = self._draws(digest, n, replay=cut is not None)
        request = Request(
            system=call.system, messages=plain,
            tools=[self.tokens.entry(t).plain for t in call.offered_tools], max_tokens=call.max_tokens,
            stop_sequences=call.stop_sequences, tool_choice=call.tool_choice)
        decide = Decider(rng, *self.physics.rates(input_tokens), draws=draws)
        reply = summary.answer(self.policy, request, decide)  # a compaction request gets a summary
        reply = forcing.honoured(reply, request)  # tool_choice, as strict as the API
        ids = self._hex("ids", digest, n)
        blocks = self._blocks(reply.content, ids)
        if said is not None:
            rest = continuation.remainder(blocks, said)
            blocks = blocks if rest is None else rest
        shaped = shape(blocks, stop_sequences=call.stop_sequences, max_tokens=call.max_tokens,
                       window_left=self.context_window - input_tokens)
        stop_reason = shaped.stop_reason or reply.stop_reason
        if stop_reason is None:
            stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in shaped.content) else "end_turn"
        message = Message.model_validate({
            "id": f"msg_sim_{ids[:24]}", "type": "message", "role": "assistant",
            "model": call.model or self.name, "content": shaped.content, "stop_reason": stop_reason,
            "stop_sequence": shaped.stop_sequence,
            "usage": {"input_tokens": input_tokens - read - written, "output_tokens": shaped.output_tokens,
                      "cache_creation_input_tokens": written, "cache_read_input_tokens": read},
        })
        def replied(m: SimModel) -> None:
            m.replies += 1
            m.decisions += decide.decisions
            m.judgements += decide.judgements
            m.mistakes += decide.mistakes

        self._counted(replied)
        await self.clock.sleep(self.latency.seconds(input_tokens, shaped.output_tokens))
        return message

    async def _accepted(self, params: Mapping[str, Any]) -> tuple[Any, Any, int]:
        """(the prepared call, its cache layout, its input tokens), or the API's 400 for an invalid request
        or a prompt longer than the context window (after the time a rejection takes)."""
        try:
            params, layout = split(params)  # cache_control is not content: the policy and the seed never see it
            call = prepare(params, self.conversations)
            if call.max_tokens > (cap := self.knobs["max_output_tokens"]):
                raise faults.invalid_request(f"max_tokens: {call.max_tokens} > {cap}, which is the maximum allowed "
                                             f"number of output tokens for {call.model or self.name}")
        except anthropic.APIStatusError:
            self._count_rejection("invalid_request")
            await self.clock.sleep(REJECT_S)
            raise
        input_tokens = self.tokens.count_request(system=call.system, tools=call.tools, messages=call.messages)
        if input_tokens > self.context_window:
            self._count_rejection("prompt_too_long")
            await self.clock.sleep(REJECT_S)
            raise faults.prompt_too_long(input_tokens, self.context_window)
        return call, layout, input_tokens

    async def _maybe_fault(self, digest: bytes) -> None:
        n = self._next(self._attempts, digest)
        u = self._rng("fault", digest, n).random()
        kind = None
        for candidate, p in self.fault_probabilities.items():
            if u < p:
                kind = candidate
                break
            u -= p
        if kind is None:
            return
        self._counted(lambda m: m.faults_injected.__setitem__(kind, m.faults_injected[kind] + 1))
        cost = {faults.TIMEOUT: self.timeout_s, faults.SERVER_ERROR: self.latency.ttft_s}.get(kind, REJECT_S)
        await self.clock.sleep(cost)
        raise faults.fault(kind, retry_after_s=self.retry_after_s,
                           request_id=f"req_sim_{self._hex('request', digest, n)[:24]}")

    def _count_rejection(self, kind: str) -> None:
        self._counted(lambda m: m.rejected.__setitem__(kind, m.rejected[kind] + 1))

    def _blocks(self, content: list[dict[str, Any]], ids: str) -> list[dict[str, Any]]:
        """The policy's blocks as API content: copied, checked, tool_use ids and signatures filled."""
        out: list[dict[str, Any]] = []
        for i, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") not in _BLOCK_TYPES:
                raise TypeError(f"{type(self.policy).__name__} returned an invalid content block: {block!r}")
            block = dict(block)
            if block["type"] == "tool_use":
                block.setdefault("id", f"toolu_sim_{ids[24:40]}_{i}")
                block.setdefault("input", {})
            elif block["type"] == "thinking":
                block.setdefault("signature", f"sim_{ids[:16]}")
            out.append(block)
        return out

    def _draws(self, digest: bytes, n: int, *, replay: bool) -> Callable[[str, str], float]:
        """The call's source of decision draws (`Decider`): each keyed decision's uniform comes from
        (seed, stream, key, how many times this fork has decided that key); a repeat reuses the first
        one's uniform with probability `error_correlation` (`physics.repeat_of`), so the same decision made
        again is correlated whoever makes it. An unkeyed draw is keyed by the request and its place in the
        call. A continuation (`replay`) re-reads the draws of the call it continues, in order."""
        drawn = self._drawn.setdefault((digest, n), [])
        replayed = iter(list(drawn)) if replay else iter(())
        place = itertools.count()

        def draw(kind: str, key: str) -> float:
            i = next(place)
            if (u := next(replayed, None)) is not None:
                return u
            name = f"{kind}|{key}".encode() if key else f"{kind}|call|{i}|".encode() + digest
            key_digest = hashlib.sha256(name).digest()
            k = self._next(self._decided, key_digest)
            first = self.physics.repeat_of(k, self._rng("repeat-decision", key_digest, k).random())
            u = self._rng("decision", key_digest, first).random()
            drawn.append(u)
            return u

        return draw

    def _next(self, counters: dict[bytes, int], digest: bytes) -> int:
        with self._lock:
            n = counters.get(digest, 0)
            counters[digest] = n + 1
        return n

    def _digest(self, call: Prepared) -> bytes:
        h = hashlib.sha256()
        h.update(call.system.encode())
        for tool in call.tools:
            h.update(b"\x00t" + self.tokens.entry(tool).digest)
        for message in call.messages:
            h.update(b"\x00m" + self.tokens.entry(message).digest)
        h.update(b"\x00x" + canonical_json([call.tool_choice, list(call.stop_sequences), call.metadata]).encode())
        return h.digest()

    def _hex(self, purpose: str, digest: bytes, n: int) -> str:
        key = f"{self.seed}|{self._stream}|{purpose}|{n}|".encode() + digest
        return hashlib.sha256(key).hexdigest()

    def _rng(self, purpose: str, digest: bytes, n: int) -> random.Random:
        return random.Random(int(self._hex(purpose, digest, n)[:32], 16))

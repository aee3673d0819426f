"""Progress of a sweep on stderr: a one-line bar on a terminal, a plain line now and then otherwise.

How close the sweep runs to the account's limits, once there is something to say (the line is drawn as
trials end):

- `calls 3/8 in flight`: model calls in flight and the current bound on them, read when the line is drawn
  from the bounds of this process (`live`: `benchmarks.harness.adaptive.live`);
- `29,800 tokens/min`: the finished trials' prompt tokens per minute of wall time (input, cache reads and
  writes: what an input-token rate limit counts);
- `2 429s`: calls answered 429 so far, counted at the bound as they happen (retried or not), or, where the
  trials run in other processes (`--workers`), from the finished trials' `error_kinds`.

These three are shown only against an account (`anthropic:` and `openai:` models, `account=True`): the
simulator and a replayed cassette have no limits, and their tokens per minute of wall time mean nothing.

The ETA is the trials left at the pace trials have finished since the first one did: the time to the first covers
the start (processes, imports, the first trial's whole latency) and says nothing of the pace, so a line drawn after
one trial would divide the sweep by it (`ETA 93032s`). Until `ETA_AFTER` more trials have finished it reads `?`."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

ETA_AFTER = 3  # trials finished after the first before the pace is read


class Progress:
    def __init__(self, total: int, *, done: int = 0, quiet: bool = False, stream: TextIO | None = None,
                 every_s: float = 5.0, live: Callable[[], dict[str, float] | None] | None = None,
                 account: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done, self.errors = total, done, 0
        self.classes: dict[str, int] = {}  # errors by class (benchmarks.harness.error_classes), via `trial`
        self.prompt_tokens, self.rate_limited = 0, 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s = every_s
        self.clock = clock
        self.t0 = self.last = clock()
        self.started_at = done
        self.first: tuple[float, int] | None = None  # when the first trial of this run finished, and `done` then
        self.live = live  # calls in flight, their bound and the 429s so far, now (`adaptive.live`)
        self.account = account  # the model is an account's, with rate limits: the line says how close it runs

    def update(self, failed: bool, row: dict[str, object] | None = None) -> None:
        self.done += 1
        self.errors += int(failed)
        if self.first is None:
            self.first = (self.clock(), self.done)
        if row is not None:
            self.prompt_tokens += sum(int(row.get(k) or 0) for k in  # type: ignore[call-overload]
                                      ("input_tokens", "cache_read_tokens", "cache_write_tokens"))
            self.rate_limited += str(row.get("error_kinds") or "").split(";").count("RateLimitError")
        if self.quiet:
            return
        now = self.clock()
        if self.tty and (now - self.last >= 0.1 or self.done == self.total):
            self.last = now
            self.stream.write("\r" + self.line(now))
            self.stream.flush()
        elif not self.tty and (now - self.last >= self.every_s):
            self.last = now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def trial(self, row: dict[str, Any]) -> None:
        """`update` for a finished trial's row, its error counted by class (as designed / infrastructure)."""
        from benchmarks.harness.error_classes import error_class

        kind = error_class(row)
        if kind is not None:
            self.classes[kind] = self.classes.get(kind, 0) + 1
        self.update(kind is not None, row)

    def message(self, text: str) -> None:
        """One line of news between progress updates (even with `quiet`): on a terminal, over the bar."""
        self.stream.write(("\r\x1b[K" if self.tty and not self.quiet else "") + text + "\n")
        self.stream.flush()

    def line(self, now: float) -> str:
        ran = self.done - self.started_at
        rate = ran / max(now - self.t0, 1e-9)
        eta = self.eta(now)
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (width - filled)
        eta_text = f"{eta:4.0f}s" if eta is not None else "   ?"
        split = f" ({', '.join(f'{n} {kind}' for kind, n in sorted(self.classes.items()))})" if self.classes else ""
        return (f"[{bar}] {self.done}/{self.total} trials  {rate:6.1f}/s  ETA {eta_text}  "
                f"errors {self.errors}{split}{self.limits(now)}")

    def eta(self, now: float) -> float | None:
        """Seconds left at the pace since the first trial finished; None until that pace has been seen."""
        if self.first is None or self.done - self.first[1] < ETA_AFTER or now <= self.first[0]:
            return None
        return (self.total - self.done) * (now - self.first[0]) / (self.done - self.first[1])

    def limits(self, now: float) -> str:
        """Calls in flight and their bound, prompt tokens per minute, 429s: the parts there is data for."""
        if not self.account:
            return ""
        live = self.live() if self.live is not None else None
        parts = [f"calls {live['in_flight']}/{live['bound']} in flight"] if live else []
        if self.prompt_tokens:
            parts.append(f"{self.prompt_tokens * 60 / max(now - self.t0, 1e-9):,.0f} tokens/min")
        if parts:
            parts.append(f"{max(self.rate_limited, live['rate_limited'] if live else 0)} 429s")
        return "".join(f"  {part}" for part in parts)

    def close(self) -> None:
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\n")
        else:
            self.stream.write(self.line(self.clock()) + "\n")
        if self.classes:  # what the two kinds of error mean, once, under the bar that counted them
            from benchmarks.harness.error_classes import MEANING

            self.stream.write("".join(f"  errors {kind}: {MEANING[kind]}\n" for kind in sorted(self.classes)))
        self.stream.flush()


def against_an_account(model: str) -> bool:
    """Whether `model` (a spec's text) is served by a provider's account, whose limits the line reports."""
    from patterns.specs import provider_of

    return provider_of(model) in ("anthropic", "openai")


def sweep_progress(total: int, done: int, quiet: bool, model: str) -> Progress:
    """The line of a sweep on `model` in this process: its calls' live bounds, its limits if it has an account."""
    from benchmarks.harness.adaptive import live

    return Progress(total, done=done, quiet=quiet, live=live, account=against_an_account(model))

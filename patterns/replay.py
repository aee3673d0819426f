"""Record a model's replies to a JSONL cassette, and replay them offline, byte for byte.

One line per call: `{"request": ..., "response": <Message as the API sent it>}` or, for a call that failed
with an SDK API error, `{"request": ..., "error": {...}}`, so a replay re-raises the same SDK
class (and the retry policy sees the same `retry-after`). Each line also holds the call's
`latency_s` on the inner model's clock, so a replay reproduces the run's latency in virtual
time, and the inner model's `price_id`, so a replayed simulated run costs what it cost. A scripted recorder (an
oracle: `examples/oracle.py`) says so in `made_by` on each line; `recorded_by` reads who made the replies.

Secrets never reach the cassette: parameters named like keys or headers are dropped, only the
retry hints of an error's headers are kept, and every line passes through `redact`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import pydantic
from anthropic.types import Message

from ._http import httpx
from .clock import VirtualClock, clock_of
from .model import aclose_model
from .redact import redact

_SECRET_PARAM = re.compile(r"api_?key|header|auth|secret|password|credential", re.IGNORECASE)
_KEPT_HEADERS = ("retry-after", "retry-after-ms")  # what the retry policy reads; nothing else
_URL = "https://api.anthropic.com/v1/messages"  # not the real base URL: it may embed credentials


class ReplayMismatch(ValueError):
    """A replayed call asked for something the cassette did not record (or nothing is left)."""


def canonical_request(params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` as plain JSON values, without secrets or omitted (`NOT_GIVEN`) arguments."""
    plain = {k: _plain(v) for k, v in params.items() if not _SECRET_PARAM.search(k) and not _omitted(v)}
    # Round-trip through the redacted text so that recording and replay compare the same thing.
    return json.loads(redact(json.dumps(plain, ensure_ascii=False)))


def _omitted(value: Any) -> bool:
    return isinstance(value, anthropic.NotGiven | anthropic.Omit)


def _plain(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):  # e.g. the content blocks of a previous reply
        return value.model_dump(mode="json", exclude_unset=True, by_alias=True)  # as the SDK sends it
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if not _omitted(v)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot record a request parameter of type {type(value).__name__}")


class RecordingModel:
    """Wraps any model and appends one cassette line per call (appending to an existing file)."""

    def __init__(self, inner: Any, path: str | Path, *, made_by: str | None = None) -> None:
        self.inner = inner
        self.path = Path(path)
        self.made_by = made_by  # who answers, when the inner model's name would not say (`"oracle"`)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = getattr(inner, "clock", None)
        self.price_id: str | None = getattr(inner, "price_id", None)

    async def create(self, **params: Any) -> Message:
        request = canonical_request(params)
        clock = clock_of(self.inner)
        start = clock.now()
        try:
            message = await self.inner.create(**params)
        except (anthropic.APIStatusError, anthropic.APIConnectionError) as exc:
            self._append({"request": request, "error": _error_record(exc)}, clock.now() - start)
            raise
        self._append({"request": request, "response": _response_record(message)}, clock.now() - start)
        return message

    async def aclose(self) -> None:
        """Close the wrapped model's connections (`aclose_model`): recording must not leak the SDK's client."""
        await aclose_model(self.inner)

    def _append(self, line: dict[str, Any], latency_s: float) -> None:
        line["latency_s"] = latency_s
        if self.price_id is not None:
            line["price_id"] = self.price_id
        if self.made_by is not None:
            line["made_by"] = self.made_by
        text = redact(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text + "\n")
            f.flush()


def recorded_by(path: str | Path) -> str | None:
    """Who made a cassette's replies: the `made_by` its lines name (`oracle`), else `sim` when the simulator sent
    every reply, else `model:<ids>` (the models that replied); None for a cassette that is not there or unreadable."""
    made, models = set(), set()
    try:
        with Path(path).open(encoding="utf-8") as f:
            for text in f:
                line = json.loads(text) if text.strip() else {}
                made.add(line.get("made_by"))
                models.add(str((line.get("response") or {}).get("model") or ""))
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    made.discard(None)
    models.discard("")
    if made or not models:
        return ",".join(sorted(map(str, made))) or None
    return "sim" if models == {"sim"} else "model:" + ",".join(sorted(models))


def _response_record(message: Message) -> dict[str, Any]:
    # Only the fields that were set, as the API sent them: `to_dict()` (what the agent appends to
    # its messages) leaves unset fields out, so a replayed reply must have the same fields set.
    return message.model_dump(mode="json", exclude_unset=True, by_alias=True)


def _error_record(exc: anthropic.APIStatusError | anthropic.APIConnectionError) -> dict[str, Any]:
    record: dict[str, Any] = {"class": type(exc).__name__, "message": exc.message}
    if isinstance(exc, anthropic.APIStatusError):
        record["status_code"] = exc.status_code
        record["body"] = exc.body
        record["headers"] = {h: exc.response.headers[h] for h in _KEPT_HEADERS if h in exc.response.headers}
    return record


@dataclass(frozen=True, slots=True)
class _Entry:
    line: int  # 1-based, for messages
    request: dict[str, Any]
    response: dict[str, Any] | None
    error: dict[str, Any] | None
    latency_s: float
    price_id: str | None


class ReplayModel:
    """Returns a cassette's recorded replies, in order, for the very requests that were recorded.

    `ordered=False` matches each call to the first unused line with the same request instead:
    for cassettes recorded with calls in flight concurrently, whose completion order varies.
    Time is virtual: each call takes its recorded latency and no real waiting.
    """

    def __init__(self, path: str | Path, *, ordered: bool = True) -> None:
        self.path = Path(path)
        self.ordered = ordered
        self._entries = _load(self.path)
        self._used = [False] * len(self._entries)
        self._calls = 0  # calls made, for messages
        self._next = 0  # the next line to serve, in ordered mode
        self.clock = VirtualClock()
        # The recorded price tier if there was one (a simulated run), else the model that replied.
        tiers = [e.price_id for e in self._entries if e.price_id]
        models = [e.response.get("model") for e in self._entries if e.response and e.response.get("model")]
        self.price_id: str | None = (tiers or models or [None])[0]

    async def create(self, **params: Any) -> Message:
        index, self._calls = self._calls, self._calls + 1
        entry = self._take(index, canonical_request(params))
        await self.clock.sleep(entry.latency_s)
        if entry.error is not None:
            raise _rebuild_error(entry.error)
        assert entry.response is not None
        return Message.model_validate(entry.response)

    def _take(self, index: int, request: dict[str, Any]) -> _Entry:
        where = f"replay call {index} ({self.path})"
        if self.ordered:
            if self._next >= len(self._entries):
                raise ReplayMismatch(f"{where}: the cassette is exhausted after {len(self._entries)} calls")
            entry = self._entries[self._next]
            diff = first_difference(entry.request, request)
            if diff is not None:
                raise ReplayMismatch(f"{where}: request differs from line {entry.line} at {diff}")
            self._used[self._next] = True
            self._next += 1
            return entry
        for i, entry in enumerate(self._entries):
            if not self._used[i] and first_difference(entry.request, request) is None:
                self._used[i] = True
                return entry
        if all(self._used):
            raise ReplayMismatch(f"{where}: the cassette is exhausted after {len(self._entries)} calls")
        nearest = next(e for i, e in enumerate(self._entries) if not self._used[i])
        raise ReplayMismatch(
            f"{where}: no unused line has this request; "
            f"vs line {nearest.line} it differs at {first_difference(nearest.request, request)}"
        )


def first_difference(recorded: Any, got: Any, path: str = "") -> str | None:
    """Where `got` first differs from `recorded`, as `'messages[1].content' (recorded …, got …)`."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        for key in sorted(recorded.keys() | got.keys()):
            sub = f"{path}.{key}" if path else key
            if key not in got:
                return f"'{sub}' (recorded {_short(recorded[key])}, got nothing)"
            if key not in recorded:
                return f"'{sub}' (not recorded, got {_short(got[key])})"
            found = first_difference(recorded[key], got[key], sub)
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(got, list):
        for i, (r, g) in enumerate(zip(recorded, got, strict=False)):
            found = first_difference(r, g, f"{path}[{i}]")
            if found is not None:
                return found
        if len(recorded) != len(got):
            return f"'{path}' (recorded {len(recorded)} items, got {len(got)})"
        return None
    if type(recorded) is type(got) and recorded == got:  # True == 1 in Python, not in JSON
        return None
    return f"'{path or '<request>'}' (recorded {_short(recorded)}, got {_short(got)})"


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _load(path: Path) -> list[_Entry]:
    if not path.is_file():
        raise ValueError(f"replay cassette {path} does not exist")
    entries = []
    with path.open(encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            if text.strip():
                entries.append(_parse_line(path, number, text))
    return entries


def _parse_line(path: Path, number: int, text: str) -> _Entry:
    where = f"replay cassette {path} line {number}"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict):
        raise ValueError(f"{where}: expected an object with a 'request' object")
    response, error = raw.get("response"), raw.get("error")
    if (response is None) == (error is None):
        raise ValueError(f"{where}: expected exactly one of 'response' and 'error'")
    if response is not None:
        try:
            Message.model_validate(response)
        except pydantic.ValidationError as exc:
            raise ValueError(f"{where}: 'response' is not a Message ({exc.error_count()} errors)") from None
    else:
        try:
            _rebuild_error(error)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}: bad 'error' record ({exc})") from None
    latency = raw.get("latency_s", 0.0)
    if not isinstance(latency, int | float) or latency < 0:
        raise ValueError(f"{where}: 'latency_s' must be a number >= 0")
    price_id = raw.get("price_id")
    return _Entry(number, raw["request"], response, error, float(latency), price_id)


def _error_class(name: str) -> type[anthropic.APIError]:
    cls = getattr(anthropic, name, None)
    if isinstance(cls, type) and issubclass(cls, anthropic.APIStatusError | anthropic.APIConnectionError):
        return cls
    raise ValueError(f"unknown SDK error class {name!r}")


def _rebuild_error(record: Any) -> anthropic.APIError:
    """The exception the SDK would have raised, rebuilt as the SDK builds it."""
    if not isinstance(record, dict):
        raise TypeError("'error' must be an object")
    cls = _error_class(str(record["class"]))
    message = str(record.get("message", ""))
    request = httpx.Request("POST", _URL)
    if issubclass(cls, anthropic.APITimeoutError):
        return cls(request=request)
    if issubclass(cls, anthropic.APIConnectionError):
        return cls(message=message, request=request)
    body = record.get("body")
    headers = {str(k): str(v) for k, v in dict(record.get("headers") or {}).items()}
    status = int(record["status_code"])
    if isinstance(body, str):
        response = httpx.Response(status, request=request, text=body, headers=headers)
    elif body is None:
        response = httpx.Response(status, request=request, headers=headers)
    else:
        response = httpx.Response(status, request=request, json=body, headers=headers)
    assert issubclass(cls, anthropic.APIStatusError)
    return cls(message, response=response, body=body)

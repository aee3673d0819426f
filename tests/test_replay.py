import asyncio
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.types import Message

from patterns._http import httpx
from patterns.clock import VirtualClock
from patterns.replay import RecordingModel, ReplayMismatch, ReplayModel

CANARY = "sk-ant-canary-0123456789abcdef"
URL = "https://api.anthropic.com/v1/messages"


def make_message(text: str, n: int, *, model: str = "claude-sonnet-4-5-20250929") -> Message:
    return Message.model_validate(
        {
            "id": f"msg_{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 10 + n,
                "output_tokens": 5 + n,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
    )


def rate_limit_error() -> anthropic.RateLimitError:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded"}}
    response = httpx.Response(
        429,
        request=httpx.Request("POST", URL),
        json=body,
        headers={"retry-after": "7", "x-api-key": CANARY, "request-id": "req_secretish"},
    )
    return anthropic.RateLimitError(f"Error code: 429 - {body}", response=response, body=body)


class Scripted:
    """Returns (or raises) its replies in order, whatever it is asked: it never reads the prompt."""

    def __init__(self, replies: Iterable[Message | BaseException]) -> None:
        self.replies = list(replies)
        self.clock = VirtualClock()
        self.price_id = "claude-sonnet-4-5"

    async def create(self, **params: Any) -> Message:
        await self.clock.sleep(1.5)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def request(turn: int, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "system": "be brief",
        "messages": [{"role": "user", "content": f"question {turn}"}],
        **extra,
    }


async def call_all(model: Any, requests: list[dict[str, Any]]) -> list[Message | BaseException]:
    out: list[Message | BaseException] = []
    for params in requests:
        try:
            out.append(await model.create(**params))
        except anthropic.APIError as exc:
            out.append(exc)
    return out


def record(cassette: Path, replies: list[Message | BaseException], requests: list[dict[str, Any]]) -> list[Any]:
    return asyncio.run(call_all(RecordingModel(Scripted(replies), cassette), requests))


@pytest.fixture
def cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    return tmp_path / "calls.jsonl"


def test_record_then_replay_is_byte_identical(cassette: Path) -> None:
    replies = [make_message("first", 1), make_message("second", 2)]
    inner = Scripted(replies)
    recorder = RecordingModel(inner, cassette)
    assert recorder.clock is inner.clock and recorder.price_id == "claude-sonnet-4-5"
    requests = [request(1), request(2, temperature=0.0)]
    recorded = asyncio.run(call_all(recorder, requests))
    assert len(cassette.read_text().splitlines()) == 2

    replay = ReplayModel(cassette)
    replayed = asyncio.run(call_all(replay, requests))
    for original, again in zip(recorded, replayed, strict=True):
        assert isinstance(again, Message)
        assert again.model_dump() == original.model_dump()  # type: ignore[union-attr]
        assert again.model_dump_json() == original.model_dump_json()  # type: ignore[union-attr]
    assert replay.price_id == "claude-sonnet-4-5"
    assert replay.clock.now() == pytest.approx(0.0)  # each asyncio.run is its own timeline


def test_replay_takes_the_recorded_latency_in_virtual_time(cassette: Path) -> None:
    record(cassette, [make_message("a", 1), make_message("b", 2)], [request(1), request(2)])
    replay = ReplayModel(cassette)

    async def both() -> float:
        await call_all(replay, [request(1), request(2)])
        return replay.clock.now()

    assert asyncio.run(both()) == pytest.approx(3.0)


def test_pydantic_content_blocks_in_the_request_match_their_dict_form(cassette: Path) -> None:
    first = make_message("hello", 1)
    with_blocks = request(2, messages=[{"role": "assistant", "content": first.content}])
    record(cassette, [make_message("x", 2)], [with_blocks])
    as_dicts = request(2, messages=[{"role": "assistant", "content": [{"type": "text", "text": "hello"}]}])
    assert isinstance(asyncio.run(call_all(ReplayModel(cassette), [as_dicts]))[0], Message)


def test_a_different_request_is_a_mismatch_naming_call_and_key(cassette: Path) -> None:
    record(cassette, [make_message("a", 1), make_message("b", 2)], [request(1), request(2)])
    replay = ReplayModel(cassette)
    asyncio.run(replay.create(**request(1)))
    with pytest.raises(ReplayMismatch, match=r"replay call 1 .*messages\[0\]\.content") as info:
        asyncio.run(replay.create(**request(3)))
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
    with pytest.raises(ReplayMismatch, match=r"replay call 2 .*'max_tokens'"):
        asyncio.run(replay.create(**{**request(2), "max_tokens": 512}))


def test_an_exhausted_cassette_fails_loudly(cassette: Path) -> None:
    record(cassette, [make_message("a", 1)], [request(1)])
    replay = ReplayModel(cassette)
    asyncio.run(replay.create(**request(1)))
    with pytest.raises(ReplayMismatch, match="exhausted after 1 calls"):
        asyncio.run(replay.create(**request(1)))


def test_unordered_replay_matches_by_request(cassette: Path) -> None:
    record(cassette, [make_message("a", 1), make_message("b", 2)], [request(1), request(2)])
    replay = ReplayModel(cassette, ordered=False)
    second = asyncio.run(replay.create(**request(2)))
    first = asyncio.run(replay.create(**request(1)))
    assert (first.id, second.id) == ("msg_0001", "msg_0002")
    with pytest.raises(ReplayMismatch, match="exhausted"):
        asyncio.run(replay.create(**request(1)))


def test_a_recorded_rate_limit_error_replays_as_the_same_sdk_class(cassette: Path) -> None:
    inner = Scripted([rate_limit_error(), make_message("after the wait", 1)])
    recorded = asyncio.run(call_all(RecordingModel(inner, cassette), [request(1), request(1)]))
    assert isinstance(recorded[0], anthropic.RateLimitError)

    replayed = asyncio.run(call_all(ReplayModel(cassette), [request(1), request(1)]))
    error = replayed[0]
    assert type(error) is anthropic.RateLimitError
    assert error.status_code == 429 and error.body == recorded[0].body
    assert error.message == recorded[0].message
    assert error.response.headers["retry-after"] == "7"
    assert "x-api-key" not in error.response.headers and "request-id" not in error.response.headers
    assert isinstance(replayed[1], Message) and replayed[1].model_dump() == recorded[1].model_dump()


@pytest.mark.parametrize(
    "exc",
    [
        anthropic.APIConnectionError(request=httpx.Request("POST", URL)),
        anthropic.APITimeoutError(request=httpx.Request("POST", URL)),
    ],
)
def test_connection_errors_replay_as_their_class(cassette: Path, exc: anthropic.APIError) -> None:
    record(cassette, [exc], [request(1)])
    (replayed,) = asyncio.run(call_all(ReplayModel(cassette), [request(1)]))
    assert type(replayed) is type(exc) and str(replayed) == str(exc)


def test_other_exceptions_pass_through_unrecorded(cassette: Path) -> None:
    with pytest.raises(RuntimeError):
        asyncio.run(RecordingModel(Scripted([RuntimeError("bug")]), cassette).create(**request(1)))
    assert not cassette.exists() or cassette.read_text() == ""


def test_the_api_key_never_reaches_the_cassette(cassette: Path) -> None:
    sneaky = request(
        1,
        api_key=CANARY,
        extra_headers={"x-api-key": CANARY},
        headers={"authorization": f"Bearer {CANARY}"},
        metadata={"user_id": CANARY},  # a careless caller: still redacted
    )
    inner = Scripted([make_message("ok", 1), rate_limit_error()])
    asyncio.run(call_all(RecordingModel(inner, cassette), [sneaky, request(2)]))
    text = cassette.read_text()
    assert CANARY not in text and "sk-ant-" not in text
    assert "request-id" not in text and "x-api-key" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert set(lines[0]["request"]) == {"model", "max_tokens", "system", "messages", "metadata"}
    assert lines[1]["error"]["headers"] == {"retry-after": "7"}
    # The replay compares the redacted forms, so the same careless request still matches.
    assert isinstance(asyncio.run(ReplayModel(cassette).create(**sneaky)), Message)


def test_not_given_params_are_left_out(cassette: Path) -> None:
    record(cassette, [make_message("a", 1)], [request(1, temperature=anthropic.NOT_GIVEN)])
    assert "temperature" not in json.loads(cassette.read_text())["request"]
    assert isinstance(asyncio.run(ReplayModel(cassette).create(**request(1))), Message)


def test_replay_price_id_is_the_recorded_model_when_the_inner_had_none(cassette: Path) -> None:
    inner = Scripted([make_message("a", 1, model="claude-haiku-4-5-20251001")])
    inner.price_id = None  # type: ignore[assignment]
    asyncio.run(call_all(RecordingModel(inner, cassette), [request(1)]))
    assert ReplayModel(cassette).price_id == "claude-haiku-4-5-20251001"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json\n", "not JSON"),
        ('["a list"]\n', "'request' object"),
        ('{"request": {}}\n', "exactly one of"),
        ('{"request": {}, "response": {"id": 3}}\n', "not a Message"),
        ('{"request": {}, "error": {"class": "NoSuchError"}}\n', "unknown SDK error class"),
        ('{"request": {}, "error": {"class": "RateLimitError"}}\n', "bad 'error' record"),
    ],
)
def test_a_malformed_cassette_names_the_line(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"request": {}, "response": make_message("ok", 1).model_dump(mode="json")})
    path.write_text(good + "\n\n" + content)
    with pytest.raises(ValueError, match="line 3") as info:
        ReplayModel(path)
    assert problem in str(info.value) and "\n" not in str(info.value)


def test_a_missing_cassette_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        ReplayModel(tmp_path / "nope.jsonl")


def test_replayed_replies_have_the_same_fields_set(cassette: Path) -> None:
    # `to_dict()` (what the agent loop appends) drops unset fields, so they must survive the cassette.
    original = make_message("a", 1)
    record(cassette, [original], [request(1)])
    again = asyncio.run(ReplayModel(cassette).create(**request(1)))
    assert again.to_dict() == original.to_dict()
    assert again.content[0].to_dict() == original.content[0].to_dict()


def test_a_simulated_agent_run_replays_to_the_same_result(cassette: Path) -> None:
    from patterns import Limits, ToolSet, run_agent, tool
    from patterns.specs import load_model

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def agent(model: Any) -> dict[str, Any]:
        result = run_agent(model, "What is 2 + 3? Use the add tool.", tools=ToolSet([add]), limits=Limits(max_steps=6))
        return result.to_dict()

    recorded = agent(RecordingModel(load_model("sim:fault_rate=0.5,seed=2"), cassette))
    assert recorded["retries"] > 0  # the cassette holds errors as well as replies
    assert agent(load_model(f"replay:{cassette}")) == recorded  # events, usage, cost and latency too


def test_a_recording_model_closes_the_model_it_wraps(tmp_path) -> None:
    import asyncio

    from patterns.model import aclose_model

    class Closable:
        closed = False

        async def aclose(self) -> None:
            self.closed = True

    inner = Closable()
    asyncio.run(aclose_model(RecordingModel(inner, tmp_path / "c.jsonl")))
    assert inner.closed

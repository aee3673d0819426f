"""The sim server speaks the Message Batches API (patterns/sim/batches.py), read through the real `anthropic` SDK:
the shapes of create, retrieve, results and cancel, the errors the API answers, and a batched request answered as
the same interactive call on the same stream is."""

from __future__ import annotations

import time
from collections.abc import Iterator

import anthropic
import pytest

from patterns.model import STREAM_HEADER
from patterns.sim.batches import STREAMS_HEADER
from patterns.sim.server import SimServer, typed_knobs

PARAMS = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hello there"}]}


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(batch_processing_s=0.1) as running:
        yield running


def client(server: SimServer, **kwargs: object) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="sk-ant-dummy", max_retries=0, **kwargs)  # type: ignore[arg-type]


def ended(api: anthropic.Anthropic, batch_id: str) -> anthropic.types.messages.MessageBatch:
    for _ in range(100):
        batch = api.messages.batches.retrieve(batch_id)
        if batch.processing_status == "ended":
            return batch
        time.sleep(0.02)
    raise AssertionError("the batch never ended")


def test_create_retrieve_results_in_the_api_shapes(server: SimServer) -> None:
    api = client(server)
    batch = api.messages.batches.create(requests=[{"custom_id": "one", "params": PARAMS},  # type: ignore[list-item]
                                                  {"custom_id": "two", "params": PARAMS}])  # type: ignore[list-item]
    assert batch.type == "message_batch" and batch.id.startswith("msgbatch_")
    assert batch.processing_status == "in_progress" and batch.results_url is None and batch.ended_at is None
    assert batch.request_counts.processing == 2 and batch.request_counts.succeeded == 0
    assert (batch.expires_at - batch.created_at).total_seconds() == 24 * 3600
    with pytest.raises(anthropic.BadRequestError, match="has not finished processing"):
        api.get(f"/v1/messages/batches/{batch.id}/results", cast_to=object)
    done = ended(api, batch.id)
    assert done.request_counts.processing == 0 and done.request_counts.succeeded == 2 and done.ended_at is not None
    assert done.results_url == f"{server.url}/v1/messages/batches/{batch.id}/results"
    results = {r.custom_id: r.result for r in api.messages.batches.results(batch.id)}
    assert set(results) == {"one", "two"}
    assert all(r.type == "succeeded" and r.message.type == "message" for r in results.values())  # type: ignore[union-attr]


def test_cancel_before_the_end_cancels_every_request(server: SimServer) -> None:
    api = client(server)
    batch = api.messages.batches.create(requests=[{"custom_id": "a", "params": PARAMS}])  # type: ignore[list-item]
    cancelled = api.messages.batches.cancel(batch.id)
    assert cancelled.processing_status == "canceling" and cancelled.cancel_initiated_at is not None
    done = api.messages.batches.retrieve(batch.id)
    assert done.processing_status == "ended" and done.request_counts.canceled == 1
    assert [r.result.type for r in api.messages.batches.results(batch.id)] == ["canceled"]


@pytest.mark.parametrize(("requests", "message"), [
    ([], "a list of 1 to 100,000 requests"),
    ([{"custom_id": "has space", "params": PARAMS}], "custom_id: String should match"),
    ([{"custom_id": "x", "params": PARAMS}, {"custom_id": "x", "params": PARAMS}], "must be unique"),
    ([{"custom_id": "x", "params": "not an object"}], "requests.0.params: Input should be a valid dictionary"),
])
def test_a_bad_batch_is_a_400_invalid_request_error(server: SimServer, requests: list[object], message: str) -> None:
    with pytest.raises(anthropic.BadRequestError, match=message):
        client(server).messages.batches.create(requests=requests)  # type: ignore[arg-type]


def test_unknown_batches_are_404_and_a_required_key_guards_them() -> None:
    with SimServer(require_api_key="sk-ant-right") as guarded:
        with pytest.raises(anthropic.AuthenticationError):
            client(guarded).messages.batches.create(requests=[{"custom_id": "a", "params": PARAMS}])  # type: ignore[list-item]
        api = anthropic.Anthropic(base_url=guarded.url, api_key="sk-ant-right", max_retries=0)
        with pytest.raises(anthropic.NotFoundError, match="msgbatch_nope"):
            api.messages.batches.retrieve("msgbatch_nope")


def test_a_batched_request_is_answered_as_the_same_call_on_the_same_stream() -> None:
    """Two servers of one seed: one answers interactively on stream s1, the other in a batch naming s1."""
    with SimServer(seed=3, error_rate=0.5) as one, SimServer(seed=3, error_rate=0.5, batch_processing_s=0) as two:
        asked = [client(one).messages.create(**PARAMS, extra_headers={STREAM_HEADER: f"s{i}"})  # type: ignore[call-overload]
                 for i in range(4)]
        api = client(two)
        batch = api.messages.batches.create(
            requests=[{"custom_id": f"r{i}", "params": PARAMS} for i in range(4)],  # type: ignore[misc]
            extra_headers={STREAMS_HEADER: "s0,s1,s2,s3"})
        ended(api, batch.id)
        got = {r.custom_id: r.result.message for r in api.messages.batches.results(batch.id)}  # type: ignore[union-attr]
        assert [got[f"r{i}"].model_dump() for i in range(4)] == [m.model_dump() for m in asked]
        assert sum(two.batches.received.values()) == 4
        with pytest.raises(anthropic.BadRequestError, match="2 streams for 1 requests"):
            api.messages.batches.create(requests=[{"custom_id": "a", "params": PARAMS}],  # type: ignore[list-item]
                                        extra_headers={STREAMS_HEADER: "s0,s1"})


@pytest.mark.parametrize(("knob", "kind"), [("batch_error_rate", "errored"), ("batch_expire_rate", "expired")])
def test_the_failure_knobs_fail_requests_in_a_batch(knob: str, kind: str) -> None:
    with SimServer(**typed_knobs({knob: "1", "batch_processing_s": "0"})) as failing:
        api = client(failing)
        batch = api.messages.batches.create(requests=[{"custom_id": "a", "params": PARAMS}])  # type: ignore[list-item]
        assert getattr(ended(api, batch.id).request_counts, kind) == 1
        [line] = list(api.messages.batches.results(batch.id))
        assert line.result.type == kind
        if kind == "errored":
            assert line.result.error.error.type == "api_error"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="sum is at most 1"):
        SimServer(batch_error_rate=0.6, batch_expire_rate=0.6)

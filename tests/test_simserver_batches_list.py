"""The sim server's Message Batches against the real API (issue 44), through the real `anthropic` SDK: the paginated
list, delete (refused while a batch processes), params checked only when the batch is processed, the 256 MiB body
bound of the batch endpoints, and a `request-id` on every batch reply."""

from __future__ import annotations

import time

import anthropic
import pytest

from patterns.sim.batches import MAX_BATCH_BODY_BYTES
from patterns.sim.guard import MAX_BODY_BYTES
from patterns.sim.server import SimServer

pytestmark = pytest.mark.timeout(60)
PARAMS = {"model": "claude-sonnet-4-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hello"}]}


def client(server: SimServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="sk-ant-dummy", max_retries=0)


def create(api: anthropic.Anthropic, n: int = 1, params: dict[str, object] | None = None) -> str:
    requests = [{"custom_id": f"r{i}", "params": params or PARAMS} for i in range(n)]
    return api.messages.batches.create(requests=requests).id  # type: ignore[arg-type]


def ended(api: anthropic.Anthropic, batch_id: str) -> None:
    for _ in range(200):
        if api.messages.batches.retrieve(batch_id).processing_status == "ended":
            return
        time.sleep(0.01)
    raise AssertionError("the batch never ended")


def test_the_list_pages_newest_first_as_the_sdk_reads_it() -> None:
    with SimServer(batch_processing_s=0) as server:
        api = client(server)
        ids = [create(api) for _ in range(5)]
        newest_first = ids[::-1]
        page = api.messages.batches.list(limit=2)
        assert [b.id for b in page.data] == newest_first[:2] and page.has_more is True
        assert (page.first_id, page.last_id) == (newest_first[0], newest_first[1])
        assert [b.id for b in api.messages.batches.list(limit=2)] == newest_first  # the SDK follows after_id
        assert all(b.type == "message_batch" for b in page.data)
        after = api.messages.batches.list(after_id=newest_first[2], limit=10)
        assert [b.id for b in after.data] == newest_first[3:] and after.has_more is False
        before = api.messages.batches.list(before_id=newest_first[3], limit=2)
        assert [b.id for b in before.data] == newest_first[1:3] and before.has_more is True
        assert [b.id for b in api.messages.batches.list()] == newest_first  # default limit 20: one page
        with pytest.raises(anthropic.BadRequestError, match="limit"):
            api.messages.batches.list(limit=1001)


def test_delete_refuses_a_batch_in_progress_and_deletes_an_ended_one() -> None:
    with SimServer(batch_processing_s=30) as server:
        api = client(server)
        batch_id = create(api)
        with pytest.raises(anthropic.BadRequestError, match="cancel it first") as refused:
            api.messages.batches.delete(batch_id)
        assert refused.value.request_id and refused.value.body["request_id"] == refused.value.request_id  # type: ignore[index]
        api.messages.batches.cancel(batch_id)  # a cancelled batch ends at once here
        deleted = api.messages.batches.delete(batch_id)
        assert isinstance(deleted, anthropic.types.messages.DeletedMessageBatch)
        assert (deleted.id, deleted.type) == (batch_id, "message_batch_deleted")
        with pytest.raises(anthropic.NotFoundError):
            api.messages.batches.retrieve(batch_id)
        assert [b.id for b in api.messages.batches.list()] == []


def test_params_are_checked_when_the_batch_is_processed() -> None:
    """A request without `model` is accepted at create, as the API validates params asynchronously; it comes back
    `errored` with the Messages API's 400 and a request id, beside the good request's success."""
    with SimServer(batch_processing_s=0) as server:
        api = client(server)
        batch = api.messages.batches.create(requests=[  # type: ignore[list-item]
            {"custom_id": "good", "params": PARAMS},
            {"custom_id": "no-model", "params": {"max_tokens": 16, "messages": PARAMS["messages"]}},
            {"custom_id": "bad-max", "params": {**PARAMS, "max_tokens": 0}}])
        ended(api, batch.id)
        results = {r.custom_id: r.result for r in api.messages.batches.results(batch.id)}
    assert results["good"].type == "succeeded"
    for name, words in (("no-model", "model: Field required"), ("bad-max", "max_tokens")):
        result = results[name]
        assert result.type == "errored"
        assert result.error.error.type == "invalid_request_error" and words in result.error.error.message  # type: ignore[union-attr]
        assert (result.error.request_id or "").startswith("req_")  # type: ignore[union-attr]


def test_a_batch_body_may_be_larger_than_a_message_s() -> None:
    """The batch endpoints have their own bound (256 MiB by default, the API's; 32 MiB for /v1/messages): a
    body over the Messages bound but under the batch bound is taken on the batch endpoint and refused 413 on
    /v1/messages."""
    assert (MAX_BODY_BYTES, MAX_BATCH_BODY_BYTES) == (32 * 1024 * 1024, 256 * 1024 * 1024)
    assert SimServer().max_batch_body_bytes == MAX_BATCH_BODY_BYTES
    big = {**PARAMS, "messages": [{"role": "user", "content": "x" * 6000}]}
    with SimServer(max_body_bytes=4000, max_batch_body_bytes=100_000, batch_processing_s=0) as server:
        api = client(server)
        batch_id = create(api, 2, big)
        ended(api, batch_id)
        assert [r.result.type for r in api.messages.batches.results(batch_id)] == ["succeeded"] * 2
        with pytest.raises(anthropic.APIStatusError) as too_large:
            api.messages.create(**big)  # type: ignore[arg-type]
        assert too_large.value.status_code == 413
        with pytest.raises(anthropic.APIStatusError) as batch_too_large:
            create(api, 20, big)
        assert batch_too_large.value.status_code == 413


def test_every_batch_reply_has_a_request_id() -> None:
    with SimServer(batch_processing_s=0) as server:
        api = client(server).with_raw_response.messages.batches  # type: ignore[attr-defined]
        batch_id = api.create(requests=[{"custom_id": "a", "params": PARAMS}]).parse().id
        replies = [api.retrieve(batch_id), api.list(), api.cancel(batch_id), api.results(batch_id),
                   api.delete(batch_id)]
        ids = [r.headers.get("request-id") or "" for r in replies]
    assert all(i.startswith("req_") for i in ids) and len(set(ids)) == len(ids)

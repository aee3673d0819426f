"""Test helpers: SDK errors built as the SDK builds them, and a model on a virtual clock."""

from __future__ import annotations

from typing import Any

import anthropic

from patterns._http import httpx
from patterns.clock import VirtualClock
from patterns.scripted import ScriptedModel

URL = "https://api.anthropic.com/v1/messages"
_CLASSES: dict[int, type[anthropic.APIStatusError]] = {
    400: anthropic.BadRequestError, 401: anthropic.AuthenticationError, 403: anthropic.PermissionDeniedError,
    404: anthropic.NotFoundError, 429: anthropic.RateLimitError, 500: anthropic.InternalServerError,
    529: anthropic.OverloadedError,
}
_CLASSES.update({  # further codes, with the classes the SDK raises for them (a plain APIStatusError if older)
    408: getattr(anthropic, "RequestTimeoutError", anthropic.APIStatusError),
    409: getattr(anthropic, "ConflictError", anthropic.APIStatusError),
    413: getattr(anthropic, "ContentTooLargeError", anthropic.APIStatusError),
    503: getattr(anthropic, "ServiceUnavailableError", anthropic.InternalServerError),
})
_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
_TYPES.update({408: "timeout_error", 409: "conflict_error", 413: "request_too_large", 503: "api_error"})


def api_error(status: int, message: str = "boom", headers: dict[str, str] | None = None) -> anthropic.APIStatusError:
    body = {"type": "error", "error": {"type": _TYPES[status], "message": message}}
    response = httpx.Response(status, headers=headers or {}, json=body, request=httpx.Request("POST", URL))
    return _CLASSES[status](f"Error code: {status} - {body}", response=response, body=body)


def prompt_too_long(n: int = 250_000, m: int = 200_000) -> anthropic.BadRequestError:
    err = api_error(400, f"prompt is too long: {n} tokens > {m} maximum")
    assert isinstance(err, anthropic.BadRequestError)
    return err


def timeout_error() -> anthropic.APITimeoutError:
    return anthropic.APITimeoutError(request=httpx.Request("POST", URL))


def connection_error() -> anthropic.APIConnectionError:
    return anthropic.APIConnectionError(message="Connection error.", request=httpx.Request("POST", URL))


class VirtualScripted(ScriptedModel):
    """A scripted model whose calls each take `latency_s` of modelled time."""

    def __init__(self, replies: Any, latency_s: float = 1.0, **kwargs: Any) -> None:
        super().__init__(replies, **kwargs)
        self.clock = VirtualClock()
        self.latency_s = latency_s

    async def create(self, **params: Any) -> Any:
        await self.clock.sleep(self.latency_s)
        return await super().create(**params)

"""The API's failures, raised as the SDK raises them: same classes, bodies, headers and messages.

Each status error carries a real response of the SDK's HTTP library (with its request), a body
`{"type": "error", "error": {"type": ..., "message": ...}, "request_id": ...}` and the message
the SDK writes, `Error code: <status> - <body>`, so code that handles a real API error handles
these the same way. The sim server sends the same bodies and headers over HTTP.
"""

from __future__ import annotations

from typing import Any

import anthropic

from .._http import httpx

API_URL = "https://api.anthropic.com/v1/messages"

# The fault kinds SimModel injects, named by the SDK class that reports them, so the count a
# SimModel injected can be compared directly with the `error_type` a run recorded.
RATE_LIMIT = "RateLimitError"
OVERLOADED = "OverloadedError"
SERVER_ERROR = "InternalServerError"
TIMEOUT = "APITimeoutError"
FAULT_KINDS = (RATE_LIMIT, OVERLOADED, SERVER_ERROR, TIMEOUT)

_CLASSES: dict[int, type[anthropic.APIStatusError]] = {
    400: anthropic.BadRequestError,
    401: anthropic.AuthenticationError,
    403: anthropic.PermissionDeniedError,
    404: anthropic.NotFoundError,
    429: anthropic.RateLimitError,
    500: anthropic.InternalServerError,
    529: anthropic.OverloadedError,
}


def error_body(error_type: str, message: str, request_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {"type": error_type, "message": message}}
    if request_id is not None:
        body["request_id"] = request_id
    return body


def retry_after_value(seconds: float) -> str:
    """The header as the API writes it: whole seconds when whole (the SDK also parses floats)."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def api_request(url: str = API_URL) -> httpx.Request:
    return httpx.Request("POST", url)


def status_error(
    status: int, error_type: str, message: str, *, headers: dict[str, str] | None = None,
    request_id: str | None = None,
) -> anthropic.APIStatusError:
    """The SDK's exception for an error response, built as its client builds it."""
    body = error_body(error_type, message, request_id)
    all_headers = dict(headers or {})
    if request_id is not None:
        all_headers["request-id"] = request_id
    response = httpx.Response(status, headers=all_headers, json=body, request=api_request())
    cls = _CLASSES.get(status) or (anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)
    return cls(f"Error code: {status} - {body}", response=response, body=body)


def invalid_request(message: str, *, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(400, "invalid_request_error", message, request_id=request_id)


def prompt_too_long(tokens: int, maximum: int, *, request_id: str | None = None) -> anthropic.APIStatusError:
    return invalid_request(f"prompt is too long: {tokens} tokens > {maximum} maximum", request_id=request_id)


def rate_limited(retry_after_s: float, *, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(
        429, "rate_limit_error",
        "This request would exceed your organization's rate limit. Please try again later.",
        headers={"retry-after": retry_after_value(retry_after_s)}, request_id=request_id)


def overloaded(retry_after_s: float, *, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(529, "overloaded_error", "Overloaded",
                        headers={"retry-after": retry_after_value(retry_after_s)}, request_id=request_id)


def server_error(*, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(500, "api_error", "Internal server error", request_id=request_id)


def authentication_failed(*, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(401, "authentication_error", "invalid x-api-key", request_id=request_id)


def not_found(message: str = "Not found", *, request_id: str | None = None) -> anthropic.APIStatusError:
    return status_error(404, "not_found_error", message, request_id=request_id)


def timed_out() -> anthropic.APITimeoutError:
    return anthropic.APITimeoutError(request=api_request())


def fault(kind: str, *, retry_after_s: float, request_id: str | None = None) -> anthropic.APIError:
    """The exception for one injected fault kind (one of `FAULT_KINDS`)."""
    if kind == RATE_LIMIT:
        return rate_limited(retry_after_s, request_id=request_id)
    if kind == OVERLOADED:
        return overloaded(retry_after_s, request_id=request_id)
    if kind == SERVER_ERROR:
        return server_error(request_id=request_id)
    if kind == TIMEOUT:
        return timed_out()
    raise ValueError(f"unknown fault kind {kind!r}; expected one of {', '.join(FAULT_KINDS)}")

"""`OpenAIModel`: any OpenAI-compatible chat-completions endpoint as a `Model` (`openai:<model>`).

It takes the Messages API arguments and returns an `anthropic.types.Message`, raising the
`anthropic` SDK's exception classes, so the loop, the workflows, the retry policy and the
compaction see one code path whatever the provider (the request and reply mapping is in
`openai_format.py`). The official `openai` SDK is an optional extra
(`pip install 'workflow-vs-agent[openai]'`), imported on the first call only.

The client reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` as the SDK always does, so a local
llama.cpp `llama-server`, vLLM or Ollama is `OPENAI_BASE_URL=http://host:port/v1`. The SDK's own
retries are off (`max_retries=0`) so that the project's retry policy sees and counts every failure.

Errors keep their status code, which is what `patterns/retry.py` decides on: an `openai`
status error is raised again as the `anthropic` class for that status (429 -> RateLimitError,
529 -> OverloadedError, other 5xx -> InternalServerError, ...) with the same response, so
`retry-after` is honoured; a timeout, a connection error and a reply that is not a completion are
`anthropic.APITimeoutError`, `APIConnectionError` and `APIResponseValidationError`. A context-length
error (OpenAI's `context_length_exceeded`, vLLM's "maximum context length", llama.cpp's
`exceed_context_size_error`) becomes the Messages API's 400 "prompt is too long: N tokens > M
maximum" (the numbers when the server gives them), so the loop compacts as it does for Claude.
Unless the prompt fits and only the output budget does not: vLLM's "'max_tokens' or
'max_completion_tokens' is too large: M. This model's maximum context length is N tokens and your
request has T input tokens (M > N - T)." (vLLM 0.10.2 to 0.17, `_validate_input` in its serving
code), its other versions' "(T in the messages, M in the completion)", "requested M output tokens
and your prompt contains T input tokens" and "You passed T input tokens and requested M output
tokens ... context length is only N tokens" (and OpenAI's "(T in the messages, M in the
completion)") with T < N become the Messages API's own 400 for that case, "input length and
`max_tokens` exceed context limit: T + M > N, decrease input length or `max_tokens` and try
again", and a `max_tokens` over a model's output limit (vLLM's "max_tokens=M cannot be greater
than ...", OpenAI's "This model supports at most C completion tokens") becomes "max_tokens: M > C,
which is the maximum allowed number of output tokens": `Run.sample` then lowers `max_tokens` to
what fits and sends the call once more (`patterns/run.py`), instead of compacting a prompt that
already fits. llama.cpp has no such error: it refuses only a prompt that fills the context
(`n_prompt_tokens >= n_ctx`) and stops a generation that runs out of room with `length`.

`max_tokens` goes out as `max_completion_tokens` to OpenAI's own API (its newer models refuse
`max_tokens`) and as `max_tokens` when a base URL is set (what compatible servers all accept);
`max_tokens_field=` overrides the choice.
"""

from __future__ import annotations

import os
import re
from typing import Any

import anthropic
from anthropic.types import Message

from .openai_format import chat_request, to_message

_CLASSES: dict[int, type[anthropic.APIStatusError]] = {
    400: anthropic.BadRequestError, 401: anthropic.AuthenticationError, 403: anthropic.PermissionDeniedError,
    404: anthropic.NotFoundError, 409: anthropic.ConflictError, 413: anthropic.ContentTooLargeError,
    422: anthropic.UnprocessableEntityError, 429: anthropic.RateLimitError, 529: anthropic.OverloadedError,
}
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "context_window_exceeded"})
_CONTEXT_WORDS = re.compile(r"context length|context window|context size|prompt is too long", re.I)
_LIMIT = re.compile(r"maximum context length is (\d+)", re.I)
_GIVEN = tuple(re.compile(p, re.I) for p in (r"(\d+) in the messages", r"resulted in (\d+) tokens",
                                              r"requested (\d+) tokens"))  # in this order: the prompt's own size first
_COMPLETION = re.compile(r"(\d+) in the completion", re.I)
_BUDGETS = tuple(re.compile(p, re.I) for p in (  # (prompt T, max_tokens asked M, window N), in vLLM's versions' words
    r"'max_tokens' or 'max_completion_tokens' is too large: (?P<asked>\d+)\. This model's maximum context length is "
    r"(?P<window>\d+) tokens and your request has (?P<prompt>\d+) input tokens",
    r"maximum context length is (?P<window>\d+) tokens\. However, you requested \d+ tokens \((?P<prompt>\d+) in the "
    r"messages, (?P<asked>\d+) in the completion\)",
    r"maximum context length is (?P<window>\d+) tokens\. However, you requested (?P<asked>\d+) output tokens and "
    r"your prompt contains (?:at least )?(?P<prompt>\d+) input tokens",
    r"You passed (?P<prompt>\d+) input tokens and requested (?P<asked>\d+) output tokens\. However, the model's "
    r"context length is only (?P<window>\d+) tokens"))
_CAPS = tuple(re.compile(p, re.I) for p in (  # max_tokens M over an output limit C
    r"max_(?:completion_)?tokens=(?P<asked>\d+)\s*cannot be greater than \S*?(?P<cap>\d+)\b",
    r"max_(?:completion_)?tokens is too large: (?P<asked>\d+)\. This model supports at most (?P<cap>\d+) completion"))


class OpenAIModel:
    """A chat-completions model via `openai.AsyncOpenAI`, created on the first call (never at import or here).

    `client_kwargs` go to `AsyncOpenAI` (api_key, base_url, timeout, ...). It runs on wall time.
    Use one instance within one event loop, as with `AnthropicModel`.
    """

    def __init__(self, model_id: str, *, max_tokens_field: str | None = None, **client_kwargs: Any) -> None:
        if not isinstance(model_id, str) or not model_id.strip():
            raise ValueError(f"model_id must be a non-empty string, got {model_id!r}")
        self.model_id = model_id
        self.price_id = model_id
        self._field = max_tokens_field
        self._client_kwargs = client_kwargs
        self._client: Any = None
        self.rate_headers: dict[str, str] = {}  # the last reply's x-ratelimit-* headers (for the harness)

    @property
    def client(self) -> Any:
        if self._client is None:
            import openai  # the optional extra: only a run that uses it needs it

            self._client = openai.AsyncOpenAI(**{"max_retries": 0, **self._client_kwargs})
        return self._client

    @property
    def max_tokens_field(self) -> str:
        if self._field is not None:
            return self._field
        own_api = not (self._client_kwargs.get("base_url") or os.environ.get("OPENAI_BASE_URL"))
        return "max_completion_tokens" if own_api else "max_tokens"

    takes_headers = True  # `extra_headers` go out with the request (`patterns.model.Streamed`)

    async def create(self, **params: Any) -> Message:
        import openai
        from openai.types.chat import ChatCompletion

        headers = params.pop("extra_headers", None)
        request = chat_request(self.model_id, params, max_tokens_field=self.max_tokens_field)
        if headers:
            request["extra_headers"] = headers
        try:
            raw = await self.client.chat.completions.with_raw_response.create(**request)
        except openai.APIError as exc:
            raise as_anthropic(exc) from None  # the cause holds nothing the anthropic error does not
        response = raw.http_response
        try:
            completion = raw.parse()
        except ValueError as exc:  # json.JSONDecodeError from the SDK's parser
            raise _malformed(response, f"the body is not valid JSON ({exc})") from None
        if not isinstance(completion, ChatCompletion) or not completion.choices:
            kind = response.headers.get("content-type", "no content type")
            raise _malformed(response, f"the body is not a chat completion with a choice ({kind})")
        message = to_message(completion, self.model_id)
        # Set with no await before the return, so the harness reads this reply's headers, not another call's.
        self.rate_headers = {k: v for k, v in response.headers.items() if k.lower().startswith("x-ratelimit-")}
        return message

    async def aclose(self) -> None:
        """Close the client's connections (a later call opens a new client)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def __repr__(self) -> str:  # never the client kwargs: they may hold an API key
        return f"OpenAIModel({self.model_id!r})"


def as_anthropic(exc: Exception) -> anthropic.APIError:
    """The `anthropic` exception the retry policy and the loop expect for an `openai` one."""
    import openai

    request = getattr(exc, "request", None)
    if isinstance(exc, openai.APITimeoutError):
        return anthropic.APITimeoutError(request=request)
    if isinstance(exc, openai.APIConnectionError):
        return anthropic.APIConnectionError(message=str(exc), request=request)
    if isinstance(exc, openai.APIResponseValidationError):
        return anthropic.APIResponseValidationError(exc.response, exc.body, message=str(exc))
    if not isinstance(exc, openai.APIStatusError):
        return anthropic.APIError(str(exc), request, body=getattr(exc, "body", None))
    status, body = exc.status_code, exc.body
    error = body if isinstance(body, dict) else {"message": str(body or exc)}
    message = str(error.get("message") or exc)
    budget = _budget(message) if status in (400, 413) else None
    if budget is not None:
        status, message = 400, budget
    elif status in (400, 413) and _is_context_error(error, message):
        status, message = 400, f"prompt is too long{_sizes(error, message)} ({message})"
    kind = str(error.get("type") or "api_error")
    anthropic_body = {"type": "error", "error": {"type": kind, "message": message}}
    cls = _CLASSES.get(status) or (anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)
    return cls(f"Error code: {status} - {message}", response=exc.response, body=anthropic_body)


def _budget(message: str) -> str | None:
    """The Messages API's words for a prompt plus `max_tokens` over the window (or `max_tokens` over an
    output limit), when the server's message says how many tokens; None for any other error."""
    found = next((m for m in (form.search(message) for form in _BUDGETS) if m), None)
    if found:
        prompt, asked, window = (int(found.group(name)) for name in ("prompt", "asked", "window"))
        if prompt < window:  # the prompt fits: the output budget does not
            return (f"input length and `max_tokens` exceed context limit: {prompt} + {asked} > {window}, "
                    f"decrease input length or `max_tokens` and try again ({message})")
        limit = max(1, min(window - asked, prompt - 1))
        return f"prompt is too long: {prompt} tokens > {limit} maximum ({message})"
    cap = next((m for m in (form.search(message) for form in _CAPS) if m), None)
    if cap:
        return (f"max_tokens: {cap.group('asked')} > {cap.group('cap')}, which is the maximum allowed number of "
                f"output tokens for this model ({message})")
    return None


def _is_context_error(error: dict[str, Any], message: str) -> bool:
    codes = {str(error.get("code") or ""), str(error.get("type") or "")}
    return bool(codes & _CONTEXT_CODES) or bool(_CONTEXT_WORDS.search(message))


def _sizes(error: dict[str, Any], message: str) -> str:
    """`: N tokens > M maximum` when the server says how many, else nothing (compaction then assumes 2x)."""
    given, limit = error.get("n_prompt_tokens"), error.get("n_ctx")  # llama.cpp's fields
    if not (isinstance(given, int) and isinstance(limit, int)):
        found = _LIMIT.search(message)
        asked = next((m for m in (pattern.search(message) for pattern in _GIVEN) if m), None)
        if not (found and asked):
            return ""
        limit, given = int(found.group(1)), int(asked.group(1))
        completion = _COMPLETION.search(message)
        if completion:  # vLLM: the room left for the prompt is the window less the completion asked for
            limit -= int(completion.group(1))
    return f": {given} tokens > {max(1, min(limit, given - 1))} maximum"


def _malformed(response: Any, why: str) -> anthropic.APIResponseValidationError:
    text = response.text
    message = f"HTTP {response.status_code} from {response.request.url}: {why}; body starts {text[:80]!r}"
    return anthropic.APIResponseValidationError(response, text, message=message)

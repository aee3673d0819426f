"""The sim server's OpenAI chat-completions wire: `POST /v1/chat/completions`, the same simulator.

`request(path, body)` turns a chat-completions request into the Messages API arguments SimModel
answers (the inverse of `patterns/openai_format.py`); `reply(path, status, body, headers)` turns the
server's answer, a Message or an Anthropic error body, into that API's shapes and encodes it. For
any other path both hand their input back unchanged, so the server has one code path for both wires
and every policy, fault and knob applies to both.

- Messages: `system`/`developer` messages -> `system`; `tool` messages -> `tool_result` blocks of
  one user message (a following user message's text joins it); a tool message's text behind
  `ERROR_MARK` is an `is_error` result; an assistant's `tool_calls` -> `tool_use` blocks (arguments
  that are not a JSON object become `{}`). Consecutive messages of one role are merged.
- `max_tokens` or `max_completion_tokens` (default `DEFAULT_MAX_TOKENS`: chat completions does not
  require it, the Messages API does), `stop`, `tools`, `tool_choice` (`none`/`auto`/`required`/a named
  function -> `none`/`auto`/`any`/`tool`, which SimModel enforces), `parallel_tool_calls` carried;
  `temperature` and `top_p` are dropped (the simulator does not model them; OpenAI's range is 0-2).
  `stream: true` is refused with a 400, as on /v1/messages.
- Checked as OpenAI checks them, with its 400 words, `param` and `code`: a `max_tokens` or
  `max_completion_tokens` that is not an integer >= 1 (0 is refused, never read as "the default"),
  a `tool_choice` that is not one of the four forms or comes without `tools`. `n` other than 1 is
  refused (400, `code` `unsupported_value`): the simulator returns one choice per request.
- Replies: finish_reason `stop`/`tool_calls`/`length`/`content_filter`; usage with `prompt_tokens`
  = input + cache reads + cache writes and `prompt_tokens_details.cached_tokens` = cache reads.
- Errors are OpenAI's: `{"error": {"message", "type", "param", "code"}}`, its words and types, never the
  Messages API's or a link to its docs; the headers are kept (`retry-after` included, `request-id` also sent as
  `x-request-id`, OpenAI's name for it). "prompt is too long" is worded as OpenAI words it, code
  `context_length_exceeded`; a 429 is `Rate limit reached ... Please try again in 1s. Visit
  https://platform.openai.com/account/rate-limits to learn more.`, type `requests` or `tokens`, code
  `rate_limit_exceeded` (the account's own 429 names its limit and numbers, `ratelimit._openai_429`); a 401 is
  `invalid_api_key`; a 500 is `server_error`, "The server had an error while processing your request. Sorry
  about that!". OpenAI has no 529: the simulator's overloaded fault is answered **503**, type
  `service_unavailable_error`, code `server_is_overloaded`, "The engine is currently overloaded, please try
  again later." (OpenAI's 503 for a model without capacity), with its `retry-after`; the `openai` SDK and
  `OpenAIModel` raise a 503 as `InternalServerError` (retried as every 5xx), while `server.faults_injected`
  still counts it as the simulator's `OverloadedError`.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import anthropic

from ..openai_format import ERROR_MARK
from . import faults

PATH = "/v1/chat/completions"
DEFAULT_MAX_TOKENS = 4096
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop", "tool_use": "tool_calls",
           "max_tokens": "length", "model_context_window_exceeded": "length", "refusal": "content_filter"}
_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")
OVERLOADED_STATUS = {529: 503}  # OpenAI answers a model without capacity 503; it has no 529
_OPENAI_ERRORS = {  # the Messages API's error type -> OpenAI's (type, code, message)
    "rate_limit_error": ("requests", "rate_limit_exceeded", "Rate limit reached in organization org-sim on requests "
                         "per min (RPM). Please try again in {wait}. Visit "
                         "https://platform.openai.com/account/rate-limits to learn more."),
    "overloaded_error": ("service_unavailable_error", "server_is_overloaded",
                         "The engine is currently overloaded, please try again later."),
    "api_error": ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    "authentication_error": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided. You can find "
                             "your API key at https://platform.openai.com/account/api-keys."),
    "not_found_error": ("invalid_request_error", None, "Invalid URL (POST /v1/chat/completions)"),
}


def _is_chat(path: str) -> bool:
    return path.split("?")[0] == PATH


def request(path: str, body: Any) -> Any:
    """The Messages API params for a chat-completions body (any other path or body: as it is)."""
    if not _is_chat(path) or not isinstance(body, dict):
        return body
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("system", "developer"):
            system.append(_text(message.get("content")))
        elif role in ("user", "assistant", "tool"):
            _append(messages, *_converted(role, message))
    _check_n(body.get("n"))
    params: dict[str, Any] = {"model": body.get("model"), "messages": messages, "max_tokens": _max_tokens(body)}
    if system:
        params["system"] = "\n\n".join(system)
    stop = body.get("stop")
    if stop:
        params["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    if body.get("stream"):
        params["stream"] = True
    tools = [t.get("function") or {} for t in body.get("tools") or [] if isinstance(t, dict)]
    if tools:
        params["tools"] = [{"name": f.get("name"), "description": f.get("description") or "",
                            "input_schema": f.get("parameters") or {"type": "object", "properties": {}}}
                           for f in tools]
    params.update(_tool_choice(body.get("tool_choice"), body.get("parallel_tool_calls"), bool(tools)))
    return params


def invalid(message: str, param: str | None = None, code: str | None = None) -> anthropic.APIStatusError:
    """A 400 as OpenAI words it; `param` and `code` are carried to the reply's error body (`error`)."""
    exc = faults.invalid_request(message)
    if isinstance(exc.body, dict):
        exc.body["error"].update(param=param, code=code)
    return exc


def _max_tokens(body: dict[str, Any]) -> int:
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(f"Invalid type for '{name}': expected an integer, but got {type(value).__name__} instead.",
                          name, "invalid_type")
        if value < 1:
            raise invalid(f"Invalid '{name}': integer below minimum value. Expected a value >= 1, but got {value} "
                          "instead.", name, "integer_below_min_value")
        return value
    return DEFAULT_MAX_TOKENS


def _check_n(n: Any) -> None:
    if n is None or (n == 1 and not isinstance(n, bool)):
        return
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise invalid(f"Invalid value for 'n': expected an integer >= 1, but got {n!r} instead.", "n", "invalid_value")
    raise invalid(f"n={n} is not supported: this server returns one choice per request. Send n=1 (or leave it out) "
                  "and make n requests.", "n", "unsupported_value")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text") or "" for p in content or [] if isinstance(p, dict) and p.get("type") == "text")


def _converted(role: str, message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    content = message.get("content")
    if role == "tool":
        text = _text(content)
        block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": text}
        if text.startswith(ERROR_MARK):
            block.update(content=text[len(ERROR_MARK):], is_error=True)
        return "user", [block]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) and content else [
        {"type": "text", "text": p.get("text") or ""} for p in content or []
        if isinstance(p, dict) and p.get("type") == "text"]
    for call in message.get("tool_calls") or [] if role == "assistant" else []:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, dict):  # a JSON string, as the API specifies (some clients send the object)
            try:
                arguments = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else {}
            except ValueError:
                arguments = {}
        blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                       "input": arguments if isinstance(arguments, dict) else {}})
    return role, blocks


def _append(messages: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if messages and messages[-1]["role"] == role:
        messages[-1] = {"role": role, "content": [*messages[-1]["content"], *blocks]}
    else:
        messages.append({"role": role, "content": blocks})


def _tool_choice(choice: Any, parallel: Any, has_tools: bool) -> dict[str, Any]:
    picked: dict[str, Any] | None = None
    named = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if choice is None:
        pass
    elif not has_tools:
        raise invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                      "tool_choice", "invalid_value")
    elif isinstance(choice, str) and choice in _CHOICE:
        picked = dict(_CHOICE[choice])
    elif isinstance(choice, dict) and choice.get("type") == "function" and isinstance(named, str):
        picked = {"type": "tool", "name": named}
    else:
        raise invalid(f"Invalid value for 'tool_choice': {choice!r}. Supported values are: 'none', 'auto', "
                      "'required' and {\"type\": \"function\", \"function\": {\"name\": ...}}.", "tool_choice",
                      "invalid_value")
    if parallel is False and has_tools:
        picked = {**(picked or {"type": "auto"}), "disable_parallel_tool_use": True}
    return {"tool_choice": picked} if picked else {}


def reply(path: str, status: int, body: dict[str, Any],
          headers: dict[str, str] | None) -> tuple[int, bytes, str, dict[str, str]]:
    """(status, bytes, content type, headers) to send; on the chat path in chat-completions shapes."""
    headers = dict(headers or {})
    if _is_chat(path):
        if "request-id" in headers:
            headers["x-request-id"] = headers["request-id"]
        if status == 200 and body.get("type") == "message":
            body = completion(body)
        else:
            status, body = OVERLOADED_STATUS.get(status, status), error(body, headers.get("retry-after"))
    return status, json.dumps(body).encode(), "application/json", headers


def completion(message: dict[str, Any]) -> dict[str, Any]:
    """A Message's JSON as a chat completion's JSON."""
    content = message.get("content") or []
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    calls = [{"id": b["id"], "type": "function",
              "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})}}
             for b in content if b.get("type") == "tool_use"]
    out: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
    if calls:
        out["tool_calls"] = calls
    usage = message.get("usage") or {}
    cached, written = usage.get("cache_read_input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0
    prompt, output = usage.get("input_tokens", 0) + cached + written, usage.get("output_tokens", 0)
    return {"id": f"chatcmpl-{message.get('id', '')}", "object": "chat.completion", "created": int(time.time()),
            "model": message.get("model", ""),
            "choices": [{"index": 0, "message": out, "logprobs": None,
                         "finish_reason": _FINISH.get(message.get("stop_reason") or "", "stop")}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def error(body: dict[str, Any], retry_after: str | None = None) -> dict[str, Any]:
    """An Anthropic error body (`{"type": "error", "error": {...}}`) as OpenAI's, in its words (module docstring)."""
    inner = body.get("error") if isinstance(body.get("error"), dict) else {}
    message, kind = str(inner.get("message", "")), str(inner.get("type", "api_error"))
    code: str | None = inner.get("code")  # set by `invalid` and the account's own 429, as is `param`
    too_long = _TOO_LONG.search(message)
    if too_long:
        message = (f"This model's maximum context length is {too_long.group(2)} tokens. However, your messages "
                   f"resulted in {too_long.group(1)} tokens. Please reduce the length of the messages.")
        code = "context_length_exceeded"
    elif kind in _OPENAI_ERRORS:
        kind, code, message = _OPENAI_ERRORS[kind]
        message = message.format(wait=f"{retry_after or 1}s")
    return {"error": {"message": message, "type": kind, "param": inner.get("param"), "code": code}}

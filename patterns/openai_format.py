"""The Messages API <-> OpenAI chat completions, on the client's side: a request out, a reply back.

`chat_request(model_id, params)` turns the Messages API arguments a pattern sends into a
chat-completions request; `to_message(completion)` turns the reply into an `anthropic.types.Message`.
The mapping (the sim server's `patterns/sim/chat_wire.py` is its inverse):

- `system` -> the first message, role `system`; `cache_control` fields are dropped everywhere
  (OpenAI caches prompt prefixes on its own and rejects the field);
- an assistant's `tool_use` blocks -> its `tool_calls` (id kept, input as JSON `arguments`); a
  user message's `tool_result` blocks -> one `tool` message each (`tool_call_id` = the id), in
  order, before the message's other content. Chat completions has no `is_error`: an error
  result's text is sent behind the marker `ERROR_MARK`, which a model can read;
- tools' `input_schema` -> function `parameters`; `tool_choice` auto/any/none/tool -> auto/
  required/none/function; `disable_parallel_tool_use` -> `parallel_tool_calls: false`;
  `max_tokens` and `stop_sequences` (-> `stop`), `temperature`, `top_p` carried over;
- stop reasons: `stop` -> end_turn, `tool_calls` -> tool_use, `length` -> max_tokens,
  `content_filter` -> refusal (a reply carrying `refusal` text is a refusal too). A reply with tool
  calls is `tool_use` whatever its finish_reason (some servers say `stop`);
- usage: `prompt_tokens` counts cached tokens, the Messages API's `input_tokens` does not, so
  `input_tokens = prompt_tokens - cached_tokens` and `cache_read_input_tokens = cached_tokens`
  (`prompt_tokens_details.cached_tokens`); OpenAI bills no cache writes:
  `cache_creation_input_tokens = 0`. `output_tokens = completion_tokens` (reasoning included).
  A completion without usage (some local servers send none), or with no prompt tokens or no
  completion tokens in it (a prompt is never 0 tokens), is NOT read as zero: the usage carries
  the extra field `USAGE_MISSING` (zeros beside it, as the type requires), and `Run` counts the
  call with a marked estimate and an unknown cost (`patterns/usage.py`);
- tool-call arguments: a JSON string, as the API sends them, or a JSON object as it is (some
  servers send `arguments` unencoded). Arguments that are not a JSON object stay as they came in
  the `tool_use` block's input: the ToolSet answers it with an `is_error` result ("tool input must
  be a JSON object") and the model can try again; it is never a crash.
"""

from __future__ import annotations

import json
from typing import Any

from anthropic.types import Message, ToolUseBlock

from .usage import USAGE_MISSING

ERROR_MARK = "[tool error] "
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens",
                "content_filter": "refusal"}
_TOOL_CHOICE = {"auto": "auto", "any": "required", "none": "none"}


def chat_request(model_id: str, params: dict[str, Any], *, max_tokens_field: str = "max_tokens") -> dict[str, Any]:
    """The chat-completions request for the Messages API arguments `params`."""
    messages: list[dict[str, Any]] = []
    system = text_of(params.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for message in params.get("messages") or []:
        messages.extend(chat_messages(message))
    out: dict[str, Any] = {"model": model_id, "messages": messages}
    if params.get("max_tokens") is not None:
        out[max_tokens_field] = params["max_tokens"]
    if params.get("stop_sequences"):
        out["stop"] = list(params["stop_sequences"])
    for name in ("temperature", "top_p"):
        if params.get(name) is not None:
            out[name] = params[name]
    tools = [_function(t) for t in params.get("tools") or []]
    if tools:
        out["tools"] = tools
        choice = params.get("tool_choice") or {}
        kind = choice.get("type")
        if kind == "tool":
            out["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
        elif kind in _TOOL_CHOICE:
            out["tool_choice"] = _TOOL_CHOICE[kind]
        if choice.get("disable_parallel_tool_use"):
            out["parallel_tool_calls"] = False
    return out


def text_of(content: Any) -> str:
    """A string, or the text of a list of content blocks (a system prompt with breakpoints)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(str(_get(b, "text") or "") for b in content if _get(b, "type") == "text")


def _get(block: Any, name: str) -> Any:
    return block.get(name) if isinstance(block, dict) else getattr(block, name, None)


def _function(tool: Any) -> dict[str, Any]:
    if _get(tool, "input_schema") is None:
        raise ValueError(f"tool {_get(tool, 'name')!r} has no input_schema: chat completions takes only function "
                         "tools (a server tool such as web search has no OpenAI equivalent)")
    function: dict[str, Any] = {"name": _get(tool, "name"), "parameters": _get(tool, "input_schema")}
    if _get(tool, "description"):
        function["description"] = _get(tool, "description")
    return {"type": "function", "function": function}


def chat_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    """One Messages API message as chat messages (a user turn of tool results becomes several)."""
    role, content = message["role"], message["content"]
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    if role == "assistant":
        return [_assistant(content)]
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in content:
        kind = _get(block, "type")
        if kind == "tool_result":
            text = _result_text(_get(block, "content"))
            out.append({"role": "tool", "tool_call_id": _get(block, "tool_use_id"),
                        "content": ERROR_MARK + text if _get(block, "is_error") else text})
        elif kind == "text":
            parts.append({"type": "text", "text": _get(block, "text")})
        elif kind == "image" and _get(_get(block, "source"), "type") == "base64":
            source = _get(block, "source")
            url = f"data:{_get(source, 'media_type')};base64,{_get(source, 'data')}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    if parts:
        single = len(parts) == 1 and parts[0]["type"] == "text"
        out.append({"role": "user", "content": parts[0]["text"] if single else parts})
    return out


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else text_of(content or [])


def _assistant(content: list[Any]) -> dict[str, Any]:
    text = "".join(str(_get(b, "text") or "") for b in content if _get(b, "type") == "text")
    calls = [{"id": _get(b, "id"), "type": "function",
              "function": {"name": _get(b, "name"), "arguments": _arguments(_get(b, "input"))}}
             for b in content if _get(b, "type") == "tool_use"]
    out: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
    if calls:
        out["tool_calls"] = calls
    return out


def _arguments(tool_input: Any) -> str:
    return tool_input if isinstance(tool_input, str) else json.dumps(tool_input if tool_input is not None else {})


def to_message(completion: Any, model_id: str) -> Message:
    """An `anthropic.types.Message` for a chat completion (the SDK's `ChatCompletion`)."""
    choice = completion.choices[0]
    reply = choice.message
    content: list[Any] = []
    if reply.content:
        content.append({"type": "text", "text": reply.content})
    refusal = getattr(reply, "refusal", None)
    if refusal:
        content.append({"type": "text", "text": refusal})
    calls = [c for c in reply.tool_calls or [] if getattr(c, "function", None) is not None]
    for i, call in enumerate(calls):
        call_id = call.id or f"call_{completion.id}_{i}"  # some local servers send none
        content.append(tool_use(call_id, call.function.name, call.function.arguments))
    stop = "refusal" if refusal else STOP_REASONS.get(choice.finish_reason or "", "end_turn")
    if calls and stop == "end_turn":
        stop = "tool_use"
    return Message.model_validate({
        "id": completion.id or "chatcmpl", "type": "message", "role": "assistant",
        "model": completion.model or model_id, "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": usage_of(completion.usage)})


def tool_use(call_id: str, name: str, arguments: Any) -> Any:
    """A tool_use block; arguments that are not a JSON object are kept as they came (see the docstring)."""
    if isinstance(arguments, dict):  # sent as an object, not as the JSON string the API specifies
        return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    parsed: Any = None
    if arguments is None or isinstance(arguments, str):
        text = (arguments or "").strip()
        try:
            parsed = json.loads(text) if text else {}
        except ValueError:
            parsed = None
    if isinstance(parsed, dict):
        return {"type": "tool_use", "id": call_id, "name": name, "input": parsed}
    return ToolUseBlock.model_construct(type="tool_use", id=call_id, name=name, input=arguments)


def usage_of(usage: Any) -> dict[str, Any]:
    """The Messages API usage for a chat completion's usage; marked `USAGE_MISSING` when it has none."""
    prompt, completion = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
    if not (isinstance(prompt, int) and prompt > 0 and isinstance(completion, int)):
        return {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0, USAGE_MISSING: True}
    details = getattr(usage, "prompt_tokens_details", None)
    cached = min(prompt, int(getattr(details, "cached_tokens", 0) or 0))
    return {"input_tokens": prompt - cached, "output_tokens": completion,
            "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}

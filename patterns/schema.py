"""JSON schemas from Python type hints, and a small validator for tool input.

Only the shapes a tool signature needs: str, int, float, bool, None, list[X], dict[str, X],
Literal[...], X | None, and defaults. The validator answers in words a model can act on.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

_PRIMITIVES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def type_schema(tp: Any) -> dict[str, Any]:
    if tp is Any:
        return {}
    if tp in _PRIMITIVES:
        return {"type": _PRIMITIVES[tp]}
    if tp is type(None):
        return {"type": "null"}
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, set, frozenset) or tp in (list, tuple):
        return {"type": "array", "items": type_schema(args[0])} if args else {"type": "array"}
    if origin is dict or tp is dict:
        return {"type": "object", "additionalProperties": type_schema(args[1])} if args else {"type": "object"}
    if origin in (Union, types.UnionType):
        non_null = [a for a in args if a is not type(None)]
        if len(non_null) == 1:
            return type_schema(non_null[0])
        return {"anyOf": [type_schema(a) for a in args]}
    raise TypeError(f"unsupported parameter type for a tool: {tp!r}")


def _param_docs(doc: str) -> dict[str, str]:
    """Google-style `Args:` section: `name: description` lines."""
    found: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            m = re.match(r"^(\w+)\s*(\([^)]*\))?\s*:\s*(.+)$", stripped)
            if m:
                found[m.group(1)] = m.group(3)
            elif not stripped or stripped.endswith(":"):
                in_args = False
    return found


def function_schema(fn: Callable[..., Any]) -> tuple[str, dict[str, Any]]:
    """(description, input_schema) of a documented, typed function."""
    doc = inspect.getdoc(fn) or ""
    description = doc.split("\n\n")[0].strip().replace("\n", " ")
    if not description:
        raise TypeError(f"tool {fn.__name__!r} needs a docstring: the model reads it")
    hints = get_type_hints(fn)
    docs = _param_docs(doc)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {fn.__name__!r}: *args/**kwargs cannot be described to a model")
        if name not in hints:
            raise TypeError(f"tool {fn.__name__!r}: parameter {name!r} needs a type hint")
        prop = type_schema(hints[name])
        if name in docs:
            prop["description"] = docs[name]
        if param.default is param.empty:
            required.append(name)
        else:
            prop["default"] = param.default
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return description, schema


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def validate(value: Any, schema: dict[str, Any], path: str = "input") -> list[str]:
    """Problems with `value` against `schema` (empty when it fits)."""
    if "anyOf" in schema:
        options = [validate(value, s, path) for s in schema["anyOf"]]
        return [] if any(not o for o in options) else [f"{path}: {value!r} matches none of the allowed types"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']}"]
    kind = schema.get("type")
    if kind and not _JSON_TYPES[kind](value):
        return [f"{path}: expected {kind}, got {type(value).__name__} {value!r}"[:300]]
    problems: list[str] = []
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            problems += validate(item, schema["items"], f"{path}[{i}]")
    if kind == "object":
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{path}: missing required field {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                problems += validate(item, props[name], f"{path}.{name}")
            elif extra is False:
                problems.append(f"{path}: unknown field {name!r} (allowed: {', '.join(props) or 'none'})")
            elif isinstance(extra, dict):
                problems += validate(item, extra, f"{path}.{name}")
    return problems


Check = Callable[[Any], bool]


def checker(schema: dict[str, Any]) -> Check:
    """A predicate equal to `not validate(value, schema)`, compiled once: a tool checks every call's input.

    It only says whether the input fits (the words come from `validate` when it does not); a schema it
    cannot compile (an unknown type name) falls back to calling `validate` itself.
    """
    try:
        return _compile(schema)
    except (KeyError, TypeError, AttributeError):
        return lambda value: not validate(value, schema)


def _compile(schema: dict[str, Any]) -> Check:
    if "anyOf" in schema:
        options = [_compile(s) for s in schema["anyOf"]]
        return lambda v: any(o(v) for o in options)
    checks: list[Check] = []
    if "enum" in schema:
        enum = schema["enum"]
        checks.append(lambda v: v in enum)
    kind = schema.get("type")
    if kind == "object":  # its predicate checks the type first (a tool's input schema: one call, not three)
        checks.append(_compile_object(schema))
    elif kind:
        checks.append(_JSON_TYPES[kind])
    if kind == "array" and "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: all(item(i) for i in v))
    return _both(checks)


def _both(checks: list[Check]) -> Check:
    """All of `checks`, in order, stopping at the first that fails (no generator: this runs per tool call)."""
    if not checks:
        return lambda v: True
    combined = checks[-1]
    for check in reversed(checks[:-1]):
        combined = (lambda first, rest: lambda v: first(v) and rest(v))(check, combined)
    return combined


def _compile_object(schema: dict[str, Any]) -> Check:
    props = {name: _compile(s) for name, s in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", []))
    extra = schema.get("additionalProperties", True)
    other: Check | None = _compile(extra) if isinstance(extra, dict) else None
    closed = extra is False

    def fits(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            check = props.get(name)
            if check is not None:
                if not check(item):
                    return False
            elif closed or (other is not None and not other(item)):
                return False
        return True

    return fits

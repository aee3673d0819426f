"""`@tool`: the name, description and JSON schema a typed, documented function gives the model."""

from __future__ import annotations

import json

import pytest

from patterns.schema import type_schema
from patterns.tools import Tool, ToolSet, tool

from .tool_fixtures import echo, lookup

# ---------------------------------------------------------------- @tool and the schema


def test_tool_name_is_the_function_name_by_default() -> None:
    assert isinstance(lookup, Tool)
    assert lookup.name == "lookup"


def test_tool_name_can_be_overridden() -> None:
    @tool(name="search_kb")
    def f(q: str) -> str:
        """Search."""
        return q

    assert f.name == "search_kb"


def test_description_is_the_first_paragraph_of_the_docstring() -> None:
    assert lookup.description == "Look a query up in the knowledge base."


def test_multiline_first_paragraph_is_joined_into_one_line() -> None:
    @tool
    def f(q: str) -> str:
        """Search the knowledge base
        for a query.

        More detail.
        """
        return q

    assert f.description == "Search the knowledge base for a query."


def test_primitive_types_map_to_json_types() -> None:
    props = lookup.input_schema["properties"]
    assert props["query"]["type"] == "string"
    assert props["limit"]["type"] == "integer"
    assert props["score"]["type"] == "number"
    assert props["exact"]["type"] == "boolean"


def test_list_of_x_is_an_array_of_x() -> None:
    assert type_schema(list[int]) == {"type": "array", "items": {"type": "integer"}}


def test_dict_of_str_to_x_is_an_object_with_typed_values() -> None:
    assert type_schema(dict[str, bool]) == {"type": "object", "additionalProperties": {"type": "boolean"}}


def test_literal_is_an_enum() -> None:
    assert lookup.input_schema["properties"]["mode"]["enum"] == ["fast", "deep"]


def test_optional_x_is_described_as_x() -> None:
    props = lookup.input_schema["properties"]
    assert props["tags"]["type"] == "array"
    assert props["tags"]["items"] == {"type": "string"}
    assert props["weights"]["additionalProperties"] == {"type": "number"}


def test_only_parameters_without_defaults_are_required() -> None:
    assert lookup.input_schema["required"] == ["query"]


def test_defaults_are_recorded_in_the_schema() -> None:
    props = lookup.input_schema["properties"]
    assert props["limit"]["default"] == 5
    assert props["mode"]["default"] == "fast"
    assert props["tags"]["default"] is None
    assert "default" not in props["query"]


def test_no_required_key_when_every_parameter_has_a_default() -> None:
    @tool
    def f(n: int = 1) -> int:
        """Count."""
        return n

    assert "required" not in f.input_schema


def test_args_section_gives_parameter_descriptions() -> None:
    props = lookup.input_schema["properties"]
    assert props["query"]["description"] == "the words to look for"
    assert props["limit"]["description"] == "how many matches at most"  # "name (type): ..." form
    assert props["mode"]["description"] == "how hard to search"
    assert "description" not in props["score"]


def test_schema_forbids_unknown_properties() -> None:
    assert lookup.input_schema["type"] == "object"
    assert lookup.input_schema["additionalProperties"] is False


def test_function_without_docstring_is_a_type_error() -> None:
    def undocumented(q: str) -> str:
        return q

    with pytest.raises(TypeError, match="docstring"):
        tool(undocumented)


def test_unhinted_parameter_is_a_type_error() -> None:
    def f(q):  # type: ignore[no-untyped-def]
        """Search."""
        return q

    with pytest.raises(TypeError, match="'q' needs a type hint"):
        tool(f)


def test_var_kwargs_are_a_type_error() -> None:
    def f(**kwargs: str) -> str:
        """Search."""
        return ""

    with pytest.raises(TypeError, match="kwargs"):
        tool(f)


def test_unsupported_type_is_a_type_error() -> None:
    def f(when: complex) -> str:
        """Search."""
        return ""

    with pytest.raises(TypeError, match="unsupported parameter type"):
        tool(f)


def test_toolset_params_is_the_api_tools_list() -> None:
    ts = ToolSet([lookup, echo])
    assert ts.params == [
        {"name": "lookup", "description": lookup.description, "input_schema": lookup.input_schema},
        {"name": "echo", "description": "Return the text unchanged.", "input_schema": echo.input_schema},
    ]
    assert json.loads(json.dumps(ts.params)) == ts.params  # sendable as JSON


def test_toolset_len_and_contains() -> None:
    ts = ToolSet([lookup, echo])
    assert len(ts) == 2
    assert "echo" in ts
    assert "nope" not in ts


def test_toolset_rejects_duplicate_names() -> None:
    @tool(name="echo")
    def other(text: str) -> str:
        """Another echo."""
        return text

    with pytest.raises(ValueError, match="'echo'"):
        ToolSet([echo, other])


def test_toolset_rejects_a_plain_function() -> None:
    def f(q: str) -> str:
        """Search."""
        return q

    with pytest.raises(TypeError, match="@tool"):
        ToolSet([f])  # type: ignore[list-item]

"""Reading a signature as peers do (issue 11, items 8-12).

Each case is one the MCP SDK's ``func_metadata``, the OpenAI Agents SDK's
``function_schema`` or LangChain's ``@tool`` accept, and tooldeck did not.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from typing import Annotated, Any, ClassVar, NamedTuple

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tooldeck import BaseTool, Tool, ToolDefinitionError, ToolRegistry, ToolResult, tool

# --- item 8: a default inside Annotated's Field ---------------------------------------


def test_a_default_in_annotated_field_works_like_one_in_the_signature() -> None:
    def written_in_annotated(x: Annotated[float, Field(default=5.0, ge=0)]) -> float:
        return x

    def written_as_default(x: float = Field(5.0, ge=0)) -> float:
        return x

    a, b = Tool(written_in_annotated), Tool(written_as_default)
    assert (
        a.parameters
        == b.parameters
        == {
            "type": "object",
            "properties": {"x": {"type": "number", "minimum": 0, "default": 5.0}},
        }
    )
    for t in (a, b):
        assert t.call({}) == 5.0
        assert t.call({"x": None}) == 5.0  # strict mode's null means the default
        assert t.call({"x": "2.5"}) == 2.5
        assert t.call({"x": -1}).startswith("Error:")  # the constraint still applies
        assert t.export("openai", strict=True)["function"]["parameters"]["required"] == ["x"]


def test_positional_default_and_default_factory_in_annotated() -> None:
    def f(
        x: Annotated[int, Field(7, description="seven")],
        tags: Annotated[list[str], Field(default_factory=list)],
    ) -> Any:
        return x, tags

    t = Tool(f)
    assert t.parameters["properties"]["x"] == {
        "type": "integer",
        "description": "seven",
        "default": 7,
    }
    assert "required" not in t.parameters
    assert t.call({}) == (7, [])
    first, second = t.call({})[1], t.call({})[1]
    assert first == [] and first is not second  # a factory: a fresh list each call
    assert t.call({"tags": None}) == (7, [])


def test_a_signature_default_wins_over_one_in_annotated() -> None:
    def f(x: Annotated[int, Field(default=5)] = 3) -> int:
        return x

    assert Tool(f).call({}) == 3
    assert Tool(f).parameters["properties"]["x"]["default"] == 3


def test_agently_kwargs_show_a_default_from_annotated() -> None:
    registry = ToolRegistry()

    @registry.tool
    def f(x: Annotated[int, "how many", Field(default=4)]) -> int:
        return x

    assert registry.get_tool_info()["f"]["kwargs"] == {"x": (int, "how many;Default: 4")}


# --- item 9: a callable object's docstring -----------------------------------------------


class Searcher:
    def __call__(self, query: str, limit: int = 5) -> list[str]:
        """Search the catalogue.

        Args:
            query: What to look for.
            limit: At most this many results.
        """
        return [query] * limit


class Described:
    """Count words."""

    def __call__(self, text: str) -> int:
        return len(text.split())


def test_a_callable_objects_docstring_is_read_from_its_call() -> None:
    t = Tool(Searcher())
    assert t.name == "Searcher"
    assert t.description == "Search the catalogue."
    assert t.parameters["properties"]["query"]["description"] == "What to look for."
    assert t.parameters["properties"]["limit"]["description"] == "At most this many results."
    assert t.call({"query": "x", "limit": 2}) == ["x", "x"]


def test_a_callable_object_without_a_call_docstring_uses_its_class_docstring() -> None:
    assert Tool(Described()).description == "Count words."


def test_a_callable_object_without_any_docstring_is_described_by_its_name() -> None:
    class Bare:
        def __call__(self, x: int) -> int:
            return x

    assert Tool(Bare()).description == "Bare"  # not object's "Call self as a function."


def test_an_explicit_description_keeps_the_docstrings_parameter_entries() -> None:
    def f(city: str) -> str:
        """Weather.

        Args:
            city: The city's name.
        """
        return city

    t = Tool(f, description="Current weather")
    assert t.description == "Current weather"
    assert t.parameters["properties"]["city"]["description"] == "The city's name."


# --- item 10: a model whose fields Pydantic cannot describe ---------------------------------


class Opaque:
    pass


class Holder(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    name: str
    thing: Opaque


class Outer(BaseModel):
    holders: list[Holder]


@pytest.mark.parametrize(
    ("annotation", "path"),
    [(Holder, "item.thing"), (Outer, "item.holders[].thing"), (list[Holder], "item[].thing")],
)
def test_an_undescribable_model_names_the_parameter_the_model_and_the_field(
    annotation: Any, path: str
) -> None:
    def f(count: int, item: Any) -> None: ...

    f.__annotations__["item"] = annotation
    with pytest.raises(ToolDefinitionError) as caught:
        Tool(f)
    error = caught.value
    assert (error.tool, error.param) == ("f", "item")
    assert f"at {path}, the field Holder.thing has type" in str(error)
    assert "Opaque" in str(error)


# --- item 11: a method decorated in its class body ---------------------------------------


def test_a_method_decorated_in_its_class_body_is_refused_with_the_fix() -> None:
    with pytest.raises(ToolDefinitionError) as caught:

        class Service:
            @tool
            def lookup(self, key: str) -> str:
                return key

    assert caught.value.param == "self"
    assert "register the bound method" in str(caught.value)
    assert "obj.lookup" in str(caught.value)


def test_the_bound_method_registers_without_self() -> None:
    class Service:
        def __init__(self) -> None:
            self.prefix = "v:"

        def lookup(self, key: str) -> str:
            """Look a key up."""
            return self.prefix + key

    registry = ToolRegistry()
    registry.register(Service().lookup)
    assert list(registry.get("lookup").parameters["properties"]) == ["key"]
    assert registry.call_tool("lookup", {"key": "k"}) == "v:k"


def test_a_plain_function_with_a_parameter_named_self_is_not_a_method() -> None:
    def make() -> Tool[..., Any]:
        def echo(self: str) -> str:  # a nested function, not a method
            return self

        return Tool(echo)

    assert make().call({"self": "x"}) == "x"


def test_base_tool_instances_are_unaffected() -> None:
    class Echo(BaseTool):
        name = "echo"
        description = "Echo."
        parameters: ClassVar[dict[str, Any]] = {
            "type": "object",
            "properties": {"m": {"type": "string"}},
        }

        async def execute(self, **kwargs: Any) -> ToolResult:
            return ToolResult.ok(kwargs)

    registry = ToolRegistry()
    registry.register(Echo())
    assert registry.execute_sync("echo", {"m": "hi"}).data == {"m": "hi"}


# --- item 12: "" as arguments ---------------------------------------------------------------


@pytest.mark.parametrize("blank", ["", "   ", "\n\t", b"", b" "])
def test_blank_arguments_mean_no_arguments_on_every_face(blank: Any) -> None:
    registry = ToolRegistry()

    @registry.tool
    def now() -> str:
        return "now"

    @registry.tool
    async def later(when: str = "soon") -> str:
        return when

    @registry.tool
    def needs(a: int) -> int:
        return a

    assert registry.call_tool("now", blank) == "now"
    assert registry.execute_sync("later", blank).data == "soon"
    assert asyncio.run(registry.async_call_tool("later", blank)) == "soon"
    assert asyncio.run(registry.execute("now", blank)).data == "now"
    assert registry.call("now", blank) == "now"
    assert registry.get("needs").call(blank, a=2) == 2  # keywords merge into nothing
    refused = registry.call_tool("needs", blank)
    assert refused == "Error: Invalid arguments for tool 'needs':\na: missing required argument"


# --- hints as declared, on every supported Python ----------------------------------------


def test_a_none_default_does_not_change_the_hint_on_any_python() -> None:
    # Python 3.10's get_type_hints wraps the hint of a parameter defaulting to None in
    # Optional (3.11 stopped): `Annotated` metadata vanished into the wrapper and the
    # Agently view showed Optional[...] where the signature says `... | None`.
    def f(
        a: int = None,  # type: ignore[assignment]
        b: Annotated[int, Field(description="the b", ge=0)] = None,  # type: ignore[assignment]
        c: list[str] | None = None,
    ) -> None:
        pass

    t = Tool(f)
    properties = t.parameters["properties"]
    assert properties["b"] == {
        "anyOf": [{"type": "integer", "description": "the b", "minimum": 0}, {"type": "null"}],
        "description": "the b",
        "default": None,
    }
    assert t.call({"b": -1}).startswith("Error")  # the Field constraint is kept
    assert t.call({"b": None}) is None  # the function returns None
    registry = ToolRegistry()
    registry.tool_func(f)
    kwargs = registry.get_tool_info()["f"]["kwargs"]
    assert kwargs["a"][0] is int
    assert kwargs["b"] == (int, "the b;Default: None")
    assert repr(kwargs["c"][0]) == "list[str] | None"


def test_a_field_pattern_pydantic_cannot_compile_is_a_definition_error() -> None:
    # pydantic-core's Rust regex has no look-around: its SchemaError escaped raw.
    def f(x: Annotated[str, Field(pattern=r"^(?=a)(a+)+$")]) -> str:
        return x

    with pytest.raises(ToolDefinitionError, match="look-around") as caught:
        Tool(f)
    assert caught.value.tool == "f"


class Catalogue:
    """Find books in the library's catalogue.

    Args:
        path: Where the catalogue lives (the constructor's, not the call's).
    """

    def __init__(self, path: str = "books.db") -> None:
        self.path = path

    def __call__(self, query: str, limit: int = 5) -> list[str]:
        """Search the catalogue.

        Args:
            query: What to look for.
            limit: At most this many results.
        """
        return [query] * limit


def test_a_callable_objects_class_docstring_describes_it_and_call_gives_the_parameters() -> None:
    """As the OpenAI Agents SDK reads it: the class's own docstring is the description;
    the parameters are still described by ``__call__``'s."""
    t = Tool(Catalogue())
    assert t.description == "Find books in the library's catalogue."
    assert t.parameters["properties"]["query"]["description"] == "What to look for."
    assert t.parameters["properties"]["limit"]["description"] == "At most this many results."
    assert "path" not in t.parameters["properties"]
    assert Tool(Catalogue(), description="Books").description == "Books"  # given wins
    assert Tool(functools.partial(Catalogue(), limit=2)).description == (
        "Find books in the library's catalogue."
    )


def test_an_inherited_class_docstring_does_not_describe_a_callable_object() -> None:
    class Subclass(Catalogue):
        def __call__(self, query: str, limit: int = 5) -> list[str]:
            """Search the catalogue twice."""
            return [query] * limit * 2

    assert Tool(Subclass()).description == "Search the catalogue twice."


def test_a_docstring_python_wrote_does_not_describe_a_callable_object() -> None:
    # A dataclass or a named tuple without a docstring gets one from Python
    # ("Convert(unit: str = 'c')"): it is no author's description, and must not hide
    # __call__'s (nor stand in for the tool's name).
    @dataclasses.dataclass
    class Convert:
        unit: str = "c"

        def __call__(self, x: int) -> int:
            """Convert a temperature."""
            return x

    @dataclasses.dataclass
    class Silent:
        unit: str = "c"

        def __call__(self, x: int) -> int:
            return x

    class Pair(NamedTuple):
        a: int = 1

        def __call__(self, x: int) -> int:
            """Add the pair."""
            return x

    @dataclasses.dataclass
    class Written:
        """Convert(unit) — a docstring of the author's."""

        unit: str = "c"

        def __call__(self, x: int) -> int:
            """Not this."""
            return x

    assert tool(Convert()).description == "Convert a temperature."
    assert tool(Silent(), name="silent").description == "silent"
    assert tool(Pair(), name="pair").description == "Add the pair."
    assert (
        tool(Written(), name="written").description
        == "Convert(unit) — a docstring of the author's."
    )

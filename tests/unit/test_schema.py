"""The introspection pass: signature, hints and docstring → validator and JSON Schema."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid
from typing import Annotated, Any, Literal, Optional, Union

import jsonschema
import pytest
from pydantic import BaseModel, Field
from typing_extensions import Doc, NotRequired, TypedDict

from tooldeck import Tool, ToolDefinitionError, ToolRegistry


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    """A point."""

    x: int
    y: int = 0


@dataclasses.dataclass
class Box:
    width: float
    label: str = "box"


class Meta(TypedDict):
    key: str


def torture(
    text: Annotated[str, "free text"],
    count: int,
    ratio: float = 0.5,
    flag: bool = False,
    maybe: Optional[str] = None,
    either: Union[int, str] = 1,
    pipe: int | None = None,
    items: list[int] | None = None,
    mapping: dict[str, int] | None = None,
    pair: tuple[int, str] = (1, "a"),
    unique: set[str] | None = None,
    mode: Literal["fast", "slow"] = "fast",
    color: Color = Color.RED,
    when: dt.datetime | None = None,
    day: dt.date | None = None,
    ident: uuid.UUID | None = None,
    point: Point | None = None,
    box: Box | None = None,
    meta: Meta | None = None,
    bounded: Annotated[int, Field(ge=0, le=10)] = 5,
    anything=None,
) -> dict[str, Any]:
    """Exercise every kind of parameter.

    A second paragraph that belongs to the description.

    Args:
        count: how many
        ratio: a fraction
    """
    return {"text": text, "count": count}


TORTURE_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "free text"},
        "count": {"type": "integer", "description": "how many"},
        "ratio": {"type": "number", "description": "a fraction", "default": 0.5},
        "flag": {"type": "boolean", "default": False},
        "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1},
        "pipe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "items": {
            "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
            "default": None,
        },
        "mapping": {
            "anyOf": [
                {"type": "object", "additionalProperties": {"type": "integer"}},
                {"type": "null"},
            ],
            "default": None,
        },
        "pair": {
            "type": "array",
            "maxItems": 2,
            "minItems": 2,
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "default": [1, "a"],
        },
        "unique": {
            "anyOf": [
                {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                {"type": "null"},
            ],
            "default": None,
        },
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
        "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
        "when": {
            "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}],
            "default": None,
        },
        "day": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}], "default": None},
        "ident": {
            "anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}],
            "default": None,
        },
        "point": {
            "anyOf": [
                {
                    "type": "object",
                    "description": "A point.",
                    "properties": {
                        "x": {"type": "integer"},
                        "y": {"type": "integer", "default": 0},
                    },
                    "required": ["x"],
                },
                {"type": "null"},
            ],
            "default": None,
        },
        "box": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "width": {"type": "number"},
                        "label": {"type": "string", "default": "box"},
                    },
                    "required": ["width"],
                },
                {"type": "null"},
            ],
            "default": None,
        },
        "meta": {
            "anyOf": [
                {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
                {"type": "null"},
            ],
            "default": None,
        },
        "bounded": {"type": "integer", "maximum": 10, "minimum": 0, "default": 5},
        "anything": {"default": None},
    },
    "required": ["text", "count"],
}


def _walk(node: Any, path: str = ""):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            if key not in ("default", "enum", "const"):
                yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


def test_torture_function_full_schema() -> None:
    t = Tool(torture)
    assert t.parameters == TORTURE_SCHEMA
    assert list(t.parameters["properties"]) == list(TORTURE_SCHEMA["properties"])  # order kept
    jsonschema.Draft202012Validator.check_schema(t.parameters)


def test_torture_description_is_docstring_without_sections() -> None:
    t = Tool(torture)
    assert t.description == (
        "Exercise every kind of parameter.\n\nA second paragraph that belongs to the description."
    )


def test_no_title_anywhere_and_no_refs() -> None:
    schema = Tool(torture).parameters
    for path, key, _value in _walk(schema):
        if not path.endswith("/properties"):
            assert key != "title", path
        assert key not in ("$ref", "$defs"), path
    assert "additionalProperties" not in schema  # non-strict schemas do not advertise it


def test_torture_validates_and_coerces() -> None:
    t = Tool(torture)
    out = t.call({"text": "hi", "count": "3", "point": {"x": "1"}, "when": "2025-01-02T03:04:05"})
    assert out == {"text": "hi", "count": 3}
    assert t.call({"text": "hi", "count": 1, "bounded": 11}).startswith("Error: ")


def test_returns_schema() -> None:
    def f() -> list[Point]:
        return []

    assert Tool(f).returns == {
        "type": "array",
        "items": {
            "type": "object",
            "description": "A point.",
            "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
            "required": ["x"],
        },
    }

    def g() -> None:
        return None

    assert Tool(g).returns is None


# -- descriptions -------------------------------------------------------------------------


def test_description_precedence_annotated_over_field_over_doc_over_docstring() -> None:
    def f(
        a: Annotated[str, "from annotated", Field(description="from field"), Doc("from doc")],
        b: Annotated[str, Field(description="from field"), Doc("from doc")],
        c: Annotated[str, Doc("from doc")],
        d: str,
        e: str = Field("x", description="from default field"),
    ) -> None:
        """Five ways.

        Args:
            a: from docstring
            b: from docstring
            c: from docstring
            d: from docstring
            e: from docstring
        """

    props = Tool(f).parameters["properties"]
    assert {k: v["description"] for k, v in props.items()} == {
        "a": "from annotated",
        "b": "from field",
        "c": "from doc",
        "d": "from docstring",
        "e": "from default field",
    }
    assert props["e"]["default"] == "x"


def test_several_annotated_strings_are_joined_with_semicolons() -> None:
    def f(a: Annotated[int, "first", "second"]) -> None: ...

    assert Tool(f).parameters["properties"]["a"]["description"] == "first;second"


def test_explicit_description_wins_over_docstring_and_name_is_last_resort() -> None:
    def documented() -> None:
        """From the docstring."""

    def bare() -> None: ...

    assert Tool(documented, description="explicit").description == "explicit"
    assert Tool(documented).description == "From the docstring."
    assert Tool(bare).description == "bare"


DOCSTRINGS = {
    "google": """Sum.

    Args:
        a: the first
        b (int): the second
    """,
    "google_direct": """Args:
        a: the first
        b: the second
    """,
    "numpy": """Sum.

    Parameters
    ----------
    a : int
        the first
    b : int
        the second
    """,
    "rest": """Sum.

    :param a: the first
    :param b: the second
    :returns: the sum
    """,
    "epydoc": """Sum.

    @param a: the first
    @param b: the second
    @return: the sum
    """,
}


@pytest.mark.parametrize("style", list(DOCSTRINGS))
def test_docstring_styles(style: str) -> None:
    def f(a: int, b: int) -> int:
        return a + b

    f.__doc__ = DOCSTRINGS[style]
    t = Tool(f)
    props = t.parameters["properties"]
    assert props["a"]["description"] == "the first"
    assert props["b"]["description"] == "the second"
    expected = "f" if style == "google_direct" else "Sum."
    assert t.description == expected


# -- fail fast ------------------------------------------------------------------------------


class NotAModel:
    pass


@pytest.mark.parametrize(
    ("source", "param", "fragment"),
    [
        ("def f(x: NotAModel): ...", "x", "pydantic cannot validate"),
        ("def f(*args: int): ...", "args", "*args is not supported"),
        ("def f(**kw: int): ...", "kw", "needs args_schema"),
        (
            'def f(a: int):\n    """Do.\n\n    Args:\n        b: nope\n    """',
            "b",
            "not a parameter",
        ),
    ],
)
def test_definition_errors_name_function_and_parameter(
    source: str, param: str, fragment: str
) -> None:
    namespace: dict[str, Any] = {"NotAModel": NotAModel}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError) as info:
        Tool(namespace["f"])
    assert isinstance(info.value, TypeError)
    assert info.value.tool == "f"
    assert info.value.param == param
    assert fragment in str(info.value)
    assert "'f'" in str(info.value)


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "naïve", "a.b"])
def test_bad_names_rejected(name: str) -> None:
    def f() -> None: ...

    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        Tool(f, name=name)


def test_lambda_needs_a_name() -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        Tool(lambda: None)
    assert Tool(lambda: 1, name="one").call() == 1


def test_names_that_shadow_pydantic_attributes_work() -> None:
    def f(schema: str, model_config: int, _private: bool = False, copy: str = "c") -> list[Any]:
        return [schema, model_config, _private, copy]

    t = Tool(f)
    assert list(t.parameters["properties"]) == ["schema", "model_config", "_private", "copy"]
    assert t.call({"schema": "s", "model_config": "2", "_private": True}) == ["s", 2, True, "c"]


def test_unannotated_parameters_accept_anything() -> None:
    def f(a, b=3):  # type: ignore[no-untyped-def]
        return [a, b]

    t = Tool(f)
    assert t.parameters == {
        "type": "object",
        "properties": {"a": {}, "b": {"default": 3}},
        "required": ["a"],
    }
    assert t.call({"a": {"any": ["thing"]}}) == [{"any": ["thing"]}, 3]


def test_future_annotations_resolve(registry: ToolRegistry) -> None:
    # This module uses `from __future__ import annotations`: every hint is a string.
    @registry.tool
    def f(p: Point, n: Optional[int] = None) -> Point:
        return p

    assert f.call({"p": {"x": 1}}) == Point(x=1, y=0)
    assert f.parameters["properties"]["p"]["type"] == "object"


def test_positional_only_parameters_are_passed_positionally() -> None:
    def f(a: int, /, b: int) -> int:
        return a * 10 + b

    assert Tool(f).call({"a": 1, "b": 2}) == 12


def test_recursive_model_keeps_defs_for_the_recursion() -> None:
    class Node(BaseModel):
        value: int
        children: list[Node] = []

    Node.model_rebuild()

    def f(tree: Node) -> int:
        return tree.value

    t = Tool(f)
    schema = t.parameters
    # The first level is inlined; only the recursion keeps a $ref, into $defs.
    assert schema["properties"]["tree"]["properties"]["value"] == {"type": "integer"}
    assert schema["properties"]["tree"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Node"
    }
    assert list(schema["$defs"]) == ["Node"]
    assert schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    jsonschema.validate({"tree": {"value": 1, "children": [{"value": 2}]}}, schema)
    assert t.call({"tree": {"value": 1, "children": [{"value": 2}]}}) == 1


def test_implicit_optional_default_none_accepts_null() -> None:
    def f(x: int = None) -> Any:  # type: ignore[assignment]
        return x

    t = Tool(f)
    assert t.call({"x": None}) is None
    assert t.call({}) is None
    assert t.call({"x": "4"}) == 4


class Movie(TypedDict):
    title: str
    rating: NotRequired[float]


def test_typeddict_not_required_key_null_means_absent_under_future_annotations() -> None:
    # This module uses string annotations, where Python < 3.12 lists NotRequired keys
    # in __required_keys__; strict exports send them as nullable all the same.
    def f(movie: Movie) -> dict[str, Any]:
        return dict(movie)

    assert Tool(f).call({"movie": {"title": "x", "rating": None}}) == {"title": "x"}
    assert Tool(f).call({"movie": {"title": "x", "rating": "2.5"}}) == {"title": "x", "rating": 2.5}


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]


def test_discriminated_union_leaves_no_dangling_mapping() -> None:
    def f(pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> str:
        return pet.kind

    schema = Tool(f).parameters
    assert "$defs" not in schema
    assert schema["properties"]["pet"]["discriminator"] == {"propertyName": "kind"}
    assert Tool(f).call({"pet": {"kind": "dog"}}) == "dog"

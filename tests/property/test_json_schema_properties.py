"""tooldeck's JSON-Schema generator says exactly what pydantic's says, key order included.

`tooldeck._jsonschema.JsonSchemaGenerator` takes three shortcuts through pydantic's
generator (plain nodes straight to their handler; no definition passes when there are
no definitions; definitions named by their first candidate name when no other
definition claims it). Here the same generator with the shortcuts undone — pydantic's
own ``generate``, ``generate_inner`` and ``_build_definitions_remapping`` — is the
reference: for every tool of the export
corpus and for arbitrary signatures built from a grammar of parameter types (models,
enums, constraints, unions, recursion included), both give the same JSON text.
"""

from __future__ import annotations

import datetime as dt
import enum
import inspect
import json
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode

from tooldeck._introspect import analyse_param
from tooldeck._jsonschema import JsonSchemaGenerator
from tooldeck._spec import EMPTY, Param
from tooldeck._validators import _typed_dict_schema

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))

from export_corpus import CORPUS


class Reference(JsonSchemaGenerator):
    """tooldeck's generator without its two shortcuts: pydantic's way throughout."""

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> dict[str, Any]:
        return GenerateJsonSchema.generate(self, schema, mode)

    def generate_inner(self, schema: Any) -> dict[str, Any]:
        return GenerateJsonSchema.generate_inner(self, schema)

    def _build_definitions_remapping(self) -> Any:
        return GenerateJsonSchema._build_definitions_remapping(self)


def _both(core: Any) -> tuple[str, str]:
    fast = JsonSchemaGenerator().generate(core, mode="validation")
    reference = Reference().generate(core, mode="validation")
    return json.dumps(fast), json.dumps(reference)


@pytest.mark.parametrize("tool", list(CORPUS), ids=lambda t: t.name)
def test_every_corpus_tool_generates_as_pydantic_does(tool: Any) -> None:
    fast, reference = _both(_typed_dict_schema(tool.spec.params, tool.name))
    assert fast == reference


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Inner(BaseModel):
    name: str
    size: Annotated[int, Field(ge=0)] = 1


class Outer(BaseModel):
    inner: Inner
    extra: list[Inner] = []


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


def _another_inner() -> type[BaseModel]:
    class Inner(BaseModel):  # named like the module's `Inner`: the names collide
        label: str
        inner: Optional[Inner] = None

    return Inner


OtherInner = _another_inner()


LEAVES: list[Any] = [
    str,
    int,
    float,
    bool,
    Any,
    bytes,
    Decimal,
    dt.datetime,
    dt.date,
    uuid.UUID,
    Shade,
    Level,
    Inner,
    Outer,
    Tree,
    OtherInner,
    Literal["a", "b"],
    Literal[1],
    Literal["x", 2, None],
    Annotated[str, Field(min_length=2, max_length=9, pattern=r"^\w+$")],
    Annotated[float, Field(gt=0, le=1.5, description="a ratio")],
    Annotated[str, "a description only"],
]


def _compound(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        inner.map(lambda t: tuple[t, ...]),  # type: ignore[valid-type]
        inner.map(lambda t: Optional[t]),
        st.tuples(inner, inner).map(lambda ts: ts[0] | ts[1]),
        inner.map(lambda t: Annotated[t, Field(description="described")]),
    )


annotations = st.recursive(st.sampled_from(LEAVES), _compound, max_leaves=4)
defaults = st.sampled_from([EMPTY, None, 0, "text", 1.5, [], Shade.DARK, Level.HIGH])


def _params(draw: st.DrawFn) -> tuple[Param, ...]:
    count = draw(st.integers(0, 4))
    params = []
    for i in range(count):
        annotation, default = draw(annotations), draw(defaults)
        params.append(analyse_param(f"p{i}", annotation, default, None))
    return tuple(params)


@settings(max_examples=200, deadline=None)
@given(st.composite(_params)())
def test_any_signature_generates_as_pydantic_does(params: tuple[Param, ...]) -> None:
    try:
        core = _typed_dict_schema(params, "t")
    except Exception:  # a type pydantic cannot validate: nothing to compare
        return
    try:
        reference = json.dumps(Reference().generate(core, mode="validation"))
    except Exception as exc:  # no JSON Schema for it: the shortcut must fail the same way
        with pytest.raises(type(exc)):
            JsonSchemaGenerator().generate(core, mode="validation")
        return
    assert json.dumps(JsonSchemaGenerator().generate(core, mode="validation")) == reference


def test_a_generator_used_twice_is_refused_as_pydantic_refuses_it() -> None:
    core = _typed_dict_schema((analyse_param("x", int, EMPTY, None),), "t")
    generator = JsonSchemaGenerator()
    generator.generate(core)
    with pytest.raises(Exception, match="already been used"):
        generator.generate(core)


def test_the_reference_is_pydantics_own_code() -> None:
    # The reference must not inherit the shortcuts it is compared with.
    assert inspect.getsource(Reference.generate).count("GenerateJsonSchema.generate") == 1
    assert Reference.generate_inner is not JsonSchemaGenerator.generate_inner
    remapping = inspect.getsource(Reference._build_definitions_remapping)
    assert "GenerateJsonSchema._build_definitions_remapping" in remapping


def test_definitions_are_named_without_the_search_unless_names_collide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched: list[int] = []
    search = GenerateJsonSchema._build_definitions_remapping

    def counted(self: GenerateJsonSchema) -> Any:
        searched.append(1)
        return search(self)

    monkeypatch.setattr(GenerateJsonSchema, "_build_definitions_remapping", counted)

    def core(*annotations: Any) -> Any:
        params = [analyse_param(f"p{i}", a, EMPTY, None) for i, a in enumerate(annotations)]
        return _typed_dict_schema(tuple(params), "t")

    distinct = JsonSchemaGenerator().generate(core(Outer, Tree))
    assert not searched and set(distinct["$defs"]) == {"Inner", "Outer", "Tree"}
    colliding = JsonSchemaGenerator().generate(core(Inner, OtherInner))
    assert searched  # two models named Inner: pydantic's search tells them apart
    assert colliding == Reference().generate(core(Inner, OtherInner))
    assert len(colliding["$defs"]) == 2 and "Inner" not in colliding["$defs"]

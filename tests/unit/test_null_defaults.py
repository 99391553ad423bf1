"""Null means the default at every depth: the plans tooldeck._null_defaults builds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, Field

from tooldeck import ToolRegistry
from tooldeck._null_defaults import null_default_plan


class Address(BaseModel):
    street: str
    city: str = "Taipei"
    zip: Optional[str] = None


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    indoor: bool = True


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    breed: str


class Node(BaseModel):
    value: int = 0
    children: list[Node] = []  # a list default is not a value to copy in: the null goes


@dataclass
class Point:
    x: float
    y: float = 0.0


def test_a_type_met_twice_is_planned_the_same_both_times() -> None:
    # `str` and `NoneType` appear in many fields; a second meeting once counted as a
    # recursion, which made an Optional[Model] look like an ambiguous union of two plans.
    plan = null_default_plan(Optional[Address])
    assert plan is not None
    assert plan({"street": "s", "city": None, "zip": None}) == {
        "street": "s",
        "city": "Taipei",  # a default that validates to itself stands in for the null
        "zip": None,  # nullable: a null is a value
    }
    assert null_default_plan(str) is None
    assert null_default_plan(Optional[str]) is None


def test_types_without_defaulted_fields_get_no_plan() -> None:
    class Plain(BaseModel):
        a: int
        b: Optional[int] = None  # nullable: a null is a value, not the default

    assert null_default_plan(Plain) is None
    assert null_default_plan(list[Plain]) is None
    assert null_default_plan(int) is None


def test_a_discriminated_union_keeps_its_tag() -> None:
    """The tag's null becomes its default (dropping it would lose the discriminator)."""
    plan = null_default_plan(Annotated[Union[Cat, Dog], Field(discriminator="kind")])
    assert plan is not None
    assert plan({"kind": None, "breed": "corgi"}) == {"kind": "dog", "breed": "corgi"}
    assert plan({"kind": None, "indoor": None}) == {"kind": "cat", "indoor": True}


def test_a_union_whose_fitting_branches_disagree_is_left_alone() -> None:
    plan = null_default_plan(Union[Cat, Dog])
    assert plan is not None
    assert plan({"kind": None}) == {"kind": None}  # a cat or a dog? validation decides


def test_lists_tuples_dicts_dataclasses_and_recursion() -> None:
    assert null_default_plan(list[Point])([{"x": 1, "y": None}]) == [{"x": 1, "y": 0.0}]
    plan = null_default_plan(tuple[int, Point])
    assert plan is not None
    assert plan([None, {"x": 1, "y": None}]) == [None, {"x": 1, "y": 0.0}]
    assert null_default_plan(dict[str, Point])({"a": {"x": 2, "y": None}}) == {
        "a": {"x": 2, "y": 0.0}
    }
    tree = {"value": None, "children": [{"value": 1, "children": None}]}
    assert null_default_plan(Node)(tree) == {"value": 0, "children": [{"value": 1}]}


def test_through_the_call_null_is_exactly_omission_at_depth_three() -> None:
    class Inner(BaseModel):
        y: int = 3

    class Middle(BaseModel):
        inner: Inner

    class Outer(BaseModel):
        middle: Middle
        pets: list[Annotated[Union[Cat, Dog], Field(discriminator="kind")]] = []

    registry = ToolRegistry()

    @registry.tool
    def configure(opts: Outer) -> Outer:
        return opts

    sent = {"middle": {"inner": {"y": None}}, "pets": [{"kind": None, "breed": "x"}]}
    result = registry.call_tool("configure", {"opts": sent})
    assert result.middle.inner.y == 3
    assert result.pets == [Dog(breed="x")]

"""Signatures, return types and calls that Agently 4.0.6's ToolManager and tooldeck both
take, for the differential test (``test_agently_differential.py``).

Plain Python and Pydantic only: the same module is imported by the real Agently in a
subprocess and by tooldeck here. Agently cannot register a parameter whose ``Annotated``
metadata holds anything but strings (it joins them with ``;``), so none is here; and it
reads annotations from the signature as they are, so this module does not use
``from __future__ import annotations`` (Agently would see strings).
"""

import enum
from typing import Annotated, Any, Literal, Optional, TypeVar

from pydantic import BaseModel, Field


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int = Field(description="horizontal")
    y: int = 0


class Route(BaseModel):
    """A path between points."""

    name: str
    stops: list[Point] = Field(default_factory=list, description="the stops, in order")
    start: Point
    note: Optional[str] = None


def add(
    a: Annotated[int, "first addend"], b: Annotated[int, "second", "may be negative"] = 0
) -> int:
    """Add two integers."""
    return a + b


def greet(name: str, punctuation: str = "!", loud: bool = False) -> str:
    """Greet someone by name.

    Said once, politely."""
    text = f"Hello, {name}{punctuation}"
    return text.upper() if loud else text


async def shout(text: Annotated[str, "what to shout"]) -> str:
    """Upper-case a text."""
    return text.upper()


def pick(mode: Literal["fast", "slow"] = "fast", color: Color = Color.RED) -> dict[str, str]:
    """Pick a mode and a color."""
    return {"mode": mode, "color": color.value}


def maybe(count: Optional[int] = None, labels: list[str] | None = None) -> list[str]:
    """Optionals spelled two ways."""
    return [str(count), *(labels or [])]


def measure(p: Point) -> Point:
    """Return the point it was given."""
    return p


def plan(route: Route, speed: float = 1.5) -> Route:
    """Plan a route (returns a model holding a list of models)."""
    return route


def many(points: list[Point]) -> list[Point]:
    """A list of models in and out."""
    return points


def nothing(flag: bool = True) -> None:
    """Return nothing."""


T = TypeVar("T")


def first(items: list[int]) -> T:  # type: ignore[type-var]
    """A return type that is no class: Agently shows its text."""
    return items[0]  # type: ignore[return-value]


def untyped_return(x: int):  # type: ignore[no-untyped-def]
    """No return annotation: no "returns" key."""
    return x * 2


def annotated_return(x: int) -> Annotated[int, "twice x"]:
    """Agently reads hints without extras: the return is plain int."""
    return x * 2


def optional_model(p: Optional[Point] = None) -> Optional[Point]:
    """An optional model in and out."""
    return p


def failing(reason: str) -> str:
    """Raise with the given reason."""
    raise ValueError(reason)


def mapping(counts: dict[str, int]) -> int:
    """Sum a mapping."""
    return sum(counts.values())


def any_value(payload: Any, label: str = "x") -> Any:
    """Any payload, returned as is."""
    return payload


# Where DESIGN.md parts from Agently on purpose (docs/migration/agently.md lists them):
# the docstring's Args section describes the parameters instead of staying in the
# description, and an unannotated parameter's type is typing.Any, not inspect._empty.
def documented(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: The city's name.
        days: How many days ahead.
    """
    return city


def unannotated(x, y=1):  # type: ignore[no-untyped-def]
    """Unannotated parameters."""
    return x


def quoted(a: "int", p: "Point") -> "Point":
    """String annotations: Agently shows the strings, tooldeck the types."""
    return p


DIFFERENT = [documented, unannotated, quoted]

DECORATED = [
    add,
    greet,
    shout,
    pick,
    maybe,
    measure,
    plan,
    many,
    nothing,
    untyped_return,
    first,
    annotated_return,
    optional_model,
    failing,
    mapping,
    any_value,
]


def _manual(a: int, b: int = 1) -> int:
    return a * b


# Agently's manual register(name=, desc=, kwargs=, func=, returns=, tags=), as written.
MANUAL = [
    {
        "name": "multiply",
        "desc": "Multiply two integers.",
        "kwargs": {"a": ("int", "the first factor"), "b": ("int", "the second factor")},
        "func": _manual,
        "returns": "int",
        "tags": ["math", "demo"],
    },
    {
        "name": "scale",
        "desc": "Scale a number.",
        "kwargs": {"a": (int, "the number"), "b": (int, "the factor;Default: 1")},
        "func": _manual,
        "tags": "math",
    },
    {
        "name": "typed_returns",
        "desc": "Returns given as a type.",
        "kwargs": {"a": (int, ""), "b": (int, "")},
        "func": _manual,
        "returns": Point,
    },
]

TAGS = {"add": ["math"], "shout": ["text", "demo"], "pick": "demo"}


# Well-typed calls: both managers must answer them alike (values, or "Error: <message>"
# when the tool itself raises). Arguments are built on each side, so models are real.
def calls() -> list[tuple[str, dict[str, Any]]]:
    start = Point(x=1, y=2)
    return [
        ("add", {"a": 2, "b": 3}),
        ("add", {"a": 2}),
        ("greet", {"name": "Ann"}),
        ("greet", {"name": "Bo", "punctuation": "?", "loud": True}),
        ("shout", {"text": "hi"}),
        ("pick", {}),
        ("pick", {"mode": "slow", "color": Color.BLUE}),
        ("maybe", {"count": 3, "labels": ["a"]}),
        ("maybe", {}),
        ("measure", {"p": start}),
        ("plan", {"route": Route(name="r", start=start, stops=[start])}),
        ("many", {"points": [start, Point(x=5)]}),
        ("nothing", {}),
        ("untyped_return", {"x": 4}),
        ("first", {"items": [7, 8]}),
        ("annotated_return", {"x": 4}),
        ("optional_model", {"p": start}),
        ("optional_model", {}),
        ("failing", {"reason": "boom"}),
        ("mapping", {"counts": {"a": 1, "b": 2}}),
        ("any_value", {"payload": [1, {"k": "v"}]}),
        ("multiply", {"a": 6, "b": 7}),
        ("scale", {"a": 6}),
        ("no_such_tool", {}),
    ]

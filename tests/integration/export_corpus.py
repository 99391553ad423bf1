"""A corpus of tool signatures: every kind of parameter DESIGN.md lists, as users write them.

Each function is a plain decorated definition in its own registry (``CORPUS``), so the
default registry stays untouched. ``STRICT_REFUSED`` names the tools strict mode cannot
express faithfully, with the parameter the error must name; every other tool must export
to every format, strict or not. ``GEMINI_JSON_SCHEMA`` names those Gemini's schema subset
cannot say, which go to Gemini as their full JSON Schema (``parametersJsonSchema``).
"""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AnyUrl, BaseModel, Field
from pydantic import v1 as pydantic_v1
from typing_extensions import NotRequired, TypedDict

from tooldeck import ToolRegistry

CORPUS = ToolRegistry()
tool = CORPUS.tool


# --- the types the signatures use --------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = Field("Taipei", description="The city")
    zip: Optional[str] = None


class Product(BaseModel):
    sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{4}$")]
    price: Decimal
    tags: set[str] = set()


class LineItem(BaseModel):
    product: Product
    quantity: Annotated[int, Field(ge=1, le=99)] = 1


class Order(BaseModel):
    items: list[LineItem]
    ship_to: Address
    bill_to: Address | None = None
    discount: Annotated[float, Field(ge=0, lt=1)] = 0.0


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    indoor: bool = True


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    breed: str


@dataclass
class Point:
    x: float
    y: float = 0.0
    labels: list[str] = field(default_factory=list)


class Movie(TypedDict):
    title: str
    year: int
    rating: NotRequired[float]


# --- the signatures ---------------------------------------------------------------------


@tool(tags=["scalars"])
def scalars(text: str, count: int, ratio: float, flag: bool) -> str:
    """Every scalar type, all required."""
    return text


@tool(tags=["scalars", "defaults"])
def scalar_defaults(
    text: str = "hi", count: int = 3, ratio: float = 0.5, flag: bool = False
) -> str:
    """Every scalar type with a default."""
    return text


@tool(tags=["optional"])
def optionals(name: Optional[str] = None, age: int | None = None, nick: str | None = "x") -> str:
    """Optional spelled three ways."""
    return str(name)


@tool(tags=["unions"])
def unions(value: Union[int, str], other: int | float | None = None) -> str:
    """Unions with and without None."""
    return str(value)


@tool(tags=["containers"])
def lists(
    numbers: list[int],
    names: list[str] = ["a"],  # noqa: B006 (a list default is the point)
    matrix: list[list[float]] | None = None,
) -> int:
    """Lists, nested lists."""
    return len(numbers)


@tool(tags=["containers"])
def free_dict(mapping: dict[str, int], note: str = "") -> int:
    """A free-form dict: no strict form."""
    return len(mapping)


@tool(tags=["containers"])
def sets_and_tuples(
    tags: set[str], frozen: frozenset[int] = frozenset(), many: tuple[float, ...] = ()
) -> int:
    """Sets and homogeneous tuples."""
    return len(tags)


@tool(tags=["containers"])
def fixed_tuple(pair: tuple[int, str]) -> str:
    """A fixed-length tuple: no strict form."""
    return pair[1]


@tool(tags=["literal"])
def literals(
    mode: Literal["fast", "slow"], level: Literal[1, 2, 3] = 1, mixed: Literal["auto", 0] = "auto"
) -> str:
    """String, integer and mixed Literals."""
    return mode


@tool(tags=["enum"])
def enums(color: Color, priority: Priority = Priority.LOW) -> str:
    """A str-valued Enum and an IntEnum."""
    return color.value


@tool(tags=["time"])
def temporal(
    when: dt.datetime, day: dt.date, at: dt.time, span: dt.timedelta = dt.timedelta(0)
) -> str:
    """datetime, date, time, timedelta."""
    return when.isoformat()


@tool(tags=["ids"])
def identifiers(
    ident: uuid.UUID, site: AnyUrl, amount: Decimal = Decimal("1.5"), blob: bytes = b""
) -> str:
    """UUID, URL, Decimal, bytes."""
    return str(ident)


@tool(tags=["models"])
def nested_model(address: Address) -> Address:
    """A nested Pydantic model; returns one."""
    return address


@tool(tags=["models"])
def list_of_models(addresses: list[Address], primary: int = 0) -> list[str]:
    """A list of models."""
    return [a.city for a in addresses]


@tool(tags=["models", "optional"])
def optional_model(address: Optional[Address] = None) -> str | None:
    """An optional model."""
    return address.city if address else None


@tool(tags=["models"])
def deep_order(order: Order, express: bool = False) -> float:
    """Models inside lists inside models, constrained fields, Decimal, sets."""
    return order.discount


@tool(tags=["models"])
def discriminated(pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> str:
    """A discriminated union of models (oneOf)."""
    return pet.kind


@tool(tags=["models"])
def dataclass_param(point: Point, points: list[Point] | None = None) -> float:
    """A dataclass parameter."""
    return point.x


@tool(tags=["models"])
def typed_dict(movie: Movie) -> str:
    """A TypedDict parameter with a NotRequired key."""
    return movie["title"]


@tool(tags=["models"])
def recursive(tree: Node, depth: int = 3) -> Node:
    """A recursive model: $defs and $ref; no Gemini form."""
    return tree


@tool(tags=["constraints"])
def constrained(
    name: Annotated[str, Field(min_length=1, max_length=50)],
    age: Annotated[int, Field(ge=0, le=150)],
    score: Annotated[float, Field(gt=0, lt=1)] = 0.5,
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "ABC",
    items: Annotated[list[int], Field(min_length=1, max_length=10)] = [1],  # noqa: B006
    even: Annotated[int, Field(multiple_of=2)] = 0,
) -> bool:
    """Annotated constraints on every kind of value."""
    return True


@tool(tags=["descriptions"])
def described(
    a: Annotated[int, "first addend"],
    b: Annotated[int, "second addend", "may be negative"] = 0,
    c: Annotated[int, Field(description="third addend")] = 0,
    d: int = Field(0, description="fourth addend"),
) -> int:
    """Descriptions from Annotated strings and Field."""
    return a + b + c + d


@tool(tags=["descriptions"])
def documented(
    city: str, days: int = 1, units: Literal["metric", "imperial"] = "metric"
) -> dict[str, Any]:
    """Forecast for a city.

    Args:
        city: The city's name.
        days: How many days ahead.
        units: Unit system.
    """
    return {"city": city}


@tool(tags=["edge"])
def no_params() -> str:
    """No parameters at all."""
    return "now"


@tool(tags=["edge"])
def unannotated(x, y=1):  # type: ignore[no-untyped-def]
    """Unannotated parameters accept anything: no strict or Gemini form."""
    return x


@tool(tags=["edge"])
def any_payload(payload: Any, label: str = "") -> None:
    """An Any parameter: no strict or Gemini form."""


@tool(tags=["edge", "async"])
async def fetch(
    url: str, timeout: float = 10.0, headers: list[str] | None = None
) -> dict[str, int]:
    """An async tool returning a dict."""
    return {"status": 200}


@tool(tags=["defaults"])
def factories(tags: list[str] = Field(default_factory=list), limit: int = Field(10, ge=1)) -> int:  # noqa: B008
    """Defaults from default_factory and Field."""
    return limit


class Leaf(BaseModel):
    n: int = 3
    m: Annotated[int, Field(ge=0)] = -1  # a default its own constraint refuses


class Aliased(BaseModel):
    y: int = Field(default=2, validation_alias="Y")


class Shelf(TypedDict):
    leaf: NotRequired[Leaf]


@tool(tags=["defaults"])
def nested_defaults(
    shelf: Shelf,
    aliased: Aliased,
    floor: Annotated[int, Field(ge=0)] = -5,
    country: Annotated[str, Field(pattern="^[A-Z]{2}$")] = "",
) -> str:
    """Nested defaults behind NotRequired and a validation alias; defaults that their own
    constraints refuse (a null for them is the default, unvalidated, as if left out)."""
    return repr((shelf, aliased, floor, country))


class SearchArgs(BaseModel):
    query: str
    limit: int = 10
    filters: list[str] = ["all"]
    leaf: Leaf = Leaf()


class SearchArgsV1(pydantic_v1.BaseModel):
    query: str
    limit: int = 10
    filters: list[str] = ["all"]


@tool(args_schema=SearchArgs, tags=["args_schema"])
def search_model(**kwargs: Any) -> str:
    """A v2 args_schema: the model's fields are the arguments."""
    return repr(sorted(kwargs.items()))


@tool(args_schema=SearchArgsV1, tags=["args_schema"])
def search_model_v1(**kwargs: Any) -> str:
    """A pydantic.v1 args_schema."""
    return repr(sorted(kwargs.items()))


@tool(name="renamed-tool", description="An explicit name and description.", tags="edge")
def explicitly_named(q: str) -> str:
    return q


# Tools a format refuses, each with the parameter its ToolDefinitionError names.
STRICT_REFUSED: dict[str, str] = {
    "identifiers": "site",  # format "uri": enforced by the tool, unknown to strict mode
    "free_dict": "mapping",
    "fixed_tuple": "pair",
    "unannotated": "x",
    "any_payload": "payload",
}
GEMINI_JSON_SCHEMA: dict[str, str] = {
    "recursive": "tree.children[]",  # where the recursion is met
    "unannotated": "x",
    "any_payload": "payload",
}

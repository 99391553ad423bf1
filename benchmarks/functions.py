"""The functions every framework is measured on, fresh copies of them, distinct tools.

Each framework under test gets its own copy of a function (`fresh`), so none can
answer from a cache keyed by function identity: a copy shares the code object but
is a new function with its own annotations dict, name and qualified name.
"""

# No `from __future__ import annotations`: real annotation objects, as most users write
# them, so every framework sees the same thing without resolving strings.
import asyncio
import enum
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from tooldeck import Injected

# -- the four definition functions -----------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def aadd(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    return a + b


def search_docs(
    query: Annotated[str, "free-text search terms"],
    mode: Literal["fast", "exact", "fuzzy"] = "fast",
    limit: Annotated[int, Field(ge=1, le=100, description="maximum hits")] = 10,
    languages: list[str] | None = None,
    include_archived: bool = False,
) -> list[str]:
    """Search the documentation index.

    Args:
        mode: how strictly terms must match
        languages: restrict hits to these language codes
        include_archived: also search archived pages
    """
    return [query] * min(limit, 1)


class Priority(enum.Enum):
    """How urgent an order is."""

    low = "low"
    normal = "normal"
    high = "high"


class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


class LineItem(BaseModel):
    sku: str
    quantity: int = Field(1, ge=1)


class Order(BaseModel):
    customer: str
    address: Address
    items: list[LineItem]


def place_order(order: Order, priority: Priority = Priority.normal, note: str = "") -> str:
    """Place an order for a customer.

    Args:
        order: the order to place
        priority: shipping priority
        note: free-text note for the warehouse
    """
    return f"{order.customer}:{len(order.items)}:{priority.value}"


async def fetch_page(url: str, timeout: float = 5.0, follow_redirects: bool = True) -> str:
    """Fetch a web page and return its text.

    Args:
        url: absolute URL of the page
        timeout: seconds to wait
        follow_redirects: follow HTTP redirects
    """
    return url


DEFINITION_FUNCS: dict[str, Callable[..., Any]] = {
    "add": add,
    "annotated": search_docs,
    "nested": place_order,
    "async": fetch_page,
}

# The parameters whose descriptions a full schema carries: from the docstring, and
# (for `query`) from `Annotated[str, "..."]`, a convention some frameworks ignore.
DESCRIBED: dict[str, tuple[str, ...]] = {
    "add": (),
    "annotated": ("mode", "limit", "languages", "include_archived"),
    "nested": ("order", "priority", "note"),
    "async": ("url", "timeout", "follow_redirects"),
}
ANNOTATED_DESCRIBED: dict[str, tuple[str, ...]] = {"annotated": ("query",)}

# -- call inputs -------------------------------------------------------------------------

CALL_ARGS: dict[str, Any] = {"a": 1, "b": 2}
CALL_JSON = '{"a": 1, "b": 2}'
CALL_RESULT = 3
BAD_ARGS: dict[str, Any] = {"a": "one", "b": 2}


# -- the realistic tool (issue 17) -------------------------------------------------------


def search(
    query: str,
    limit: int = 10,
    mode: Literal["fast", "deep"] = "fast",
    langs: list[str] | None = None,
) -> int:
    """Search the index and count the hits.

    Args:
        query: free-text search terms
        limit: the most hits to return
        mode: how hard to look
        langs: restrict hits to these language codes
    """
    return min(limit, len(query)) + len(langs or ())


SEARCH_ALL: dict[str, Any] = {"query": "tool calls", "limit": 5, "mode": "deep", "langs": ["en"]}
SEARCH_ALL_RESULT = 6
SEARCH_QUERY: dict[str, Any] = {"query": "tool calls"}
SEARCH_QUERY_RESULT = 10


# -- injected context (issue 15) ---------------------------------------------------------


def add_for(a: int, b: int, user: Annotated[str, Injected]) -> int:
    """Add two integers on behalf of a user the model never names."""
    return a + b


CONTEXT: dict[str, Any] = {"user": "u-42"}


# -- concurrency -------------------------------------------------------------------------


async def tick(a: int, b: int) -> int:
    """Add two integers after yielding to the event loop once."""
    await asyncio.sleep(0)
    return a + b


# -- fresh copies ------------------------------------------------------------------------


def fresh(func: Callable[..., Any], name: str | None = None) -> Any:
    """A new function object with `func`'s code, under `name` (default: its own)."""
    copy = types.FunctionType(
        func.__code__, func.__globals__, name or func.__name__, func.__defaults__, func.__closure__
    )
    copy.__kwdefaults__ = dict(func.__kwdefaults__) if func.__kwdefaults__ else None
    copy.__annotations__ = dict(func.__annotations__)
    copy.__doc__ = func.__doc__
    copy.__module__ = func.__module__
    copy.__qualname__ = name or func.__qualname__
    return copy


# -- distinct tools at scale ------------------------------------------------------------

_DISTINCT = """
def tool_{i:05d}(
    term_{i}: Annotated[str, "what to look for in collection {i}"],
    scope_{i}: Literal["s{i}_all", "s{i}_titles", "s{i}_bodies"] = "s{i}_all",
    labels_{i}: list[str] | None = None,
) -> str:
    \"\"\"Look things up in collection {i} and name the best match.

    Args:
        scope_{i}: which part of collection {i} to search
        labels_{i}: only items carrying one of these labels
    \"\"\"
    return term_{i}
"""


def distinct_tools(count: int, start: int = 0) -> list[tuple[Any, list[str]]]:
    """`count` distinct tools `tool_<start>`... with their tags, each its own function.

    Every tool has its own name, parameter names, docstring, a parameter described in
    `Annotated`, two described in the docstring, a `Literal` of its own and a
    `list[str] | None = None`: nothing a framework builds from a signature can be
    shared between two of them. Tool `i` carries the tag `grp<i // 10>`, so every tag
    is held by exactly ten tools whatever the registry's size.
    """
    namespace: dict[str, Any] = {"Annotated": Annotated, "Literal": Literal}
    # A hundred at a time: the compiler's temporary memory for one source of 10,000
    # functions would be freed into the allocator, where a registry growing next could
    # reuse it unseen by the resident set size (`benchmarks.memory`).
    for first in range(start, start + count, 100):
        numbers = range(first, min(first + 100, start + count))
        source = "".join(_DISTINCT.format(i=i) for i in numbers)
        exec(compile(source, f"<distinct tools from {first}>", "exec"), namespace)
    return [(namespace[f"tool_{i:05d}"], [f"grp{i // 10}"]) for i in range(start, start + count)]


def distinct_args(name: str) -> dict[str, Any]:
    """Arguments for the distinct tool `name` (only its required parameter)."""
    return {f"term_{int(name.removeprefix('tool_'))}": "needle"}

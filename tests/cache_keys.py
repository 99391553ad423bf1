"""What `Cache` keys are pinned with, in the process and in Redis: pairs of calls of
tools whose parameters admit values that JSON (or ``==``) would confuse.

Each tool answers with a faithful description of what it received (its exact types, a
float's sign, a dict's order), so an answer given for another call's arguments shows.
The oracle is the same tools without a cache: for any two calls, the cached registry
answers each as they do; and when they answered both alike (the tool received the same
validated arguments), the second call came from the cache.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from enum import Enum, IntEnum
from typing import Any, NamedTuple

from hypothesis import strategies as st
from pydantic import BaseModel, SecretStr

from tooldeck import Tool, ToolRegistry


class Circle(BaseModel):
    size: int


class Square(BaseModel):
    size: int


class Color(IntEnum):
    RED = 1


class Mode(str, Enum):
    A = "a"


class Point(NamedTuple):
    x: int
    y: int


def describe(value: Any) -> str:
    """The value as a tool could tell it apart from any other: type, sign, order."""
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, BaseModel):
        return f"{name}({describe(dict(value))})"
    if isinstance(value, SecretStr):
        return f"{name}({value.get_secret_value()!r})"
    if isinstance(value, dict):
        items = ", ".join(f"{describe(k)}: {describe(v)}" for k, v in value.items())
        return f"{name}{{{items}}}"
    if isinstance(value, (list, tuple)):
        return f"{name}[{', '.join(describe(v) for v in value)}]"
    if isinstance(value, (set, frozenset)):
        return f"{name}{{{', '.join(sorted(describe(v) for v in value))}}}"
    return f"{name}({value!r})"


RUNS: list[str] = []  # the tools' runs, in this process
_TOOLS: list[Tool[..., Any]] = []


def key_tools(registry: ToolRegistry) -> ToolRegistry:
    """``registry`` with tools whose parameters admit values JSON would write alike
    (made once: a registry per example only registers them)."""
    if not _TOOLS:
        holder = ToolRegistry()
        _make_tools(holder)
        _TOOLS.extend(holder.get(name) for name in TOOLS)
    for made in _TOOLS:
        registry.register(made)
    return registry


def _make_tools(registry: ToolRegistry) -> None:
    hint = {"readOnlyHint": True}

    def answer(name: str, value: Any) -> str:
        RUNS.append(name)
        return describe(value)

    @registry.tool(annotations=hint)
    def anything(x: Any) -> str:
        return answer("anything", x)

    @registry.tool(annotations=hint)
    def text_or_bytes(x: str | bytes) -> str:
        return answer("text_or_bytes", x)

    @registry.tool(annotations=hint)
    def number(x: float) -> str:  # 1 and 1.0 are one call here
        return answer("number", x)

    @registry.tool(annotations=hint)
    def int_or_float(x: int | float) -> str:  # and two here
        return answer("int_or_float", x)

    @registry.tool(annotations=hint)
    def sequence(x: list[int] | tuple[int, ...]) -> str:
        return answer("sequence", x)

    @registry.tool(annotations=hint)
    def shape(x: Circle | Square) -> str:
        return answer("shape", x)

    @registry.tool(annotations=hint)
    def mapping(x: dict[str, int], y: int = 0) -> str:
        return answer("mapping", (x, y))

    @registry.tool(annotations=hint)
    def secret(x: SecretStr) -> str:
        return answer("secret", x)

    @registry.tool(annotations=hint)
    def amount(x: Decimal | datetime) -> str:
        return answer("amount", x)

    @registry.tool(annotations=hint)
    def optional(x: int | None = None) -> str:  # missing and None: one call
        return answer("optional", x)


ATOMS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2**64,
    0.0,
    -0.0,
    1.0,
    float("inf"),
    "",
    "1",
    "a",
    "b",
    b"",
    b"a",
    bytearray(b"a"),
    Color.RED,
    Mode.A,
    Point(1, 2),
    (1, 2),
    Circle(size=1),
    Square(size=1),
    SecretStr("s1"),
    SecretStr("s2"),
    Decimal("1.0"),
    Decimal("1.00"),
    datetime(2024, 1, 1, tzinfo=timezone.utc),
    datetime(2024, 1, 1, 1, tzinfo=timezone(timedelta(hours=1))),  # the same instant
]
_HASHABLE = [a for a in ATOMS if not isinstance(a, (BaseModel, bytearray))]
_KEYS = st.sampled_from(["a", "b", "1"])


_VALUES = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=3),
        st.frozensets(st.sampled_from(_HASHABLE), max_size=3),
        st.sets(st.sampled_from([1, 1.0, "1", b"1", -0.0]), max_size=2),
    ),
    max_leaves=6,
)


TOOLS = [
    "anything",
    "text_or_bytes",
    "number",
    "int_or_float",
    "sequence",
    "shape",
    "mapping",
    "secret",
    "amount",
    "optional",
]


@st.composite
def call_pairs(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any], bool]:
    """A tool, two argument dicts for it (often alike), and whether to call async."""
    tool = draw(st.sampled_from(TOOLS))

    def arguments() -> dict[str, Any]:
        if tool == "optional" and draw(st.booleans()):
            return {}
        if tool == "mapping":
            return {
                "x": draw(st.dictionaries(_KEYS, st.sampled_from([1, 2, 1.0, "1"]), max_size=3)),
                "y": draw(st.sampled_from([0, 0.0, "0"])),
            }
        return {"x": draw(_VALUES)}

    first = arguments()
    how = draw(st.sampled_from(["other", "same", "twin"]))
    if how == "other":
        second = arguments()
    else:
        second = {k: _twin(draw, v) if how == "twin" else v for k, v in first.items()}
    return tool, first, second, draw(st.booleans())


# Values JSON or ``==`` confuse: a twin of a value is often one of its group.
_GROUPS: list[list[Any]] = [
    [0, 0.0, -0.0, False, "0", b"0"],
    [1, 1.0, True, "1", Color.RED, Decimal("1.0"), Decimal("1.00")],
    ["a", b"a", bytearray(b"a"), Mode.A],
    ["", b"", None, bytearray()],
    [Circle(size=1), Square(size=1), {"size": 1}],
    [SecretStr("s1"), SecretStr("s2")],
    [Point(1, 2), (1, 2), [1, 2]],
    [ATOMS[-2], ATOMS[-1], "2024-01-01T00:00:00Z"],
]


def _twin(draw: st.DrawFn, value: Any) -> Any:
    """A value like ``value``, often one that JSON or ``==`` cannot tell from it."""
    for group in _GROUPS:
        if any(type(value) is type(g) and value == g for g in group):
            return draw(st.sampled_from(group))
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        items = [_twin(draw, v) for v in value]
        return draw(st.sampled_from([list, tuple]))(items)
    if isinstance(value, dict):
        pairs = [(k, _twin(draw, v)) for k, v in value.items()]
        return dict(reversed(pairs) if draw(st.booleans()) else pairs)
    if isinstance(value, (set, frozenset)):
        return draw(st.sampled_from([set, frozenset]))(value)
    return value


def call(registry: ToolRegistry, name: str, arguments: dict[str, Any], use_async: bool) -> Any:
    if use_async:
        return asyncio.run(registry.async_call_tool(name, arguments))
    return registry.call_tool(name, arguments)


def check_pair(
    cached: ToolRegistry,
    plain: ToolRegistry,
    pair: tuple[str, dict[str, Any], dict[str, Any], bool],
) -> None:
    """Both calls answered as without a cache; the second from the cache exactly when
    the tool received the same validated arguments both times."""
    name, first, second, use_async = pair
    expected = [plain.call_tool(name, first), plain.call_tool(name, second)]
    before = len(RUNS)
    got = [call(cached, name, first, use_async), call(cached, name, second, use_async)]
    assert got == expected, (first, second)
    ran = len(RUNS) - before
    ok = not any(str(answer).startswith("Error: ") for answer in expected)
    if ok and expected[0] == expected[1]:
        assert ran == 1, (first, second)  # the same call: answered from the cache
    elif ok:
        assert ran == 2, (first, second)


# -- key= callables, named in a shared storage (tests/unit/test_middleware_keys.py) ----


def by_field(field: str) -> Any:
    return lambda call: call.context.get(field)


def read_field(field: str, call: Any) -> Any:
    return call.context.get(field)


class ByField:
    """A callable object: its state is what it is."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __call__(self, call: Any) -> Any:
        return call.context.get(self.field)

    def read(self, call: Any) -> Any:
        return call.context.get(self.field)


_TIERS = frozenset({"free", "pro", "team", "enterprise", "trial"})  # (str hash order)


def by_tier(call: Any) -> Any:
    return call.context.get("tier") in _TIERS


def named_keys() -> dict[str, Any]:
    """Key callables by a label, made alike in every process (for the name test)."""
    import functools

    tiers = _TIERS
    return {
        "lambda": lambda call: call.context.get("user"),
        "closure": by_field("user"),
        "closure over a set": lambda call: call.context.get("tier") in tiers,
        "partial": functools.partial(read_field, "user"),
        "object": ByField("user"),
        "method": ByField("tenant").read,
        "function": by_tier,
    }


def set_text() -> str:
    """A call's key text for arguments holding sets (their order varies by process)."""
    from tooldeck.middleware._keys import call_text

    return call_text({"x": {"a", "b", "c", "d", "e"}, "y": frozenset(_TIERS)}, {"v": {"p", "q"}})

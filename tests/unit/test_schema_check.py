"""A schema's metaschema verdict is remembered by its JSON text: the same verdict as
checking it afresh, paid once per distinct schema, and never borrowed by a schema that
only looks the same once written as JSON."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import BaseTool, ToolDefinitionError, ToolRegistry, ToolResult
from tooldeck import _schema_check as check


@pytest.fixture(autouse=True)
def forgotten() -> Iterator[None]:
    check._remembered_problem.cache_clear()
    yield
    check._remembered_problem.cache_clear()


def _afresh(schema: Any) -> tuple[str, str] | None:
    """jsonschema's own verdict, nothing remembered."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    found = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    if found is None:
        return None
    return "/".join(str(part) for part in found.absolute_path), found.message


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["string", "object", "integer", "strnig", "a", ""]),
)
_KEYWORDS = st.sampled_from(
    ["type", "required", "minLength", "enum", "items", "properties", "description", "x"]
)
_SCHEMAS = st.recursive(
    st.dictionaries(_KEYWORDS, _VALUES, max_size=4),
    lambda inner: st.dictionaries(
        _KEYWORDS, st.one_of(_VALUES, inner, st.lists(st.one_of(_VALUES, inner), max_size=3))
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(schema=_SCHEMAS)
def test_a_remembered_verdict_is_the_verdict_afresh(schema: dict[str, Any]) -> None:
    expected = _afresh(schema)
    assert (check.metaschema_problem(schema) is None) == (expected is None)
    again = check.metaschema_problem(schema)  # remembered now
    assert (again is None) == (expected is None)
    assert again == check.metaschema_problem(dict(reversed(schema.items())))


def test_one_check_per_distinct_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[Any] = []
    real = check._metaschema_problem

    def counting(schema: Any) -> tuple[str, str] | None:
        checked.append(schema)
        return real(schema)

    monkeypatch.setattr(check, "_metaschema_problem", counting)
    shape = {"type": "object", "properties": {"city": {"type": "string"}}}
    for _ in range(5):
        assert check.metaschema_problem(dict(shape)) is None
    wrong = {"type": "object", "required": "city"}
    for _ in range(3):
        found = check.metaschema_problem(wrong)
        assert found is not None and found[0] == "required"
    assert len(checked) == 2
    # a verdict for a long schema is not kept (memory stays bounded)
    long = {"type": "object", "description": "x" * check._REMEMBERED_CHARS}
    check.metaschema_problem(long)
    check.metaschema_problem(long)
    assert len(checked) == 4


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "required": ("city",)},  # a tuple: "required" is no JSON array
        {"type": "object", "properties": {1: {"type": "string"}}},  # a key that is no string
    ],
)
def test_a_schema_that_is_not_plain_json_is_checked_as_it_is(schema: dict[str, Any]) -> None:
    # Its JSON text equals a valid schema's; that one's verdict must not be borrowed.
    plain = {"type": "object", "required": ["city"], "properties": {"1": {"type": "string"}}}
    assert check.metaschema_problem(plain) is None
    assert check.metaschema_problem(schema) == _afresh(schema)


class _Shaped(BaseTool):
    description = "A tool of a given shape."

    def __init__(self, name: str, parameters: dict[str, Any]) -> None:
        self._name, self._parameters = name, parameters

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs)


def test_tools_of_one_shape_are_each_still_refused_or_run() -> None:
    registry = ToolRegistry()
    wrong = {"type": "object", "properties": {"n": {"type": "integr"}}}
    for name in ("a", "b"):
        with pytest.raises(ToolDefinitionError, match="not a valid JSON Schema"):
            registry.register(_Shaped(name, wrong))
    right = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    for name in ("c", "d"):
        registry.register(_Shaped(name, right))
        assert registry.call_tool(name, {"n": 2}) == {"n": 2}
        assert "n: 'x' is not of type 'integer'" in registry.call_tool(name, {"n": "x"})

"""A framework's tool is recognised by its class, without importing the framework; a
framework that is not installed is an ImportError naming its extra (both ways)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck.frameworks import recognise


def _fake(module: str, name: str) -> Any:
    """An instance of a class named like a framework's, from a module of its name."""
    return type(name, (), {"__module__": module})()


@pytest.mark.parametrize(
    ("module", "name", "bridge"),
    [
        ("langchain_core.tools.base", "BaseTool", "langchain"),
        ("agents.tool", "FunctionTool", "openai_agents"),
        ("pydantic_ai.tools", "Tool", "pydantic_ai"),
    ],
)
def test_recognised_by_module_and_class_name_along_the_mro(
    module: str, name: str, bridge: str
) -> None:
    obj = _fake(module, name)
    assert recognise(obj) == bridge
    subclass = type("Mine", (type(obj),), {"__module__": "my_app.tools"})
    assert recognise(subclass()) == bridge  # a user's subclass too


@pytest.mark.parametrize(
    "obj",
    [
        _fake("my_app", "BaseTool"),  # a class of the name elsewhere
        _fake("agents_extra.tool", "FunctionTool"),
        _fake("pydantic_ai.tools", "ToolDefinition"),
        len,
        lambda x: x,
    ],
)
def test_other_objects_are_not_foreign_tools(obj: Any) -> None:
    assert recognise(obj) is None


@pytest.mark.parametrize(
    ("module", "name", "extra"),
    [
        ("langchain_core.tools.base", "BaseTool", "langchain"),
        ("agents.tool", "FunctionTool", "openai-agents"),
        ("pydantic_ai.tools", "Tool", "pydantic-ai"),
    ],
)
def test_registering_without_the_framework_names_the_extra(
    module: str, name: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = module.partition(".")[0]
    for loaded in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, top, None)  # as if it were not installed
    registry = ToolRegistry()
    with pytest.raises(ImportError, match=rf'pip install "tooldeck\[{extra}\]"'):
        registry.register(_fake(module, name))
    assert len(registry) == 0

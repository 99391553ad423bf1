"""Strict exports of a registry holding tools that strict mode cannot express
(issue 21, item 17).

The case that needed it: an imported MCP tool whose schema uses ``format: "uri"``,
whose schema the user cannot change. ``strict=True`` names every such tool and how
to proceed; ``strict="best-effort"`` exports them without strict mode, with a warning,
and the others strict — in every format, and through ``get_openai_tools``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import AnyUrl

from tooldeck import ToolRegistry
from tooldeck.errors import ToolDefinitionError

fastmcp = pytest.importorskip("fastmcp")

FORMATS = ["openai", "openai-responses", "anthropic", "gemini", "mcp"]


def remote_server() -> Any:
    server = fastmcp.FastMCP("links")

    @server.tool
    def fetch(url: AnyUrl) -> str:
        """Fetch a page."""
        return str(url)

    @server.tool
    def count(text: str, limit: int = 10) -> int:
        """Count characters."""
        return min(len(text), limit)

    return server


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.use_mcp(remote_server())

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    return registry


@pytest.mark.parametrize("fmt", FORMATS)
def test_strict_true_names_the_tool_and_how_to_proceed(registry: ToolRegistry, fmt: str) -> None:
    with pytest.raises(ToolDefinitionError) as refused:
        registry.export(fmt, strict=True)
    assert refused.value.tool == "fetch"
    assert refused.value.param == "url"
    assert "strict='best-effort'" in str(refused.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_best_effort_exports_the_rest_strict_and_warns(registry: ToolRegistry, fmt: str) -> None:
    with pytest.warns(UserWarning, match=r"exported 1 tool\(s\) without strict mode: 'fetch'"):
        exported = registry.export(fmt, strict="best-effort")
    loose = registry.export(fmt)
    names = [tool.name for tool in registry]
    assert len(exported) == len(names) == 3
    for name, tool, plain in zip(names, exported, loose, strict=True):
        if name == "fetch":
            assert tool == plain  # exactly its non-strict export
        else:
            assert tool == registry.get(name).export(fmt, strict=True)  # type: ignore[union-attr]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # cached: the warning was given once
        assert registry.export(fmt, strict="best-effort") == exported


def test_best_effort_through_get_openai_tools(registry: ToolRegistry) -> None:
    with pytest.warns(UserWarning, match="'fetch'"):
        tools = registry.get_openai_tools(strict="best-effort")
    flags = {t["function"]["name"]: t["function"].get("strict", False) for t in tools}
    assert flags == {"fetch": False, "count": True, "add": True}
    with pytest.warns(UserWarning, match="'fetch'"):
        declarations = registry.get_declarations(strict="best-effort")
    assert declarations == registry.export("anthropic", strict="best-effort")


def test_every_tool_that_cannot_be_strict_is_named(registry: ToolRegistry) -> None:
    @registry.tool
    def tally(counts: dict[str, int]) -> int:
        """Sum counts."""
        return sum(counts.values())

    with pytest.raises(ToolDefinitionError) as refused:
        registry.export("openai", strict=True)
    message = str(refused.value)
    assert message.startswith("2 tools cannot be made strict: 'fetch' (")
    assert "'tally' (" in message
    assert "strict='best-effort'" in message
    with pytest.warns(UserWarning, match=r"exported 2 tool\(s\) without strict mode"):
        assert len(registry.export("openai", strict="best-effort")) == 4
    # ... and tags leave them out, strict.
    assert registry.export("openai", strict=True, tags=[]) == []


def test_a_tool_exports_best_effort_too(registry: ToolRegistry) -> None:
    fetch = registry.get("fetch")
    assert fetch is not None
    with pytest.warns(UserWarning, match="exported without strict mode: tool 'fetch'"):
        assert fetch.export("openai", strict="best-effort") == fetch.export("openai")
    add = registry.get("add")
    assert add is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert add.export("openai", strict="best-effort") == add.export("openai", strict=True)


@pytest.mark.parametrize("strict", ["yes", None, 1.5, "best_effort"])
def test_strict_takes_a_bool_or_best_effort_only(registry: ToolRegistry, strict: Any) -> None:
    with pytest.raises(ValueError, match="strict must be True, False or 'best-effort'"):
        registry.export("openai", strict=strict)
    add = registry.get("add")
    assert add is not None
    with pytest.raises(ValueError, match="strict must be"):
        add.export("openai", strict=strict)


def test_a_remote_tool_is_never_told_to_change_its_code() -> None:
    # The fix a local tool is offered ("take a str and check it in the tool", "use a
    # model") cannot be applied to a remote schema: a proxy's refusal says whose it is.
    server = fastmcp.FastMCP("loose")

    @server.tool
    def fetch(url: AnyUrl) -> str:
        return str(url)

    @server.tool
    def tally(counts: dict[str, int]) -> int:
        return sum(counts.values())

    registry = ToolRegistry()
    registry.use_mcp(server)
    for name in ("fetch", "tally"):
        proxy = registry.get(name)
        assert proxy is not None
        with pytest.raises(ToolDefinitionError) as refused:
            proxy.export("openai", strict=True)
        reason = refused.value.reason
        assert refused.value.tool == name and "the MCP server's schema" in reason
        for advice in ("in the tool", "use a model", "list of pairs"):
            assert advice not in reason
    with pytest.raises(ToolDefinitionError) as both:
        registry.export("anthropic", strict=True)
    assert "in the tool" not in str(both.value) and "use a model" not in str(both.value)
    assert "strict='best-effort'" in str(both.value)

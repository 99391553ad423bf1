"""The public surface: exactly the names in __all__, and a light import."""

from __future__ import annotations

import json
import subprocess
import sys

import tooldeck

PUBLIC = [
    "Audio",
    "BaseTool",
    "Call",
    "DuplicateToolError",
    "File",
    "Image",
    "Injected",
    "Progress",
    "Tool",
    "ToolCallBatch",
    "ToolDeckError",
    "ToolDefinitionError",
    "ToolNotFoundError",
    "ToolRegistry",
    "ToolResult",
    "ToolSearch",
    "abandoned_threads",
    "asyncify",
    "syncify",
    "tool",
    "tool_func",
]


def test_all_is_exactly_the_public_names_sorted() -> None:
    assert tooldeck.__all__ == PUBLIC
    assert sorted(tooldeck.__all__) == tooldeck.__all__
    for name in PUBLIC:
        assert getattr(tooldeck, name) is not None


def test_public_names_have_docstrings() -> None:
    for name in PUBLIC:
        assert getattr(tooldeck, name).__doc__, name


def test_tool_func_is_tool() -> None:
    assert tooldeck.tool_func is tooldeck.tool


def test_errors_subclass_the_builtins() -> None:
    assert issubclass(tooldeck.ToolDefinitionError, TypeError)
    assert issubclass(tooldeck.DuplicateToolError, ValueError)
    assert issubclass(tooldeck.ToolNotFoundError, LookupError)
    for error in (
        tooldeck.ToolDefinitionError,
        tooldeck.DuplicateToolError,
        tooldeck.ToolNotFoundError,
    ):
        assert issubclass(error, tooldeck.ToolDeckError)


def test_import_is_light() -> None:
    code = (
        "import sys, tooldeck\n"
        # registering, calling and exporting a function imports no framework either
        "r = tooldeck.ToolRegistry()\n"
        "r.register(lambda x: x, name='f'); r.call_tool('f', {'x': 1}); r.export('mcp')\n"
        "heavy = [m for m in ('fastmcp', 'mcp', 'tooldeck.cli', 'tooldeck.mcp', 'httpx', "
        "'tooldeck.tools', 'opentelemetry', 'langchain_core', 'langgraph', 'agents', "
        "'pydantic_ai') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_tool_search_is_public_and_loads_the_search_package_only_when_asked() -> None:
    code = (
        "import sys, tooldeck\n"
        "before = 'tooldeck.search' in sys.modules\n"
        "r = tooldeck.ToolRegistry(); r.register(lambda x: x, name='f', description='F.')\n"
        "same = type(r.tool_search('openai')) is tooldeck.ToolSearch\n"
        "print(before, same, 'ToolSearch' in dir(tooldeck))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


MCP_PUBLIC = [
    "MCPAuthError",
    "MCPConnectionError",
    "MCPTimeoutError",
    "aclose",
    "as_mcp_server",
    "async_use_mcp",
    "client_id",
    "close",
    "http_app",
    "sanitise_name",
    "serve",
    "to_value",
    "use_mcp",
]


def test_the_mcp_package_names_are_exactly_its_all_and_load_no_fastmcp() -> None:
    code = (
        "import sys, json, tooldeck.mcp as m\n"
        "loaded = [n for n in ('fastmcp', 'mcp', 'mcp_types', 'starlette') if n in sys.modules]\n"
        "print(json.dumps([m.__all__, [n for n in m.__all__ if not getattr(m, n).__doc__], "
        "loaded]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names, undocumented, loaded = json.loads(out.stdout)
    assert names == MCP_PUBLIC
    assert undocumented == []
    assert loaded == []

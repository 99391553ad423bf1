"""The public surface: exactly the names in __all__, and a light import."""

from __future__ import annotations

import subprocess
import sys

import tooldeck

PUBLIC = [
    "BaseTool",
    "DuplicateToolError",
    "Tool",
    "ToolDeckError",
    "ToolDefinitionError",
    "ToolNotFoundError",
    "ToolRegistry",
    "ToolResult",
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
        "heavy = [m for m in ('fastmcp', 'mcp', 'tooldeck.cli', 'tooldeck.mcp', 'httpx', "
        "'tooldeck.tools') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""

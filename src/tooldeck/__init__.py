"""tooldeck: plain Python functions as tools for language models.

``@tool`` reads a function's signature once into a validated, schema-bearing
`Tool`; a `ToolRegistry` holds tools, answers tag queries, calls them
(sync or async; errors come back as strings or `ToolResult`), exports them to
OpenAI, Anthropic, Gemini and MCP, and imports and serves tools over MCP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._injected import Injected
from ._media import Audio, File, Image
from ._progress import Progress
from ._registry import ToolRegistry, tool, tool_func
from ._result import ToolResult
from ._shifting import asyncify, syncify
from ._threads import abandoned_threads
from ._tool import BaseTool, Tool
from .approval import ToolCallBatch
from .errors import DuplicateToolError, ToolDeckError, ToolDefinitionError, ToolNotFoundError
from .middleware import Call

if TYPE_CHECKING:
    from .search._tool_search import ToolSearch

__all__ = [
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

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `ToolSearch` (what `registry.tool_search` returns) lives in the search package,
    # which `import tooldeck` must not load (it is imported on the first search).
    if name == "ToolSearch":
        from .search._tool_search import ToolSearch

        return ToolSearch
    raise AttributeError(f"module 'tooldeck' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

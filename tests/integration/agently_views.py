"""What a ToolManager says about the corpus, as plain JSON: Agently's or tooldeck's.

``python agently_views.py agently`` prints the real Agently 4.0.6's view (run in a
subprocess: Agently configures logging and event machinery on import). `views` builds
the same from tooldeck in process. Types are rendered with ``repr`` (the same type
renders the same in both), nested in dicts and tuples as the views keep them.
"""

from __future__ import annotations

import asyncio
import enum
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import agently_corpus as corpus


def render(value: Any) -> Any:
    """A JSON form that tells types, tuples and values apart."""
    if isinstance(value, dict):
        return {str(k): render(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return {"tuple": [render(v) for v in value]}
    if isinstance(value, list):
        return [render(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"enum": repr(value)}
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return {"model": type(value).__name__, "data": render(value.model_dump())}
    return {"repr": repr(value)}


def views(manager: Any) -> dict[str, Any]:
    """Register the corpus on ``manager`` (Agently's or tooldeck's) and read it back."""
    for func in corpus.DECORATED:
        manager.tool_func(func)
    for entry in corpus.MANUAL:
        manager.register(**entry)
    for name, tags in corpus.TAGS.items():
        manager.tag(name, tags)
    info = {
        name: render({k: v for k, v in entry.items() if k != "parameters"})
        for name, entry in manager.get_tool_info().items()
    }
    by_tag = {tag: sorted(manager.get_tool_info(tags=tag)) for tag in ("math", "demo", "text")}
    calls = [[name, render(manager.call_tool(name, dict(args)))] for name, args in corpus.calls()]

    async def async_calls() -> list[Any]:
        return [
            [name, render(await manager.async_call_tool(name, dict(args)))]
            for name, args in corpus.calls()
        ]

    shifted = []
    for name, args in corpus.calls():
        if manager.get_tool_func(name) is None:
            shifted.append([name, None])
            continue
        try:
            sync_value = render(manager.get_tool_func(name, shift="sync")(**args))
            async_value = render(asyncio.run(manager.get_tool_func(name, shift="async")(**args)))
        except Exception as exc:  # the tool's own error, through the shifted function
            sync_value = async_value = {"raised": type(exc).__name__, "message": str(exc)}
        shifted.append([name, sync_value, async_value])
    for func in corpus.DIFFERENT:
        manager.tool_func(func)
    different = {
        f.__name__: render(
            {k: v for k, v in manager.get_tool_info()[f.__name__].items() if k != "parameters"}
        )
        for f in corpus.DIFFERENT
    }
    originals = {f.__name__: manager.get_tool_func(f.__name__) is f for f in corpus.DECORATED}
    return {
        "info": info,
        "list": sorted(entry["name"] for entry in manager.get_tool_list()),
        "by_tag": by_tag,
        "calls": calls,
        "async_calls": asyncio.run(async_calls()),
        "shifted": shifted,
        "originals": originals,
        "different": different,
    }


def agently_manager() -> Any:
    from agently import Agently
    from agently.builtins.plugins.ToolManager.AgentlyToolManager import AgentlyToolManager

    return AgentlyToolManager(Agently.settings)


if __name__ == "__main__":
    print(json.dumps(views(agently_manager()), ensure_ascii=False))

"""Working inside other frameworks: LangChain, the OpenAI Agents SDK, Pydantic AI.

One module per framework, each both ways: ``to_tool(bridge)`` makes one of tooldeck's
tools the framework's own, and ``describe(obj)`` reads one of the framework's tools for
a registry. A foreign tool is recognised by its class's module and name (`recognise`),
so registering a plain function never imports a framework; each framework module
imports its framework only when it is used (extras ``langchain``, ``openai-agents``,
``pydantic-ai``).
"""

from __future__ import annotations

import importlib
from typing import Any

from ._faces import RegistryBridges, ToolBridges
from ._shared import Bridge, Foreign, GivenContext

__all__ = ["Bridge", "Foreign", "GivenContext", "RegistryBridges", "ToolBridges", "foreign"]

# (the framework's top-level package, the class's name) → the bridge module. A subclass
# is recognised through its MRO.
_FOREIGN = {
    ("langchain_core", "BaseTool"): "langchain",
    ("agents", "FunctionTool"): "openai_agents",
    ("pydantic_ai", "Tool"): "pydantic_ai",
}


def recognise(obj: Any) -> str | None:
    """The bridge module for a framework's tool, or ``None``: read from the class's MRO,
    without importing any framework."""
    for cls in type(obj).__mro__:
        module = getattr(cls, "__module__", "") or ""
        found = _FOREIGN.get((module.partition(".")[0], cls.__name__))
        if found is not None:
            return found
    return None


def foreign(obj: Any) -> Foreign | None:
    """A framework's tool read for a registry, or ``None`` when ``obj`` is none."""
    module = recognise(obj)
    if module is None:
        return None
    bridge = importlib.import_module(f"{__name__}.{module}")
    described: Foreign = bridge.describe(obj)
    return described

"""Agently's view of a tool: `get_tool_info`'s ``{"name", "desc", "kwargs", ...}``."""

from __future__ import annotations

from typing import Any

from ._jsonschema import copy_json
from ._spec import EMPTY, ToolSpec

__all__ = ["agently_info", "type_name"]


def agently_info(spec: ToolSpec, *, jsonable: bool = False) -> dict[str, Any]:
    """``{"name", "desc", "kwargs", "returns"?, "parameters"}`` in Agently's format.

    ``kwargs`` is ``{param: (type, "description;Default: <value>")}``; with
    ``jsonable`` the types are rendered as names and tuples as lists.
    """
    kwargs: dict[str, Any] = {}
    for param in spec.params:
        notes = [param.description] if param.description else []
        if param.default is not EMPTY:
            notes.append(f"Default: {param.default}")
        kind = param.base  # typing.Any for an unannotated parameter
        entry = (kind, ";".join(notes))
        kwargs[param.name] = [type_name(kind), entry[1]] if jsonable else entry
    info: dict[str, Any] = {"name": spec.name, "desc": spec.description, "kwargs": kwargs}
    if spec.return_annotation is not EMPTY:
        returns = spec.return_annotation
        info["returns"] = type_name(returns) if jsonable else returns
    info["parameters"] = copy_json(spec.parameters)
    return info


def type_name(tp: Any) -> str:
    """A readable name for a type: ``int``, ``list[str]``, ``Optional[int]``."""
    if isinstance(tp, type) and not getattr(tp, "__args__", None):
        return tp.__name__
    return repr(tp).replace("typing.", "").replace("typing_extensions.", "")

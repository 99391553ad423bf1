"""What the one introspection pass produces: a frozen `ToolSpec` of `Param`s.

Plain data, built once at definition time and never changed afterwards; everything
downstream (the call pipeline, the exporters, Agently's view) reads it.
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ._injected import Injection
from .errors import ToolDefinitionError

__all__ = [
    "ANNOTATION_TYPES",
    "EMPTY",
    "NAME_RULE",
    "Param",
    "ToolSpec",
    "Validate",
    "check_annotations",
    "check_name",
]


NAME_RULE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
EMPTY: Any = inspect.Parameter.empty

Validate = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Param:
    """One analysed parameter.

    Attributes:
        name: The parameter's name (the argument key).
        annotation: The annotation as written, ``Annotated`` metadata included.
        base: The annotation without ``Annotated`` (``typing.Any`` if unannotated).
        default: The default value, or ``inspect.Parameter.empty``.
        default_factory: A factory for the default (from ``Field(default_factory=)``).
        description: The resolved description, if any.
        declared: The type as its author declared it, where it differs from ``base``
            (``int`` for ``x: int = None``, whose ``base`` is ``Optional[int]``), for
            Agently's view; ``None`` when it is ``base``.
    """

    name: str
    annotation: Any
    base: Any
    default: Any = EMPTY
    default_factory: Callable[[], Any] | None = None
    description: str | None = None
    declared: Any = None

    @property
    def required(self) -> bool:
        return self.default is EMPTY and self.default_factory is None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything tooldeck knows about a tool, computed once. Treat as read-only.

    Attributes:
        name: The tool name.
        description: What the tool does, for a model.
        parameters: The arguments' JSON Schema (never handed out uncopied).
        returns: The return value's JSON Schema, or ``None`` when unknown.
        return_annotation: The return annotation as written (``EMPTY`` if none).
        params: The analysed parameters, in signature order.
        validate_python: Mapping of arguments → validated keyword arguments.
        validate_json: JSON text → validated keyword arguments.
        positional: Names of positional-only parameters, in order.
        is_async: Whether calling the function returns an awaitable.
        returns_tool_result: Whether the function is annotated ``-> ToolResult``.
        manual: Agently's manual registration as given (``{"kwargs": ...,
            "returns": ...}``, ``returns`` only when given), which `get_tool_info` shows
            as is; ``None`` for every other tool.
        injected: The parameters whose values come from a call's ``context``
            (``Injected``), in signature order; absent from everything above.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any] | None
    return_annotation: Any
    params: tuple[Param, ...]
    validate_python: Validate
    validate_json: Validate
    positional: tuple[str, ...]
    is_async: bool
    returns_tool_result: bool
    manual: Mapping[str, Any] | None = None
    injected: tuple[Injection, ...] = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolSpec:
        # Everything copied but the validators: compiled, immutable, shared.
        copied = {
            f.name: copy.deepcopy(getattr(self, f.name), memo)
            for f in fields(self)
            if f.name not in ("validate_python", "validate_json")
        }
        return ToolSpec(
            **copied, validate_python=self.validate_python, validate_json=self.validate_json
        )


def check_name(name: Any, *, func_name: str | None = None) -> str:
    """Reject a tool name a provider would refuse (``^[A-Za-z0-9_-]{1,64}$``)."""
    if not isinstance(name, str) or not NAME_RULE.match(name):
        raise ToolDefinitionError(
            f"invalid tool name {name!r}: names must match ^[A-Za-z0-9_-]{{1,64}}$ "
            "(providers reject anything else); pass name=... to choose one",
            tool=func_name,
        )
    return name


ANNOTATION_TYPES: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}
"""MCP's tool annotations and the type each takes."""


def check_annotations(annotations: Mapping[str, Any] | None, name: str) -> dict[str, Any] | None:
    """MCP tool annotations, checked: known keys, each of its type (``None`` for none)."""
    if annotations is None:
        return None
    if not isinstance(annotations, Mapping):
        raise ToolDefinitionError(
            f"annotations must be a mapping, got {type(annotations).__name__}", tool=name
        )
    checked: dict[str, Any] = {}
    for key, value in annotations.items():
        kind = ANNOTATION_TYPES.get(key) if isinstance(key, str) else None
        if kind is None:
            known = ", ".join(ANNOTATION_TYPES)
            raise ToolDefinitionError(
                f"unknown MCP annotation {key!r}; the annotations are {known}", tool=name
            )
        if not isinstance(value, kind):
            raise ToolDefinitionError(
                f"annotation {key!r} must be a {kind.__name__}, got {value!r}", tool=name
            )
        checked[key] = value
    return checked

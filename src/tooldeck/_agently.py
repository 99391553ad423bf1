"""Agently's view of a tool: `get_tool_info`'s ``{"name", "desc", "kwargs", ...}``.

As Agently 4's ``ToolManager`` shows it (``tests/integration/test_agently_differential.py``
runs the real one beside this): ``kwargs`` is ``{param: (type, "description;Default:
<value>")}`` with the type as declared; ``returns`` is the return annotation without
``Annotated`` metadata, a Pydantic model shown as its fields (``DataFormatter.sanitize(hint,
remain_type=True)``). A tool registered by hand (Agently's manual ``register``) shows its
``kwargs`` and ``returns`` exactly as given.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

import pydantic

from ._jsonschema import copy_json
from ._spec import EMPTY, Param, ToolSpec

__all__ = ["agently_info", "type_name"]


def agently_info(spec: ToolSpec, *, jsonable: bool = False) -> dict[str, Any]:
    """``{"name", "desc", "kwargs", "returns"?, "parameters"}`` in Agently's format.

    With ``jsonable`` the types are rendered as names and tuples as lists.
    """
    info: dict[str, Any] = {"name": spec.name, "desc": spec.description}
    if spec.manual is not None:  # as given, in a dict of its own (the caller may change it)
        info.update({key: dict(v) if key == "kwargs" else v for key, v in spec.manual.items()})
    else:
        info["kwargs"] = {param.name: _kwarg(param) for param in spec.params}
        if spec.return_annotation is not EMPTY:
            info["returns"] = _sanitized(_without_metadata(spec.return_annotation), set())
    if jsonable:
        info = _jsonable(info)
    info["parameters"] = copy_json(spec.parameters)
    return info


def _kwarg(param: Param) -> tuple[Any, str]:
    notes = [param.description] if param.description else []
    if param.default is not EMPTY:
        notes.append(f"Default: {param.default}")
    declared = param.base if param.declared is None else param.declared
    return declared, ";".join(notes)  # typing.Any for an unannotated parameter


def _without_metadata(annotation: Any) -> Any:
    """``annotation`` as ``typing.get_type_hints`` without extras reads it (Agently's way)."""

    def probe() -> None: ...

    probe.__annotations__ = {"return": annotation}
    try:
        return typing.get_type_hints(probe)["return"]
    except Exception:  # an annotation get_type_hints cannot evaluate: as it is
        return annotation


def _sanitized(tp: Any, seen: set[type]) -> Any:
    """Agently's ``DataFormatter.sanitize(tp, remain_type=True)``, for an annotation.

    A model becomes ``{field: (type, description)}`` (``(type,)`` without one),
    recursively (a recursion stops at the class); any other class or generic alias stays
    as it is; what is neither (``Any`` before Python 3.11, a ``TypeVar``, a ``NewType``)
    becomes its text, as Agently renders it.
    """
    if tp is None or isinstance(tp, (str, int, float, bool)) or typing.get_origin(tp):
        return tp
    if not isinstance(tp, type):
        return str(tp)
    if not issubclass(tp, pydantic.BaseModel) or tp in seen:
        return tp
    inside = seen | {tp}
    return {
        name: (
            (_sanitized(field.annotation, inside), field.description)
            if field.description
            else (_sanitized(field.annotation, inside),)
        )
        for name, field in tp.model_fields.items()
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return type_name(value)


def type_name(tp: Any) -> str:
    """A readable name for a type: ``int``, ``list[str]``, ``Optional[int]``."""
    if isinstance(tp, type) and not getattr(tp, "__args__", None):
        return tp.__name__
    return repr(tp).replace("typing.", "").replace("typing_extensions.", "")

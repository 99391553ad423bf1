"""The one introspection pass: a callable (or a model) in, a frozen ``ToolSpec`` out.

`build_spec` runs the steps, each a small function of its own module:

1. normalise the callable and resolve its type hints once (`tooldeck._introspect`);
2. parse the docstring once (`tooldeck._docstrings`);
3. analyse each parameter into a `Param` (`tooldeck._introspect`) — or read them from
   an ``args_schema`` model (`tooldeck._models`);
4. build the argument validator once (`tooldeck._validators`);
5. generate and clean the JSON Schema once (no titles, ``$ref``s inlined).

Nothing here runs again per call: the spec is the cache.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any

import pydantic

from ._docstrings import ParsedDocstring, parse_docstring
from ._injected import Injection, marked_inside
from ._introspect import (
    agently_params,
    check_doc_params,
    class_docstring,
    docstring,
    refuse_generators,
    signature_params,
    type_hints,
    unwrap_partial,
)
from ._jsonschema import share_leaves
from ._models import is_v1_model, v1_model_validators, v2_model_validators
from ._shifting import is_async_callable
from ._spec import EMPTY, Param, ToolSpec, Validate, check_name
from ._validators import return_schema, signature_validators
from .errors import ToolDefinitionError

__all__ = ["build_spec"]


def build_spec(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    args_schema: type[Any] | None = None,
    manual_params: Mapping[str, tuple[Any, str]] | None = None,
    returns: Any = EMPTY,
) -> ToolSpec:
    """Introspect ``func`` once into a `ToolSpec`.

    Args:
        func: The function (sync or async) or callable object.
        name: The tool name; defaults to the function's ``__name__``.
        description: Overrides the docstring.
        args_schema: A Pydantic v2/v1 model whose fields are the arguments.
        manual_params: Agently's ``{param: (type, "description")}``; replaces the
            signature's parameters (defaults still come from the signature).
        returns: Agently's ``returns`` annotation, when given by hand.

    Raises:
        ToolDefinitionError: anything that would only fail later, at call time.
    """
    inner = unwrap_partial(func)
    func_name = getattr(inner, "__name__", None) or type(inner).__name__
    tool_name = check_name(func_name if name is None else name, func_name=func_name)
    refuse_generators(func, tool_name)
    hints = type_hints(func, tool_name)
    doc = parse_docstring(docstring(func))  # its Args still describe the parameters
    sig_params, positional, injected = signature_params(
        func,
        hints,
        doc.params,
        tool_name,
        allow_var_kwargs=args_schema is not None or manual_params is not None,
    )
    if args_schema is not None:
        vpy, vjson, schema, params = _model_validators(args_schema, doc.params, tool_name)
        _refuse_injected_fields(args_schema, params, injected, tool_name)
        positional = tuple(name for name in positional if name in {i.name for i in injected})
    else:
        if manual_params is not None:
            _refuse_injected_kwargs(manual_params, injected, tool_name)
            sig_params = agently_params(manual_params, sig_params, tool_name)
        params = sig_params
        vpy, vjson, schema = signature_validators(params, tool_name)
    known = {p.name for p in params} | {i.name for i in injected}
    if inner is not func:  # a partial: the wrapped docstring may document bound parameters
        known |= set(inspect.signature(inner).parameters)
    check_doc_params(doc.params, known, tool_name)
    if returns is not EMPTY:
        hints = {**hints, "return": returns}
    return_annotation, returns_schema, returns_result = return_schema(hints, tool_name)
    return ToolSpec(
        name=tool_name,
        description=description if description is not None else _described(func, doc, tool_name),
        parameters=share_leaves(schema),
        returns=share_leaves(returns_schema),
        return_annotation=return_annotation,
        params=params,
        validate_python=vpy,
        validate_json=vjson,
        positional=positional,
        is_async=is_async_callable(func),
        returns_tool_result=returns_result,
        manual=_as_given(manual_params, returns),
        injected=injected,
    )


def _refuse_injected_kwargs(
    kwargs: Mapping[str, Any], injected: tuple[Injection, ...], tool_name: str
) -> None:
    for injection in injected:
        if injection.name in kwargs:
            raise ToolDefinitionError(
                "kwargs describes an injected parameter, which the model never sends: "
                "leave it out of kwargs",
                tool=tool_name,
                param=injection.name,
            )


def _refuse_injected_fields(
    model: type[Any], params: tuple[Param, ...], injected: tuple[Injection, ...], tool_name: str
) -> None:
    """An ``args_schema`` describes what the model sends: no field of it is injected."""
    fields = {p.name for p in params}
    for injection in injected:
        if injection.name in fields:
            raise ToolDefinitionError(
                "args_schema has a field for an injected parameter, which the model never "
                "sends: leave it out of the model",
                tool=tool_name,
                param=injection.name,
            )
    try:
        hints = typing.get_type_hints(model, include_extras=True)
    except Exception:  # unresolvable hints: pydantic has resolved what it validates
        hints = {}
    for field, hint in hints.items():
        if field in fields and marked_inside(hint):
            raise ToolDefinitionError(
                "a field of args_schema cannot be Injected (the model would see it): mark "
                "the function's parameter `Annotated[T, Injected]` and leave it out of "
                "the model",
                tool=tool_name,
                param=field,
            )


def _as_given(kwargs: Mapping[str, Any] | None, returns: Any) -> Mapping[str, Any] | None:
    """Agently's manual registration, kept as given for its view."""
    if kwargs is None:
        return None
    return {"kwargs": dict(kwargs), **({} if returns is EMPTY else {"returns": returns})}


def _model_validators(
    model: type[Any], docs: dict[str, str], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any], tuple[Param, ...]]:
    if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        return v2_model_validators(model, docs, tool_name)
    if is_v1_model(model):
        return v1_model_validators(model, docs, tool_name)
    raise ToolDefinitionError(
        f"args_schema must be a Pydantic v2 or v1 model class, not {model!r}", tool=tool_name
    )


def _described(func: Callable[..., Any], doc: ParsedDocstring, tool_name: str) -> str:
    """The tool's description: a callable object's class docstring, else the docstring
    read (the function's, or ``__call__``'s), else its name."""
    own = class_docstring(func)
    summary = parse_docstring(own).description if own is not None else ""
    return summary or doc.description or tool_name

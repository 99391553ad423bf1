"""Reading a function: its hints, its docstring and each parameter, once.

Steps 1-3 of the introspection pass (`tooldeck._schema.build_spec` runs them all):

1. normalise the callable and resolve its type hints once (``include_extras=True``);
2. parse the docstring once (`tooldeck._docstrings`);
3. analyse each parameter into a `Param` (type, default, description).

Agently's manual ``kwargs`` format (``{param: (type, "description")}``) is read here too:
it replaces the signature's parameters.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Optional, cast

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from typing_extensions import Doc

from ._injected import Injected, Injection, is_injected, marked_inside
from ._media import mentions_media
from ._progress import PROGRESS_KEY, is_progress, no_progress, reporter_of
from ._spec import EMPTY, Param
from ._typing import admits_none, split_annotated
from .errors import ToolDefinitionError

__all__ = [
    "Signature",
    "agently_params",
    "analyse_param",
    "check_doc_params",
    "class_docstring",
    "docstring",
    "refuse_generators",
    "signature_params",
    "type_hints",
    "unwrap_partial",
]


# -- step 1: the callable and its hints ------------------------------------------------


def unwrap_partial(func: Callable[..., Any]) -> Callable[..., Any]:
    """The function behind ``functools.partial`` layers (its name, hints and docstring)."""
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _signature_target(func: Callable[..., Any]) -> Callable[..., Any]:
    """What to read hints from: the function, or a callable object's ``__call__``."""
    func = unwrap_partial(func)
    if inspect.isfunction(func) or inspect.ismethod(func):
        return func
    call = getattr(type(func), "__call__", None)  # noqa: B004
    return call if call is not None else func


def docstring(func: Callable[..., Any]) -> str | None:
    """The docstring to read, from where the hints are read.

    A function's own (behind any ``functools.partial``); for a callable object, its
    ``__call__``'s, or else its class's. Inherited docstrings (``object``'s "Call self
    as a function.") say nothing about the tool and are not read, nor the ones Python
    writes (a dataclass's ``Name(field: type)``).
    """
    inner = unwrap_partial(func)
    if inspect.isroutine(inner):
        return inspect.getdoc(inner)
    call = _signature_target(inner)
    text = getattr(call, "__doc__", None) or class_docstring(inner)
    return inspect.cleandoc(text) if isinstance(text, str) else None


def class_docstring(func: Callable[..., Any]) -> str | None:
    """A callable object's class's own docstring: it describes the tool, as the OpenAI
    Agents SDK reads it (its parameters are still read from `docstring`, ``__call__``'s
    when it has one: a class docstring's Args may be the constructor's). ``None`` for a
    function, or a class without a docstring of its own."""
    inner = unwrap_partial(func)
    if inspect.isroutine(inner) or isinstance(inner, type):
        return None
    cls = type(inner)
    text = cls.__dict__.get("__doc__")
    if not isinstance(text, str) or not text.strip() or _generated_doc(cls, text):
        return None
    return inspect.cleandoc(text)


def _generated_doc(cls: type, text: str) -> bool:
    """A docstring Python wrote, not the class's author: a dataclass's or a named tuple's
    ``Name(field, ...)`` (then ``__call__``'s docstring describes the tool, as before)."""
    if not (dataclasses.is_dataclass(cls) or hasattr(cls, "_fields")):
        return False
    name = cls.__dict__.get("__name__", cls.__name__)
    return "\n" not in text and text.startswith(f"{name}(") and text.endswith(")")


def refuse_generators(func: Callable[..., Any], name: str) -> None:
    """A generator (sync or async) yields many values: a call would return the generator."""
    target = _signature_target(func)
    kind = (
        "an async generator" if inspect.isasyncgenfunction(target)
        else "a generator" if inspect.isgeneratorfunction(target)
        else None
    )  # fmt: skip
    if kind is not None:
        raise ToolDefinitionError(
            f"{kind} function cannot be a tool: a call would return the generator, not "
            "a value; collect what it yields and return a list",
            tool=name,
        )


def type_hints(func: Callable[..., Any], name: str) -> dict[str, Any]:
    target = _as_declared(_signature_target(func))
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        # String annotations naming a class local to the decorating function: resolve
        # them in the caller's namespace, as pydantic does.
        try:
            return typing.get_type_hints(target, localns=_caller_locals(), include_extras=True)
        except Exception as exc:
            raise _unresolved(exc, name) from exc
    except Exception as exc:
        raise _unresolved(exc, name) from exc


def _as_declared(target: Callable[..., Any]) -> Any:
    """What ``get_type_hints`` reads the annotations as declared from, on every Python.

    Python 3.10 wraps the hint of a parameter whose default is ``None`` in ``Optional``
    (``x: int = None`` reads ``Optional[int]``, ``Annotated[...] = None`` loses its
    metadata to the wrapper); 3.11 dropped that (bpo-46195). The defaults are read from
    ``__code__``, so a stand-in with only the annotations and the globals is read as 3.11
    reads the function itself.
    """
    if sys.version_info >= (3, 11) or not hasattr(target, "__code__"):
        return target
    return types.SimpleNamespace(
        __annotations__=dict(getattr(target, "__annotations__", None) or {}),
        __globals__=getattr(inspect.unwrap(target), "__globals__", {}),
    )


def _caller_locals() -> dict[str, Any]:
    """The locals of the innermost frame outside tooldeck (the decorating code)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("tooldeck."):
        frame = frame.f_back  # type: ignore[assignment]
    return dict(frame.f_locals) if frame is not None else {}


def _unresolved(exc: Exception, name: str) -> ToolDefinitionError:
    return ToolDefinitionError(
        f"cannot resolve the type annotations ({exc}); define the types they name "
        "at module level, or import them, before decorating",
        tool=name,
    )


# -- step 3: each parameter --------------------------------------------------------------


def _describe(meta: tuple[Any, ...], default: Any, doc_text: str | None) -> str | None:
    """First found wins: Annotated strs > Field(description) > Doc() > the docstring."""
    texts = [m for m in meta if isinstance(m, str)]
    if texts:
        return ";".join(texts)
    fields = [m for m in meta if isinstance(m, FieldInfo)]
    if isinstance(default, FieldInfo):
        fields.append(default)
    for info in fields:
        if info.description:
            return info.description
    for m in meta:
        if isinstance(m, Doc):
            return m.documentation
    return doc_text or None


def analyse_param(name: str, annotation: Any, default: Any, doc_text: str | None) -> Param:
    """Annotation, default and docstring entry of one parameter → a `Param`."""
    if annotation is EMPTY:
        annotation = Any
    base, meta = split_annotated(annotation)
    description = _describe(meta, default, doc_text)
    factory = None
    if isinstance(default, FieldInfo):
        # ``x: int = Field(5, ge=0)``: the constraints join the type, the default stays.
        annotation = typing.Annotated[annotation, default]
        meta = (*meta, default)
        default = EMPTY
    if default is EMPTY:
        # ``x: Annotated[int, Field(5, ge=0)]`` (or ``Field(default_factory=...)``) says the
        # same as above; a default in the signature wins over one in Annotated, as in
        # Pydantic. The last Field that sets one counts.
        default, factory = _field_default(meta)
    declared = None
    if default is None and not admits_none(base):
        # ``x: int = None`` is an implicit Optional: accept the null it defaults to.
        annotation = Optional[annotation]  # noqa: UP045 - runtime construction
        declared, base = base, Optional[base]  # noqa: UP045
    return Param(name, annotation, base, default, factory, description, declared)


def _refuse_unbound_method(
    func: Callable[..., Any], signature: inspect.Signature, tool_name: str
) -> None:
    """``@tool`` on a method in its class body would make ``self`` an argument to send."""
    first = next(iter(signature.parameters), None)
    inner = unwrap_partial(func)
    if first not in ("self", "cls") or not inspect.isfunction(inner) or func is not inner:
        return
    owner = inner.__qualname__.rpartition(".")[0]
    if owner and not owner.endswith("<locals>"):  # defined in a class body
        raise ToolDefinitionError(
            f"{first!r} is the first parameter of the method {inner.__qualname__}, which a "
            f"model cannot send: register the bound method instead "
            f"(registry.register(obj.{inner.__name__})) rather than decorating it in its class",
            tool=tool_name,
            param=first,
        )


def _field_default(meta: tuple[Any, ...]) -> tuple[Any, Callable[[], Any] | None]:
    """The default (or default factory) the ``Field``s in ``meta`` set, if any."""
    default: Any = EMPTY
    factory: Callable[[], Any] | None = None
    for info in meta:
        if not isinstance(info, FieldInfo):
            continue
        if info.default is not PydanticUndefined:
            default, factory = info.default, None
        elif info.default_factory is not None:
            default, factory = EMPTY, cast("Callable[[], Any]", info.default_factory)
    return default, factory


class Signature(NamedTuple):
    """What a function's signature says: its parameters, which of them are positional-only,
    and which are injected from the call's context."""

    params: tuple[Param, ...]
    positional: tuple[str, ...]
    injected: tuple[Injection, ...]


def signature_params(
    func: Callable[..., Any],
    hints: dict[str, Any],
    docs: dict[str, str],
    tool_name: str,
    *,
    allow_var_kwargs: bool,
) -> Signature:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"cannot read its signature ({exc})", tool=tool_name) from exc
    _refuse_unbound_method(func, signature, tool_name)
    params: list[Param] = []
    positional: list[str] = []
    injected: list[Injection] = []
    for p in signature.parameters.values():
        hint = hints.get(p.name, EMPTY)
        injection = _injection(p, hint, tool_name)
        if _variadic(p, tool_name, allow_var_kwargs):
            continue
        if p.kind is p.POSITIONAL_ONLY:
            positional.append(p.name)
        if injection is not None:
            injected.append(injection)
        else:
            _refuse_media(p.name, hint, tool_name)
            params.append(analyse_param(p.name, hint, p.default, docs.get(p.name)))
    return Signature(tuple(params), tuple(positional), tuple(injected))


def _refuse_media(name: str, hint: Any, tool_name: str) -> None:
    """Media is what a tool returns: a model sends JSON arguments, never bytes."""
    if mentions_media(hint):
        raise ToolDefinitionError(
            "Image, Audio and File are results, not arguments: a model sends JSON, not "
            "bytes; take a URL or a path (str) and make the media value inside the tool",
            tool=tool_name,
            param=name,
        )


def _variadic(p: inspect.Parameter, tool_name: str, allow_var_kwargs: bool) -> bool:
    """Whether ``p`` is ``**kwargs`` left to ``args_schema``; refuse what cannot be a tool's."""
    if p.kind is p.VAR_POSITIONAL:
        raise ToolDefinitionError(
            f"*{p.name} is not supported: a model sends named arguments; "
            "take a list parameter instead",
            tool=tool_name,
            param=p.name,
        )
    if p.kind is p.VAR_KEYWORD:
        if allow_var_kwargs:
            return True
        raise ToolDefinitionError(
            f"**{p.name} needs args_schema=... (a Pydantic model) to say which "
            "arguments the tool takes",
            tool=tool_name,
            param=p.name,
        )
    return False


def _injection(p: inspect.Parameter, hint: Any, tool_name: str) -> Injection | None:
    """``p`` as an `Injection` when it is marked ``Injected`` (its type stays opaque)."""
    base, meta = split_annotated(hint)
    markers = [m for m in meta if is_injected(m)]
    if is_progress(base) and not markers:
        # A reporter, from the context's callback (or one doing nothing): never the model's.
        return Injection(p.name, PROGRESS_KEY, p.default, no_progress, reporter_of)
    if not markers:
        if marked_inside(base):  # e.g. `Annotated[str, Injected] | None`: the model sees it
            raise ToolDefinitionError(
                "Injected marks a whole parameter, outermost: write "
                "`Annotated[str | None, Injected] = None`, not "
                "`Annotated[str, Injected] | None` (inside a union or a container the "
                "marker marks nothing, and the model could set the value)",
                tool=tool_name,
                param=p.name,
            )
        return None
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
        raise ToolDefinitionError(
            "an injected parameter takes one value from the context: it cannot be "
            f"{'*' if p.kind is p.VAR_POSITIONAL else '**'}{p.name}",
            tool=tool_name,
            param=p.name,
        )
    if any(isinstance(m, FieldInfo) for m in meta) or isinstance(p.default, FieldInfo):
        raise ToolDefinitionError(
            "an injected parameter is not validated, so a Field has nothing to say about "
            "it: drop the Field (a plain default still applies)",
            tool=tool_name,
            param=p.name,
        )
    marker = markers[-1]
    key = (marker.key if isinstance(marker, Injected) else None) or p.name
    return Injection(p.name, key, p.default)


def check_doc_params(docs: dict[str, str], known: set[str], tool_name: str) -> None:
    for documented in docs:
        if documented not in known:
            raise ToolDefinitionError(
                f"the docstring documents {documented!r}, which is not a parameter; "
                "fix the docstring or the signature",
                tool=tool_name,
                param=documented,
            )


_TYPE_NAMES: dict[str, Any] = {
    "str": str,
    "string": str,
    "int": int,
    "integer": int,
    "float": float,
    "number": float,
    "bool": bool,
    "boolean": bool,
    "list": list,
    "array": list,
    "dict": dict,
    "object": dict,
    "any": Any,
}


def agently_params(
    kwargs: Mapping[str, tuple[Any, str]], signature_params: tuple[Param, ...], tool_name: str
) -> tuple[Param, ...]:
    """Agently's ``kwargs`` format; defaults come from the function where it has them."""
    defaults = {p.name: p for p in signature_params}
    params = []
    for key, spec in kwargs.items():
        if isinstance(spec, tuple) and len(spec) == 2:
            kind, text = spec
        else:
            kind, text = spec, ""
        if isinstance(kind, str):
            kind = _TYPE_NAMES.get(kind.strip().lower(), Any)
        elif marked_inside(kind):
            raise ToolDefinitionError(
                "kwargs describes what the model sends: an Injected type has no place "
                "there (mark the function's parameter, and leave it out of kwargs)",
                tool=tool_name,
                param=key,
            )
        from_signature = defaults.get(key)
        default = from_signature.default if from_signature else EMPTY
        param = analyse_param(key, kind, default, None)
        params.append(
            Param(param.name, param.annotation, param.base, param.default, None, str(text) or None)
        )
    missing = [p.name for p in signature_params if p.required and p.name not in kwargs]
    if missing:
        raise ToolDefinitionError(
            f"kwargs does not describe the required parameter(s) {', '.join(missing)}",
            tool=tool_name,
            param=missing[0],
        )
    return tuple(params)

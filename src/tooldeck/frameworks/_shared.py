"""What the framework bridges share: importing a framework, a call's context, a
foreign tool's description, and a result's parts.

A bridge sees a tool as plain data and two runners (``run`` and ``arun``: arguments
and ``context=`` in, a `ToolResult` out): a registry hands its ``execute`` faces (so its
middleware runs), a `Tool` its own ``run`` faces. No framework is imported here.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from tooldeck._media import MEDIA_TYPES, Audio, File, Image, Media, is_media, media_parts
from tooldeck._result import ToolResult, clip, failure_text, outside_text

__all__ = [
    "ACall",
    "ARun",
    "Bridge",
    "Foreign",
    "GivenContext",
    "NeedsApproval",
    "NoContext",
    "Run",
    "check_context",
    "context_for",
    "declined",
    "from_parts",
    "hidden",
    "media_or",
    "no_context",
    "parts_of",
    "require",
    "unapproved",
    "unapproved_reason",
]

# What a bridge's ``context=`` takes: a mapping, or a callable of the framework's run
# context returning one.
GivenContext = Mapping[str, Any] | Callable[[Any], Any] | None
# A runner: ``run(arguments, context=...)`` → the call's `ToolResult` (``arguments`` a
# mapping or JSON text): a tool's ``run_sync`` / ``run``, or a registry's
# ``execute_sync`` / ``execute`` with the tool's name bound.
Run = Callable[..., ToolResult]
ARun = Callable[..., Awaitable[ToolResult]]
# Agently's face, ``acall(arguments, context=...)`` → the value, or ``"Error: ..."``: a
# tool's ``acall``, or a registry's ``async_call_tool`` with the tool's name bound. For
# a framework that hands its model the text either way (Pydantic AI), it skips building
# a `ToolResult` per call. (An MCP proxy's Agently face answers as seed 001 §7.2 says,
# not as the other faces: for one, ``acall`` answers its whole `ToolResult`.)
ACall = Callable[..., Awaitable[Any]]


# Whether one call needs a person's approval first: ``(arguments, context) -> bool``.
NeedsApproval = Callable[[Any, Any], bool]


@dataclass(frozen=True)
class Bridge:
    """One tool as a bridge sees it: its declaration, its runners, and whether a call
    needs approval (``None``: never), which the framework's own mechanism asks."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Run
    arun: ARun
    acall: ACall
    context: GivenContext = None
    needs_approval: NeedsApproval | None = None


# What a model reads when nobody can approve a call, or a person declined it (the words
# of tooldeck's own turns: `tooldeck.approval`).
def unapproved(name: str) -> str:
    return f"Error: {unapproved_reason(name)}"


def unapproved_reason(name: str) -> str:
    """`unapproved`'s words as a failure's message (``ToolResult.fail``)."""
    return f"Tool '{clip(name)}' needs approval"


def hidden(name: str) -> ToolResult:
    """A call of a tool its framework hides from this run (the registry's words for a
    disabled tool)."""
    return ToolResult.fail(f"Tool '{clip(name)}' is disabled")


def declined(name: str) -> str:
    return f"Error: The user declined to run tool '{clip(name)}'"


@dataclass(frozen=True)
class Foreign:
    """A framework's tool as a registry takes it: its declaration and how it runs
    (``arun(arguments, context, approved)`` → `ToolResult`, its framework validating
    the arguments, the call's context handed on as its framework's run context;
    ``approved()`` tells whether the call needed a person's approval, so ran only once
    given it), whether it takes that context at all (``False``: it is never given
    one), whether its framework has a person approve each call first (a tool that
    never ran unasked there does not here), and whether its framework offers it at
    all (``False``: registered disabled)."""

    name: str
    description: str
    parameters: dict[str, Any]
    arun: Callable[[dict[str, Any], Any, Callable[[], bool]], Awaitable[ToolResult]]
    takes_context: bool = True
    requires_approval: bool = False
    enabled: bool = True


def require(module: str, extra: str) -> ModuleType:
    """Import a framework's module, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{module} is not installed: this needs the {extra!r} extra "
            f'(pip install "tooldeck[{extra}]")'
        ) from exc


class NoContext(Exception):
    """A ``context=`` callable failed for one call: it raised, or answered no mapping."""


def check_context(given: Any) -> None:
    """``context=`` at conversion: a mapping, a callable, or ``None`` (else the
    developer's mistake, a `TypeError` now rather than a failure on every call)."""
    if given is not None and not (isinstance(given, Mapping) or callable(given)):
        raise TypeError(f"context must be a mapping or a callable, not {given!r}")


def no_context(name: str, exc: NoContext) -> str:
    """What the model reads when the call's context could not be had (the MCP server's
    words for its own context callable)."""
    return f"Error: Tool '{clip(name)}' has no context for this call: {exc}"


def context_for(given: GivenContext, run_context: Any, *fallbacks: Any) -> Any:
    """The context of one call: ``context=`` when given (a callable receives the
    framework's run context; `NoContext` when it raises or answers no mapping), else
    the first of ``fallbacks`` that is a mapping."""
    if given is not None:
        return _called(given, run_context) if callable(given) else given
    for candidate in fallbacks:  # (a dict, the usual context, without the ABC's check)
        if candidate is not None and (type(candidate) is dict or isinstance(candidate, Mapping)):
            return candidate
    return None


def _called(given: Callable[[Any], Any], run_context: Any) -> Any:
    try:
        values = given(run_context)
    except Exception as exc:  # the developer's callable: this call's failure, never a raise
        raise NoContext(outside_text(failure_text(exc))) from exc
    if values is not None and not isinstance(values, Mapping):
        if inspect.iscoroutine(values):
            values.close()  # (an async callable: not awaited, so never left pending)
        raise NoContext(f"the context callable returned {type(values).__name__}, not a mapping")
    return values


def parts_of(result: ToolResult) -> list[Any] | None:
    """A successful result's parts when it holds media (``str`` and media values, JSON
    values as their text), else ``None``: the model reads ``str(result)``."""
    kind = type(result.data)  # (most results hold no media: one type check)
    if kind is not list and kind is not tuple and kind not in MEDIA_TYPES:
        return None
    if not result.success:
        return None
    parts = media_parts(result.data)
    if parts is None:
        return None
    return [p if isinstance(p, str) or is_media(p) else str(ToolResult.ok(p)) for p in parts]


# -- the other way: a framework's media as tooldeck's --------------------------------------

_KINDS: dict[str, type[Media]] = {"image": Image, "audio": Audio, "file": File}


def media_or(
    original: Any,
    kind: str | None,
    *,
    data: bytes | None = None,
    url: str | None = None,
    mime: str | None = None,
    name: str | None = None,
) -> Any:
    """A framework's media value as tooldeck's (``kind``: ``"image"``, ``"audio"``,
    ``"file"``, or ``None`` to read it from ``mime``), so it reaches every provider and
    MCP client as media; ``original`` itself when it makes no valid one (a file id, bytes
    that are not what they say): it is then answered as its JSON text, as before."""
    made = _KINDS.get(kind or "") or _KINDS.get((mime or "").partition("/")[0], File)
    try:
        if made is File:
            return File(data, url=url, mime_type=mime, name=name)
        return made(data, url=url, mime_type=mime)
    except (ValueError, TypeError):
        return original


def from_parts(value: Any, one: Callable[[Any], Any]) -> Any:
    """``value`` with the framework's media in it as tooldeck's: ``one`` maps a single
    value (a media value of the framework's, or anything, as it is); a list or tuple is
    mapped part by part, and kept as it is when no part is media."""
    if type(value) is list or type(value) is tuple:
        parts = [one(part) for part in value]
        return parts if any(is_media(p) for p in parts) else value
    return one(value)

"""`Call`: one call on its way to a tool, as a middleware sees it.

A `Call` is made by every face of a registry that has middleware, once per call, so it
is built cheaply: slots set by a plain ``__init__``, its public fields read-only
properties over them (nothing can be assigned, nothing added), the read-only view of
the context made only when a middleware asks for it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, final

if TYPE_CHECKING:
    from tooldeck._tool import Tool

__all__ = ["BY_NAME", "REQUEST_META", "Call", "Extra", "Source", "new_call"]

Source = Literal["call", "tool_calls", "mcp"]
# The chain's own: (what was sent, the dict parsed from it) or None; the raw answers or None.
Extra = tuple[tuple[Any, dict[str, Any]] | None, list[tuple[Any, Any]] | None]

BY_NAME: tuple[None, None, Source] = (None, None, "call")  # a call by name's origin

# The ``_meta`` of the MCP request whose call the chain runs (``source == "mcp"``): set
# by the serving code around the chain, only when the registry has one. Middleware
# reads what the client sent beside the arguments there (a W3C ``traceparent``).
REQUEST_META: ContextVar[Mapping[str, Any] | None] = ContextVar(
    "tooldeck_request_meta", default=None
)

_NO_CONTEXT: Mapping[str, Any] = MappingProxyType({})
_REPLACEABLE = ("arguments", "context")


def _frozen(name: str | None) -> None:
    how = f"call.replace({name}=...)" if name else "call.replace(arguments=..., context=...)"
    raise AttributeError(f"a Call is frozen: {how} makes a changed copy")


def _field(slot: str, doc: str, read: Callable[[Any], Any] | None = None) -> Any:
    """A read-only public field over a slot (assigning it raises AttributeError)."""

    def setter(self: Call, value: Any) -> None:
        _frozen(slot[1:] if slot in ("_arguments", "_context") else None)

    return property(read or operator.attrgetter(slot), setter, doc=doc)


def _origin(index: int) -> Callable[[Any], Any]:
    return lambda call: call._origin[index]


@final
class Call:
    """One call of a tool, as middleware sees it: frozen; `replace` makes a changed copy.

    Made by the registry for each call (``Call(tool, arguments, context)`` makes one
    for testing a middleware).

    Attributes:
        tool: The `tooldeck.Tool` called.
        name: Its name (the name the call used).
        arguments: What the caller or the model sent, parsed from JSON into a ``dict``;
            not yet validated (validation runs after the last middleware).
        context: The call's context (`tooldeck.Injected` values, a user id...),
            read-only; empty when the call has none.
        call_id: The provider's id of the call inside ``run_tool_calls`` (for OpenAI
            Responses, the ``call_id`` its answer carries), else ``None``.
        format: The provider format inside ``run_tool_calls`` (``"openai"``,
            ``"openai-responses"``, ``"anthropic"``, ``"gemini"``), else ``None``.
        source: ``"call"`` (a call by name: ``call_tool``, ``execute``...),
            ``"tool_calls"`` (``run_tool_calls``) or ``"mcp"`` (a client of the
            registry's MCP server).
    """

    __slots__ = ("_arguments", "_context", "_extra", "_origin", "_tool")

    def __init__(
        self,
        tool: Tool[..., Any],
        arguments: dict[str, Any],
        context: Mapping[str, Any] | None = None,
        _origin: tuple[str | None, str | None, Source] = BY_NAME,
        _extra: Extra | None = None,
        /,
    ) -> None:
        # Positional and few: one is made per call (see the module docstring).
        self._tool = tool
        self._arguments = arguments
        self._context = context
        self._origin = _origin  # (call_id, format, source)
        # For the chain (tooldeck.middleware._chain), None for most calls: what the
        # caller sent when it was not the arguments' dict (JSON text), with the dict
        # parsed from it — validated as sent while the arguments are that dict, so a
        # call passed through middleware is validated exactly as one without (JSON
        # mode, not Python mode) —, and where a tool with answers of its own (an MCP
        # proxy) leaves each (result, raw answer).
        self._extra = _extra

    tool = _field("_tool", "The `tooldeck.Tool` called.")
    arguments = _field("_arguments", "The arguments sent, parsed into a dict; not yet validated.")

    name = _field("_tool", "The tool's name.", operator.attrgetter("_tool.name"))
    call_id = _field(
        "_origin", "The provider's id of the call (run_tool_calls), else None.", _origin(0)
    )
    format = _field("_origin", "The provider format (run_tool_calls), else None.", _origin(1))
    source = _field("_origin", 'Where it came from: "call", "tool_calls" or "mcp".', _origin(2))

    @property
    def context(self) -> Mapping[str, Any]:
        """The call's context, read-only (empty when the call has none)."""
        context = self._context
        return _NO_CONTEXT if context is None else MappingProxyType(context)

    @context.setter
    def context(self, value: Any) -> None:
        _frozen("context")

    def replace(self, **changes: Any) -> Call:
        """A copy with other ``arguments`` (a mapping) or another ``context``.

        Raises:
            TypeError: another field, or arguments that are not a mapping.
        """
        unknown = [name for name in changes if name not in _REPLACEABLE]
        if unknown:
            raise TypeError(
                f"Call.replace() takes arguments= and context=, not {', '.join(unknown)}"
            )
        arguments = changes.get("arguments", self._arguments)
        if not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be a mapping, not {type(arguments).__name__}")
        if type(arguments) is not dict:
            arguments = dict(arguments)
        context = changes.get("context", self._context)
        if context is not None and not isinstance(context, Mapping):
            raise TypeError(f"context must be a mapping or None, not {type(context).__name__}")
        return Call(self._tool, arguments, context, self._origin, self._extra)

    def __repr__(self) -> str:
        call_id, format, source = self._origin
        return (
            f"Call(name={self.name!r}, arguments={self._arguments!r}, "
            f"call_id={call_id!r}, format={format!r}, source={source!r})"
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not Call:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # (arguments are a dict)

    def _fields(self) -> tuple[Any, ...]:
        return (self._tool, self._arguments, self._context, self._origin)


_new = object.__new__


def new_call(
    tool: Tool[..., Any],
    arguments: dict[str, Any],
    context: Mapping[str, Any] | None,
    origin: tuple[str | None, str | None, Source] = BY_NAME,
    extra: Extra | None = None,
) -> Call:
    """`Call` for the chain's hot path: its slots stored directly (no ``type.__call__``,
    no ``__init__`` frame; a fifth cheaper)."""
    call: Call = _new(Call)
    call._tool = tool
    call._arguments = arguments
    call._context = context
    call._origin = origin
    call._extra = extra
    return call

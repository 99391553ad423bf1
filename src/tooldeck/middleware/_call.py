"""`Call`: one call on its way to a tool, as a middleware sees it.

A `Call` is made by every face of a registry that has middleware, once per call, so it
is built cheaply: slots set by a plain ``__init__``, its public fields read-only
properties over them (nothing can be assigned, nothing added), the read-only view of
the context made only when a middleware asks for it.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, final

if TYPE_CHECKING:
    from tooldeck._tool import Tool

__all__ = ["Call", "Source"]

Source = Literal["call", "tool_calls", "mcp"]

_NO_CONTEXT: Mapping[str, Any] = MappingProxyType({})
_REPLACEABLE = ("arguments", "context")


def _frozen(name: str) -> None:
    raise AttributeError(f"a Call is frozen: call.replace({name}=...) makes a changed copy")


def _field(slot: str, doc: str) -> Any:
    """A read-only public field over a slot (assigning it raises AttributeError)."""
    public = slot[1:]

    def setter(self: Call, value: Any) -> None:
        _frozen(public)

    return property(operator.attrgetter(slot), setter, doc=doc)


@final
class Call:
    """One call of a tool, as middleware sees it: frozen; `replace` makes a changed copy.

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

    __slots__ = (
        "_answers",
        "_arguments",
        "_call_id",
        "_context",
        "_format",
        "_name",
        "_sent",
        "_source",
        "_tool",
    )

    def __init__(
        self,
        tool: Tool[..., Any],
        arguments: dict[str, Any],
        context: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        format: str | None = None,
        source: Source = "call",
        name: str | None = None,
        _sent: Any = None,
        _answers: list[Any] | None = None,
    ) -> None:
        self._tool = tool
        self._name = tool.name if name is None else name
        self._arguments = arguments
        self._context = context
        self._call_id = call_id
        self._format = format
        self._source = source
        # What the caller sent when it was not that dict (JSON text): validated as sent
        # while the arguments are the ones parsed from it, so a call passed through
        # middleware is validated exactly as one without (JSON mode, not Python mode).
        self._sent = _sent
        # Where a tool with results of its own (an MCP proxy) leaves each raw result
        # (see tooldeck.middleware._chain); None for every other tool.
        self._answers = _answers

    tool = _field("_tool", "The `tooldeck.Tool` called.")
    name = _field("_name", "The tool's name.")
    arguments = _field("_arguments", "The arguments sent, parsed into a dict; not yet validated.")
    call_id = _field("_call_id", "The provider's id of the call (run_tool_calls), else None.")
    format = _field("_format", "The provider format (run_tool_calls), else None.")
    source = _field("_source", 'Where the call came from: "call", "tool_calls" or "mcp".')

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
        return Call(
            self._tool,
            arguments,
            context,
            call_id=self._call_id,
            format=self._format,
            source=self._source,
            name=self._name,
            _sent=self._sent,
            _answers=self._answers,
        )

    def __repr__(self) -> str:
        return (
            f"Call(name={self._name!r}, arguments={self._arguments!r}, "
            f"call_id={self._call_id!r}, format={self._format!r}, source={self._source!r})"
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not Call:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # (arguments are a dict)

    def _fields(self) -> tuple[Any, ...]:
        return (
            self._tool,
            self._name,
            self._arguments,
            self._context,
            self._call_id,
            self._format,
            self._source,
        )

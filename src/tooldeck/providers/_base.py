"""What a provider module gives: `Provider`, and the tool data its export is made from.

A provider is the four things tooldeck knows of one model API, side by side: how a tool
is declared to it (``export``), how its replies ask for calls (``read``, and the
recognisers that tell its shape from another's), and how the results go back
(``write``). Each is a plain function over plain data; none sees the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck._reply_fields import Fields, ToolCall
from tooldeck._result import ToolResult
from tooldeck._schema_walk import Schema, copy_schema
from tooldeck._strict import to_strict_schema

__all__ = ["Answer", "ExportSpec", "Provider", "never"]

Answer = list[dict[str, Any]]  # the messages (or items) to append to the conversation


@dataclass(frozen=True)
class ExportSpec:
    """The plain data of one tool that an export is computed from."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    returns: Mapping[str, Any] | None
    tags: Sequence[str]
    strict: bool
    annotations: Mapping[str, Any] | None = None

    def input_schema(self) -> Schema:
        if self.strict:
            return to_strict_schema(self.parameters, tool=self.name)
        return copy_schema(self.parameters)


def never(*_: Any) -> bool:
    """A recogniser that claims nothing."""
    return False


@dataclass(frozen=True, slots=True)
class Provider:
    """One provider's export shape, reply reading and answer writing.

    A reply whose class an SDK module of ``sdk_modules`` defines is this provider's,
    whatever its shape. Otherwise the recognisers are asked.

    They are asked by `tooldeck._tool_calls`, provider by provider in the
    order of `tooldeck.providers.RECOGNISING`, when a reply's format is not given:

    * ``claims_item(item, fields)``: ``item`` (with its `fields_of`) is one of this
      provider's tool calls;
    * ``claims_reply(fields)``: a whole reply, or a message, of this provider's;
    * ``knows_item(item, fields)``: an item of this provider's replies that may be no
      call (a text block, a part): kept out of the "not a reply" refusal;
    * ``claims_plain(fields)``: a weak sign (a message without calls), asked only
      once no provider's ``claims_reply`` matched.
    """

    name: str
    shape: str  # what its reply is, for the TypeError refusing what is none
    sdk_modules: tuple[str, ...]  # where its SDK's reply classes live (module prefixes)
    export: Callable[[ExportSpec], Schema]
    read: Callable[[Any], list[ToolCall]]
    # (calls, their results, native): ``native`` False gives text only (placeholders)
    write: Callable[[Sequence[ToolCall], Sequence[ToolResult], bool], Answer]
    claims_item: Callable[[Any, Fields], bool]
    claims_reply: Callable[[Fields], bool]
    knows_item: Callable[[Any, Fields], bool]
    claims_plain: Callable[[Fields], bool] = never

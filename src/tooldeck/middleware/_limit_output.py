"""`LimitOutput`: the text a model reads of a result is at most ``max_chars`` long.

The text is ``str(result)``: the value (a ``str`` as is, anything else as JSON; media as
its placeholder) or ``Error: <message>``. A result over the limit is replaced by one
whose text is its first characters and a notice that it was cut, ``max_chars`` in all,
so every face answers the cut result: ``call_tool`` returns the cut text, a model's
message holds it, an MCP client receives it. A result holding media (a list of parts)
keeps its parts in order while they fit, media by its placeholder's length; the part
that does not fit is cut (text) or left out (media), and the notice is the last part.

One exception: served over MCP, a tool whose output schema refuses the cut text (it
declares a list, an object...) cannot be sent it, the MCP specification requiring
structured content that matches; the call fails there, saying so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tooldeck._media import MEDIA_TYPES, media_parts
from tooldeck._result import ToolResult, part_text, to_text, type_name

from ._call import Call
from ._select import Builtin

__all__ = ["LimitOutput"]

MIN_CHARS = 64  # room for the notice and something of the text


def _notice(total: int) -> str:
    return f"\n[… cut: {total:,} characters in all]"


class LimitOutput(Builtin):
    """Cuts what a model reads of a result to at most ``max_chars`` characters.

    The cut text ends with a notice saying so (counted in ``max_chars``); a failure's
    message is cut alike (``Error: `` included).

    Args:
        max_chars: The most characters a model reads of one result (at least 64).
        tools: The names of the tools it applies to.
        tags: It applies to the tools with any of these tags (with ``tools``: either).

    Raises:
        TypeError, ValueError: ``max_chars`` is not an int of at least 64.
    """

    __slots__ = ("max_chars",)

    def __init__(
        self,
        max_chars: int,
        *,
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> None:
        if isinstance(max_chars, bool) or not isinstance(max_chars, int):
            raise TypeError(f"LimitOutput(max_chars) must be an int, not {type_name(max_chars)}")
        if max_chars < MIN_CHARS:
            raise ValueError(
                f"LimitOutput(max_chars) must be at least {MIN_CHARS} (room for the notice "
                f"that the text was cut), not {max_chars}"
            )
        super().__init__(tools, tags)
        self.max_chars = max_chars

    def _settings(self) -> list[str]:
        return [str(self.max_chars)]

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        if not self._selection.chooses(call):
            return call_next(call)
        result = call_next(call)
        return self._served(call, result, self.limit(result))

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self._selection.chooses(call):
            return await call_next(call)
        result = await call_next(call)
        return self._served(call, result, self.limit(result))

    def _served(self, call: Call, result: ToolResult, cut: ToolResult) -> ToolResult:
        """``cut``, unless an MCP client would be sent a value its output schema refuses.

        Served over MCP, a successful result must match the tool's output schema: a tool
        declaring a list or an object cannot be answered with a cut text there. It fails
        instead, saying why, in ``max_chars`` at most.
        """
        if cut is result or not cut.success or call._origin[2] != "mcp":
            return cut
        returns = call._tool.returns
        if returns is None or not _refuses(returns, cut.data):
            return cut
        total = len(str(result))
        return self.limit(
            ToolResult.fail(
                f"An answer of {total:,} characters, over {self.max_chars:,}: "
                "its output schema admits no cut text"
            )
        )

    def limit(self, result: ToolResult) -> ToolResult:
        """``result`` itself when its text fits, else the cut result."""
        limit = self.max_chars
        if not result.success:
            error = result.error or ""
            if len(error) + 7 <= limit:  # "Error: " and the message
                return result
            text = "Error: " + error
            return ToolResult.fail(_cut(text, limit)[7:], exception=result.exception)
        data = result.data
        if type(data) is str and len(data) <= limit:  # the usual answer: nothing to read
            return result
        parts = media_parts(data)
        if parts is not None:
            return self._limit_parts(result, parts)
        text = to_text(data)
        if len(text) <= limit:
            return result
        return ToolResult.ok(_cut(text, limit))

    def _limit_parts(self, result: ToolResult, parts: list[Any]) -> ToolResult:
        texts = [part_text(part) for part in parts]
        total = len("\n".join(texts))
        if total <= self.max_chars:
            return result
        notice = _notice(total)
        room = self.max_chars - len(notice)  # for the parts and their "\n" between
        kept: list[Any] = []
        used = 0
        for part, text in zip(parts, texts, strict=True):
            need = len(text) + (1 if kept else 0)
            if used + need <= room:
                kept.append(part)
                used += need
                continue
            if type(part) not in MEDIA_TYPES and room - used - (1 if kept else 0) > 0:
                kept.append(text[: room - used - (1 if kept else 0)])
            break
        if not any(type(part) in MEDIA_TYPES for part in kept):
            joined = "\n".join(part_text(part) for part in kept)
            return ToolResult.ok(joined + notice if joined else notice[1:])
        return ToolResult.ok([*kept, notice[1:]])  # the notice a part of its own


def _refuses(schema: dict[str, Any], value: Any) -> bool:
    from tooldeck._schema_check import schema_validator

    try:
        return bool(schema_validator(schema)(value))
    except Exception:  # a schema jsonschema cannot use: the server's own check says
        return False


def _cut(text: str, limit: int) -> str:
    notice = _notice(len(text))
    return text[: limit - len(notice)] + notice

"""``ToolResult`` and the text a model reads when a call fails.

Failure text is written for a model to read and correct itself: one line per
problem, naming the argument, what was expected and (a short prefix of) what was
given. Never a traceback, never a file path; the exception itself is kept on the
failed ``ToolResult`` for the developer's logs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import ValidationError

__all__ = [
    "CallFailure",
    "ToolResult",
    "clip",
    "failure_text",
    "format_validation_error",
    "to_text",
]

_MAX_SHOWN = 60  # characters of a model-supplied value echoed back in an error


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of a tool call: a value on success, an error message on failure.

    ``str(result)`` is what a model should read: the data (a ``str`` as is, anything
    else as JSON) or ``"Error: <error>"``.

    Attributes:
        success: Whether the call succeeded.
        data: The value on success.
        error: The message on failure.
        exception: The exception behind a failure, for logging (never shown to a model,
            not part of ``to_dict()`` or equality).
    """

    success: bool
    data: Any = None
    error: str | None = None
    exception: BaseException | None = field(default=None, repr=False, compare=False, kw_only=True)

    @classmethod
    def ok(cls, data: Any = None) -> ToolResult:
        """A successful result carrying ``data``."""
        return cls(True, data)

    @classmethod
    def fail(cls, error: str, *, exception: BaseException | None = None) -> ToolResult:
        """A failed result carrying the message ``error``."""
        return cls(False, None, str(error), exception=exception)

    def to_dict(self) -> dict[str, Any]:
        """``{"success", "data", "error"}`` — exactly those keys."""
        return {"success": self.success, "data": self.data, "error": self.error}

    def __str__(self) -> str:
        if not self.success:
            return f"Error: {self.error}"
        return to_text(self.data)


class CallFailure(Exception):
    """A call failed before or around the tool's own code; the message is for a model.

    Internal: it never escapes a call face.
    """


def failure_text(exc: BaseException) -> str:
    """The message a model reads for an exception: its ``str()``, or its class name."""
    text = _safe_str(exc)
    return text if text else type(exc).__name__


def to_text(value: Any) -> str:
    """Render a tool's value for a model: ``str`` as is, anything else as JSON.

    Values JSON cannot hold (sets, dataclasses, custom objects) fall back to their
    ``str()`` so the model always gets something readable.
    """
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return _safe_str(value)


def clip(value: Any, limit: int = _MAX_SHOWN) -> str:
    """A short, single-line, printable rendering of a value for an error message."""
    text = value if isinstance(value, str) else _safe_str(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_validation_error(exc: ValidationError, tool_name: str) -> str:
    """One line per problem: ``<argument>: <what was expected> (got <value>)``."""
    lines = [f"Invalid arguments for tool '{clip(tool_name)}':"]
    for error in exc.errors(include_url=False, include_context=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        kind = error["type"]
        if kind == "extra_forbidden":
            lines.append(f"{clip(where)}: unexpected argument")
        elif kind == "missing":
            lines.append(f"{clip(where)}: missing required argument")
        else:
            got = error.get("input")
            lines.append(f"{clip(where)}: {error['msg']} (got {clip(_show(got))})")
    return "\n".join(lines)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    return to_text(value)


def _safe_str(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # a hostile __str__ must not break error reporting
        return f"<{type(value).__name__} object>"

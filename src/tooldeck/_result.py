"""``ToolResult`` and the text a model reads when a call fails.

Failure text is written for a model to read and correct itself: one line per
problem, naming the argument, what was expected and (a short prefix of) what was
given. Never a traceback, never a file path; the exception itself is kept on the
failed ``ToolResult`` for the developer's logs.
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, final

from pydantic_core import PydanticCustomError, ValidationError, to_jsonable_python

from ._media import MEDIA_TYPES, mcp_form, media_parts

__all__ = [
    "MAX_ERROR",
    "MORE_PROBLEMS",
    "CallFailure",
    "ToolResult",
    "as_result",
    "clip",
    "echo",
    "failure_text",
    "format_validation_error",
    "light_validation_error",
    "ok",
    "outside_text",
    "part_text",
    "problem_lines",
    "to_text",
    "type_name",
    "validation_failure",
    "without_locals",
]

# Characters of a model-supplied value echoed back in an error: enough for the model
# to see which value is meant (and for any valid tool name, up to 64, to show whole),
# never enough to echo a document back at it.
_MAX_SHOWN = 64
_MAX_MESSAGE = 300  # characters of one problem's description (a validator's message)
_MAX_PROBLEMS = 20  # problems listed for one call; the rest are counted
MAX_ERROR = 2000  # characters of a tool's own error message that a model reads
MORE_PROBLEMS = "... and more problems"  # the rest, when they were not even counted


@final
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

    def __post_init__(self) -> None:
        # Every face reads ``success`` as a bool; anything else (a proxy whose __bool__
        # raises, "no") would raise out of a face or pass a failure as a success.
        if type(self.success) is not bool:
            raise TypeError(
                f"ToolResult.success must be a bool, got {type_name(self.success)}: "
                "use ToolResult.ok(...) or ToolResult.fail(...)"
            )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every face knows a tool's result by its exact class (one identity check per
        # call); a subclass would pass as a plain value, a failure as a success.
        raise TypeError(
            "ToolResult cannot be subclassed: return ToolResult.ok(...) / .fail(...) and "
            "carry anything more in its data"
        )

    @classmethod
    def ok(cls, data: Any = None) -> ToolResult:
        """A successful result carrying ``data``."""
        return ok(data)

    @classmethod
    def fail(cls, error: str, *, exception: BaseException | None = None) -> ToolResult:
        """A failed result carrying the message ``error``."""
        return cls(False, None, str(error), exception=exception)

    def to_dict(self) -> dict[str, Any]:
        """``{"success", "data", "error"}`` — exactly those keys.

        Media in ``data`` (at any depth of lists, tuples and dicts) is its MCP content
        dict (``Image.to_mcp()``), so a media result's dict is JSON.
        """
        return {"success": self.success, "data": mcp_form(self.data), "error": self.error}

    def __str__(self) -> str:
        if self.success is not True:
            return "Error: " + _safe_str(self.error)
        return to_text(self.data)


# A frozen dataclass's __init__ sets each field through object.__setattr__ (~0.4 us for
# four); every call face makes one result, so `ok` fills the slots of an unfrozen twin
# (plain attribute stores, which the interpreter specialises; a descriptor's __set__
# costs a call each) and then gives it ToolResult's class, whose layout is the same:
# the same object, immutable from then on (its __setattr__ refuses), about four times
# faster than __init__.
_new = object.__new__


class _Unfrozen:
    __slots__ = ToolResult.__slots__


def ok(data: Any) -> ToolResult:
    """``ToolResult.ok(data)``, for tooldeck's own hot paths."""
    result: Any = _new(_Unfrozen)
    result.success = True
    result.data = data
    result.error = None
    result.exception = None
    result.__class__ = ToolResult
    return result  # type: ignore[no-any-return]


def as_result(value: Any) -> ToolResult:
    """A tool's value whose ``__class__`` says ``ToolResult``: itself, or — a proxy of
    one — the `ToolResult` it stands for (what it says must make one, or it raises)."""
    if type(value) is ToolResult:
        return value
    return ToolResult(value.success, value.data, value.error)


class CallFailure(Exception):
    """A call failed before or around the tool's own code; the message is for a model.

    Internal: it never escapes a call face.
    """


def failure_text(exc: BaseException) -> str:
    """The message a model reads for an exception: its ``str()``, or its class name.

    The class name also stands in when ``str()`` fails or returns a non-``str``. A
    ``str`` subclass is read as plain text, so none of its methods runs again.
    """
    try:
        text = str(exc)
    except Exception:  # a hostile __str__ must not break error reporting
        text = ""
    if not isinstance(text, str):
        text = ""
    elif type(text) is not str:
        text = str.__getitem__(text, slice(None))  # its characters, as an exact str
    return text if text else type_name(exc)


def outside_text(text: str, limit: int = MAX_ERROR) -> str:
    """Text a tool produced (an exception's message) as a model may read it.

    At most ``limit`` characters, the rest counted; printable: line breaks kept,
    every other control character and terminal escape shown escaped (``\\x1b``), as
    are lone surrogates.
    """
    head = text[:limit]
    shown = head.encode("utf-8", "backslashreplace").decode("utf-8")
    if not shown.isprintable():
        shown = "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in shown)
    if len(text) > limit:
        shown += f"… ({len(text) - limit:,} more characters)"
    return shown


# ``json.dumps(value, ensure_ascii=False)`` builds a new encoder on every call (its
# cached one is for the default options): one encoder, the same text, 35-50% faster.
_to_json = json.JSONEncoder(ensure_ascii=False).encode


def to_text(value: Any) -> str:
    """Render a tool's value for a model: ``str`` as is, anything else as JSON.

    Pydantic models, dataclasses, sets, dates and the like (also nested) become their
    JSON form; what has none (a custom object, bytes that are not UTF-8, a circular
    list, an int too long to print) falls back to its ``str()``, so the model always
    gets something readable.
    """
    kind = type(value)  # never isinstance: it reads ``__class__``, which a proxy may break
    if kind is str:
        return value  # type: ignore[no-any-return]
    if issubclass(kind, str):
        return str.__getitem__(value, slice(None))  # a subclass: its characters
    try:
        # An int's JSON is its repr (which raises, like the encoder, past 4300 digits).
        return int.__repr__(value) if kind is int else _to_json(value)
    except Exception:  # not plain JSON data: media, or try Pydantic's view of it
        pass
    # Media is never plain JSON, so values without it pay nothing for it: a media value
    # or a list of parts is its parts, one per line; media deeper inside is its
    # placeholder inside the JSON.
    parts = media_parts(value)
    if parts is None:
        return _jsonable_text(value)
    return "\n".join(part_text(part) for part in parts)


def part_text(part: Any) -> str:
    """One part of a result: media as its placeholder, text as is, the rest as JSON."""
    kind = type(part)
    if kind in MEDIA_TYPES:
        return part.placeholder  # type: ignore[no-any-return]
    if issubclass(kind, str):
        return to_text(part)
    try:
        return int.__repr__(part) if kind is int else _to_json(part)
    except Exception:
        return _jsonable_text(part)


def _jsonable_text(value: Any) -> str:
    # One pass, media as placeholders: a second pass after pydantic refused the media
    # would read a generator (any one-shot iterator, at any depth) already consumed.
    try:
        return _to_json(to_jsonable_python(value, fallback=_placeholder))
    except Exception:  # unserialisable, circular, too deep, an int too long to print
        return _safe_str(value)


def _placeholder(value: Any) -> str:
    """A media value's placeholder inside JSON; anything else stays unserialisable."""
    if type(value) in MEDIA_TYPES:
        return value.placeholder  # type: ignore[no-any-return]
    raise TypeError(f"{type_name(value)} is not JSON serializable")


def clip(value: Any, limit: int = _MAX_SHOWN) -> str:
    """A short, single-line, printable rendering of a value for an error message."""
    # A str subclass as its characters (none of its methods runs), or any value.
    text = value if type(value) is str else _safe_str(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_validation_error(exc: ValidationError, tool_name: str) -> str:
    """One line per problem: ``<argument>: <what was expected> (got <value>)``.

    Values are echoed as a short prefix (`clip`), and at most
    ``_MAX_PROBLEMS`` problems are listed: the text stays small whatever was sent.
    """
    return _validation_text(*_errors_of(exc), tool_name)


def validation_failure(exc: ValidationError, tool_name: str) -> tuple[str, ValidationError]:
    """`format_validation_error`'s text, and the error a failed result keeps for logs.

    The error kept is light: the problems listed, without the values refused (a
    ``ValidationError`` holds every value it refused, and a line error per problem:
    kept whole, a turn of bad calls with big arguments pinned many times the reply).
    It keeps the original's traceback, its frames' locals cleared.
    """
    errors, count = _errors_of(exc)
    if count <= _MAX_PROBLEMS and all(_is_small(error.get("input")) for error in errors):
        return _validation_text(errors, count, tool_name), exc  # light already: the usual case
    return _validation_text(errors, count, tool_name), light_validation_error(exc, errors)


# Past this many problems, only the first ones shown are read out of an error.
_MANY_PROBLEMS = 200


def _errors_of(exc: ValidationError) -> tuple[list[Any], int]:
    """``exc``'s problems (at least the first `_MAX_PROBLEMS`), and how many it holds.

    ``errors()`` makes a dict per problem: for a call with 50,000 bad items, ~7 times
    the error itself (~34 MB), all to show twenty. Past `_MANY_PROBLEMS` the first ones
    are read from its JSON text instead, a fifth of that; should that fail (an input
    with no JSON form), from ``errors()``. (A value refused shows as its JSON there:
    the same text for arguments from JSON; ``b"q"`` from Python shows as ``'q'``.)
    """
    count = exc.error_count()
    if count > _MANY_PROBLEMS:
        try:
            text = exc.json(include_url=False)
            errors, at = [], 1  # past the "["
            for _ in range(min(count, _MAX_PROBLEMS)):
                error, at = _read_json(text, at)
                errors.append(error)
                at += 1  # past the ","
            return errors, count
        except Exception:  # the usual reading follows
            pass
    errors = exc.errors(include_url=False)
    return errors, len(errors)


_read_json = json.JSONDecoder().raw_decode


def _is_small(value: Any) -> bool:
    """A value an error may keep: ``None``, a bool, a float, a short str or int."""
    kind = type(value)
    if kind is str:
        return len(value) <= _MAX_MESSAGE
    if kind is int:
        return -_SMALL_INT < value < _SMALL_INT  # type: ignore[no-any-return]
    return value is None or kind is bool or kind is float


_SMALL_INT = 2**64


def light_validation_error(
    exc: ValidationError, errors: list[Any] | None = None
) -> ValidationError:
    """``exc`` without its input values: its first problems, their places and messages."""
    if errors is None:
        errors = _errors_of(exc)[0]
    details: list[Any] = [
        {
            "type": PydanticCustomError(clip(error["type"]), clip(error["msg"], _MAX_MESSAGE)),
            "loc": tuple(part if type(part) is int else clip(part) for part in error["loc"]),
            "input": None,
        }
        for error in errors[:_MAX_PROBLEMS]
    ]
    light = ValidationError.from_exception_data(clip(exc.title), details)
    return light.with_traceback(without_locals(exc.__traceback__))


def without_locals(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` with the locals of its finished frames cleared (the lines stay)."""
    if tb is not None:
        traceback.clear_frames(tb)  # an executing frame (the caller's) is left as is
    return tb


def _validation_text(errors: list[Any], count: int, tool_name: str) -> str:
    lines = [f"Invalid arguments for tool '{clip(tool_name)}':"]
    lines += [_problem(error) for error in errors[:_MAX_PROBLEMS]]
    return "\n".join(lines + _more(count))


def problem_lines(header: str, problems: list[str]) -> str:
    """``header`` and one line per problem (each clipped), at most ``_MAX_PROBLEMS``.

    A list ending in :data:`MORE_PROBLEMS` was cut short by its producer: the rest is
    not counted, only announced.
    """
    uncounted = bool(problems) and problems[-1] == MORE_PROBLEMS
    if uncounted:
        problems = problems[:-1]
    lines = [header, *(clip(line, _MAX_MESSAGE) for line in problems[:_MAX_PROBLEMS])]
    if uncounted:
        return "\n".join([*lines, MORE_PROBLEMS])
    return "\n".join(lines + _more(len(problems)))


def _more(count: int) -> list[str]:
    hidden = count - _MAX_PROBLEMS
    return [f"... and {hidden} more problem{'s' if hidden > 1 else ''}"] if hidden > 0 else []


def _problem(error: Any) -> str:
    loc = error["loc"]
    where = (".".join(str(part) for part in loc) or '""') if loc else "arguments"
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"{clip(where)}: unexpected argument"
    if kind == "missing":
        return f"{clip(where)}: missing required argument"
    got = echo(error.get("input"))
    if not loc and kind in _NOT_AN_OBJECT:
        return f"arguments: expected a JSON object, got {got}"
    return f"{clip(where)}: {_message(error)} (got {got})"


def _message(error: Any) -> str:
    """Pydantic's message, with any input it quotes (a union's tag) cut to a prefix."""
    message: str = error["msg"]
    for value in error.get("ctx", {}).values():
        if isinstance(value, str) and len(value) > _MAX_SHOWN and value in message:
            message = message.replace(value, clip(value))
    return clip(message, _MAX_MESSAGE)


# The arguments as a whole were not an object (a list, a number, ``null``, a string).
_NOT_AN_OBJECT = frozenset({"dict_type", "model_type", "model_attributes_type"})


def echo(value: Any) -> str:
    """A model-supplied value as an error message shows it: a short prefix of its text."""
    return clip(str.__repr__(value) if issubclass(type(value), str) else to_text(value))


def _safe_str(value: Any) -> str:
    """``str(value)`` that never raises; a ``str`` (or a subclass) as its characters.

    Nothing here asks the value its ``__class__`` (``isinstance`` would): a lazy proxy
    used outside its context raises there too.
    """
    kind = type(value)
    if issubclass(kind, str):  # none of a subclass's methods runs
        return value if kind is str else str.__getitem__(value, slice(None))
    try:
        text = str(value)
    except Exception:  # a hostile __str__ must not break error reporting
        text = None
    if text is not None and issubclass(type(text), str):  # a subclass: its characters only
        return text if type(text) is str else str.__getitem__(text, slice(None))
    if issubclass(kind, int):  # past sys.get_int_max_str_digits()
        return f"<int of {int.bit_length(value)} bits>"
    return f"<{type_name(value)} object>"


def type_name(value: Any) -> str:
    """The name of ``value``'s class; never raises, whatever its class (or metaclass) says."""
    try:
        name = type(value).__name__  # a metaclass may make it anything, or raise
    except Exception:
        return "unknown"
    return name if type(name) is str else "unknown"

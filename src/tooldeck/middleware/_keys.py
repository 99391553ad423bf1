"""The text that names a call's arguments in `Cache`'s store: one text per value the
tool could tell apart, never one for two.

JSON is not such a text: it writes ``"a"`` and ``b"a"``, ``[1]`` and ``(1,)``, two
models of different classes with the same fields, even two `pydantic.SecretStr` (both
``"**********"``) alike, and a call given one would be answered with the other's
answer. So each value is written with its exact type: ``1``, ``1.0`` and ``True``;
``0.0`` and ``-0.0`` (``str`` tells them apart); ``bytes`` and ``bytearray``; a list, a
tuple and a named tuple; a dict's keys in their order (a tool may read it); a model's
or a dataclass's class and fields. A set is written in a sorted order (its own varies
between processes). The text is the same in every process, so workers sharing a Redis
cache meet on one key.

What it cannot write faithfully (an object of a class it does not know, a NaN, which is
not equal even to itself) raises: such a call has no key, and is not cached.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types
from collections.abc import Callable
from enum import Enum
from typing import Any

import pydantic

__all__ = ["call_text", "callable_text", "key_text"]

Write = Callable[[Any, list[str]], None]


def call_text(arguments: dict[str, Any], vary: dict[str, Any]) -> str:
    """The text of validated ``arguments`` (by name: parameters bind by name, so their
    order does not count) and the ``vary`` context values.

    Raises:
        TypeError, ValueError: a value it cannot write faithfully.
    """
    out: list[str] = []
    for part in (arguments, vary):
        out.append("{")
        for name in sorted(part):
            _str(name, out)
            _write(part[name], out)
        out.append("}")
    return "".join(out)


def key_text(value: Any) -> str:
    """A ``key=`` value of `RateLimit` or `ConcurrencyLimit` as the text naming its
    bucket or pool, in the process and in Redis alike, so moving a limit to Redis does
    not change who is throttled with whom: ``1``, ``1.0`` and ``True`` are three
    callers (one to a dict), ``0.0`` and ``-0.0`` two, a set is the same text in every
    process. A value with no exact text (an object of a class of the caller's, a NaN)
    is its class and its ``str``.
    """
    kind = value.__class__
    if kind is str:  # the usual keys (a user, a tenant, an id): inline, as `_write`
        return f"s{len(value)}:{value}"
    if kind is int:
        return f"i{value:x};"
    out: list[str] = []
    try:
        (_EXACT.get(kind) or _other(value))(value, out)
    except (TypeError, ValueError):
        return f"{kind.__module__}.{kind.__qualname__}:{value}"
    return "".join(out)


def _write(value: Any, out: list[str]) -> None:
    write = _EXACT.get(value.__class__)
    if write is None:
        write = _other(value)
    write(value, out)


def _none(value: None, out: list[str]) -> None:
    out.append("N")


def _bool(value: bool, out: list[str]) -> None:
    out.append("T" if value else "F")


def _int(value: int, out: list[str]) -> None:
    out.append(f"i{value:x};")  # (hex: no limit on digits, as str() has)


def _float(value: float, out: list[str]) -> None:
    if value != value:
        raise ValueError("a NaN is no key: it is not equal to itself")
    out.append(f"f{value.hex()};")  # exact, and -0.0 is not 0.0


def _str(value: str, out: list[str]) -> None:
    out.append(f"s{len(value)}:")
    out.append(value)


def _bytes(value: bytes | bytearray, out: list[str]) -> None:
    out.append(f"{'b' if value.__class__ is bytes else 'B'}{len(value)}:{value.hex()}")


def _items(opening: str, closing: str) -> Write:
    def write(value: Any, out: list[str]) -> None:
        out.append(opening)
        for item in value:
            _write(item, out)
        out.append(closing)

    return write


def _set(value: set[Any] | frozenset[Any], out: list[str]) -> None:
    # Sorted by their texts: a set's own order differs between processes (str hashes).
    texts = []
    for item in value:
        one: list[str] = []
        _write(item, one)
        texts.append("".join(one))
    texts.sort()
    out.append("<" if value.__class__ is set else "^")
    out.extend(texts)
    out.append(">")


def _dict(value: dict[Any, Any], out: list[str]) -> None:
    out.append("{")
    for key, item in value.items():  # in order: the tool may read it
        _write(key, out)
        _write(item, out)
    out.append("}")


_EXACT: dict[type, Write] = {
    type(None): _none,
    bool: _bool,
    int: _int,
    float: _float,
    str: _str,
    bytes: _bytes,
    bytearray: _bytes,
    list: _items("[", "]"),
    tuple: _items("(", ")"),
    set: _set,
    frozenset: _set,
    dict: _dict,
}

# Value types whose repr is their value, exactly (the repr of a datetime names its
# tzinfo, a Decimal keeps its exponent: ``Decimal('1.0')`` is not ``Decimal('1.00')``),
# by name: nothing imported for them (pathlib's are in ``pathlib._local`` from 3.13).
_BY_REPR: frozenset[str] = frozenset(
    {
        *(f"datetime.{name}" for name in ("date", "datetime", "time", "timedelta", "timezone")),
        "decimal.Decimal",
        "fractions.Fraction",
        "uuid.UUID",
        "builtins.complex",
        *(
            f"{module}.{name}"
            for module in ("pathlib", "pathlib._local")
            for name in ("PurePosixPath", "PureWindowsPath", "PosixPath", "WindowsPath")
        ),
        *(
            f"ipaddress.IPv{v}{name}"
            for v in (4, 6)
            for name in ("Address", "Network", "Interface")
        ),
    }
)


def _tagged(value: Any, out: list[str]) -> None:
    """The value's class, then what the value holds."""
    kind = value.__class__
    _str(f"{kind.__module__}.{kind.__qualname__}", out)


def _other(value: Any) -> Write:
    """The writer for a value of a type not in `_EXACT` (a subclass, a model...)."""
    if isinstance(value, Enum):
        return _enum
    if isinstance(value, pydantic.BaseModel) or _is_v1_model(value):
        return _model
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass
    kind = value.__class__
    if f"{kind.__module__}.{kind.__qualname__}" in _BY_REPR:
        return _repr
    if isinstance(value, (pydantic.SecretStr, pydantic.SecretBytes)):
        return _secret
    if isinstance(value, pydantic.AnyUrl):
        return _url
    if isinstance(value, (tuple, list, dict, str, int, float, bytes, set, frozenset)):
        return _subclass  # a named tuple, a str subclass...
    raise TypeError(f"a {value.__class__.__qualname__} has no key text")


def _is_v1_model(value: Any) -> bool:
    v1 = sys.modules.get("pydantic.v1")  # (none made unless pydantic.v1 was imported)
    return v1 is not None and isinstance(value, v1.BaseModel)


def _enum(value: Enum, out: list[str]) -> None:
    out.append("E")
    _tagged(value, out)
    _str(value.name, out)


def _model(value: Any, out: list[str]) -> None:
    out.append("M")
    _tagged(value, out)
    _dict(value.__dict__, out)  # its fields' values (v1 and v2 alike)
    extra = getattr(value, "__pydantic_extra__", None)
    _write(extra, out)


def _dataclass(value: Any, out: list[str]) -> None:
    out.append("D")
    _tagged(value, out)
    out.append("(")
    for field in dataclasses.fields(value):
        _write(getattr(value, field.name), out)
    out.append(")")


def _repr(value: Any, out: list[str]) -> None:
    out.append("R")
    _tagged(value, out)
    _str(repr(value), out)


def _secret(value: Any, out: list[str]) -> None:
    out.append("S")
    _tagged(value, out)
    _write(value.get_secret_value(), out)


def _url(value: Any, out: list[str]) -> None:
    out.append("U")
    _tagged(value, out)
    _str(str(value), out)


def _subclass(value: Any, out: list[str]) -> None:
    """A subclass of a built-in container or scalar: its class, then its value as the
    built-in's (a named tuple's items; a str subclass's text)."""
    out.append("C")
    _tagged(value, out)
    if getattr(value, "__dict__", None):  # attributes of its own beside its value
        raise TypeError(f"a {value.__class__.__qualname__} has no key text")
    for base, write in _EXACT.items():
        if isinstance(value, base):
            write(value, out)
            return


# -- a callable's name in a shared storage --------------------------------------------


def callable_text(func: Any) -> str:
    """What names ``func`` (a ``key=``) in a shared storage: the same in every process
    running the same code, distinct for callables that may answer differently.

    A function is its module and qualified name, with what it holds: its defaults and
    the values its closure captured; a lambda or a local function also by its first line
    and code (two lambdas, two closures of one factory, two functions of one name in two
    modules are each their own; a module's function keeps its name when edited or moved
    in a deploy). A partial is
    its function and arguments; a bound method, its function and its object's state; a
    callable object, its class and state.

    Raises:
        TypeError: it holds a value it cannot write (an object of an unknown class).
    """
    out: list[str] = []
    _callable(func, out, set())
    return "".join(out)


def _callable(func: Any, out: list[str], seen: set[int]) -> None:
    if id(func) in seen:  # (a function its own closure holds: written once)
        out.append("@")
        return
    seen.add(id(func))
    if isinstance(func, functools.partial):
        out.append("P")
        _callable(func.func, out, seen)
        _held(func.args, out, seen)
        _held(func.keywords, out, seen)
    elif isinstance(func, types.MethodType):
        out.append("m")
        _callable(func.__func__, out, seen)
        _state(func.__self__, out, seen)
    elif isinstance(func, types.FunctionType):
        _function(func, out, seen)
    elif isinstance(func, type):
        out.append("t")
        _str(f"{func.__module__}.{func.__qualname__}", out)
    elif isinstance(func, types.BuiltinFunctionType):  # len, a C function of a module
        out.append("c")
        _str(f"{getattr(func, '__module__', None)}.{func.__qualname__}", out)
        if not isinstance(func.__self__, types.ModuleType | None):
            _state(func.__self__, out, seen)
    else:  # a callable object
        out.append("o")
        _state(func, out, seen)


def _function(func: types.FunctionType, out: list[str], seen: set[int]) -> None:
    out.append("f")
    _str(f"{func.__module__}.{func.__qualname__}", out)
    if "<" in func.__qualname__:  # a lambda or a local function: its code tells it apart
        _code(func.__code__, out)
    # else its module and qualified name are its own in a process, and the window stays
    # one across a deploy that edits it or moves its lines
    _held(func.__defaults__, out, seen)
    _held(func.__kwdefaults__, out, seen)
    for cell in func.__closure__ or ():
        try:
            _held(cell.cell_contents, out, seen)
        except ValueError:  # an empty cell (a name assigned later)
            out.append("-")


def _held(value: Any, out: list[str], seen: set[int]) -> None:
    """A value a callable holds (a default, a captured value): a callable as one."""
    if callable(value) and not isinstance(value, (pydantic.BaseModel, Enum)):
        _callable(value, out, seen)
    elif isinstance(value, (tuple, list)) and any(callable(v) for v in value):
        out.append("(")
        for item in value:
            _held(item, out, seen)
        out.append(")")
    elif isinstance(value, dict) and any(callable(v) for v in value.values()):
        out.append("{")
        for key, item in value.items():
            _write(key, out)
            _held(item, out, seen)
        out.append("}")
    else:
        _write(value, out)


def _code(code: types.CodeType, out: list[str]) -> None:
    out.append(f"#{code.co_firstlineno};{code.co_code.hex()};")
    _write(code.co_names, out)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code(const, out)
        elif const is Ellipsis:
            out.append("...")
        else:
            _write(const, out)


def _state(obj: Any, out: list[str], seen: set[int]) -> None:
    """An object's class and state: its attributes, else its own repr."""
    _tagged(obj, out)
    attributes = getattr(obj, "__dict__", None)
    if attributes is not None:
        _held(dict(attributes), out, seen)
        return
    text = repr(obj)  # (operator.itemgetter('user'), ...)
    if " at 0x" not in text:  # (object's own repr: an address, another in another process)
        _str(text, out)
        return
    kind = type(obj)
    raise TypeError(f"a {kind.__qualname__} has no text the same in every process")

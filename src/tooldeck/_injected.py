"""Context the model never sees: parameters marked ``Injected``.

``Annotated[T, Injected]`` (or ``Injected("key")``) marks a parameter whose value comes
from the ``context`` mapping of a call, by key, as it is: a user id, a database
session, an HTTP client. It is absent from the schema, every export and argument
validation, so a model can never set it (arguments naming it are refused as unexpected).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, NamedTuple, get_args, get_origin

__all__ = [
    "Injected",
    "Injection",
    "MissingContext",
    "context_values",
    "is_injected",
    "marked_inside",
]


class Injected:
    """Marks a parameter whose value comes from the call's ``context``, never the model.

    ``Annotated[T, Injected]`` reads ``context[<the parameter's name>]``;
    ``Annotated[T, Injected("key")]`` reads ``context["key"]``. A key missing from the
    context gives the parameter's default, or fails the call with ``Tool '<name>' needs
    context value '<key>'``. The value is passed as it is, not validated.

    Args:
        key: The context key to read (default: the parameter's name).
    """

    __slots__ = ("key",)

    def __init__(self, key: str | None = None) -> None:
        if key is not None and (not isinstance(key, str) or not key):
            raise TypeError(f"Injected(key): the key must be a non-empty str, got {key!r}")
        self.key = key

    def __repr__(self) -> str:
        return "Injected" if self.key is None else f"Injected({self.key!r})"


def is_injected(marker: Any) -> bool:
    """Whether ``marker`` (an ``Annotated`` metadata item) is ``Injected`` or one of its."""
    return marker is Injected or isinstance(marker, Injected)


def marked_inside(tp: Any) -> bool:
    """Whether an ``Injected`` marker sits anywhere in ``tp`` (a union member's
    ``Annotated``, a list's item type...), where it marks nothing the model cannot set."""
    if get_origin(tp) is Annotated:
        return any(is_injected(m) for m in tp.__metadata__) or marked_inside(tp.__origin__)
    return any(marked_inside(arg) for arg in get_args(tp) if not isinstance(arg, str))


class Injection(NamedTuple):
    """One injected parameter of a tool: where its value comes from.

    Attributes:
        name: The parameter's name (the keyword the function is called with).
        key: The context key read for it.
        default: Its default, or ``inspect.Parameter.empty``.
        factory: A factory for its default, or ``None``.
        wrap: What the context's value becomes before the call (``None``: itself);
            a `tooldeck.Progress` parameter's reporter wraps the context's callback.
        whole: The parameter takes the whole context (the mapping, or ``None``), not
            one key's value: a framework's tool in a registry, which hands it on as
            its framework's run context (``key`` then only names it, as ``"*"``).
    """

    name: str
    key: str
    default: Any
    factory: Callable[[], Any] | None = None
    wrap: Callable[[Any], Any] | None = None
    whole: bool = False


class MissingContext(LookupError):
    """A context key a tool needs is missing (and its parameter has no default).

    Attributes:
        key: The key.
    """

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def context_values(
    injections: tuple[Injection, ...], context: Mapping[str, Any] | None, missing: Any
) -> dict[str, Any]:
    """The keyword arguments ``injections`` take from ``context``.

    Raises:
        MissingContext: A key is missing and its parameter has no default.
    """
    values: dict[str, Any] = {}
    for injection in injections:
        key = injection.key
        if injection.whole:
            values[injection.name] = context
        elif context is not None and key in context:
            value = context[key]
            wrap = injection.wrap
            values[injection.name] = value if wrap is None else wrap(value)
        elif injection.factory is not None:
            values[injection.name] = injection.factory()
        elif injection.default is not missing:
            values[injection.name] = injection.default
        else:
            raise MissingContext(key)
    return values

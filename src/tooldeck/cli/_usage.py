"""How the command line reports a usage mistake: exit status 2, one line on stderr."""

from __future__ import annotations

__all__ = ["UsageError", "described", "first_line"]


class UsageError(Exception):
    """A mistake on the command line: exit status 2, one line on stderr."""


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (a usage error is one line)."""
    try:
        text = str(exc)
    except Exception:  # a __str__ that raises: the caller names the class
        text = ""
    lines = text.strip().splitlines() if isinstance(text, str) else []
    return lines[0] if lines else "(no message)"


def described(exc: BaseException) -> str:
    """``Class: first line`` (or the class alone when it has no message)."""
    line = first_line(exc)
    name = type(exc).__name__
    return name if line == "(no message)" else f"{name}: {line}"

"""How the command line reports a usage mistake: exit status 2, one line on stderr."""

from __future__ import annotations

__all__ = ["UsageError", "first_line"]


class UsageError(Exception):
    """A mistake on the command line: exit status 2, one line on stderr."""


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (a usage error is one line)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else "(no message)"

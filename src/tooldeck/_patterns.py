"""Regular expressions from untrusted schemas, matched within a time budget.

A JSON Schema that comes from a ``BaseTool`` or a server carries ``pattern``s, and
Python's ``re`` backtracks: ``^(a|aa)+$`` against 60 characters holds the GIL for
minutes, freezing every thread, and no call timeout applies because validation runs
first. Patterns are matched with the `regex` module instead, which avoids most
catastrophic backtracking and takes a timeout for the rest; every search gets what is
left of one budget per validation (`budget`), and past it `PatternTimeout` ends the
validation: the call fails saying which pattern could not be checked.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
import time
from collections.abc import Iterator

import regex

__all__ = ["BUDGET", "PatternTimeout", "budget", "compiled", "search"]

BUDGET = 0.25  # seconds of pattern matching one validation (or one search) may take


class PatternTimeout(Exception):
    """A pattern could not be checked within the budget.

    Attributes:
        pattern: The pattern.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        super().__init__(f"the pattern {pattern!r} could not be checked within {BUDGET:g} s")


class _Deadline(threading.local):
    at = math.inf


_deadline = _Deadline()


@contextlib.contextmanager
def budget(seconds: float = BUDGET) -> Iterator[None]:
    """Bound every `search` inside the block to ``seconds`` in all (nesting narrows it)."""
    previous = _deadline.at
    _deadline.at = min(previous, time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.at = previous


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled once (raises ``regex.error`` for one that does not compile)."""
    return regex.compile(pattern)


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's ``pattern``).

    Raises:
        PatternTimeout: the budget ran out (a search outside `budget` gets a whole one).
    """
    remaining = min(_deadline.at - time.monotonic(), BUDGET)
    if remaining <= 0:
        raise PatternTimeout(pattern)
    try:
        # concurrent=True releases the GIL while matching: other threads run meanwhile.
        found = compiled(pattern).search(text, timeout=remaining, concurrent=True)
    except TimeoutError:
        raise PatternTimeout(pattern) from None
    return found is not None

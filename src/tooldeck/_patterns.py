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
import re
import threading
import time
from collections.abc import Iterator

import regex

__all__ = ["BUDGET", "PatternTimeout", "budget", "compiled", "search"]

BUDGET = 0.25  # seconds of pattern matching one validation (or one search) may take
# The most a pattern may unroll when compiled (see `unrolled`): ~30 MB at worst.
MAX_UNROLLED = 100_000


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
    """``pattern`` compiled once.

    Raises:
        regex.error: it does not compile.
        ValueError: it would unroll into more than `MAX_UNROLLED` nodes.
    """
    size = unrolled(pattern)
    if size > MAX_UNROLLED:
        raise ValueError(
            f"it repeats too much to compile safely (~{size:,} nodes; at most "
            f"{MAX_UNROLLED:,}): write the repeat with a range starting low, e.g. {{0,n}}"
        )
    return regex.compile(pattern)


_COUNT = re.compile(r"\{(\d+)(?:,\d*)?\}")


def unrolled(pattern: str) -> int:
    """About how many nodes compiling ``pattern`` makes, bounded past `MAX_UNROLLED`.

    The `regex` module unrolls a counted repeat's minimum: ``a{1000000}`` compiles to a
    million nodes (~270 MB), ``(?:(?:a{1000}){1000}){1000}`` to a billion, while
    ``a{0,1000000}`` stays small. Each atom (a character, a class, an escape, a group)
    counts its size; a count multiplies the atom before it by its minimum.
    """
    frames = [[0, 0]]  # per open group: [size so far, size of its last atom]
    i, n = 0, len(pattern)
    while i < n and frames[0][0] <= MAX_UNROLLED:
        c, step, atom = pattern[i], 1, 1
        if c == "\\":
            step = 2
            if pattern.startswith("{", i + 2):  # \p{L}, \x{41}, \N{...}
                step = max(pattern.find("}", i + 2) + 1 - i, 2)
        elif c == "[":
            step = _class_end(pattern, i) - i
        elif c == "(":
            frames.append([0, 0])
            i += 1
            continue
        elif c == ")" and len(frames) > 1:
            atom = max(frames.pop()[0], 1)
        elif c == "{" and (count := _COUNT.match(pattern, i)):
            frame, times = frames[-1], max(int(count[1]), 1)
            frame[0] += frame[1] * (times - 1)
            frame[1] *= times
            i = count.end()
            continue
        frames[-1][0] += atom
        frames[-1][1] = atom
        i += step
    return sum(frame[0] for frame in frames)


def _class_end(pattern: str, start: int) -> int:
    """The index just past the character class opening at ``start``."""
    i = start + 1
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):  # a leading "]" is a character
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


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

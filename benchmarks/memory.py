"""Memory held by a registry of distinct tools, measured in a fresh process.

    python -m benchmarks.memory tooldeck 10000      # prints one JSON object

A fresh interpreter per subject, so one subject's freed memory cannot hide another's
growth. The functions are made before anything is measured (they are the user's, not
the registry's). Two registrations in a row, each into a new registry with new
function objects:

1. resident set size (RSS) before and after, after a full collection: what the
   process grew by, allocator overhead included;
2. `tracemalloc` around the second one: the peak while registering and what is still
   held once the registry is built and the collector has run. Whatever a framework
   creates once per process (caches, lazily imported modules) was made by the first
   registration, so this counts what each tool costs.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import sys
import tracemalloc
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/memory.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.functions import distinct_tools
from benchmarks.peers import ALL_SUBJECTS
from benchmarks.subjects import Subject


def rss_bytes() -> int:
    """The resident set size now (Linux; 0 where /proc is missing)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def release_free_memory() -> None:
    """Hand the C allocator's free memory back to the system (glibc), so the RSS that
    follows grows only with what is allocated next."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: a coarser RSS figure
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _register(subject: Subject, tools: list[tuple[Any, list[str]]]) -> Any:
    registry = subject.new_registry()
    for func, tags in tools:
        subject.register(registry, func, tags)
    return registry


def measure(name: str, count: int) -> dict[str, Any]:
    (cls,) = [c for c in ALL_SUBJECTS if c.name == name]
    subject = cls()
    subject.load()
    first, second = distinct_tools(count), distinct_tools(count)
    gc.collect()
    release_free_memory()
    before = rss_bytes()
    registry = _register(subject, first)
    gc.collect()
    rss = rss_bytes() - before
    del registry, first
    gc.collect()
    tracemalloc.start()
    try:
        registry = _register(subject, second)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del registry  # alive until measured: what it holds is the point
    return {"subject": name, "tools": count, "held": held, "peak": peak, "rss": rss}


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], int(sys.argv[2]))))

"""Shared fixtures. Tests build isolated registries; the default one is left alone.

``TOOLDECK_EXAMPLES_SCALE`` (a number in (0, 1], unset by default) scales down how many
examples each hypothesis property tries, never below `MIN_EXAMPLES`. Only ``.ci/run``
sets it, for the suite on the oldest and the newest Python: every property still runs
there, with fewer examples, while the README's run (what a new user runs) tries them all.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from forkserver import CLIENTS, SERVING, ForkServer
from tooldeck import ToolRegistry

MIN_EXAMPLES = 10

# No test reaches the internet, so no test needs the machine's hundred-odd certificate
# authorities: every HTTP client (httpx, each provider SDK's, fastmcp's) loads them when
# made, ~30 ms of CPU each, hundreds of times a run. One self-made certificate (no key
# anywhere) loads in ~1 ms. Set before any client or test process exists, so test
# processes inherit it.
os.environ["SSL_CERT_FILE"] = str(Path(__file__).with_name("ca.pem"))
os.environ.pop("SSL_CERT_DIR", None)


def pytest_collection_finish(session: pytest.Session) -> None:
    _freeze()


@pytest.fixture(scope="module", autouse=True)
def _frozen_after_each_module() -> Iterator[None]:
    yield
    _freeze()


def _freeze() -> None:
    """What exists now (the SDKs, fastmcp, each test module) is kept out of every later
    garbage collection: with those imported, a full collection walked millions of
    objects (~0.3 s each, 14% of a run's CPU); now it walks what the tests made since.
    Garbage is collected first, so nothing collectable is kept."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def registry() -> ToolRegistry:
    """A fresh, isolated registry."""
    return ToolRegistry()


@pytest.fixture(scope="session")
def server_forks() -> Iterator[ForkServer]:
    """Test servers (``server_forks.start(SCRIPT, *args)``), each a process of its own,
    forked from one that imported tooldeck's MCP side once (tests/forkserver.py)."""
    pytest.importorskip("fastmcp")
    forks = ForkServer(f"{SERVING}\n{CLIENTS}")
    yield forks
    forks.close()


def scaled(current: settings, scale: float) -> settings:
    """``current`` with max_examples times ``scale``, but at least MIN_EXAMPLES (or as many
    as it had, if fewer)."""
    wanted = max(round(current.max_examples * scale), MIN_EXAMPLES)
    return settings(current, max_examples=min(current.max_examples, wanted))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    scale = os.environ.get("TOOLDECK_EXAMPLES_SCALE")
    if not scale:
        return
    factor = float(scale)
    if not 0 < factor <= 1:
        raise pytest.UsageError(f"TOOLDECK_EXAMPLES_SCALE must be in (0, 1], not {scale!r}")
    done: set[int] = set()
    for item in items:
        test: Any = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        case: Any = getattr(item, "cls", None)
        # A @given test carries its settings (hypothesis reads them when it runs); a
        # rule-based state machine's TestCase has them as a class attribute.
        for owner, attribute in ((test, "_hypothesis_internal_use_settings"), (case, "settings")):
            current = getattr(owner, attribute, None)
            if isinstance(current, settings) and id(owner) not in done:
                done.add(id(owner))
                setattr(owner, attribute, scaled(current, factor))

"""Every ```python block in README.md and docs/ runs, so the docs cannot rot.

Blocks of one file run in order in one namespace (a page reads as one session);
top-level ``await`` is allowed. Each file gets a fresh default registry, so pages
may use the module-level ``@tool`` freely. Nothing here reaches the network.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooldeck import _registry

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _blocks(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]


@pytest.fixture
def fresh_default_registry() -> Iterator[None]:
    saved = _registry._default_registry[0]
    _registry._default_registry[0] = None
    try:
        yield
    finally:
        _registry._default_registry[0] = saved


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(page: Path, fresh_default_registry: None) -> None:
    blocks = _blocks(page)
    if not blocks:
        pytest.skip("no python blocks")
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    namespace = module.__dict__
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT

    sys.modules[module.__name__] = module  # dataclasses and pydantic look classes up here
    try:
        for line, source in blocks:
            code = compile(
                source, f"{page.relative_to(ROOT)}:{line}", "exec", flags=flags, dont_inherit=True
            )
            if code.co_flags & inspect.CO_COROUTINE:  # top-level await: give it a loop
                asyncio.run(eval(code, namespace))
            else:
                exec(code, namespace)
    finally:
        del sys.modules[module.__name__]


def test_every_doc_page_is_checked() -> None:
    assert (ROOT / "README.md").exists()
    assert any(_blocks(p) for p in _pages()), "the docs should show runnable examples"

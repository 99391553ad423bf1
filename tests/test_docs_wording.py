"""The user docs (README.md and docs/) speak to users: no internal references, and every
example says what it needs to run — the packages it imports, and how to run top-level
``await``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
# What a page's examples import, and the distribution that provides it.
SDKS = {"openai": "openai", "anthropic": "anthropic", "google.genai": "google-genai"}


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def imported(code: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return names


def has_top_level_await(code: str) -> bool:
    tree = ast.parse(code)  # (parses: `await` outside a function is a compile-time error)
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, functions) for n in ast.walk(f)}
    awaits = (ast.Await, ast.AsyncWith, ast.AsyncFor)
    return any(isinstance(n, awaits) and id(n) not in inside for n in ast.walk(tree))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_no_internal_references(page: Path) -> None:
    # The specification's seeds and section numbers mean nothing to a user: say what the
    # behaviour is instead (DESIGN.md and code comments may keep them).
    text = page.read_text(encoding="utf-8")
    found = re.findall(r".{0,30}(?:\bseed\b|\bseeds\b|§).{0,30}", text, re.IGNORECASE)
    assert not found, found


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_a_provider_sdk_an_example_imports_is_installed_on_the_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    needed = {
        dist
        for code in BLOCK.findall(text)
        for module, dist in SDKS.items()
        if module in imported(code)
    }
    missing = {dist for dist in needed if not re.search(rf"pip install .*\b{dist}\b", text)}
    assert not missing, f"{page_id(page)} imports {sorted(needed)}; no `pip install` of {missing}"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_a_page_with_top_level_await_says_how_to_run_it(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if any(has_top_level_await(code) for code in BLOCK.findall(text)):
        assert "python -m asyncio" in text
        assert "asyncio.run(main())" in text

"""What the docs claim in prose and tables (not in runnable blocks) is what the code does."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tooldeck import Tool

ROOT = Path(__file__).resolve().parents[2]


def _table_row(page: str, first_cell: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} in docs/{page}")


def _code(cell: str) -> object:
    """The JSON in a table cell's first `code span`."""
    found = re.search(r"`(\{.*?\})`", cell)
    assert found is not None, cell
    return json.loads(found.group(1))


def test_the_exports_table_says_what_a_parameterless_tool_exports() -> None:
    def now() -> str:
        return "now"

    tool = Tool(now)
    _, loose, strict, gemini = _table_row("exports.md", "tool without parameters")
    assert _code(loose) == tool.export("openai")["function"]["parameters"]
    assert _code(strict) == tool.export("openai", strict=True)["function"]["parameters"]
    assert "omitted" in gemini
    assert "parameters" not in tool.export("gemini")


def test_readme_says_which_extra_its_mcp_lines_need() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for section in readme.split("\n## ")[1:]:
        blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
        uses_mcp = any(
            re.search(r"\.(as_mcp_server|serve|use_mcp|http_app)\(", block) for block in blocks
        )
        if uses_mcp:
            assert 'tooldeck[mcp]"' in section, section.splitlines()[0]

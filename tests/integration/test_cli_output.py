"""Everything the command line prints is printable, whatever its origin.

A remote MCP server's tool names, tags, descriptions, results and errors reach the
terminal through ``tooldeck list | schema | call``: none of their escapes, carriage
returns or bells may reach it raw. JSON output stays JSON of the same value.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastmcp")

from tooldeck import _registry
from tooldeck.cli import main

FIXTURES = Path(__file__).parent / "cli_fixtures"
REMOTE = "remote_tools:registry"
pytestmark = pytest.mark.timeout(120)
Run = Callable[..., tuple[int, str, str]]


def safe(line: str) -> bool:
    """No character a terminal would act on: printable, a tab or a space."""
    return all(c.isprintable() or c == "\t" or unicodedata.category(c) == "Zs" for c in line)


def strings(value: object) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Run]:
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setattr(_registry, "_default_registry", [None])

    def command(*argv: str) -> tuple[int, str, str]:
        status = main([*argv, "--tools", REMOTE])
        out, err = capsys.readouterr()
        return status, out, err

    yield command
    module = sys.modules.pop("remote_tools", None)
    if module is not None:
        module.registry.close()


def test_a_remote_error_is_printed_escaped(run: Run) -> None:
    status, out, err = run("call", "fail")
    assert status == 1
    assert out == ""
    assert all(safe(line) for line in err.splitlines())
    assert "\\x1b[2J\\x1b]0;pwned\\x07owned\\rover\\u2028written\\x9b31m" in err
    # (The in-process server logs the failure on stderr too: its line is fastmcp's.)
    assert err.splitlines()[-1].startswith("Error: remote failure ")


def test_a_remote_result_is_printed_escaped(run: Run) -> None:
    status, out, _ = run("call", "answer")
    assert status == 0
    assert all(safe(line) for line in out.splitlines())
    assert out == "remote answer \\x1b[2J\\x1b]0;pwned\\x07owned\\rover\\u2028written\\x9b31m\n"


def test_a_remote_structure_is_json_of_the_same_value(run: Run) -> None:
    from remote_tools import HOSTILE

    status, out, _ = run("call", "structure")
    assert status == 0
    assert all(safe(line) for line in out.splitlines())
    assert json.loads(out) == {f"key{HOSTILE}": f"value{HOSTILE}"}


def test_remote_names_tags_and_descriptions_are_listed_escaped(run: Run) -> None:
    from remote_tools import HOSTILE

    status, out, _ = run("list")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 4  # the header and one line per tool: no line break got through
    assert all(safe(line) for line in lines)
    assert "Fail\\x1b[2J" in out
    status, out, _ = run("list", "--json")
    assert status == 0 and all(safe(line) for line in out.splitlines())
    assert f"Fail{HOSTILE}" in [row["description"] for row in json.loads(out)]
    for fmt in ("openai", "mcp"):
        status, out, _ = run("schema", "--format", fmt)
        assert status == 0 and all(safe(line) for line in out.splitlines())
        assert f"Fail{HOSTILE}" in strings(json.loads(out))

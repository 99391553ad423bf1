"""The command line on bad input: a message and an exit status, never a traceback.

``tooldeck call`` is run in process (``tooldeck.cli.main``) on the CLI's own fixture
tools: 1 when the tool answers with an error, 2 for a usage error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tooldeck import _registry
from tooldeck.cli import main

TOOLS = str(Path(__file__).resolve().parents[1] / "integration" / "cli_fixtures" / "cli_tools.py")


@pytest.fixture(autouse=True)
def fresh_default_registry() -> Iterator[None]:
    """The fixture module registers in the default registry: a fresh one per run."""
    saved = _registry._default_registry[0]
    _registry._default_registry[0] = None
    try:
        yield
    finally:
        _registry._default_registry[0] = saved


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["call", *argv, "--tools", TOOLS])
    out, err = capsys.readouterr()
    for text in (out, err):
        assert "Traceback" not in text
        assert 'File "' not in text
    return status, out, err


def test_a_tool_that_raises_exits_1_with_its_message(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "explode")
    assert status == 1
    assert "Error: boom" in out + err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["add", "--json", "{bad"], "--json is not valid JSON"),
        (["add", "--json", "[1, 2]"], "--json must be a JSON object"),
        (["\x1b[31mred"], "unknown tool '\\x1b[31mred'"),
        ([""], "unknown tool ''"),
    ],
    ids=["bad-json", "not-an-object", "control-characters", "empty-name"],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert fragment in err
    assert all(line.isprintable() for line in err.splitlines())


def test_bad_values_are_the_tool_answering_with_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "add", "--json", '{"a": 1, "__class__": 2}')
    assert status == 1
    assert "__class__: unexpected argument" in out + err


@pytest.mark.parametrize("form", ["--json", "pair"])
def test_deeply_nested_arguments_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], form: str
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    argv = ["--json", f'{{"a": {deep}}}'] if form == "--json" else [f"a={deep}"]
    status, _, _ = run(capsys, "add", *argv)
    assert status == 2

"""Whatever text a tool produces, every line the command line prints is printable.

Results, errors (``ToolResult.fail``, as a proxy gives a remote server's, and
exceptions), tags and descriptions: arbitrary text, control characters, terminal
escapes, line separators and lone surrogates included. JSON output parses back to the
same value.
"""

from __future__ import annotations

import contextlib
import io
import json
import unicodedata
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry, ToolResult
from tooldeck.cli._commands import COMMANDS
from tooldeck.cli._output import json_text, shown
from tooldeck.cli._parser import parse

# Every code point, surrogates and controls included.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=60)


def safe(line: str) -> bool:
    return all(c.isprintable() or c == "\t" or unicodedata.category(c) == "Zs" for c in line)


def run(registry: ToolRegistry, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        options = parse(list(argv))
        status = COMMANDS[options.command](registry, options)
    return status, out.getvalue(), err.getvalue()


def tools(text: str) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(description=f"d{text}", tags=[f"t{text}"])
    def value() -> Any:
        return text

    @registry.tool
    def nested() -> Any:
        return {text: [text]}

    @registry.tool
    def fail() -> ToolResult:
        return ToolResult.fail(text)  # what a proxy answers for a remote server's error

    @registry.tool
    def raises() -> None:
        raise ValueError(text)

    return registry


@settings(max_examples=150, deadline=None)
@given(ANY_TEXT)
@example("\x7f\ud800")  # pydantic refuses the surrogate: the nested value is still JSON
def test_every_printed_line_is_printable(text: str) -> None:
    registry = tools(text)
    for argv, status in [
        (("call", "value"), 0),
        (("call", "nested"), 0),
        (("call", "fail"), 1),
        (("call", "raises"), 1),
        (("list",), 0),
        (("list", "--json"), 0),
        (("schema",), 0),
    ]:
        answered, out, err = run(registry, *argv)
        assert answered == status
        assert all(safe(line) for line in (out + err).splitlines()), (argv, out + err)
    # The table has one line per tool: nothing in a cell breaks a line.
    assert len(run(registry, "list")[1].splitlines()) == 5
    assert json.loads(run(registry, "call", "nested")[1]) == {text: [text]}


@given(ANY_TEXT)
def test_shown_escapes_only_what_a_terminal_acts_on(text: str) -> None:
    for one_line in (False, True):
        escaped = shown(text, one_line=one_line)
        assert all(safe(line) for line in escaped.splitlines())
        if one_line:
            assert "\n" not in escaped and "\t" not in escaped
        if safe(text) and (not one_line or ("\n" not in text and "\t" not in text)):
            assert escaped == text


@given(
    st.recursive(
        st.none() | ANY_TEXT | st.integers(),
        lambda inner: st.lists(inner) | st.dictionaries(ANY_TEXT, inner),
    )
)
def test_json_text_is_the_same_json_value(value: Any) -> None:
    text = json_text(value)
    assert all(safe(line) for line in text.splitlines())
    assert json.loads(text) == value

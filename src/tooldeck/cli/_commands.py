"""The four commands: ``list``, ``schema``, ``call`` and ``serve``.

Each takes the loaded registry and the parsed options and returns the exit status:
0 success, 1 the tool answered with an error, 2 a usage error (raised as `UsageError`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from tooldeck import Tool, ToolRegistry, ToolResult
from tooldeck._media import is_media, media_parts
from tooldeck.errors import ToolDeckError

from ._output import json_text, shown
from ._usage import UsageError, first_line

__all__ = ["COMMANDS", "parse_arguments"]


def run_list(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck list``: a table (or JSON) of name, tags and description."""
    tools = _selected(registry, options)
    if options.json:
        rows = [{"name": t.name, "tags": list(t.tags), "description": t.description} for t in tools]
        _print_json(rows)
        return 0
    table = [("NAME", "TAGS", "DESCRIPTION")]
    # A remote server names and describes its tools: every cell is shown printable.
    table += [
        (shown(t.name, one_line=True), shown(",".join(t.tags), one_line=True), _first_line_of(t))
        for t in tools
    ]
    widths = [max(_width(row[i]) for row in table) for i in range(2)]
    for name, tags, description in table:
        cells = [_pad(name, widths[0]), _pad(tags, widths[1]), description]
        print("  ".join(cells).rstrip())
    return 0


def _selected(registry: ToolRegistry, options: argparse.Namespace) -> list[Tool[..., Any]]:
    names = registry.list_tools(options.tags, match=options.match)
    return [tool for tool in map(registry.get, names) if tool is not None]


def _first_line_of(tool: Tool[..., Any]) -> str:
    lines = tool.description.strip().splitlines()
    return shown(lines[0], one_line=True) if lines else ""


def _width(text: str) -> int:
    """Columns a terminal gives ``text``: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def run_schema(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck schema``: the export, as JSON."""
    if options.best_effort and not options.strict:
        raise UsageError("--best-effort applies to --strict: give both")
    strict: bool | Literal["best-effort"] = "best-effort" if options.best_effort else options.strict
    try:
        if options.name is None:
            exported: Any = registry.export(
                options.format, tags=options.tags, strict=strict, match=options.match
            )
        else:
            if options.tags:
                raise UsageError("--tag selects tools; it cannot be combined with a NAME")
            exported = _require_tool(registry, options.name).export(options.format, strict=strict)
    except ToolDeckError as exc:  # e.g. a tool that strict mode cannot express
        raise UsageError(_in_cli_words(first_line(exc), strict=strict is True)) from exc
    _print_json(exported)
    return 0


# The Python API's way out of a strict refusal (`export`'s message); the CLI has its own.
_PYTHON_WAY_OUT = "pass strict='best-effort'"
_CLI_WAY_OUT = "add --best-effort to export them without strict mode, or leave them out with --tag"


def _in_cli_words(message: str, *, strict: bool) -> str:
    """A strict-mode refusal saying how to export anyway, in the command line's words."""
    if not strict:
        return message
    head, found, _ = message.partition(_PYTHON_WAY_OUT)
    if found:  # the registry's refusal: every tool that cannot be strict, named
        return head + _CLI_WAY_OUT
    return f"{message.rstrip('.')}; add --best-effort to export it without strict mode"


def _require_tool(registry: ToolRegistry, name: str) -> Tool[..., Any]:
    found = registry.get(name)
    if found is None:
        available = ", ".join(registry.list_tools()) or "none"
        raise UsageError(f"unknown tool {name!r} (available: {available})")
    if not found.enabled:
        raise UsageError(f"tool {name!r} is disabled")
    return found


def run_call(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck call``: print the value (exit 0) or the error (exit 1)."""
    found = registry.get(options.name)
    if found is None:
        _require_tool(registry, options.name)  # raises, listing what is there
        return 2
    arguments = parse_arguments(found, options.arguments, options.json_arguments)
    run_async = options.use_async
    result = asyncio.run(found.run(arguments)) if run_async else found.run_sync(arguments)
    if not result.success:
        # "Error: ...": a remote server's text too, so shown printable like any other.
        print(shown(str(result)), file=sys.stderr)
        return 1
    print(_to_text(result.data))
    return 0


def parse_arguments(
    tool: Tool[..., Any], pairs: Sequence[str], json_text: str | None
) -> dict[str, Any]:
    """``--json`` and ``key=value`` pairs merged into one arguments object (pairs win).

    A value is parsed as JSON where it parses (``a=1`` is ``1``), except for a
    parameter whose schema is a string: it takes the text as is (``zip=01234``,
    ``text=123``).

    Raises:
        UsageError: bad ``--json``, or a pair without ``=`` or without a key.
    """
    arguments: dict[str, Any] = {}
    if json_text is not None:
        try:
            parsed = json.loads(json_text)
        except ValueError as exc:
            raise UsageError(f"--json is not valid JSON: {exc}") from None
        except RecursionError:
            raise UsageError("--json is nested too deeply") from None
        if not isinstance(parsed, dict):
            raise UsageError(f"--json must be a JSON object, got {type(parsed).__name__}")
        arguments.update(parsed)
    properties = tool.parameters.get("properties", {})
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key:
            raise UsageError(f"expected KEY=VALUE, got {pair!r}")
        arguments[key] = text if _is_string(properties.get(key)) else _json_or_text(text)
    return arguments


def _is_string(schema: Any) -> bool:
    """Whether a property's schema only admits strings (then ``123`` stays ``"123"``)."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "string":
        return True
    values = schema.get("enum")
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
    except RecursionError:
        raise UsageError("a KEY=VALUE value is nested too deeply") from None


def _to_text(value: Any) -> str:
    """The value as indented JSON, or — when it has none (circular, an int too long to
    print, a ``__str__`` that raises) — as a model would read it, which never fails."""
    if isinstance(value, str) or media_parts(value) is not None:
        # its characters (no subclass __str__ runs); media: the text with placeholders
        return shown(str(ToolResult.ok(value)))
    try:
        return json_text(to_jsonable_python(value, fallback=_fallback))
    except Exception:
        pass
    try:  # plain JSON data that pydantic refuses: a lone surrogate in a str
        return json_text(value)
    except Exception:
        return shown(str(ToolResult.ok(value)))


def _fallback(value: Any) -> Any:
    """What has no JSON form: a media value's placeholder, else its ``str()``."""
    return value.placeholder if is_media(value) else str(value)


def run_serve(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck serve``: the registry as an MCP server, until interrupted."""
    http_only = {
        "--host": options.host,
        "--port": options.port,
        "--token": options.tokens,
        "--stateless": options.stateless,
        "--allow-host": options.allowed_hosts,
        "--max-sessions-per-client": options.max_sessions_per_client,
        "--session-idle-timeout": options.session_idle_timeout,
    }
    given = [flag for flag, value in http_only.items() if value is not None and value is not False]
    if given and options.transport == "stdio":
        what = "is an HTTP-only option" if len(given) == 1 else "are HTTP-only options"
        raise UsageError(
            f"{', '.join(given)} {what}: add --transport http "
            "(stdio serves the one client that started it)"
        )
    session_flags = ("--max-sessions-per-client", "--session-idle-timeout")
    limits = [flag for flag in session_flags if http_only[flag] is not None]
    if options.stateless and limits:
        raise UsageError(f"{', '.join(limits)}: --stateless keeps no sessions to limit")
    token = _serve_token(options.tokens)
    if options.defer is not None and options.defer_tools:
        raise UsageError("--defer and --defer-tool: give one (a tag, or tool names)")
    defer = options.defer_tools or options.defer
    if not registry.list_tools(options.tags, match=options.match):
        print("tooldeck: warning: serving no tools", file=sys.stderr)
    try:
        registry.serve(
            transport=options.transport,
            host="127.0.0.1" if options.host is None else options.host,
            port=8000 if options.port is None else options.port,
            token=token,
            name=options.name,
            tags=options.tags,
            match=options.match,
            stateless=options.stateless,
            allowed_hosts=options.allowed_hosts,
            max_sessions_per_client=options.max_sessions_per_client,
            session_idle_timeout=options.session_idle_timeout,
            defer=defer,
        )
    except (ImportError, ValueError, OSError, LookupError) as exc:
        # The `mcp` extra is missing, an empty token, a port that cannot be listened on,
        # a tool to defer that is not there.
        raise UsageError(first_line(exc)) from exc
    return 0


def _serve_token(values: list[str] | None) -> str | dict[str, str] | None:
    """``--token``: one token, or ``NAME=TOKEN`` pairs → ``{token: name}``.

    A single value is ``NAME=TOKEN`` when it has a name before its first ``=`` and a
    token after it that does not start with ``=`` (base64 padding stays a token).
    """
    if not values:
        return None
    pairs = [_named_token(value) for value in values]
    if len(values) == 1 and pairs[0] is None:
        return values[0]  # an empty one is refused by serve(), with the reason
    if any(pair is None for pair in pairs):
        raise UsageError("--token given several times: give each as NAME=TOKEN")
    named: dict[str, str] = {}
    for name, token in (pair for pair in pairs if pair is not None):
        if token in named:
            raise UsageError(f"--token: two clients ({named[token]}, {name}) share one token")
        named[token] = name
    return named


def _named_token(value: str) -> tuple[str, str] | None:
    name, sep, token = value.partition("=")
    if not sep or not name or not token or token.startswith("="):
        return None
    if not all(c.isalnum() or c in "_.-@" for c in name):
        return None
    return name, token


def _print_json(value: Any) -> None:
    print(json_text(value))


COMMANDS: dict[str, Callable[[ToolRegistry, argparse.Namespace], int]] = {
    "list": run_list,
    "schema": run_schema,
    "call": run_call,
    "serve": run_serve,
}

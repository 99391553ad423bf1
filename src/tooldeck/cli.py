"""The ``tooldeck`` command line: list, export, call and serve tools.

``tooldeck list | schema | call | serve``, each on the built-in tools by default or
on ``--tools SPEC`` (given after the subcommand):

* ``module:attr`` — a `ToolRegistry`, a tool (or a plain function),
  or a list of tools;
* ``module`` — the tools bound at the module's top level;
* ``path/to/file.py`` (or ``file.py:attr``) — the same rules for a file.

Exit status: 0 success, 1 the tool answered with an error (a validation failure
included), 2 a usage error (unknown tool, bad arguments syntax, a module that fails
to import), reported in one line on stderr, without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from pydantic_core import to_jsonable_python

from . import BaseTool, Tool, ToolRegistry, __version__
from .errors import ToolDeckError

__all__ = ["main"]

DEFAULT_TOOLS = "tooldeck.tools.weather:get_weather"
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "agently")


class UsageError(Exception):
    """A mistake on the command line: exit status 2, one line on stderr."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tooldeck`` command line; return the exit status."""
    _use_utf8()
    if argv is None:
        argv = [_from_locale(arg) for arg in sys.argv[1:]]
    parser = _parser()
    try:
        options = _parse(parser, argv)
    except SystemExit as exc:  # --help, --version, or argparse's own usage errors
        return exc.code if isinstance(exc.code, int) else 2
    try:
        registry = load_tools(options.tools)
        status: int = options.run(registry, options)
        return status
    except UsageError as exc:
        _error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tooldeck schema | head`: the reader left; that is fine
        _silence_stdout()
        return 1
    return 2


def _silence_stdout() -> None:
    """Point stdout at devnull so Python's exit-time flush does not complain again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error(message: str) -> None:
    lines = message.strip().splitlines() or ["unknown error"]
    print(f"tooldeck: error: {lines[0]}", file=sys.stderr)


def _use_utf8() -> None:
    """UTF-8 out, whatever the locale says (LC_ALL=C must not turn 台北 into an error)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(encoding="utf-8", errors="backslashreplace")


def _from_locale(arg: str) -> str:
    """Recover a UTF-8 argument that an ASCII locale (LC_ALL=C) decoded to surrogates.

    Under the C locale Python decodes ``city=台北`` from argv byte by byte into lone
    surrogates; the bytes were UTF-8 all along.
    """
    if not any("\udc80" <= char <= "\udcff" for char in arg):
        return arg
    try:
        return os.fsencode(arg).decode("utf-8")
    except (UnicodeError, ValueError):
        return arg


# -- the parser ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line of usage error (argparse would print the whole usage first)."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tooldeck",
        description="List, export, call and serve tooldeck tools.",
        epilog="Each command takes --tools SPEC: module:attr, module, or path/to/file.py "
        f"(default: the built-in tools, {DEFAULT_TOOLS}).",
    )
    parser.add_argument("--version", action="version", version=f"tooldeck {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--tools",
        metavar="SPEC",
        default=DEFAULT_TOOLS,
        help="where the tools are: module:attr (a registry, a tool or a list of tools), "
        "module (its top-level tools) or path/to/file.py; default: %(default)s",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_list(commands, common)
    _add_schema(commands, common)
    _add_call(commands, common)
    _add_serve(commands, common)
    return parser


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse, letting ``call``'s KEY=VALUE pairs come after its options too.

    argparse stops filling a ``*`` positional at the first option, so in
    ``tooldeck call add --tools m a=1`` the pair would be "unrecognized".
    """
    options, extra = parser.parse_known_args(argv)
    if options.command == "call":
        pairs = [arg for arg in extra if not arg.startswith("-")]
        options.arguments = [*options.arguments, *pairs]
        extra = [arg for arg in extra if arg.startswith("-")]
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return options


def _add_tag_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        metavar="TAG",
        help="only tools carrying this tag (repeat for several: any of them)",
    )
    parser.add_argument(
        "--match",
        choices=("any", "all"),
        default="any",
        help="with several --tag: tools carrying any (default) or all of them",
    )


def _add_list(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "list", parents=[common], help="list the tools", description="List the enabled tools."
    )
    _add_tag_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(run=run_list)


def _add_schema(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "schema",
        parents=[common],
        help="print the tools' schemas in a provider's format",
        description="Print the enabled tools (or one tool) in a provider's format, as JSON.",
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="one tool (default: all)")
    parser.add_argument("--format", choices=FORMATS, default="openai", help="default: openai")
    parser.add_argument(
        "--strict", action="store_true", help="OpenAI strict mode (defaults become nullable)"
    )
    _add_tag_options(parser)
    parser.set_defaults(run=run_schema)


def _add_call(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "call",
        parents=[common],
        help="call a tool",
        description="Call a tool. Values are parsed as JSON where they parse (a=1 is 1, "
        "flag=true is True), except for string parameters, which take the text as is.",
    )
    parser.add_argument("name", metavar="NAME", help="the tool")
    parser.add_argument(
        "arguments", nargs="*", metavar="KEY=VALUE", help="arguments (they win over --json)"
    )
    parser.add_argument(
        "--json", dest="json_arguments", metavar="OBJECT", help="arguments as a JSON object"
    )
    parser.add_argument(
        "--async", dest="use_async", action="store_true", help="call through the async face"
    )
    parser.set_defaults(run=run_call)


def _add_serve(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "serve",
        parents=[common],
        help="serve the tools over MCP",
        description="Serve the enabled tools over MCP (stdio, or streamable HTTP at /mcp).",
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP only; default: %(default)s")
    parser.add_argument("--port", type=_port, default=8000, help="HTTP only; default: %(default)s")
    parser.add_argument(
        "--token",
        dest="tokens",
        action="append",
        metavar="TOKEN | NAME=TOKEN",
        help="HTTP only: require this bearer token (default: $TOOLDECK_MCP_TOKEN, if set); "
        "repeat as NAME=TOKEN for several clients, each known by its NAME",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP only: keep no per-client session (for several processes behind a load balancer)",
    )
    parser.add_argument(
        "--allow-host",
        dest="allowed_hosts",
        action="append",
        metavar="HOST",
        help="HTTP only: accept this Host name besides loopback ones (repeat for several; "
        "patterns such as *.example.com work)",
    )
    parser.add_argument("--name", default="tooldeck", help="the server name clients see")
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        metavar="TAG",
        help="serve only tools carrying this tag (repeat for several: any of them)",
    )
    parser.set_defaults(run=run_serve)


def _port(text: str) -> int:
    """``--port``: an integer from 0 to 65535 (argparse reports anything else)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 65535, got {text!r}")
    return port


# -- loading tools -------------------------------------------------------------------------


def load_tools(spec: str) -> ToolRegistry:
    """The tools ``spec`` names, in a fresh registry (a registry it names is used as is).

    Raises:
        UsageError: the module or file cannot be imported, the attribute is missing,
            or it holds no tools.
    """
    target, attr = _split_spec(spec)
    # Whatever an imported module prints must not corrupt our output (or serve's stdio).
    with contextlib.redirect_stdout(sys.stderr):
        module = _import(target)
    if attr is None:
        return _module_tools(module, target)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{target!r} has no attribute {attr!r}") from None
    if isinstance(obj, ToolRegistry):
        return obj
    items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    return _registry_of(items, spec)


def _split_spec(spec: str) -> tuple[str, str | None]:
    if spec.endswith(".py"):  # a path, perhaps with a drive letter's colon in it
        return spec, None
    target, colon, attr = spec.rpartition(":")
    if not colon:
        return spec, None
    if not target or not attr:
        raise UsageError(f"--tools {spec!r}: expected module:attr, module or path/to/file.py")
    return target, attr


def _import(target: str) -> ModuleType:
    is_path = target.endswith(".py") or os.sep in target or "/" in target
    try:
        return _import_file(Path(target)) if is_path else _import_module(target)
    except UsageError:
        raise
    except (Exception, SystemExit) as exc:
        raise UsageError(
            f"cannot import {target!r}: {type(exc).__name__}: {_first_line(exc)}"
        ) from exc


def _import_module(name: str) -> ModuleType:
    # A console script does not put the working directory on sys.path; `python -m` does.
    # `tooldeck --tools mytools` should find ./mytools.py either way.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(name)


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise UsageError(f"cannot import {str(path)!r}: no such file")
    path = path.resolve()
    name = path.stem if path.stem.isidentifier() else "_tooldeck_tools"
    if name in sys.modules:
        name = f"_tooldeck_file_{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {str(path)!r}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    # As `python file.py` would: its own directory first, so sibling imports work.
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module  # dataclasses and Pydantic models look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else "(no message)"


def _module_tools(module: ModuleType, target: str) -> ToolRegistry:
    found = _unique(
        obj for obj in vars(module).values() if isinstance(obj, BaseTool) and not _is_class(obj)
    )
    if not found:
        registries = _unique(obj for obj in vars(module).values() if isinstance(obj, ToolRegistry))
        if len(registries) == 1:
            registry: ToolRegistry = registries[0]
            return registry
        raise UsageError(
            f"{target!r} defines no tools at its top level; name them with {target}:attr"
        )
    return _registry_of(found, target)


def _is_class(obj: object) -> bool:
    return isinstance(obj, type)


def _unique(objects: Iterable[Any]) -> list[Any]:
    seen: dict[int, Any] = {}
    for obj in objects:
        seen.setdefault(id(obj), obj)
    return list(seen.values())


def _registry_of(items: Iterable[Any], spec: str) -> ToolRegistry:
    registry = ToolRegistry()
    for item in items:
        if not isinstance(item, BaseTool) and not callable(item):
            raise UsageError(f"--tools {spec!r}: {item!r} is not a tool, a registry or a list")
        try:
            registry.register(item)
        except ToolDeckError as exc:
            raise UsageError(f"--tools {spec!r}: {_first_line(exc)}") from exc
    return registry


# -- list -----------------------------------------------------------------------------------


def run_list(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck list``: a table (or JSON) of name, tags and description."""
    tools = _selected(registry, options)
    if options.json:
        rows = [{"name": t.name, "tags": list(t.tags), "description": t.description} for t in tools]
        _print_json(rows)
        return 0
    table = [("NAME", "TAGS", "DESCRIPTION")]
    table += [(t.name, ",".join(t.tags), _first_line_of(t.description)) for t in tools]
    widths = [max(_width(row[i]) for row in table) for i in range(2)]
    for name, tags, description in table:
        cells = [_pad(name, widths[0]), _pad(tags, widths[1]), description]
        print("  ".join(cells).rstrip())
    return 0


def _selected(registry: ToolRegistry, options: argparse.Namespace) -> list[Tool[..., Any]]:
    names = registry.list_tools(options.tags, match=options.match)
    return [tool for tool in map(registry.get, names) if tool is not None]


def _first_line_of(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _width(text: str) -> int:
    """Columns a terminal gives ``text``: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


# -- schema ---------------------------------------------------------------------------------


def run_schema(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck schema``: the export, as JSON."""
    try:
        if options.name is None:
            exported: Any = registry.export(
                options.format, tags=options.tags, strict=options.strict, match=options.match
            )
        else:
            if options.tags:
                raise UsageError("--tag selects tools; it cannot be combined with a NAME")
            exported = _require_tool(registry, options.name).export(
                options.format, strict=options.strict
            )
    except ToolDeckError as exc:  # e.g. a tool that strict mode cannot express
        raise UsageError(_first_line(exc)) from exc
    _print_json(exported)
    return 0


def _require_tool(registry: ToolRegistry, name: str) -> Tool[..., Any]:
    found = registry.get(name)
    if found is None:
        available = ", ".join(registry.list_tools()) or "none"
        raise UsageError(f"unknown tool {name!r} (available: {available})")
    if not found.enabled:
        raise UsageError(f"tool {name!r} is disabled")
    return found


# -- call -----------------------------------------------------------------------------------


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
        print(f"Error: {result.error}", file=sys.stderr)
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
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False, indent=2)


# -- serve ----------------------------------------------------------------------------------


def run_serve(registry: ToolRegistry, options: argparse.Namespace) -> int:
    """``tooldeck serve``: the registry as an MCP server, until interrupted."""
    http_only = {
        "--token": options.tokens,
        "--stateless": options.stateless,
        "--allow-host": options.allowed_hosts,
    }
    given = [flag for flag, value in http_only.items() if value]
    if given and options.transport == "stdio":
        raise UsageError(f"{', '.join(given)} apply to HTTP; add --transport http")
    token = _serve_token(options.tokens)
    if not registry.list_tools(options.tags):
        print("tooldeck: warning: serving no tools", file=sys.stderr)
    try:
        registry.serve(
            transport=options.transport,
            host=options.host,
            port=options.port,
            token=token,
            name=options.name,
            tags=options.tags,
            stateless=options.stateless,
            allowed_hosts=options.allowed_hosts,
        )
    except (ImportError, ValueError, OSError) as exc:
        # The `mcp` extra is missing, an empty token, a port that cannot be listened on.
        raise UsageError(_first_line(exc)) from exc
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
    print(json.dumps(value, ensure_ascii=False, indent=2))

"""The ``tooldeck`` argument parser: four subcommands, each taking ``--tools SPEC``."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any, NoReturn

from tooldeck import __version__

from ._output import shown

__all__ = ["DEFAULT_TOOLS", "FORMATS", "parse"]

DEFAULT_TOOLS = "tooldeck.tools.weather:get_weather"
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "agently")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The options of a command line (``options.command`` names the subcommand).

    Raises:
        SystemExit: ``--help``, ``--version``, or a usage error argparse found.
    """
    return _parse(_parser(), argv)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line of usage error (argparse would print the whole usage first)."""
        shown_message = shown(message, one_line=True)  # it may quote what was typed
        self.exit(2, f"{self.prog}: error: {shown_message} (see '{self.prog} --help')\n")


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
    parser.add_argument(
        "--best-effort",
        action="store_true",
        help="with --strict: export a tool strict mode cannot express without it (a warning "
        "names it)",
    )
    _add_tag_options(parser)


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
        "arguments",
        nargs="*",
        default=[],  # without a default, argparse reports a missing `*` positional as required
        metavar="KEY=VALUE",
        help="arguments (they win over --json)",
    )
    parser.add_argument(
        "--json", dest="json_arguments", metavar="OBJECT", help="arguments as a JSON object"
    )
    parser.add_argument(
        "--async", dest="use_async", action="store_true", help="call through the async face"
    )


def _add_serve(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "serve",
        parents=[common],
        help="serve the tools over MCP",
        description="Serve the enabled tools over MCP (stdio, or streamable HTTP at /mcp).",
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    # No defaults here: `serve` tells a --host or --port given with stdio from none given.
    parser.add_argument("--host", help="HTTP only; default: 127.0.0.1")
    parser.add_argument("--port", type=_port, help="HTTP only; default: 8000")
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
    parser.add_argument(
        "--max-sessions-per-client",
        type=_positive_int,
        metavar="N",
        help="HTTP only: the most sessions one client (token, else address) may hold "
        "open; one more is refused with HTTP 429 (default: 100)",
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="HTTP only: close a session idle this long (default: 1800)",
    )
    parser.add_argument("--name", default="tooldeck", help="the server name clients see")
    parser.add_argument(
        "--defer",
        nargs="?",
        const=True,
        metavar="TAG",
        help="list a search_tools tool instead of every tool (or only instead of those "
        "tagged TAG); clients find the others by searching, and call them by name",
    )
    parser.add_argument(
        "--defer-tool",
        dest="defer_tools",
        action="append",
        metavar="NAME",
        help="defer this tool behind search_tools (repeat for several)",
    )
    _add_tag_options(parser)


def _port(text: str) -> int:
    """``--port``: an integer from 0 to 65535 (argparse reports anything else)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 65535, got {text!r}")
    return port


def _positive_int(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return number


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return seconds

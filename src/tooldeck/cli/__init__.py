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

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from ._commands import COMMANDS, parse_arguments
from ._loading import load_tools
from ._output import shown
from ._parser import parse
from ._usage import UsageError

__all__ = ["main", "parse_arguments"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tooldeck`` command line; return the exit status."""
    _use_utf8()
    if argv is None:
        argv = [_from_locale(arg) for arg in sys.argv[1:]]
    try:
        options = parse(argv)
    except SystemExit as exc:  # --help, --version, or argparse's own usage errors
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with _warnings_as_lines():
            registry = load_tools(options.tools)
            status: int = COMMANDS[options.command](registry, options)
        return status
    except UsageError as exc:
        _error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tooldeck schema | head`: the reader left; that is fine
        _silence_stdout()
        return 1
    return 2


@contextlib.contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Warnings shown as ``tooldeck: warning: <message>``, like the CLI's own: no
    Python file path and source line (serving on 0.0.0.0 without a token warns)."""
    saved = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        yield
    finally:
        warnings.showwarning = saved


def _show_warning(message: Warning | str, *_: Any, **__: Any) -> None:
    text = shown(str(message).strip().replace("\n", " "), one_line=True)
    print(f"tooldeck: warning: {text}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at devnull so Python's exit-time flush does not complain again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error(message: str) -> None:
    lines = message.strip().splitlines() or ["unknown error"]
    print(f"tooldeck: error: {shown(lines[0], one_line=True)}", file=sys.stderr)


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

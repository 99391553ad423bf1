"""``registry.serve("http", port=PORT[, token=TOKEN])`` with every other setting left default.

Usage: ``python serve_defaults.py PORT [TOKEN]``. Its tools fail in the ways a served
tool must not leak: an exception raised deep inside, an unserialisable value.
"""

from __future__ import annotations

import sys

from tooldeck import ToolRegistry

registry = ToolRegistry()


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def _open_secret(path: str) -> str:
    with open(path) as handle:  # raises FileNotFoundError deep inside
        return handle.read()


@registry.tool
def explode(path: str = "/nonexistent/secret.txt") -> str:
    """Fail from deep inside, with a traceback full of paths."""
    try:
        return _open_secret(path)
    except OSError as exc:
        raise RuntimeError("the archive is unavailable") from exc


@registry.tool
def opaque():  # type: ignore[no-untyped-def]
    """Return something JSON cannot hold."""
    return {"handle": object()}


def main(argv: list[str]) -> None:
    port = int(argv[0])
    token = argv[1] if len(argv) > 1 else None
    registry.serve("http", port=port, token=token)


if __name__ == "__main__":
    main(sys.argv[1:])

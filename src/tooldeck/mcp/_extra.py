"""The ``mcp`` extra: whether ``fastmcp`` is installed, and the logger this package speaks on.

Without ``fastmcp`` every entry point raises `ImportError` naming the extra; nothing
prompts or installs (Agently's interactive ``pip install?`` prompt breaks under pytest
and in servers).
"""

from __future__ import annotations

import logging

__all__ = ["INSTALL_HINT", "logger", "require_fastmcp"]

INSTALL_HINT = "MCP support needs fastmcp: pip install 'tooldeck[mcp]'"

logger = logging.getLogger("tooldeck.mcp")
# Remote servers' log notifications are re-logged here. Without a handler of its own,
# a program that never configured logging would print them to stderr through
# logging's "last resort" handler: the importing program's output is not theirs.
logger.addHandler(logging.NullHandler())


def require_fastmcp() -> None:
    """Fail with the install hint when ``fastmcp`` is missing (never a prompt)."""
    try:
        import fastmcp  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc

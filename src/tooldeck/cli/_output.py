"""What the command line prints: every line printable, whatever its origin.

A tool's result or error, a remote server's tool names, tags and descriptions, a
module's exception message: any of them may carry terminal escapes (``\\x1b[2J``), a
carriage return that overwrites the line, or a lone surrogate. Everything the CLI
prints goes through here:

* `shown`: text with line breaks (and tabs, and spaces of any script) kept and every
  other control or format character, separator and lone surrogate shown escaped, as
  Python writes it (``\\x1b``, ``\\u2028``, ``\\udc80``);
* `json_text`: JSON whose strings escape the same characters the JSON way
  (``\\u001b``), so it still parses to the same value.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

__all__ = ["json_text", "shown"]


def _is_shown_as_is(char: str, keep: str) -> bool:
    return char.isprintable() or char in keep or unicodedata.category(char) == "Zs"


def shown(text: str, *, one_line: bool = False) -> str:
    """``text`` safe for a terminal (see the module docstring).

    With ``one_line``, line breaks and tabs are escaped too (a table cell, an error
    line).
    """
    keep = "" if one_line else "\n\t"
    if all(_is_shown_as_is(char, keep) for char in text):
        return text
    return "".join(c if _is_shown_as_is(c, keep) else repr(c)[1:-1] for c in text)


def json_text(value: Any) -> str:
    """``value`` as indented JSON, its strings escaping what `shown` escapes."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    if all(_is_shown_as_is(char, "\n") for char in text):
        return text
    # Outside strings JSON only has printable characters, spaces and line breaks, so
    # every character escaped here is inside a string, where its JSON escape (\\u001b)
    # means the same.
    return "".join(c if _is_shown_as_is(c, "\n") else json.dumps(c)[1:-1] for c in text)

"""Docstring parsing: one pass, at definition time.

docstring-parser auto-detects Google, NumPy, reST and Epydoc styles. One case it
misreads on its own: a docstring whose very first line is a section header
(``\"\"\"Args:`` right after the quotes). ``inspect.cleandoc`` leaves that first line
alone and dedents the rest to column 0, so the parser sees ``Args:`` as the summary
and no parameters. `_normalise` puts such a docstring back into a shape the
parser reads.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass, field

import docstring_parser

__all__ = ["ParsedDocstring", "parse_docstring"]

# Section headers a docstring may open with directly (Google and NumPy spellings).
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters"
    r"|Returns?|Yields?|Raises|Examples?|Notes?|Attributes)\s*:?\s*$"
)
# docstring-parser's keywords for parameter entries (not attributes, returns, raises).
_PARAM_KINDS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
# Placeholder summary that lets the parser see the first line as a section header.
_PLACEHOLDER = "\x00tooldeck-summary\x00"


@dataclass(frozen=True)
class ParsedDocstring:
    """What a tool needs from a docstring.

    Attributes:
        description: The text without its Args/Returns/Raises sections.
        params: Each documented parameter's description, in docstring order.
    """

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Parse a docstring in any style docstring-parser knows."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    text = _normalise(doc)
    parsed = _parse(text)
    summary = parsed.short_description or ""
    if summary == _PLACEHOLDER:
        summary = ""
    parts = [p.strip() for p in (summary, parsed.long_description or "") if p and p.strip()]
    joiner = "\n\n" if parsed.blank_after_short_description else "\n"
    params = {
        p.arg_name: (p.description or "").strip()
        for p in parsed.params
        if p.args and p.args[0] in _PARAM_KINDS
    }
    return ParsedDocstring(description=joiner.join(parts), params=params)


# Cheap style markers: parsing with the one matching style is several times faster
# than docstring-parser's auto mode, which runs every parser and keeps the best.
_STYLES = (
    (re.compile(r"^\s*-{3,}\s*$", re.M), docstring_parser.DocstringStyle.NUMPYDOC),
    (
        re.compile(r"^\s*:(param|parameter|arg|argument|key|keyword|returns?|raises?)\b", re.M),
        docstring_parser.DocstringStyle.REST,
    ),
    (
        re.compile(r"^\s*@(param|return|raise|type|rtype)\b", re.M),
        docstring_parser.DocstringStyle.EPYDOC,
    ),
    (
        re.compile(_SECTION.pattern.replace("^", "^\\s*", 1), re.M),
        docstring_parser.DocstringStyle.GOOGLE,
    ),
)


def _parse(text: str) -> docstring_parser.Docstring:
    for marker, style in _STYLES:
        if marker.search(text):
            try:
                return docstring_parser.parse(text, style=style)
            except docstring_parser.ParseError:
                return docstring_parser.parse(text)  # let auto-detection decide
    # No sections at all: any style reads plain text the same; reST is the cheapest.
    return docstring_parser.parse(text, style=docstring_parser.DocstringStyle.REST)


def _normalise(doc: str) -> str:
    lines = doc.expandtabs().splitlines()
    first = lines[0].strip()
    if not _SECTION.match(first):
        return inspect.cleandoc(doc)
    body = textwrap.dedent("\n".join(lines[1:]))
    if not any(_SECTION.match(line) for line in body.splitlines()):
        # The whole body belongs to the first section: indent it under the header.
        body = textwrap.indent(body, "    ")
    return f"{_PLACEHOLDER}\n\n{first}\n{body}"

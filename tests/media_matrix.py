"""The media conformance matrix: every media kind x every `run_tool_calls` format and
`to_dict()`, as data.

``CELLS[(kind, target)]`` is the documented rendering (docs/media.md's fallback table is
checked against ``LABELS``); tests/integration/test_media_providers.py checks each cell
on the real answer, its exact shape, and that it is accepted by the provider SDK's types.
"""

from __future__ import annotations

import base64
from typing import Any

from tooldeck import Audio, File, Image

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
TEXT = "Q3 notes: revenue up 4 %, 台北 office opened.\n".encode()
WAV = (  # a WAV header: mono, 8 kHz, 16-bit, no samples
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00"
    b"\x80>\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
)
IMAGE_URL = "https://example.com/chart.png"
PDF_URL = "https://example.com/q3.pdf"

KINDS: dict[str, Any] = {
    "PNG image": Image(PNG),
    "JPEG image": Image(JPEG),
    "PDF file": File(PDF, name="report.pdf"),
    "plain-text file": File(TEXT, mime_type="text/plain", name="notes.txt"),
    "WAV audio": Audio(WAV),
    "URL-only image": Image(url=IMAGE_URL),
    "URL-only PDF": File(url=PDF_URL),
}
TARGETS = ("openai", "openai-responses", "anthropic", "gemini", "to_dict()")

# Where each kind goes, per target: "native" (inside the tool result), "after" (the
# Chat way: a user message after the results), "placeholder" (named in the text, not
# sent), and the shape it takes there.
LABELS: dict[tuple[str, str], str] = {}
_ROWS = {
    "PNG image": (
        "after: `image_url` (data URL)",
        "native: `input_image` (data URL)",
        "native: `image` (base64)",
        "native: `inline_data`",
        "`image` content",
    ),
    "JPEG image": (
        "after: `image_url` (data URL)",
        "native: `input_image` (data URL)",
        "native: `image` (base64)",
        "native: `inline_data`",
        "`image` content",
    ),
    "PDF file": (
        "after: `file` (data URL)",
        "native: `input_file` (data URL)",
        "native: `document` (base64)",
        "native: `inline_data`",
        "`resource` (blob)",
    ),
    "plain-text file": (
        "after: `file` (data URL)",
        "native: `input_file` (data URL)",
        "native: `document` (text)",
        "native: `inline_data`",
        "`resource` (text)",
    ),
    "WAV audio": (
        "after: `input_audio`",
        "placeholder",
        "placeholder",
        "after: `inline_data`",
        "`audio` content",
    ),
    "URL-only image": (
        "after: `image_url` (URL)",
        "native: `input_image` (URL)",
        "native: `image` (URL)",
        "after: `file_data`",
        "`resource_link`",
    ),
    "URL-only PDF": (
        "placeholder",
        "native: `input_file` (URL)",
        "native: `document` (URL)",
        "after: `file_data`",
        "`resource_link`",
    ),
}
for _kind, _cells in _ROWS.items():
    for _target, _cell in zip(TARGETS, _cells, strict=True):
        LABELS[(_kind, _target)] = _cell

"""Real media bytes and one tool per media kind, shared by the MCP media tests (and the
stdio server in ``mcp_servers/media_tools.py``).

The kinds are the conformance matrix's rows: PNG image, JPEG image, PDF file, plain-text
file, WAV audio, URL-only image, URL-only PDF. `served_over_http` serves a registry on
127.0.0.1 for a test's duration.
"""

from __future__ import annotations

import base64
import contextlib
import io
import wave
from collections.abc import Iterator
from typing import Any

from tooldeck import Audio, File, Image, ToolRegistry, tool

# A real 1x1 PNG; JPEG and PDF headers are what the type is read from.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(16) + b"\xff\xd9"
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n%%EOF\n"
TEXT = "Quarterly notes: sales up 4 %, costs flat. 台北 ✓\n".encode()


def wav_bytes() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(bytes(320))
    return buffer.getvalue()


WAV = wav_bytes()

KINDS: dict[str, Any] = {
    "png_image": Image(PNG),
    "jpeg_image": Image(JPEG),
    "pdf_file": File(PDF, name="report.pdf"),
    "text_file": File(TEXT, mime_type="text/plain", name="notes.txt"),
    "wav_audio": Audio(WAV),
    "url_image": Image(url="https://example.com/charts/q3.png"),
    "url_pdf": File(url="https://example.com/reports/q3.pdf"),
}
# What each kind's bytes are on the wire: (content type, mimeType, the raw bytes or URL).
WIRE: dict[str, tuple[str, str, bytes | str]] = {
    "png_image": ("image", "image/png", PNG),
    "jpeg_image": ("image", "image/jpeg", JPEG),
    "pdf_file": ("resource", "application/pdf", PDF),
    "text_file": ("resource", "text/plain", TEXT),
    "wav_audio": ("audio", "audio/wav", WAV),
    "url_image": ("resource_link", "image/png", "https://example.com/charts/q3.png"),
    "url_pdf": ("resource_link", "application/pdf", "https://example.com/reports/q3.pdf"),
}


def media_registry() -> ToolRegistry:
    """A registry with one tool per kind (``png_image`` ...) and tools returning parts."""
    registry = ToolRegistry()
    for name, value in KINDS.items():
        registry.register(_returning(name, value))

    @registry.tool
    def chart(year: int = 2024) -> list[str | Image]:
        """A caption, then the chart."""
        return [f"Sales by month, {year}:", Image(PNG)]

    @registry.tool
    def every_kind() -> list[Any]:
        """Every kind, between text and JSON parts (declared `-> list`: an output schema)."""
        return ["first", *KINDS.values(), {"months": 12, "ok": True}, 7, "last"]

    @registry.tool
    def gallery() -> list[str | Image | Audio | File]:
        """Every kind, with text around them, no output schema."""
        return ["first", *KINDS.values(), "last"]

    return registry


@contextlib.contextmanager
def served_over_http(registry: ToolRegistry) -> Iterator[str]:
    """The registry served over streamable HTTP by uvicorn in a thread, on a port the
    kernel picked (bound here: no race for a free port)."""
    from listening import served  # here: the stdio server scripts import this module too

    with served(registry.http_app(), lifespan="on", timeout_graceful_shutdown=1) as port:
        yield f"http://127.0.0.1:{port}/mcp"


def _returning(name: str, value: Any) -> Any:
    def make() -> Image | Audio | File:
        return value  # type: ignore[no-any-return]

    make.__name__ = name
    make.__doc__ = f"Returns one {name.replace('_', ' ')}."
    return tool(make)

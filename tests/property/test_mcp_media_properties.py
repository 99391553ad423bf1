"""A proxy reading a remote result's media, for all content a server may send: never an
exception; every item kept, in order, as a media value or (refused) a placeholder
naming the item and the server; text items exactly as they came."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from tooldeck import Audio, File, Image
from tooldeck.mcp._results import media_value

HEADERS = [b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"RIFF\x00\x00\x00\x00WAVE", b"%PDF-", b""]
MIMES = st.sampled_from(
    ["image/png", "image/jpeg", "audio/wav", "application/pdf", "text/plain", "", "image/",
     "nonsense", "image/png; q=1", "audio/mpeg", "application/octet-stream"]
)  # fmt: skip


def b64(header: bytes, tail: bytes) -> str:
    return base64.b64encode(header + tail).decode()


DATA = st.one_of(
    st.builds(b64, st.sampled_from(HEADERS), st.binary(max_size=30)),
    st.text(max_size=20),  # mostly not base64
)  # fmt: skip
URIS = st.one_of(
    st.sampled_from(["https://example.com/a.png", "http://x.org/r.pdf", "file:///tmp/a.txt",
                     "demo://r/1", "data:image/png;base64,AAAA", "", "https://"]),
    st.text(max_size=20),
)  # fmt: skip
SERVER = "in-process server 'fuzz'"

LINE = st.text(st.characters(blacklist_characters="\n"), max_size=20)  # one text's line
GOOD = st.builds(  # media a value is made from: its bytes and their type
    lambda kind, tail: (
        ImageContent(type="image", data=b64(HEADERS[0], tail), mime_type="image/png")
        if kind == "png"
        else AudioContent(type="audio", data=b64(HEADERS[2], tail), mime_type="audio/wav")
    ),
    st.sampled_from(["png", "wav"]),
    st.binary(max_size=30),
)
ITEMS = st.one_of(
    GOOD,
    st.builds(lambda t: TextContent(type="text", text=t), LINE),
    st.builds(lambda d, m: ImageContent(type="image", data=d, mime_type=m), DATA, MIMES),
    st.builds(lambda d, m: AudioContent(type="audio", data=d, mime_type=m), DATA, MIMES),
    st.builds(
        lambda u, d, m: EmbeddedResource(
            type="resource", resource=BlobResourceContents(uri=u, blob=d, mime_type=m)
        ),
        URIS, DATA, st.one_of(st.none(), MIMES),
    ),
    st.builds(
        lambda u, t, m: EmbeddedResource(
            type="resource", resource=TextResourceContents(uri=u, text=t, mime_type=m)
        ),
        URIS, st.text(max_size=20), st.one_of(st.none(), MIMES),
    ),
    st.builds(
        lambda u, n, m: ResourceLink(type="resource_link", uri=u, name=n, mime_type=m),
        URIS, st.text(max_size=10), st.one_of(st.none(), MIMES),
    ),
)  # fmt: skip


def is_media(value: Any) -> bool:
    return type(value) in (Image, Audio, File)


@settings(max_examples=300, deadline=None)
@given(content=st.lists(ITEMS, max_size=6))
def test_reading_media_never_raises_and_keeps_every_item(content: list[Any]) -> None:
    value = media_value(CallToolResult(content=content), server=SERVER)
    if all(item.type == "text" for item in content):
        assert value is None  # no media: read as before (to_value)
        return
    if len(content) == 1:
        parts = [value]
    elif isinstance(value, str):  # no item made a media value: one text, one item a line
        parts = value.split("\n")
    else:
        parts = value
    assert len(parts) == len(content)
    for item, part in zip(content, parts, strict=True):
        if item.type == "text":
            assert part == item.text
        else:
            assert is_media(part) or (
                isinstance(part, str)
                and part.startswith(f"[{item.type}")
                and f"from MCP server {SERVER}, not usable as media: " in part
            )

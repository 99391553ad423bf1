"""Media a tool returns (`Image`, `Audio`, `File`) and their forms in results.

``_mime`` tells a value's type; ``_values`` holds the classes, checked when made;
``_content`` finds media in a result and converts it to and from MCP content.
"""

from __future__ import annotations

from ._content import mcp_form, media_from_mcp, media_parts, mentions_media
from ._values import MEDIA_TYPES, Audio, File, Image, Media, is_media

__all__ = [
    "MEDIA_TYPES",
    "Audio",
    "File",
    "Image",
    "Media",
    "is_media",
    "mcp_form",
    "media_from_mcp",
    "media_parts",
    "mentions_media",
]

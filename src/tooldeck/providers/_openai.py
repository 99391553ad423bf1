"""What OpenAI's two APIs (Chat Completions and Responses) take as media, and how much.

Both APIs read the same media and share one request's limits, so both modules read
them here. Sizes are checked on the data, before base64.
"""

from __future__ import annotations

from ._media import MB

__all__ = ["FILE_REQUEST_LIMIT", "IMAGE_REQUEST_LIMIT", "IMAGE_TYPES", "reads_file"]

# Images "up to 50 MB total payload size per request"
# (developers.openai.com/api/docs/guides/images-vision, "Image input requirements");
# files 50 MB per file and per request (developers.openai.com/api/docs/guides/pdf-files,
# "File size limits"); Chat's input_audio, with no figure published, shares the files'.
IMAGE_REQUEST_LIMIT = 50 * MB
FILE_REQUEST_LIMIT = 50 * MB
# The image types OpenAI reads (the images guide): PNG, JPEG, WebP, non-animated GIF.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


def reads_file(mime: str) -> bool:
    """The files sent: PDF (developers.openai.com/api/docs/guides/pdf-files) and text."""
    return mime == "application/pdf" or mime.startswith("text/")

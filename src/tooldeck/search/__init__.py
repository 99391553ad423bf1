"""Finding tools by what a request says: a lexical (BM25F) index over a catalog.

Imported on a registry's first `search`, never by ``import tooldeck``. The modules:
`_tokens` (text into terms, any script), `_rank` (the BM25F formula), `_index` (the
index a catalog keeps current).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._index import SearchIndex
from ._vectors import Embed

if TYPE_CHECKING:
    from tooldeck._catalog import Catalog, Match, Tags
    from tooldeck._tool import Tool

__all__ = ["SearchIndex", "search"]


def search(
    catalog: Catalog,
    query: str,
    k: int,
    tags: Tags,
    match: Match = "any",
    embed: Embed | None = None,
) -> list[Tool[..., Any]]:
    """``catalog``'s best matches for ``query``; its index is made on first use (with
    ``embed``, lexical and vector rankings are fused)."""
    with catalog.lock:
        index = catalog.search_index
        if index is None:
            index = catalog.search_index = SearchIndex(catalog, embed)
    return index.search(query, k, tags, match)  # type: ignore[no-any-return]

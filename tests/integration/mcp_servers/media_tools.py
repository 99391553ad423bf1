"""A registry over stdio whose tools return media (``media_samples``), for MCP clients
of other languages.

Usage: ``python media_tools.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from media_samples import media_registry

if __name__ == "__main__":
    media_registry().serve("stdio")

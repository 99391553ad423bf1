"""The media benchmark runs end to end in quick mode (no speed is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


def test_bench_media_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_media
    finally:
        sys.path.remove(str(ROOT))
    measured = bench_media.main(["--quick"])
    for fmt in ("openai", "openai-responses", "anthropic", "gemini"):
        assert measured[f"render {fmt}"] > 0
        assert measured[f"text turn {fmt}"] > 0
    out = capsys.readouterr().out
    assert "| anthropic | 1.0 |" in out
    assert "Text-only turn" in out

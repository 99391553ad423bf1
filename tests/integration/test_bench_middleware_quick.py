"""The middleware benchmark runs end to end in quick mode (no speed is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


def test_bench_middleware_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_middleware
    finally:
        sys.path.remove(str(ROOT))
    measured = bench_middleware.main(["--quick"])
    assert set(measured) == {
        "call_tool, a sync middleware",
        "await async_call_tool, an async middleware",
        "call_tool, OpenTelemetry without an SDK",
        "await async_call_tool, OpenTelemetry without an SDK",
    }
    for m in measured.values():
        assert min(m["floor_us"], m["without_us"], m["with_us"]) > 0
    out = capsys.readouterr().out
    assert "| call_tool, a sync middleware |" in out
    assert "| call_tool, an answer from Cache (the tool not run) |" in out

"""The agent-loop benchmark runs end to end in quick mode (no speed is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


def test_bench_tool_calls_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_tool_calls
    finally:
        sys.path.remove(str(ROOT))
    measured = bench_tool_calls.main(["--quick"])
    formats = ("openai", "openai-responses", "anthropic", "gemini")
    for face in ("sync", "async"):
        for kind in ("sync tool", "async tool"):
            for fmt in formats:
                assert measured[f"{face}, 1 call, {kind}, {fmt}"] > 0
            assert measured[f"{face}, 10 calls, {kind}, openai"] > 0
    assert measured["async tool: run_tool_calls"] > 0
    out = capsys.readouterr().out
    assert "| sync, 1 call, sync tool, openai |" in out
    assert "One call, worst ratio:" in out

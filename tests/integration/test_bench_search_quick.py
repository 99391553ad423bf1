"""The search benchmark runs end to end on a few committed cases in BFCL's layout
(`search_cases/`, written for this test; never the network). No speed is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).with_name("search_cases")

pytestmark = pytest.mark.timeout(120)


def test_bench_search_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_search
    finally:
        sys.path.remove(str(ROOT))
    measured = bench_search.main(["--quick", "--data", str(CASES), "--tools", "400"])
    assert measured["pool"] == 8  # dotted names became tool names (flight.book → flight_book)
    assert measured["tuned R@5"] == 1.0  # all six questions, both tools of the parallel one
    assert measured["held out R@1"] == 1.0
    assert measured["tools"] == 400
    assert measured["p50 ms"] > 0 and measured["build s"] > 0
    # export tokens: 50 tools (the pool repeated), every one deferred or none
    assert measured["tokens 50 openai deferred"] < measured["tokens 50 openai"] / 10
    assert measured["tokens 50 anthropic deferred seen"] < measured["tokens 50 anthropic"] / 10
    assert measured["tokens 50 anthropic deferred"] > measured["tokens 50 anthropic"]
    out = capsys.readouterr().out
    assert "| 50 | gemini |" in out
    assert "| parallel_multiple | 1 |" in out
    assert "| live_simple | 1 |" in out

"""The call-path benchmark of the reliability work runs (quick mode: no speed is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_reliability_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_reliability
    finally:
        sys.path.remove(str(ROOT))
    medians = bench_reliability.main(["--quick"])
    assert set(medians) == {"dict arguments", "JSON arguments"}
    assert set(medians["dict arguments"]) == {"floor", "call_tool", "Tool.call"}
    assert all(value > 0 for case in medians.values() for value in case.values())
    assert "| dict arguments | call_tool |" in capsys.readouterr().out

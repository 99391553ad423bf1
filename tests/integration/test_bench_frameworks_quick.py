"""The framework benchmark runs end to end in quick mode (no speed is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


def test_bench_frameworks_quick(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_frameworks
    finally:
        sys.path.remove(str(ROOT))
    measured = bench_frameworks.main(["--quick"])
    assert len(measured) == 6
    for m in measured.values():
        assert min(m["native_us"], m["tooldeck_us"], m["ratio"]) > 0
    assert "| LangChain: invoke (sync tool) |" in capsys.readouterr().out

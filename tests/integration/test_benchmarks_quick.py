"""The benchmark harness runs end to end in quick mode and writes well-formed results.

Only tooldeck and the floors are measured here (the peers come from the `bench`
extra, which the test environment does not install). Nothing is asserted about speed.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CALL_CASES = {
    "call_sync",
    "call_async",
    "call_async_sync",
    "call_json",
    "call_invalid",
    "call_invalid_async",
}
DEFINE_CASES = {"define_add", "define_annotated", "define_nested", "define_async"}
SCALE_CASES = {
    "register_one",
    "scale_register",
    "scale_memory",
    "scale_call",
    "scale_tags",
    "scale_export",
}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.run",
            "--quick",
            "--only",
            "tooldeck,floor",
            "--out",
            str(out),
            "--no-docs",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "latest.json").read_text()), out


def test_every_case_is_reported(quick_run: tuple[dict, Path]) -> None:
    result, _ = quick_run
    assert result["mode"] == "quick"
    assert {c["id"] for c in result["cases"]} == CALL_CASES | DEFINE_CASES | SCALE_CASES


def test_tooldeck_and_floor_are_measured_on_every_call_path(quick_run: tuple[dict, Path]) -> None:
    result, _ = quick_run
    for case in result["cases"]:
        if case["id"] not in CALL_CASES:
            continue
        rows = {r["subject"]: r for r in case["rows"]}
        assert set(rows) == {"tooldeck", "floor"}, case["id"]
        for row in rows.values():
            assert row["unit"] == "us"
            assert math.isfinite(row["value"]), (case["id"], row)
            assert row["value"] > 0, (case["id"], row)
            assert row["samples"] >= 3
            assert row["note"] == "", (case["id"], row)  # the sanity check of the answer passed
        assert rows["floor"]["ratio_vs_baseline"] == pytest.approx(1.0)


def test_definitions_produce_full_schemas(quick_run: tuple[dict, Path]) -> None:
    result, _ = quick_run
    for case in result["cases"]:
        if case["id"] in DEFINE_CASES:
            (row,) = [r for r in case["rows"] if r["subject"] == "tooldeck"]
            assert row["value"] > 0
            assert row["full_schema"] is True, case["id"]


def test_scale_figures_are_recorded(quick_run: tuple[dict, Path]) -> None:
    result, _ = quick_run
    cases = {c["id"]: {r["subject"]: r for r in c["rows"]} for c in result["cases"]}
    tooldeck = {cid: rows["tooldeck"] for cid, rows in cases.items() if cid in SCALE_CASES}
    assert tooldeck["scale_register"]["tools"] == result["settings"]["scale_tools"]
    assert tooldeck["scale_memory"]["peak_mb"] >= tooldeck["scale_memory"]["held_mb"] > 0
    assert tooldeck["scale_tags"]["found"] == 10
    assert tooldeck["scale_export"]["exported"] == result["settings"]["scale_tools"]
    assert tooldeck["scale_call"]["at_10_us"] > 0


def test_targets_and_markdown(quick_run: tuple[dict, Path]) -> None:
    result, out = quick_run
    targets = result["targets"]
    assert len(targets) == 15
    assert all(t["pass"] in (True, False, None) and t["measured"] for t in targets)
    assert result["meta"]["versions"]["tooldeck"]
    md = (out / "latest.md").read_text()
    assert "| path | target | measured | verdict |" in md
    assert "### Sync call by name with a dict" in md

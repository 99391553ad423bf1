"""The benchmark harness runs end to end in quick mode and writes well-formed results.

Only tooldeck and the floors are measured here (the peers come from the `bench`
extra, which the test environment does not install). Nothing is asserted about speed:
every case and every target must be present, its figures finite, its answers checked.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
try:
    from benchmarks import aggregate, report
    from benchmarks.cases_concurrency import BARE, GUARDED, guarded
    from benchmarks.docs_text import MISS_REASONS, misses_text
    from benchmarks.timing import Call, Settings, Timer, loop_source
finally:
    sys.path.remove(str(ROOT))

pytestmark = pytest.mark.timeout(400)  # a hang guard: the suite runs in parallel

PATH_CASES = {
    "call_sync",
    "call_async",
    "call_async_sync",
    "call_json",
    "call_async_json",
    "call_invalid",
    "call_invalid_async",
    "call_search_all",
    "call_search_query",
}
FACE_CASES = {"face_tool_call", "face_execute_sync", "face_execute", "face_registry_call"}
INJECTED_CASES = {"injected_call_tool", "injected_execute_sync"}
DEFINE_CASES = {"define_add", "define_annotated", "define_nested", "define_async"}
CONCURRENCY_CASES = {"conc_gather", "conc_gather_heap", "conc_to_thread", "conc_sync_face"}
TOOL_CALL_CASES = {"tool_calls_overhead", "tool_calls_concurrency"}
SCALE_CASES = {"scale_register", "scale_memory", "scale_call", "scale_tags", "scale_export"}
ALL_CASES = (
    PATH_CASES
    | FACE_CASES
    | INJECTED_CASES
    | DEFINE_CASES
    | CONCURRENCY_CASES
    | TOOL_CALL_CASES
    | SCALE_CASES
)
# Every target the issues set (8, 14, 15, 17), by id.
TARGETS = {
    "call_tool", "tool_call", "search_all", "search_query", "async_call_tool", "async_json",
    "execute_sync", "execute", "registry_call", "memory", "register", "gather",
    "define_add", "define_annotated", "define_nested", "define_async",
    "injected_call_tool", "injected_execute_sync", "run_tool_calls",
    "call_json", "call_invalid", "call_invalid_async", "call_async_sync",
    "register_all_peers", "memory_all_peers", "scale_call", "scale_tags", "scale_export",
}  # fmt: skip


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("bench")
    command = [sys.executable, "-m", "benchmarks.run", "--quick", "--only", "tooldeck,floor"]
    proc = subprocess.run(
        [*command, "--out", str(out), "--no-docs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=360,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "latest.json").read_text()), out


def _cases(result: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    return {c["id"]: {r["subject"]: r for r in c["rows"]} for c in result["cases"]}


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def test_every_case_is_reported(quick_run: tuple[dict[str, Any], Path]) -> None:
    result, _ = quick_run
    assert result["mode"] == "quick"
    assert {c["id"] for c in result["cases"]} == ALL_CASES


def test_every_call_path_and_face_is_measured_against_its_floor(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    cases = _cases(quick_run[0])
    for case_id in PATH_CASES | FACE_CASES:
        rows = cases[case_id]
        lean = {"floor (defaults left to the function)"} if "search" in case_id else set()
        assert set(rows) == {"tooldeck", "floor"} | lean, case_id
        for row in rows.values():
            assert row["unit"] == "us"
            assert _finite(row["value"]), (case_id, row)
            assert row["samples"] >= 3
            assert row["note"] == "", (case_id, row)  # the sanity check of the answer passed
            assert _finite(row["ratio_vs_baseline"]), (case_id, row)
        assert rows["floor"]["ratio_vs_baseline"] == pytest.approx(1.0)
        if lean:  # the lower reference floor validates the same arguments
            assert rows["floor (defaults left to the function)"]["loop"] == rows["floor"]["loop"]


def test_floors_are_inline_and_loops_differ_only_in_the_call(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    cases = _cases(quick_run[0])
    assert cases["call_sync"]["floor"]["loop"] == "out = func(**validate(args))"
    assert cases["call_sync"]["tooldeck"]["loop"] == "out = call_tool(name, args)"
    assert cases["call_async_json"]["floor"]["loop"] == "out = await func(**validate_json(args))"
    assert cases["call_async_json"]["tooldeck"]["loop"] == "out = await async_call_tool(name, args)"
    assert cases["face_registry_call"]["tooldeck"]["loop"] == "out = call(name, args)"
    source = loop_source(Call("f(x)", {"f": print, "x": 1}), "sync")
    assert "for _ in repeat(None, n):\n        out = f(x)\n" in source
    assert "def loop(n, f, x):" in source


def test_injected_cases_compare_with_the_same_tool_without(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    cases = _cases(quick_run[0])
    for case_id in INJECTED_CASES:
        rows = cases[case_id]
        assert len(rows) == 4
        without = rows["tooldeck, no Injected parameter"]
        assert without["ratio_vs_baseline"] == pytest.approx(1.0)
        assert _finite(rows["tooldeck, one Injected parameter"]["ratio_vs_baseline"])
        assert all(r["note"] == "" for r in rows.values()), rows


def test_definitions_produce_full_schemas(quick_run: tuple[dict[str, Any], Path]) -> None:
    cases = _cases(quick_run[0])
    for case_id in DEFINE_CASES:
        row = cases[case_id]["tooldeck"]
        assert _finite(row["value"])
        assert row["full_schema"] is True, case_id


def test_concurrency_and_tool_call_cases(quick_run: tuple[dict[str, Any], Path]) -> None:
    result = quick_run[0]
    cases = _cases(result)
    for case_id in CONCURRENCY_CASES:
        assert len(cases[case_id]) >= 2
        assert all(_finite(r["ratio_vs_baseline"]) for r in cases[case_id].values()), case_id
    for case in result["cases"]:
        if case["id"].startswith("conc_"):
            assert case["note"].count("unexpected") == 0, case  # every call answered 3
    overhead = cases["tool_calls_overhead"]
    assert len(overhead) == 20
    assert all(_finite(r["ratio"]) and _finite(r["execute_us"]) for r in overhead.values())
    assert overhead["sync, 10 calls, sync tool, openai"]["answers"] == 10
    assert len(cases["tool_calls_concurrency"]) == 8


def test_the_gather_target_compares_with_a_floor_of_the_same_contract(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    # The floor never raises either: it validates, awaits and catches, in one coroutine.
    async def tick(a: int, b: int) -> int:
        await asyncio.sleep(0)
        if a < 0:
            raise ValueError("negative")
        return a + b

    call = guarded(tick, lambda args: {"a": int(args["a"]), "b": int(args["b"])})
    assert asyncio.run(call({"a": 1, "b": 2})) == 3
    assert asyncio.run(call({"a": -1, "b": 2})) == "Error: negative"
    assert asyncio.run(call({"a": "x", "b": 2})).startswith("Error: invalid literal")

    cases = _cases(quick_run[0])
    for case_id in ("conc_gather", "conc_gather_heap"):
        rows = cases[case_id]
        assert set(rows) == {BARE, GUARDED, "tooldeck"}
        assert rows[GUARDED]["ratio_vs_baseline"] == pytest.approx(1.0)
        assert rows[GUARDED]["loop"] == "call(args)"
    [gather] = [t for t in quick_run[0]["targets"] if t["id"] == "gather"]
    assert gather["target"] == ">= 0.85x the floor (validate, await, catch)"
    rows = cases["conc_gather"]
    assert gather["value"] == pytest.approx(1 / rows["tooldeck"]["ratio_vs_baseline"])
    assert "the floor's throughput" in gather["measured"]
    assert f"the bare gather {rows[BARE]['value']:.2f} µs" in gather["measured"]


def test_an_update_splices_the_cases_measured_into_the_published_runs(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    old = quick_run[0]
    new = json.loads(json.dumps(old))
    new["cases"] = [c for c in new["cases"] if c["id"] == "conc_gather"]
    [gather] = new["cases"]
    for row in gather["rows"]:
        row["ratio_vs_baseline"] = 0.5 if row["subject"] == "tooldeck" else 1.0
    spliced = aggregate.splice(old, new)
    assert [c["id"] for c in spliced["cases"]] == [c["id"] for c in old["cases"]]
    assert next(c for c in spliced["cases"] if c["id"] == "conc_gather") == gather
    assert [c for c in spliced["cases"] if c["id"] != "conc_gather"] == [
        c for c in old["cases"] if c["id"] != "conc_gather"
    ]
    targets = {t["id"]: t for t in spliced["targets"]}
    assert targets["gather"]["value"] == pytest.approx(2.0)  # evaluated again
    assert targets["gather"]["pass"] is True
    assert set(targets) == TARGETS


def test_scale_figures_are_recorded(quick_run: tuple[dict[str, Any], Path]) -> None:
    result = quick_run[0]
    tooldeck = {cid: rows["tooldeck"] for cid, rows in _cases(result).items() if cid in SCALE_CASES}
    n = result["settings"]["scale_tools"]
    assert tooldeck["scale_register"]["tools"] == n
    assert _finite(tooldeck["scale_register"]["us_per_tool"])
    memory = tooldeck["scale_memory"]
    assert memory["peak_mb"] >= memory["held_mb"] > 0
    assert _finite(memory["kb_per_tool_held"]) and memory["kb_per_tool_rss"] >= 0
    assert tooldeck["scale_tags"]["found"] == 10
    assert tooldeck["scale_export"]["exported"] == n
    assert _finite(tooldeck["scale_call"]["at_10_us"])


def test_every_target_is_evaluated(quick_run: tuple[dict[str, Any], Path]) -> None:
    result, out = quick_run
    targets = {t["id"]: t for t in result["targets"]}
    assert set(targets) == TARGETS
    for target in targets.values():
        assert target["path"] and target["target"] and target["op"] in ("<=", "<", ">=", ">")
        if target["needs"]:  # a peer is needed: none is installed here
            assert target["value"] is None and target["pass"] is None, target
        else:
            assert _finite(target["value"]), target
            assert target["pass"] in (True, False), target
    md = (out / "latest.md").read_text()
    assert "| issue | path | target | measured | verdict |" in md
    assert "### Sync call by name with a dict" in md


def test_runs_aggregate_to_medians_with_their_spread(
    quick_run: tuple[dict[str, Any], Path],
) -> None:
    result = quick_run[0]
    runs = []
    for scale in (1.0, 2.0, 4.0):  # three runs: the same shape, other figures
        copy = json.loads(json.dumps(result))
        for case in copy["cases"]:
            for row in case["rows"]:
                row["value"] = row["value"] * scale if row["value"] else row["value"]
        for target in copy["targets"]:
            target["value"] = target["value"] * scale if target["value"] else None
        runs.append(copy)
    merged = aggregate.aggregate(runs)
    assert merged["runs"] == 3
    row = next(r for c in merged["cases"] if c["id"] == "call_sync" for r in c["rows"])
    assert row["value"] == pytest.approx(2 * next(
        r for c in result["cases"] if c["id"] == "call_sync" for r in c["rows"]
    )["value"])  # fmt: skip
    assert len(row["runs"]["value"]) == 3
    target = next(t for t in merged["targets"] if t["id"] == "call_tool")
    assert target["value"] == pytest.approx(2 * next(
        t for t in result["targets"] if t["id"] == "call_tool"
    )["value"])  # fmt: skip
    assert "runs" in target["measured"]
    table = "\n".join(
        report.case_table(next(c for c in merged["cases"] if c["id"] == "call_sync"), 3)
    )
    assert "median µs (runs min–max)" in table


def test_timer_measures_generated_loops() -> None:
    timer = Timer(Settings.make(True))
    try:
        calls = {"one": Call("len(x)", {"x": "abc"}), "two": Call("len(x) + len(x)", {"x": "ab"})}
        measured = timer.compare(calls, rounds=3)
        assert set(measured) == {"one", "two"}
        assert all(len(s.samples) == 3 and s.median > 0 for s in measured.values())
        assert timer.once(calls["two"]) == 4
    finally:
        timer.close()


def test_the_docs_explain_the_missed_targets_and_only_those() -> None:
    def target(id_: str, passed: bool | None) -> dict[str, Any]:
        return {"id": id_, "path": f"path of {id_}", "pass": passed}

    assert misses_text([target("gather", True), target("call_tool", None)]) == ""
    section = misses_text(
        [
            target("gather", False),
            target("injected_call_tool", False),
            target("injected_execute_sync", False),
            target("run_tool_calls", True),
            target("new_target", False),
        ]
    )
    assert section.startswith("### Where a target is missed, and why")
    assert MISS_REASONS["gather"].splitlines()[0] in section
    assert section.count("**One `Injected` parameter**") == 1  # one reason, said once
    assert MISS_REASONS["run_tool_calls"].splitlines()[0] not in section
    assert "**path of new_target**: not explained yet." in section

"""Several full runs, each in a process of its own, and their medians.

``python -m benchmarks.run --runs 3`` runs the benchmark three times, one after
another, each in a fresh interpreter, then merges them: every figure of every row is
the median of the runs' figures (``runs`` keeps them all, for the spread), and every
target's value is the median of the runs' values, its verdict that median's — except
a target that must hold in every run, which passes only if it passed in each.

``--update`` measures only some cases (``--skip``) and splices them into the published
runs (``results/runs/runN.json``), each new run into the old run of the same number,
before the medians are taken again: one case re-measured, every figure published.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.targets import OPS, evaluate

ROOT = Path(__file__).resolve().parent.parent


def run_separately(
    runs: int, passthrough: list[str], out: Path, log: Callable[[str], None]
) -> list[dict[str, Any]]:
    """Run ``benchmarks.run`` `runs` times in fresh processes; keep each run's JSON."""
    results = []
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for i in range(1, runs + 1):
        run_out = out / "runs" / f"run{i}"
        log(f"run {i} of {runs}")
        command = [sys.executable, "-m", "benchmarks.run", *passthrough]
        command += ["--out", str(run_out), "--no-docs", "--runs", "1"]
        subprocess.run(command, cwd=ROOT, check=True)
        result = json.loads((run_out / "latest.json").read_text())
        (out / "runs" / f"run{i}.json").write_text(json.dumps(result, indent=1) + "\n")
        for leftover in run_out.iterdir():
            leftover.unlink()
        run_out.rmdir()
        results.append(result)
    return results


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _median(values: list[Any]) -> Any:
    numbers = [v for v in values if _is_number(v)]
    return statistics.median(numbers) if numbers else None


def merge_rows(rows: list[dict[str, Any] | None]) -> dict[str, Any]:
    """One row from the same row of each run: numbers as medians, `runs` keeps them."""
    present = [r for r in rows if r is not None]
    merged = dict(present[0])
    merged["runs"] = {}
    for key, value in present[0].items():
        if _is_number(value) or value is None:
            values = [r.get(key) for r in present]
            if any(_is_number(v) for v in values):
                merged[key] = _median(values)
                merged["runs"][key] = values
    merged["note"] = next((r["note"] for r in present if r.get("note")), "")
    return merged


def merge_cases(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for case in results[0]["cases"]:
        same = [next((c for c in r["cases"] if c["id"] == case["id"]), None) for r in results]
        rows = []
        for row in case["rows"]:
            matching = [
                next((x for x in c["rows"] if x["subject"] == row["subject"]), None) if c else None
                for c in same
            ]
            rows.append(merge_rows(matching))
        out.append({**case, "rows": rows})
    return out


def merge_targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for target in results[0]["targets"]:
        same = [next(t for t in r["targets"] if t["id"] == target["id"]) for r in results]
        values = [t["value"] for t in same]
        merged = dict(target, runs=values)
        measured = [v for v in values if v is not None]
        if not measured:
            out.append(merged)
            continue
        median = statistics.median(measured)
        # The run whose value is nearest the median speaks for the details.
        nearest = min(
            (t for t in same if t["value"] is not None), key=lambda t: abs(t["value"] - median)
        )
        merged["value"] = median
        if target["every_run"]:
            passes = [t["pass"] for t in same]
            merged["pass"] = None if None in passes else all(passes)
            spread = ", ".join(f"{v:.2f}" for v in measured)
            merged["measured"] = (
                f"{len(measured)} runs: {spread}; median run: {nearest['measured']}"
            )
        else:
            merged["pass"] = OPS[target["op"]](median, target["limit"])
            merged["measured"] = (
                f"**{median:.2f}x** (runs {min(measured):.2f}–{max(measured):.2f}x); "
                f"median run: {nearest['measured']}"
            )
        out.append(merged)
    return out


def aggregate(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs as one result, in the shape of a single run's, plus `runs`."""
    first = results[0]
    peers = [set(r.get("full_schema_peers") or []) for r in results]
    return {
        **first,
        "runs": len(results),
        "seconds": statistics.median(r["seconds"] for r in results),
        "run_seconds": [r["seconds"] for r in results],
        "meta": {**first["meta"], "date": results[-1]["meta"]["date"]},
        "cases": merge_cases(results),
        "targets": merge_targets(results),
        "full_schema_peers": sorted(set.intersection(*peers)) if peers else [],
    }


def published_runs(out: Path, runs: int) -> list[dict[str, Any]]:
    """The `runs` published runs in `out` (``--update`` splices new cases into them)."""
    paths = [out / "runs" / f"run{i}.json" for i in range(1, runs + 1)]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise SystemExit(f"--update: no published run to update: {', '.join(missing)}")
    return [json.loads(path.read_text()) for path in paths]


def splice(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """`old` with the cases `new` measured in their place (new ids appended), and the
    targets evaluated again on the whole."""
    fresh = {case["id"]: case for case in new["cases"]}
    cases = [fresh.pop(case["id"], case) for case in old["cases"]] + list(fresh.values())
    return {**old, "cases": cases, "targets": evaluate(cases)}


def save_runs(out: Path, results: list[dict[str, Any]]) -> None:
    for i, result in enumerate(results, 1):
        (out / "runs" / f"run{i}.json").write_text(json.dumps(result, indent=1) + "\n")

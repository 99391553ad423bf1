"""The targets the issues set, evaluated on a run's results (never asserted).

Each target reads one number from the cases (a ratio, mostly) and compares it with
its limit. A target whose number could not be measured (a peer missing, a case
skipped) is reported with ``value: None`` and ``pass: None``. Across several runs
(`benchmarks.aggregate`), a target's value is the median of the runs' values and its
verdict that median's, except for targets that must hold ``in every run``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.cases_calls import WITH
from benchmarks.cases_concurrency import BARE, GUARDED
from benchmarks.cases_define import full_schema_peers
from benchmarks.functions import DEFINITION_FUNCS
from benchmarks.results import find_row

OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}
PYDANTIC_AI = "pydantic-ai-slim"


@dataclass
class Target:
    id: str
    issue: str
    path: str
    target: str
    op: str
    limit: float
    value: float | None = None
    measured: str = "not measured"
    every_run: bool = False  # the verdict needs every run to pass, not the median
    needs: list[str] = field(default_factory=list)  # subjects besides tooldeck and floor
    passed: bool | None = None

    def settle(self, value: float | None, measured: str) -> None:
        self.value, self.measured = value, measured
        self.passed = None if value is None else OPS[self.op](value, self.limit)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pass"] = d.pop("passed")
        return d


Cases = list[dict[str, Any]]

# (id, issue, path, case, limit): tooldeck's paired ratio to the case's baseline.
RATIO_TARGETS = [
    ("call_tool", "17", "`call_tool`, `add`, a dict", "call_sync", 1.5),
    ("tool_call", "17", "`tool.call`, `add`, a dict", "face_tool_call", 1.5),
    ("search_all", "17", "`call_tool`, `search`, every argument", "call_search_all", 1.8),
    ("search_query", "17", "`call_tool`, `search`, only `query`", "call_search_query", 1.8),
    ("async_call_tool", "17", "`await async_call_tool`, async `add`, a dict", "call_async", 1.5),
    ("async_json", "17", "`await async_call_tool`, async `add`, JSON text", "call_async_json", 2.0),
    ("execute_sync", "17", "`execute_sync`", "face_execute_sync", 2.5),
    ("execute", "17", "`await execute`, async `add`", "face_execute", 2.5),
    ("registry_call", "17", "`registry.call`", "face_registry_call", 4.0),
    ("injected_call_tool", "15", "one `Injected` parameter, `call_tool`", "injected_call_tool",
     1.2),
    ("injected_execute_sync", "15", "one `Injected` parameter, `execute_sync`",
     "injected_execute_sync", 1.2),
    ("call_json", "8", "sync `call_tool` with JSON text", "call_json", 2.0),
    ("call_invalid", "8", "invalid-arguments error path", "call_invalid", 3.0),
    ("call_invalid_async", "8", "invalid-arguments error path, async tool",
     "call_invalid_async", 3.0),
    ("call_async_sync", "8", "async call of a sync tool (threaded)", "call_async_sync", 1.3),
]  # fmt: skip

BASELINE_WORDS = {
    "face_execute": "the async floor",
    "call_async_json": "`validate_json` + await",
    "call_json": "`validate_json` + the call",
    "injected_call_tool": "the same tool without it",
    "injected_execute_sync": "the same tool without it",
}


def _ratio_target(cases: Cases, spec: tuple[str, str, str, str, float]) -> Target:
    tid, issue, path, case_id, limit = spec
    base = BASELINE_WORDS.get(case_id, "the inline floor")
    target = Target(tid, issue, path, f"<= {limit:g}x {base}", "<=", limit)
    subject = WITH if case_id.startswith("injected_") else "tooldeck"
    row = find_row(cases, case_id, subject)
    baseline = next((c["baseline"] for c in cases if c["id"] == case_id), None)
    floor = find_row(cases, case_id, baseline) if baseline else None
    if row and floor and row["ratio_vs_baseline"] is not None:
        ratio = row["ratio_vs_baseline"]
        target.settle(ratio, f"{ratio:.2f}x ({row['value']:.2f} vs {floor['value']:.2f} µs)")
    return target


def _definition_targets(cases: Cases, full_peers: set[str]) -> list[Target]:
    out = []
    for key in DEFINITION_FUNCS:
        target = Target(
            f"define_{key}",
            "17",
            f"definition: {key}",
            "faster than every full-schema peer, in every run",
            ">",
            1.0,
            every_run=True,
            needs=sorted(full_peers) or ["full-schema peers"],
        )
        case = next((c for c in cases if c["id"] == f"define_{key}"), None)
        td = find_row(cases, f"define_{key}", "tooldeck")
        rivals = [
            r
            for r in (case or {}).get("rows", [])
            if r["value"] is not None and r["subject"] in full_peers
        ]
        if td and rivals:
            # Round-by-round ratios peer / tooldeck: above 1, tooldeck was faster.
            closest = min(rivals, key=lambda r: r["ratio_vs_tooldeck"])
            ratio = closest["ratio_vs_tooldeck"]
            target.settle(
                ratio,
                f"{td['value']:.0f} µs; closest peer {closest['subject']} "
                f"{closest['value']:.0f} µs ({ratio:.2f}x tooldeck's time)",
            )
        out.append(target)
    return out


def _scale_targets(cases: Cases, full_peers: set[str]) -> list[Target]:
    mem = Target("memory", "17", "10,000 distinct tools: memory held", "below Pydantic AI's",
                 "<", 1.0, needs=[PYDANTIC_AI])  # fmt: skip
    td_mem, pa_mem = (
        find_row(cases, "scale_memory", "tooldeck"),
        find_row(cases, "scale_memory", PYDANTIC_AI),
    )
    if td_mem and pa_mem and td_mem["tools"] == pa_mem["tools"]:
        ratio = td_mem["value"] / pa_mem["value"]
        mem.settle(
            ratio,
            f"{td_mem['value']:.1f} KB/tool vs {pa_mem['value']:.1f} at {td_mem['tools']:,} "
            f"({ratio:.2f}x; RSS {td_mem['kb_per_tool_rss']:.1f} vs "
            f"{pa_mem['kb_per_tool_rss']:.1f} KB/tool)",
        )
    reg = Target("register", "17", "10,000 distinct tools: registration",
                 ">= 1.5x faster than Pydantic AI", ">=", 1.5, needs=[PYDANTIC_AI])  # fmt: skip
    td_reg, pa_reg = (
        find_row(cases, "scale_register", "tooldeck"),
        find_row(cases, "scale_register", PYDANTIC_AI),
    )
    if td_reg and pa_reg and pa_reg.get("ratio_vs_tooldeck"):
        ratio = pa_reg["ratio_vs_tooldeck"]
        reg.settle(
            ratio,
            f"{td_reg['us_per_tool']:.0f} vs {pa_reg['us_per_tool']:.0f} µs/tool; paired, "
            f"Pydantic AI takes {ratio:.2f}x tooldeck's time",
        )
    return [mem, reg, *_issue8_scale_targets(cases, full_peers)]


def _issue8_scale_targets(cases: Cases, full_peers: set[str]) -> list[Target]:
    peers = sorted(full_peers) or ["full-schema peers"]
    reg = Target("register_all_peers", "8", "registering distinct tools",
                 "faster than every full-schema peer", ">", 1.0, needs=peers)  # fmt: skip
    rows = [find_row(cases, "scale_register", p) for p in full_peers]
    paired = [r for r in rows if r and r.get("ratio_vs_tooldeck")]
    if find_row(cases, "scale_register", "tooldeck") and paired:
        closest = min(paired, key=lambda r: r["ratio_vs_tooldeck"])
        ratio = closest["ratio_vs_tooldeck"]
        reg.settle(ratio, f"closest peer {closest['subject']} takes {ratio:.2f}x tooldeck's time")
    mem = Target("memory_all_peers", "8", "memory held by distinct tools",
                 "at most the leanest full-schema peer", "<=", 1.0, needs=peers)  # fmt: skip
    td = find_row(cases, "scale_memory", "tooldeck")
    held = [r for r in (find_row(cases, "scale_memory", p) for p in full_peers) if r]
    if td and held:
        leanest = min(held, key=lambda r: r["value"])
        ratio = td["value"] / leanest["value"]
        mem.settle(
            ratio,
            f"{td['value']:.1f} KB/tool vs {leanest['subject']} {leanest['value']:.1f} "
            f"({ratio:.2f}x)",
        )
    out = [reg, mem]
    for tid, case_id, field_, limit, op, words in [
        ("scale_call", "scale_call", "n_over_10", 1.25, "<=", "the same as at 10 tools"),
        ("scale_tags", "scale_tags", "n_over_100", 1.5, "<=", "independent of registry size"),
        ("scale_export", "scale_export", "first_over_second", 20.0, ">=",
         ">= 20x faster than the first"),
    ]:  # fmt: skip
        path = {
            "scale_call": "call by name among N distinct tools",
            "scale_tags": "tag query among N distinct tools",
            "scale_export": "second export of N distinct tools",
        }[tid]
        target = Target(tid, "8", path, words, op, limit)
        row = find_row(cases, case_id, "tooldeck")
        if row and row.get(field_) is not None:
            target.settle(row[field_], f"{row[field_]:.2f}x at {row['tools']:,} tools")
        out.append(target)
    return out


def _other_targets(cases: Cases) -> list[Target]:
    gather = Target("gather", "17", "10,000 gathered calls of an async tool that awaits once "
                    "(a process holding only tooldeck)",
                    ">= 0.85x the floor (validate, await, catch)", ">=", 0.85)  # fmt: skip
    row, floor = find_row(cases, "conc_gather", "tooldeck"), find_row(cases, "conc_gather", GUARDED)
    bare = find_row(cases, "conc_gather", BARE)
    if row and floor and bare and row["ratio_vs_baseline"]:
        speed = 1 / row["ratio_vs_baseline"]
        gather.settle(
            speed,
            f"{speed:.2f}x the floor's throughput ({row['value']:.2f} vs "
            f"{floor['value']:.2f} µs per call); the bare gather {bare['value']:.2f} µs "
            f"per call (tooldeck at {bare['value'] / row['value']:.2f}x its throughput)",
        )
    calls = Target("run_tool_calls", "14", "`run_tool_calls`, one call, worst of every format",
                   "<= 3x `execute` on the same tool", "<=", 3.0)  # fmt: skip
    overhead = next((c for c in cases if c["id"] == "tool_calls_overhead"), None)
    targeted = [r for r in (overhead or {}).get("rows", []) if r.get("targeted")]
    if targeted:
        worst = max(targeted, key=lambda r: r["ratio"])
        calls.settle(worst["ratio"], f"{worst['ratio']:.2f}x ({worst['subject']})")
    return [gather, calls]


def evaluate(cases: Cases) -> list[dict[str, Any]]:
    """Every target, with its measured value and verdict, in a stable order."""
    full_peers = set(full_schema_peers(cases))
    targets = [_ratio_target(cases, spec) for spec in RATIO_TARGETS]
    targets += _scale_targets(cases, full_peers)
    targets += _other_targets(cases)
    targets += _definition_targets(cases, full_peers)
    order = {"17": 0, "15": 1, "14": 2, "8": 3}
    targets.sort(key=lambda t: order[t.issue])
    return [t.to_dict() for t in targets]

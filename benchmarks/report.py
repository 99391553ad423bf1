"""A result as markdown: the run's header, the targets, one table per case.

Works on one run's result and on the aggregate of several (`benchmarks.aggregate`),
where each figure is the median of the runs' figures and ``runs`` holds them all: the
tables then show the runs' spread (min–max) instead of the quartiles of one run.
"""

from __future__ import annotations

from typing import Any

Column = tuple[str, str, str]  # header, row key, kind (how the cell is formatted)

VERDICT = {True: "pass", False: "**fail**", None: "not measured"}


def fmt(value: Any, kind: str) -> str:
    if value is None:
        return "—"
    if kind == "text":
        return str(value)
    if kind == "n":
        return f"{value:,}"
    if kind == "bool":
        return {True: "yes", False: "no"}.get(value, "—")
    if kind == "ratio":
        return f"{value:.2f}x" if value < 100 else f"{value:,.0f}x"
    if kind in ("us", "ms"):
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    if kind == "ms3":
        return f"{value:,.3f}"
    return f"{value:,.2f}"  # s, KB, MB


def cell(row: dict[str, Any], key: str, kind: str) -> str:
    """A formatted figure, with the runs' min–max when the result aggregates runs."""
    text = fmt(row.get(key), kind)
    runs = row.get("runs", {}).get(key)
    if kind in ("text", "n", "bool") or not runs or len(runs) < 2 or row.get(key) is None:
        return text
    low, high = min(runs), max(runs)
    return f"{text} ({fmt(low, kind).rstrip('x')}–{fmt(high, kind)})"


def _spread(row: dict[str, Any]) -> str:
    if row.get("p25") is None:
        return "—"
    return f"{fmt(row['p25'], 'us')}–{fmt(row['p75'], 'us')}"


PER_CALL: list[Column] = [
    ("subject", "subject", "text"),
    ("version", "version", "text"),
    ("median µs", "value", "us"),
    ("p25–p75 µs", "", "spread"),
    ("vs floor", "ratio_vs_baseline", "ratio"),
    ("vs tooldeck", "ratio_vs_tooldeck", "ratio"),
    ("note", "note", "text"),
]
DEFINE: list[Column] = [
    *PER_CALL[:4],
    ("full JSON schema", "full_schema", "bool"),
    *PER_CALL[5:],
]
BASELINE_HEAD = {
    "injected": "vs no Injected",
    "concurrency": "vs baseline",
}
TABLES: dict[str, list[Column]] = {
    "scale_register": [
        ("subject", "subject", "text"),
        ("tools", "tools", "n"),
        ("total s", "value", "s"),
        ("µs per tool", "us_per_tool", "us"),
        ("vs tooldeck (paired)", "ratio_vs_tooldeck", "ratio"),
        ("projected s at 10,000", "projected_10000_s", "s"),
        ("note", "note", "text"),
    ],
    "scale_memory": [
        ("subject", "subject", "text"),
        ("tools", "tools", "n"),
        ("KB per tool held", "value", "KB"),
        ("KB per tool, RSS", "kb_per_tool_rss", "KB"),
        ("held MB", "held_mb", "MB"),
        ("peak MB", "peak_mb", "MB"),
        ("projected held MB at 10,000", "projected_10000_held_mb", "MB"),
    ],
    "scale_call": [
        ("subject", "subject", "text"),
        ("N", "tools", "n"),
        ("µs at 10 tools", "at_10_us", "us"),
        ("µs at N tools", "at_n_us", "us"),
        ("N / 10", "n_over_10", "ratio"),
        ("note", "note", "text"),
    ],
    "scale_tags": [
        ("subject", "subject", "text"),
        ("N", "tools", "n"),
        ("µs at 100 tools", "at_100_us", "us"),
        ("µs at N tools", "at_n_us", "us"),
        ("N / 100", "n_over_100", "ratio"),
        ("note", "note", "text"),
    ],
    "scale_export": [
        ("subject", "subject", "text"),
        ("N", "tools", "n"),
        ("first ms", "first_ms", "ms"),
        ("second ms", "second_ms", "ms3"),
        ("first / second", "first_over_second", "ratio"),
        ("note", "note", "text"),
    ],
    "tool_calls_overhead": [
        ("case", "subject", "text"),
        ("execute directly µs", "execute_us", "us"),
        ("run_tool_calls µs", "value", "us"),
        ("ratio", "ratio", "ratio"),
        ("3x target applies", "targeted", "bool"),
    ],
    "tool_calls_concurrency": [("how", "subject", "text"), ("wall ms", "value", "ms")],
}


def columns(case: dict[str, Any], runs: int) -> list[Column]:
    if case["id"] in TABLES:
        return TABLES[case["id"]]
    cols = DEFINE if case["id"].startswith("define_") else PER_CALL
    head = BASELINE_HEAD.get(case.get("group", ""))
    out = [
        (head, k, kind) if k == "ratio_vs_baseline" and head else (h, k, kind)
        for h, k, kind in cols
    ]
    if runs > 1:  # the runs' spread instead of one run's quartiles
        out = [(h + " (runs min–max)" if k == "value" else h, k, kind) for h, k, kind in out if k]
    return out


def case_table(case: dict[str, Any], runs: int = 1) -> list[str]:
    cols = columns(case, runs)
    lines = ["| " + " | ".join(h for h, _, _ in cols) + " |", "|" + "---|" * len(cols)]
    for row in case["rows"]:
        values = [_cell(row, key, kind, runs) for _, key, kind in cols]
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in values) + " |")
    return lines


def _cell(row: dict[str, Any], key: str, kind: str, runs: int) -> str:
    if kind == "spread":
        return _spread(row)
    return cell(row, key, kind) if runs > 1 else fmt(row.get(key), kind)


def targets_table(targets: list[dict[str, Any]]) -> str:
    lines = ["| issue | path | target | measured | verdict |", "|---|---|---|---|---|"]
    lines += [
        f"| {t['issue']} | {t['path']} | {t['target']} | {t['measured']} | {VERDICT[t['pass']]} |"
        for t in targets
    ]
    return "\n".join(lines)


def header(result: dict[str, Any]) -> list[str]:
    meta = result["meta"]
    runs = result.get("runs", 1)
    clock = "process CPU time" if result.get("clock", "cpu") == "cpu" else "wall time"
    when = f"Median of {runs} runs (separate processes, one after another)" if runs > 1 else "Run"
    lines = [
        f"{when} {meta['date']} ({result['mode']} mode) on {meta['cpu']}, {meta['cores']} "
        f"cores, {meta['implementation']} {meta['python']}, {meta['platform']}. Clock: "
        f"{clock}; {'each run took' if runs > 1 else 'the run took'} "
        f"{result.get('seconds', 0):.0f} s{' (median)' if runs > 1 else ''}.",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v) + ".",
        "",
    ]
    if result.get("full_schema_peers") is not None:
        lines += [
            "Peers with a full JSON schema for all four definition functions (the ones the "
            "definition targets compare with): "
            + (", ".join(result["full_schema_peers"]) or "none")
            + ".",
            "",
        ]
    if meta.get("registers"):
        lines += ["What registering a tool means for each subject:", ""]
        lines += [f"- {k}: {v}" for k, v in meta["registers"].items()] + [""]
    if meta.get("skipped"):
        lines += ["Skipped: " + "; ".join(f"{k}: {v}" for k, v in meta["skipped"].items()), ""]
    return lines


def render_markdown(result: dict[str, Any]) -> str:
    """The header and every case's table (the targets are rendered apart)."""
    lines = header(result)
    runs = result.get("runs", 1)
    for case in result["cases"]:
        lines += [f"### {case['title']}", ""]
        if case["note"]:
            lines += [f"_{case['note']}_", ""]
        lines += case_table(case, runs)
        lines.append("")
    return "\n".join(lines)


def loops_listing(result: dict[str, Any], case_ids: tuple[str, ...]) -> list[str]:
    """The timed loop bodies of some cases, as recorded: floor and subject side by side."""
    lines = []
    for case in result["cases"]:
        if case["id"] not in case_ids:
            continue
        lines += [f"`{case['id']}`:", "", "```text"]
        for row in case["rows"]:
            if row.get("loop") and row["subject"] in (case["baseline"], "tooldeck"):
                lines.append(f"# {row['subject']}")
                lines.append(row["loop"])
        lines += ["```", ""]
    return lines

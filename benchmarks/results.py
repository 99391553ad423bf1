"""What a case records: its rows (one per subject) and how they become JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarks.timing import Stats


@dataclass
class Row:
    subject: str
    version: str
    value: float | None  # the median, in the case's unit
    unit: str
    spread: tuple[float, float] | None = None  # 25th and 75th percentile
    samples: int = 0
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Exception texts span lines and link to docs: one short line for a table cell.
        first = " ".join(self.note.split())
        self.note = first if len(first) <= 160 else first[:157] + "..."


def stats_row(stats: Stats, subject: str, version: str, note: str = "", **extra: Any) -> Row:
    """A row in µs per call from one subject's samples."""
    return Row(
        subject,
        version,
        stats.median * 1e6,
        "us",
        (stats.p25 * 1e6, stats.p75 * 1e6),
        len(stats.samples),
        note,
        extra,
    )


def missing_row(subject: str, version: str, reason: str, unit: str = "us") -> Row:
    return Row(subject, version, None, unit, note=f"not measured: {reason}")


@dataclass
class Case:
    id: str
    title: str
    baseline: str | None  # the subject ratios are taken against
    rows: list[Row] = field(default_factory=list)
    note: str = ""
    group: str = ""

    def value(self, subject: str) -> float | None:
        return next((r.value for r in self.rows if r.subject == subject), None)

    def row(self, subject: str) -> Row | None:
        return next((r for r in self.rows if r.subject == subject and r.value is not None), None)

    def add_measured(
        self,
        measured: dict[str, Stats],
        versions: dict[str, str],
        notes: dict[str, str] | None = None,
        **extra: dict[str, Any],
    ) -> None:
        """One row per measured subject, with its paired ratios to the baseline and to
        tooldeck; `extra[label]` adds fields to that subject's row."""
        base = measured.get(self.baseline) if self.baseline else None
        td = measured.get("tooldeck")
        for label, stats in measured.items():
            paired: dict[str, Any] = {}
            if base is not None:
                paired["paired_ratio"] = stats.ratio_to(base)
            if td is not None:
                paired["paired_vs_tooldeck"] = stats.ratio_to(td)
            paired.update(extra.get(label, {}))
            note = (notes or {}).get(label, "")
            self.rows.append(stats_row(stats, label, versions.get(label, ""), note, **paired))

    def to_dict(self) -> dict[str, Any]:
        base = self.value(self.baseline) if self.baseline else None
        td = self.value("tooldeck")
        rows = []
        for r in self.rows:
            d = {
                "subject": r.subject,
                "version": r.version,
                "value": r.value,
                "unit": r.unit,
                "p25": r.spread[0] if r.spread else None,
                "p75": r.spread[1] if r.spread else None,
                "samples": r.samples,
                "ratio_vs_baseline": r.extra.get("paired_ratio", ratio(r.value, base)),
                "ratio_vs_tooldeck": r.extra.get("paired_vs_tooldeck", ratio(r.value, td)),
                "note": r.note,
            }
            d.update((k, v) for k, v in r.extra.items() if not k.startswith("paired_"))
            rows.append(d)
        return {
            "id": self.id,
            "group": self.group,
            "title": self.title,
            "baseline": self.baseline,
            "note": self.note,
            "rows": rows,
        }


def ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return value / base


def find_row(cases: list[dict[str, Any]], case_id: str, subject: str) -> dict[str, Any] | None:
    """A measured row of a case in a result's `cases` (JSON form)."""
    for case in cases:
        if case["id"] == case_id:
            for row in case["rows"]:
                if row["subject"] == subject and row["value"] is not None:
                    return row
    return None

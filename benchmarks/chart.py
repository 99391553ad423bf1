"""The chart of the call and definition cases (matplotlib, from the `bench` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def render_chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    groups = [c for c in result["cases"] if c["id"].startswith(("call_", "define_"))]
    subjects: list[str] = []
    for case in groups:
        for row in case["rows"]:
            if row["value"] is not None and row["subject"] not in subjects:
                subjects.append(row["subject"])
    fig, axes = plt.subplots(1, 2, figsize=(15, 7))
    many = len(subjects) > 10  # one colour per subject
    palette = plt.get_cmap("tab20" if many else "tab10")
    colour = {s: palette(i % (20 if many else 10)) for i, s in enumerate(subjects)}
    for ax, prefix, title in [
        (axes[0], "call_", "Per call (µs, log scale)"),
        (axes[1], "define_", "Definition to JSON schema (µs, log; hatched: not a full schema)"),
    ]:
        chosen = [c for c in groups if c["id"].startswith(prefix)]
        height = 0.8 / max(1, len(subjects))
        for i, case in enumerate(chosen):
            rows = {r["subject"]: r for r in case["rows"] if r["value"] is not None}
            for j, subject in enumerate(subjects):
                if subject in rows:
                    partial = rows[subject].get("full_schema") is False
                    ax.barh(
                        i + j * height,
                        rows[subject]["value"],
                        height,
                        color=colour[subject],
                        hatch="///" if partial else None,
                        edgecolor="white" if partial else None,
                        label=subject,
                    )
        ax.set_yticks([i + 0.4 - height / 2 for i in range(len(chosen))])
        ax.set_yticklabels([c["id"].removeprefix(prefix) for c in chosen])
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(title)
        ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=9)
    meta = result["meta"]
    runs = result.get("runs", 1)
    fig.suptitle(
        f"tooldeck vs peers — {meta['cpu']}, {meta['cores']} cores, Python {meta['python']}, "
        f"{meta['date'][:10]}{f', median of {runs} runs' if runs > 1 else ''} (shorter is faster)"
    )
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)

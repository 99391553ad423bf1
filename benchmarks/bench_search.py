"""How well `registry.search` finds the right tool, and what it costs.

    python -m benchmarks.bench_search                  # BFCL (fetched once), 10,000 tools
    python -m benchmarks.bench_search --quick          # the same, fewer timing rounds
    python -m benchmarks.bench_search --data DIR       # any directory in BFCL's layout

Retrieval: the Berkeley Function Calling Leaderboard's data, from the ``bfcl-eval``
wheel on PyPI (``pip download bfcl-eval==2026.3.23 --no-deps``, unpacked into a cache
directory on first use; only its JSON is read, nothing of it is installed). Every
function of every category is pooled into one catalog (~1,850 distinct names; dots in
names become ``_``, as BFCL does for OpenAI). For each question of ``simple_python``,
``multiple``, ``parallel`` and ``parallel_multiple``, Recall@k is whether every
ground-truth function is among ``search(question, k=k)``'s results. The ``live_*``
categories (questions from users, held out: the ranking was never tuned on them) are
scored the same way and reported apart. Plain BM25 over the same text: R@1 0.63,
R@5 0.82, R@10 0.88; the target is R@5 >= 0.92.

Cost, in CPU time (the process's, so that other load on the machine counts less): the
pool repeated (renamed) to 10,000 tools; building the index (the first search, its
word cache emptied), each question's search time (p50, p99; targets 1 ms and 5 ms),
and registering a tool with and without a built index, the next search's catching up
included (target: at most 2x).

Export tokens (``len(json.dumps(...)) / 4``) of 50, 500 and 2,000 tools from the pool,
with every tool deferred (``export(fmt, defer=True)``) and without.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_search.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tooldeck import BaseTool, ToolRegistry, ToolResult

WHEEL = "bfcl-eval==2026.3.23"
TUNED = ("simple_python", "multiple", "parallel", "parallel_multiple")
HELD_OUT = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
KS = (1, 5, 10)
SCALE = 10_000
EXPORT_SIZES = (50, 500, 2_000)
EXPORT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
TARGETS = {"R@5": 0.92, "p50 ms": 1.0, "p99 ms": 5.0, "build s": 0.5, "register ratio": 2.0}


def fetch(cache: Path) -> Path:
    """BFCL's data directory, downloading and unpacking the wheel on first use."""
    data = cache / "bfcl_eval" / "data"
    if data.is_dir():
        return data
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "-q", "-d", tmp],
            check=True,
        )
        (wheel,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(cache, [n for n in zf.namelist() if n.startswith("bfcl_eval/data/")])
    return data


def _records(path: Path) -> Iterator[dict[str, Any]]:
    """A BFCL file's JSON lines (one question each); lines that are not JSON skipped.

    ``X.json`` may also be ``X.jsonl`` (the committed smoke cases: the sdist holds no
    ``.json``)."""
    if not path.exists():
        path = path.with_suffix(".jsonl")
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def _functions(record: dict[str, Any]) -> list[dict[str, Any]]:
    found = record.get("function") or []
    found = [found] if isinstance(found, dict) else found
    return [f for f in found if isinstance(f, dict) and isinstance(f.get("name"), str)]


def tool_name(name: str) -> str:
    return name.replace(".", "_")


_TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array"}


def _clean(schema: Any) -> Any:
    """BFCL's schema dialect ("dict", "float", Java's "String") as JSON Schema."""
    if isinstance(schema, list):
        return [_clean(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _clean(v) for k, v in schema.items() if k not in ("optional",)}
    kind = out.get("type")
    if isinstance(kind, str):
        kind = _TYPES.get(kind, kind)
        if kind in ("object", "number", "array", "string", "integer", "boolean", "null"):
            out["type"] = kind
        else:
            del out["type"]
    return out


class _Listed(BaseTool):
    """A catalog entry: what a model would read; running it is not measured."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any]) -> None:
        self._name, self._description, self._parameters = name, description, parameters

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok("")


def pool(data: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """Every distinct function of every category: (name, description, parameters)."""
    seen: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for path in sorted([*data.glob("BFCL_v4_*.json"), *data.glob("BFCL_v4_*.jsonl")]):
        for record in _records(path):
            for fn in _functions(record):
                name = tool_name(fn["name"])
                if name not in seen:
                    params = _clean(fn.get("parameters") or {"type": "object"})
                    params["type"] = "object"
                    seen[name] = (name, str(fn.get("description") or ""), params)
    return list(seen.values())


def questions(data: Path, category: str) -> list[tuple[str, set[str]]]:
    """(the user's words, the ground-truth tool names) for each question of a category."""
    truth = {
        r.get("id"): r.get("ground_truth")
        for r in _records(data / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    out = []
    for record in _records(data / f"BFCL_v4_{category}.json"):
        answers = truth.get(record.get("id"))
        if not isinstance(answers, list) or not answers:
            continue
        names = {tool_name(n) for a in answers if isinstance(a, dict) for n in a}
        turns = record.get("question") or []
        first = turns[0] if turns and isinstance(turns[0], list) else turns
        text = " ".join(
            str(m.get("content", ""))
            for m in first
            if isinstance(m, dict) and m.get("role") == "user"
        )
        out.append((text, names))
    return out


def registry_of(entries: list[tuple[str, str, dict[str, Any]]]) -> ToolRegistry:
    registry = ToolRegistry()
    for name, description, parameters in entries:
        registry.register(_Listed(name, description, parameters))
    return registry


def recall(registry: ToolRegistry, cases: list[tuple[str, set[str]]]) -> dict[str, float]:
    """Recall@k for each k of `KS`: every ground-truth name in the top k."""
    hits = dict.fromkeys(KS, 0)
    for text, names in cases:
        found = [t.name for t in registry.search(text, k=max(KS))]
        for k in KS:
            hits[k] += names <= set(found[:k])
    return {f"R@{k}": hits[k] / len(cases) if cases else 0.0 for k in KS}


def scaled(entries: list[tuple[str, str, dict[str, Any]]], size: int) -> list[Any]:
    """``entries`` repeated (renamed ``name_2``, ``name_3``, ...) up to ``size`` tools."""
    out = []
    for i in range(size):
        name, description, parameters = entries[i % len(entries)]
        copy = i // len(entries)
        out.append((name if not copy else f"{name[:60]}_{copy + 1}", description, parameters))
    return out


def cost(entries: list[Any], queries: list[str], size: int, rounds: int) -> dict[str, float]:
    """Build time, per-query p50/p99, and registration with/without an index."""
    catalog = scaled(entries, size)
    builds, registering = [], []
    for _ in range(rounds):
        start = time.process_time()
        registry = registry_of(catalog)
        registering.append((time.process_time() - start) / size * 1e3)
        _forget_words()
        start = time.process_time()
        registry.search("weather", k=5)
        builds.append(time.process_time() - start)
    # Each question once on the fresh index (a term's first search splits its postings:
    # `SearchIndex._parts`), then all again, as a long-lived registry answers them.
    first, warm = _latencies(registry, queries), _latencies(registry, queries)
    plain, indexed = _registration(rounds)
    return {
        "tools": float(size),
        "build s": statistics.median(builds),
        "p50 ms": first[len(first) // 2],
        "p99 ms": first[min(len(first) - 1, int(len(first) * 0.99))],
        "p50 ms, again": warm[len(warm) // 2],
        "p99 ms, again": warm[min(len(warm) - 1, int(len(warm) * 0.99))],
        "register µs": plain,
        "register indexed µs": indexed,
        "register ratio": indexed / plain,
        "register schema tool ms": statistics.median(registering),
    }


def _latencies(registry: ToolRegistry, queries: list[str]) -> list[float]:
    """Each query's search, in CPU ms, sorted."""
    times = []
    for text in queries:
        start = time.process_time()
        registry.search(text, k=10)
        times.append((time.process_time() - start) * 1000)
    return sorted(times)


def _forget_words() -> None:
    """Empty the tokeniser's word cache, so that each build pays for every word."""
    from tooldeck.search import _tokens

    _tokens.forget()


def _registration(rounds: int, count: int = 300) -> tuple[float, float]:
    """Median µs to register a documented function (a fresh registry, then one whose
    index is built), the next search's re-reading of the new tools included."""

    def lookup(city: str, days: int = 3, units: str = "metric") -> str:
        """Look up the weather forecast for a city.

        Args:
            city: The city's name, in any language.
            days: How many days ahead.
            units: "metric" or "imperial".
        """
        return city

    plain, indexed = [], []
    for _ in range(rounds):
        for built in (False, True):
            registry = ToolRegistry()
            registry.register(lookup, name="seed")
            if built:
                registry.search("seed")
            start = time.process_time()
            for i in range(count):
                registry.register(lookup, name=f"lookup_{i}")
            if built:
                registry.search("seed")  # the index catches up here
            (indexed if built else plain).append((time.process_time() - start) / count * 1e6)
    return statistics.median(plain), statistics.median(indexed)


def export_tokens(
    entries: list[tuple[str, str, dict[str, Any]]], sizes: tuple[int, ...] = EXPORT_SIZES
) -> dict[str, float]:
    """Export tokens (``len(json.dumps(...)) / 4``) of ``size`` tools, every one deferred
    (``defer=True``) or none. For ``anthropic`` and ``openai-responses`` the request still
    carries the deferred definitions (marked ``defer_loading``; the provider keeps them
    out of the model's context until found): both the request and what the model sees
    are counted. For ``openai`` and ``gemini`` the request is ``search_tools`` alone."""
    out: dict[str, float] = {}
    for size in sizes:
        registry = registry_of(scaled(entries, size))
        for fmt in EXPORT_FORMATS:
            plain = registry.export(fmt)
            deferred = registry.export(fmt, defer=True)
            seen = [tool for tool in deferred if not tool.get("defer_loading")]
            out[f"{size} {fmt}"] = _tokens(plain)
            out[f"{size} {fmt} deferred"] = _tokens(deferred)
            out[f"{size} {fmt} deferred seen"] = _tokens(seen)
    return out


def _tokens(exported: list[dict[str, Any]]) -> float:
    return len(json.dumps(exported, ensure_ascii=False)) / 4


def _cells(scores: dict[str, float], bold: str) -> str:
    return " | ".join(f"{bold}{value:.3f}{bold}" for value in scores.values())


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Score and time the search; print the tables; the figures by label."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one timing round")
    parser.add_argument("--data", type=Path, help="a directory in BFCL's layout")
    parser.add_argument("--tools", type=int, default=SCALE, help="the catalog's size for timing")
    opts = parser.parse_args(argv)
    cache = Path(os.environ.get("TOOLDECK_BENCH_CACHE", Path.home() / ".cache" / "tooldeck"))
    data = opts.data or fetch(cache / WHEEL.replace("==", "-"))
    entries = pool(data)
    registry = registry_of(entries)
    measured: dict[str, float] = {"pool": float(len(entries))}

    print(f"Recall over one catalog of {len(entries)} tools (every ground-truth tool in the top k)")
    print("| category | questions | R@1 | R@5 | R@10 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    queries: list[str] = []
    for group, categories in (("tuned", TUNED), ("held out", HELD_OUT)):
        cases_all: list[tuple[str, set[str]]] = []
        for category in categories:
            cases = questions(data, category)
            cases_all += cases
            if group == "tuned":
                queries += [text for text, _ in cases]
            scores = recall(registry, cases)
            print(
                f"| {category} | {len(cases)} | "
                + " | ".join(f"{v:.3f}" for v in scores.values())
                + " |"
            )
        scores = recall(registry, cases_all)
        print(
            f"| **{group}, all** | {len(cases_all)} | "
            + " | ".join(f"**{v:.3f}**" for v in scores.values())
            + " |"
        )
        measured.update({f"{group} {key}": value for key, value in scores.items()})
    target = TARGETS["R@5"]
    verdict = "pass" if measured["tuned R@5"] >= target else "FAIL"
    tuned = measured["tuned R@5"]
    print(f"\nR@5 on the four categories: {tuned:.3f} (target >= {target}: {verdict})\n")

    figures = cost(entries, queries or ["weather"], opts.tools, 1 if opts.quick else 5)
    print(f"Cost at {opts.tools} tools (medians)")
    print("| figure | value | target |")
    print("| --- | ---: | --- |")
    for key, value in figures.items():
        goal = TARGETS.get(key)
        bound = f"<= {goal:g}" if goal is not None else "—"
        print(f"| {key} | {value:.3f} | {bound} |")
    measured.update(figures)

    sizes = tuple(size for size in EXPORT_SIZES if size <= opts.tools)
    tokens = export_tokens(entries, sizes)
    print("\nExport tokens (len(json.dumps(export)) / 4), every tool deferred or none")
    print("| tools | format | not deferred | deferred: request | deferred: model sees |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for size in sizes:
        for fmt in EXPORT_FORMATS:
            key = f"{size} {fmt}"
            print(
                f"| {size:,} | {fmt} | {tokens[key]:,.0f} | {tokens[key + ' deferred']:,.0f} "
                f"| {tokens[key + ' deferred seen']:,.0f} |"
            )
    measured.update({f"tokens {key}": value for key, value in tokens.items()})
    return measured


if __name__ == "__main__":
    main()

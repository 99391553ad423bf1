"""Why `registry.search` misses: every R@5 miss of BFCL's tuned questions, classified.

    python -m benchmarks.search_misses              # the table (BFCL fetched once)
    python -m benchmarks.search_misses --show 5     # and a few examples of each kind

A question misses when one of its ground-truth tools is not in the top 5 (the catalog
and questions of `benchmarks.bench_search`). Each missing tool is, in this order:

- ``no shared word``: the question has no search term (stemmed, common words out) that
  the tool's text has (its name's words, description, parameters): finding it needs
  knowledge ("dollars", "yen" for a currency converter);
- ``near-duplicate``: a tool of the top 5 (not one of the answers) says the same thing:
  the Jaccard similarity of their terms (name's words and description) is at least
  `DUPLICATE`;
- ``answered elsewhere`` (questions with one answer only): a tool of the top 5 is
  BFCL's own answer to another question (any category) whose terms, numbers out, are
  at least `CONTAINED` in this one: the pooled catalog answers it twice;
- else ranked 6-10 or beyond 10; ``dominated`` counts those where every question term
  the tool has is also in a tool above it (the words give no reason to prefer it).

A question's kind is its missing tools' worst (no shared word, beyond 10, 6-10, then
answered elsewhere, then near-duplicate). The last columns are upper bounds: R@5 if
the near-duplicates, and then also the ones answered elsewhere, counted as found.
"""

from __future__ import annotations

import argparse
import os
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from benchmarks.bench_search import (
    HELD_OUT,
    TUNED,
    WHEEL,
    fetch,
    pool,
    questions,
    registry_of,
)
from tooldeck.search._tokens import query_terms, terms

DUPLICATE = 0.5
CONTAINED = 0.6
K = 5
# worst first: a question's kind
KINDS = ("no shared word", "beyond 10", "6-10", "answered elsewhere", "near-duplicate")
OTHERS = ("simple_java", "simple_javascript")  # more of BFCL's answers, not scored here


def tool_words(name: str, description: str, parameters: dict[str, Any]) -> set[str]:
    """What a tool is searched by: its name's words, description and parameters."""
    texts = [name, description]
    properties = parameters.get("properties")
    for key, schema in (properties if isinstance(properties, dict) else {}).items():
        texts.append(str(key))
        if isinstance(schema, dict):
            texts.append(str(schema.get("description") or ""))
            texts.extend(str(v) for v in (schema.get("enum") or [])[:50])
    return set(terms(" ".join(texts)))


def described(name: str, description: str) -> set[str]:
    """A tool's terms for near-duplicates: its name's words and its description."""
    return (set(terms(name)) - {name.casefold()}) | set(terms(description))


def plain_terms(text: str) -> set[str]:
    return {term for term in terms(text) if not term.isdigit()}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def missing_kinds(
    text: str,
    names: set[str],
    found: list[str],
    words: dict[str, set[str]],
    about: dict[str, set[str]],
    answers: dict[str, list[tuple[str, set[str]]]],
) -> list[tuple[str, bool]]:
    """Each missing answer's kind (`KINDS`), and whether the words put a tool above it."""
    wanted = set(query_terms(text))
    mine = plain_terms(text)
    above = [name for name in found[:K] if name not in names]
    out = []
    for name in sorted(names - set(found[:K])):
        shared = wanted & words[name]
        dominated = any(shared <= wanted & words[other] for other in above)
        if not shared:
            out.append(("no shared word", False))
        elif any(jaccard(about[name], about[other]) >= DUPLICATE for other in above):
            out.append(("near-duplicate", dominated))
        elif len(names) == 1 and any(
            asked != text and len(asked_terms & mine) >= CONTAINED * len(asked_terms) > 0
            for other in above
            for asked, asked_terms in answers.get(other, ())
        ):
            out.append(("answered elsewhere", dominated))
        else:
            out.append(("6-10" if name in found[:10] else "beyond 10", dominated))
    return out


def question_kind(kinds: list[tuple[str, bool]]) -> tuple[str, bool]:
    """A question's kind: its missing answers' worst, and whether that one is dominated."""
    return min(kinds, key=lambda kind: (KINDS.index(kind[0]), kind[1]))


def main(argv: list[str] | None = None) -> dict[str, Counter[str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a directory in BFCL's layout")
    parser.add_argument("--show", type=int, default=0, help="examples of each kind")
    opts = parser.parse_args(argv)
    cache = Path(os.environ.get("TOOLDECK_BENCH_CACHE", Path.home() / ".cache" / "tooldeck"))
    data = opts.data or fetch(cache / WHEEL.replace("==", "-"))
    entries = pool(data)
    registry = registry_of(entries)
    words = {name: tool_words(name, d, p) for name, d, p in entries}
    about = {name: described(name, d) for name, d, _ in entries}
    answers: defaultdict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for category in (*TUNED, *HELD_OUT, *OTHERS):
        for text, names in questions(data, category):
            for name in names:
                answers[name].append((text, plain_terms(text[:4096])))

    counts: dict[str, Counter[str]] = {}
    examples: defaultdict[str, list[str]] = defaultdict(list)
    for category in TUNED:
        row = counts[category] = Counter()
        for text, names in questions(data, category):
            row["questions"] += 1
            found = [tool.name for tool in registry.search(text, k=10)]
            if names <= set(found[:K]):
                row["found"] += 1
                continue
            kind, dominated = question_kind(
                missing_kinds(text, names, found, words, about, answers)
            )
            row[kind] += 1
            row["dominated"] += dominated and kind in ("6-10", "beyond 10")
            examples[kind].append(f"{category}: {text[:160]!r} → {sorted(names)}; top: {found[:K]}")
    counts["all"] = sum(counts.values(), Counter())
    _print(counts)
    rng = random.Random(0)
    for kind in KINDS[: len(KINDS) if opts.show else 0]:
        print(f"\n{kind} ({len(examples[kind])})")
        for line in rng.sample(examples[kind], min(opts.show, len(examples[kind]))):
            print(" ", line)
    return counts


def _print(counts: dict[str, Counter[str]]) -> None:
    print(
        "| questions | count | R@5 | misses | near-duplicate | answered elsewhere "
        "| 6-10 | beyond 10 | no shared word | (dominated) | R@5, duplicates found "
        "| R@5, and those answered elsewhere |"
    )
    print("| --- |" + " ---: |" * 11)
    for category, row in counts.items():
        n = row["questions"] or 1
        cells = [row["questions"], f"{row['found'] / n:.3f}", row["questions"] - row["found"]]
        cells += [row[kind] for kind in reversed(KINDS)]
        cells += [row["dominated"], f"{(row['found'] + row['near-duplicate']) / n:.3f}"]
        cells += [f"{(row['found'] + row['near-duplicate'] + row['answered elsewhere']) / n:.3f}"]
        print(f"| {category} | " + " | ".join(str(cell) for cell in cells) + " |")


if __name__ == "__main__":
    main()

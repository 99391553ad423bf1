"""What media costs in `run_tool_calls`' answers, and that text-only turns pay nothing.

    python -m benchmarks.bench_media                    # 15 paired rounds
    python -m benchmarks.bench_media --quick            # 3 rounds, 1 MB (CI smoke)
    python -m benchmarks.bench_media --compare ../main/src   # text turn: this vs another tree

Render: each provider's writer answering one call whose result is ``["caption",
Image(5 MB)]``, against ``base64.b64encode`` of the same bytes, back to back in each
round; a fresh `Image` every round, so its cached base64 hides nothing. Target: at most
1.5x ``b64encode`` (the base64 computed once per value, no extra copies of the bytes).

Text turn: a one-call ``run_tool_calls`` turn whose tool returns a str, per format, in µs
of CPU; ``--compare SRC`` runs the same turn in a subprocess importing tooldeck from SRC
(e.g. main's tree) and prints both medians: a text turn must be no slower than before.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_media.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET = 1.5
FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
PNG_HEAD = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _clock() -> float:
    return time.process_time()


# Anthropic refuses an image whose base64 passes 5 MiB (a 5 MB image's is 6.7 MB): its
# answer would be the placeholder, which costs nothing. It is measured with the largest
# image it takes.
LARGEST = {"anthropic": 3_900_000}


def render(size: int, rounds: int) -> dict[str, dict[str, float]]:
    """Per format: median ms of the writer, of ``b64encode``, and the median ratio."""
    from tooldeck import Image, ToolResult
    from tooldeck.providers import PROVIDERS

    calls = [("call_1", "chart", {})]
    out: dict[str, dict[str, float]] = {}
    for fmt in FORMATS:
        data = PNG_HEAD + os.urandom(min(size, LARGEST.get(fmt, size)) - len(PNG_HEAD))
        write = PROVIDERS[fmt].write
        ratios, ours, floors = [], [], []
        for _ in range(rounds):
            result = ToolResult.ok(["caption", Image(data)])  # fresh: nothing cached
            start = _clock()
            answer = write(calls, [result], True)
            mid = _clock()
            base64.b64encode(data)
            end = _clock()
            assert base64.b64encode(data[:300]).decode()[:400] in repr(answer)  # it was sent
            ours.append(mid - start)
            floors.append(end - mid)
            ratios.append((mid - start) / max(end - mid, 1e-9))
        out[fmt] = {
            "ms": statistics.median(ours) * 1e3,
            "b64_ms": statistics.median(floors) * 1e3,
            "ratio": statistics.median(ratios),
            "mb": len(data) / (1024 * 1024),
        }
    return out


def text_turn(rounds: int, batch: int = 2_000) -> dict[str, float]:
    """Per format: median µs of CPU per one-call text turn."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from tool_call_replies import Call, sdk_reply
    from tooldeck import ToolRegistry

    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    import tool_call_replies as replies

    makers = {
        "openai": replies.openai_completion,
        "openai-responses": replies.responses_response,
        "anthropic": replies.anthropic_message,
        "gemini": replies.gemini_response,
    }
    out = {}
    for fmt in FORMATS:
        reply = sdk_reply(fmt, makers[fmt]([Call("call_1", "echo", {"text": "hi"})]))
        run = registry.run_tool_calls
        assert run(reply)
        samples = []
        for _ in range(rounds):
            start = _clock()
            for _ in range(batch):
                run(reply)
            samples.append((_clock() - start) / batch)
        out[fmt] = statistics.median(samples) * 1e6
    return out


def _text_turn_in(src: str, rounds: int) -> dict[str, float]:
    """`text_turn` in a subprocess importing tooldeck from ``src``."""
    env = {**os.environ, "PYTHONPATH": src}
    code = (
        f"import json, sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); "
        f"from benchmarks.bench_media import text_turn; print(json.dumps(text_turn({rounds})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds, a 1 MB image")
    parser.add_argument("--compare", metavar="SRC", help="another tree's src/ for the text turn")
    opts = parser.parse_args(argv)
    rounds = 3 if opts.quick else 15
    size = (1 if opts.quick else 5) * 1024 * 1024

    measured: dict[str, Any] = {}
    rendered = render(size, rounds)
    print(f"Render an image into the answer: CPU ms, medians of {rounds} rounds")
    print("| format | image MB | answer | b64encode | ratio | target |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for fmt, row in rendered.items():
        verdict = "pass" if row["ratio"] <= TARGET else "FAIL"
        print(
            f"| {fmt} | {row['mb']:.1f} | {row['ms']:.2f} | {row['b64_ms']:.2f}"
            f" | {row['ratio']:.2f}x | {verdict} (<= {TARGET:g}x) |"
        )
        measured[f"render {fmt}"] = row["ratio"]

    turn_rounds = 3 if opts.quick else 11
    other = None
    if opts.compare:  # both trees in subprocesses, alternating, so both see the same load
        mine = str(Path(__file__).resolve().parents[1] / "src")
        pairs = [(_text_turn_in(mine, 3), _text_turn_in(opts.compare, 3)) for _ in range(7)]
        here = {f: statistics.median(a[f] for a, _ in pairs) for f in FORMATS}
        other = {f: statistics.median(b[f] for _, b in pairs) for f in FORMATS}
        turn_rounds = 7
    else:
        here = text_turn(turn_rounds, 200 if opts.quick else 2_000)
    print(f"\nText-only turn (one call, a str result): CPU µs, medians of {turn_rounds} rounds")
    if other is None:
        print("| format | this tree |")
        print("| --- | ---: |")
        for fmt, us in here.items():
            print(f"| {fmt} | {us:.2f} |")
    else:
        print(f"| format | this tree | {opts.compare} | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for fmt, us in here.items():
            print(f"| {fmt} | {us:.2f} | {other[fmt]:.2f} | {us / other[fmt]:.2f}x |")
    for fmt, us in here.items():
        measured[f"text turn {fmt}"] = us
    return measured


if __name__ == "__main__":
    main()

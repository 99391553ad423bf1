"""`tooldeck._lazy`: attributes set one by one, computed once, never through ``__dict__``."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tooldeck import Tool, _pipeline
from tooldeck._lazy import lazy, set_attributes


class Box:
    builds = 0

    @lazy
    def total(self) -> list[int]:
        """A value built on first use."""
        Box.builds += 1
        return [Box.builds]

    @property
    def name(self) -> str:
        return "box"


def test_a_lazy_attribute_is_built_once_per_instance_and_can_be_forgotten() -> None:
    Box.builds = 0
    first, second = Box(), Box()
    assert first.total is first.total == [1]
    assert second.total == [2]
    del first.total  # forgotten: built again on the next read
    assert first.total == [3]
    assert (
        isinstance(Box.__dict__["total"], lazy)
        and Box.total.__doc__ == "A value built on first use."
    )


def test_set_attributes_sets_what_it_can_and_skips_read_only_names() -> None:
    box = Box()
    values: dict[Any, Any] = {"colour": "red", "name": "not the box's", 3: "no str name"}
    set_attributes(box, values)
    assert box.colour == "red"  # type: ignore[attr-defined]
    assert box.name == "box"


def test_a_tools_sync_and_async_runners_come_from_one_build_under_a_race(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tool with a timeout: its two runners share one thread lot, however first reached."""
    real = _pipeline.runners

    def slow_build(*args: Any, **kwargs: Any) -> Any:  # a build slow enough to be raced
        time.sleep(0.002)
        return real(*args, **kwargs)

    monkeypatch.setattr(_pipeline, "runners", slow_build)

    def echo(x: int) -> int:
        return x

    for _ in range(5):
        tool = Tool(echo, timeout=5)
        barrier = threading.Barrier(8)

        def touch(
            i: int, tool: Tool[..., Any] = tool, barrier: threading.Barrier = barrier
        ) -> None:
            barrier.wait()
            _ = tool._run_sync if i % 2 else tool._run_async

        threads = [threading.Thread(target=touch, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        assert (tool._run_sync, tool._run_async) == tool._runner_pair()
        assert tool.run_sync({"x": 3}).data == 3

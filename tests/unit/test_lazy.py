"""`tooldeck._lazy`: attributes set one by one, computed once, never through ``__dict__``."""

from __future__ import annotations

from typing import Any

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

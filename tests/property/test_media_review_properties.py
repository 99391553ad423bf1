"""Results holding media at any place of any JSON-like value (hypothesis), from a review.

* ``to_dict()`` is JSON whatever holds the media (lists, tuples, dicts, their subclasses),
  and each media value is there as its own MCP content, in order.
* ``str(result)`` names every media value by its placeholder, never by its ``repr``,
  and a generator of parts reads the same as the list of them.
"""

from __future__ import annotations

import collections
import json
from typing import Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import Audio, File, Image, ToolResult

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(17)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Pair(NamedTuple):
    first: Any
    second: Any


media = st.one_of(
    st.binary(min_size=1, max_size=8).map(lambda b: Image(PNG + b)),
    st.text(min_size=1, max_size=8).map(lambda t: File(t.encode(), mime_type="text/plain")),
    st.text(min_size=1, max_size=8).map(
        lambda t: (
            File(b"%PDF-1.7\n", name=t + "\n]") if t.strip() else Audio(url="https://x.org/a.wav")
        )
    ),
    st.just(Image(url="https://x.org/c.png")),
)
leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), media)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.dictionaries(st.text(max_size=3), inner, max_size=3).map(
            lambda d: collections.defaultdict(list, d)
        ),
        st.builds(Pair, inner, inner),
    ),
    max_leaves=20,
)


def media_in(value: Any) -> list[Any]:
    if type(value) in (Image, Audio, File):
        return [value]
    if isinstance(value, dict):
        return [m for item in value.values() for m in media_in(item)]
    if isinstance(value, (list, tuple)):
        return [m for item in value for m in media_in(item)]
    return []


def contents_in(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        if data.get("type") in ("image", "audio", "resource", "resource_link") and (
            "data" in data or "resource" in data or "uri" in data
        ):
            return [data]
        return [c for item in data.values() for c in contents_in(item)]
    if isinstance(data, list):
        return [c for item in data for c in contents_in(item)]
    return []


@SETTINGS
@given(values)
def test_to_dict_is_json_and_holds_each_media_value_as_mcp_content(value: Any) -> None:
    data = ToolResult.ok(value).to_dict()
    json.dumps(data)
    assert contents_in(data["data"]) == [m.to_mcp() for m in media_in(value)]


@SETTINGS
@given(values)
def test_the_text_names_each_media_value_by_its_placeholder_on_its_lines(value: Any) -> None:
    text = str(ToolResult.ok(value))
    for found in media_in(value):
        assert (
            found.placeholder in text
            or json.dumps(found.placeholder, ensure_ascii=False)[1:-1] in text
        )
    assert "Image(" not in text and "File(" not in text and "Audio(" not in text


@SETTINGS
@given(st.lists(values, max_size=5))
def test_a_generator_of_parts_reads_as_the_json_list_of_them(parts: list[Any]) -> None:
    as_list = ToolResult.ok(iter(parts))
    expected = str(ToolResult.ok({"x": parts}))[len('{"x": ') : -1]
    assert str(as_list) == expected

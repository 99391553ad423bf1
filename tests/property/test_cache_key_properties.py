"""`Cache` keys, in the process, for all pairs of calls: two calls share an answer
exactly when the tool would receive the same validated arguments (tests/cache_keys.py;
the same property against Redis is in tests/integration/test_middleware_redis.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from cache_keys import call_pairs, check_pair, key_tools
from tooldeck import ToolRegistry
from tooldeck.middleware import Cache

pytestmark = pytest.mark.timeout(60)

PLAIN = key_tools(ToolRegistry())  # the same tools without a cache: the oracle


@settings(max_examples=300, deadline=None)
@given(pair=call_pairs())
def test_calls_share_an_answer_only_when_the_tool_gets_the_same_arguments(
    pair: tuple[str, dict[str, Any], dict[str, Any], bool],
) -> None:
    cached = key_tools(ToolRegistry(middleware=[Cache(60)]))
    check_pair(cached, PLAIN, pair)

"""A JSON Schema from anywhere cannot reach out, read files or freeze the process
(issue 12, items 3 and 4).

`BaseTool`s (and any other tool defined by a JSON Schema) are validated with
``jsonschema``: a ``$ref`` is never retrieved — an unresolvable one is a definition
error — and ``pattern``s are matched within a time budget. What could hang runs in a
subprocess with a hard timeout.
"""

from __future__ import annotations

import http.server
import subprocess
import textwrap
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forkserver import LazyForkServer
from tooldeck import BaseTool, ToolDefinitionError, ToolRegistry, ToolResult


class SchemaTool(BaseTool):
    def __init__(self, parameters: dict[str, Any]) -> None:
        self._parameters = parameters

    name = "t"
    description = "A tool defined by a JSON Schema."

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs)


@pytest.fixture
def counting_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request it gets."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None: ...

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()


def test_a_remote_ref_is_never_fetched(counting_server: tuple[str, list[str]]) -> None:
    url, seen = counting_server
    schema = {"type": "object", "properties": {"q": {"$ref": f"{url}/schema.json"}}}
    with pytest.raises(ToolDefinitionError) as caught:
        ToolRegistry().register(SchemaTool(schema))
    assert "does not resolve inside the schema" in str(caught.value)
    assert "never retrieves" in str(caught.value)
    assert seen == []  # not at definition, and there is no call to make one


@pytest.mark.parametrize(
    "ref",
    [
        "file:///dev/zero",
        "file:///etc/passwd",
        "other.json",
        "#/$defs/Missing",
        "#/properties/nope",
        "urn:example:thing",
    ],
)
def test_an_unresolvable_ref_is_a_definition_error(ref: str) -> None:
    schema = {"type": "object", "properties": {"q": {"$ref": ref}}, "$defs": {"A": {}}}
    with pytest.raises(ToolDefinitionError, match="does not resolve inside the schema"):
        ToolRegistry().register(SchemaTool(schema))


FORKS = LazyForkServer("import tooldeck")
_close_forks = FORKS.closing()


def child(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a process of its own, forked from one that imported tooldeck
    (tests/forkserver.py); its output decoded."""
    done = FORKS().run(code=code, timeout=60)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode(errors="replace")
    )


def test_reading_dev_zero_cannot_happen_even_in_a_bounded_child() -> None:
    """If a file $ref were read, /dev/zero would eat memory until the process died."""
    code = textwrap.dedent(
        """
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from tooldeck import BaseTool, ToolDefinitionError, ToolRegistry, ToolResult
        class T(BaseTool):
            name = "t"; description = "d"
            parameters = {"type": "object", "properties": {"q": {"$ref": "file:///dev/zero"}}}
            async def execute(self, **kw):
                return ToolResult.ok(kw)
        try:
            ToolRegistry().register(T())
        except ToolDefinitionError as e:
            print("refused")
        """
    )
    done = child(code)
    assert done.stdout.strip() == "refused", done.stderr[-2000:]


def test_local_refs_still_work_including_under_a_nested_id() -> None:
    schema = {
        "type": "object",
        "properties": {
            "point": {"$ref": "#/$defs/Point"},
            "tag": {"$id": "https://example.org/tag", "$ref": "#/$defs/Tag", "$defs": {
                "Tag": {"type": "string", "maxLength": 3}
            }},
        },
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        "default": {"$ref": "http://127.0.0.1:9/not-a-ref-it-is-data"},
    }  # fmt: skip
    registry = ToolRegistry()
    registry.register(SchemaTool(schema))
    assert registry.execute_sync("t", {"point": {"x": 1}, "tag": "abc"}).success
    refused = registry.execute_sync("t", {"point": {"x": "1"}, "tag": "abcd"})
    assert not refused.success
    assert "point.x" in refused.error and "tag" in refused.error


def test_a_pattern_that_does_not_compile_is_a_definition_error() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": "(unclosed"}}}
    with pytest.raises(ToolDefinitionError, match="does not compile"):  # checked with `regex`
        ToolRegistry().register(SchemaTool(schema))


CATASTROPHIC = "^(a|aa)+$"  # exponential for a backtracking engine on 'aaa...ab'


def run_hostile(schema_literal: str, arguments_literal: str) -> list[str]:
    """Call a BaseTool with a hostile pattern in a child; a ticker thread must keep going."""
    code = textwrap.dedent(
        f"""
        import threading, time
        from tooldeck import BaseTool, ToolRegistry, ToolResult
        class T(BaseTool):
            name = "t"; description = "d"
            parameters = {schema_literal}
            async def execute(self, **kw):
                return ToolResult.ok("ran")
        registry = ToolRegistry()
        registry.register(T())
        ticks = 0
        def tick():
            global ticks
            while True:
                ticks += 1
                time.sleep(0.001)
        threading.Thread(target=tick, daemon=True).start()
        time.sleep(0.05)
        before = ticks
        result = registry.execute_sync("t", {arguments_literal})
        print(result.success)
        print(repr(result.error))
        print(ticks > before)
        """
    )
    done = child(code)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def test_a_catastrophic_pattern_fails_the_call_promptly() -> None:
    q = f'{{"type": "string", "pattern": "{CATASTROPHIC}"}}'
    schema = f'{{"type": "object", "properties": {{"q": {q}}}}}'
    success, error, others_ran = run_hostile(schema, '{"q": "a" * 60 + "b"}')
    assert success == "False"
    assert error == repr(
        "Invalid arguments for tool 't':\n"
        f"arguments: cannot be checked against the schema: the pattern '{CATASTROPHIC}' "
        "could not be checked within 0.25 s"
    )
    assert others_ran == "True"  # the GIL was not held while matching


@pytest.mark.parametrize("keyword", ["patternProperties", "additionalProperties"])
def test_catastrophic_property_patterns_are_bounded_too(keyword: str) -> None:
    closed = ', "additionalProperties": False' if keyword == "additionalProperties" else ""
    schema = (
        f'{{"type": "object", "patternProperties": {{"{CATASTROPHIC}": {{"type": "integer"}}}}'
        f"{closed}}}"
    )
    success, error, _ = run_hostile(schema, '{"a" * 60 + "b": 1}')
    assert success == "False"
    assert "could not be checked within 0.25 s" in error


def test_patterns_still_match_as_json_schema_says() -> None:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    }
    registry = ToolRegistry()
    registry.register(SchemaTool(schema))
    assert registry.execute_sync("t", {"code": "ABC", "x-count": 2}).success
    refused = registry.execute_sync("t", {"code": "abc", "x-count": "2", "other": 1})
    assert not refused.success
    lines = refused.error.splitlines()[1:]
    assert lines == [
        "other: unexpected argument",
        "code: 'abc' does not match '^[A-Z]{3}$'",
        "x-count: '2' is not of type 'integer'",
    ]


def test_patterns_json_schema_writes_that_re_does_not_know_work() -> None:
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": r"^\p{L}+$"}}}
    registry = ToolRegistry()
    registry.register(SchemaTool(schema))
    assert registry.execute_sync("t", {"w": "台北Taipei"}).success
    assert not registry.execute_sync("t", {"w": "no spaces"}).success


def test_unevaluated_properties_beside_pattern_properties_is_a_definition_error() -> None:
    # jsonschema matches patternProperties with Python's `re` to work out what
    # unevaluatedProperties leaves: out of the time budget, a pattern froze the process.
    for where in ("root", "nested"):
        inner = {"patternProperties": {CATASTROPHIC: {}}, "unevaluatedProperties": False}
        schema = (
            {"type": "object", **inner}
            if where == "root"
            else {"type": "object", "properties": {"o": {"allOf": [inner]}}}
        )
        with pytest.raises(ToolDefinitionError, match="unevaluatedProperties together with"):
            ToolRegistry().register(SchemaTool(schema))
    each_alone = {"type": "object", "unevaluatedProperties": False, "properties": {"a": {}}}
    registry = ToolRegistry()
    registry.register(SchemaTool(each_alone))
    assert registry.execute_sync("t", {"a": 1}).success
    assert not registry.execute_sync("t", {"b": 1}).success


@pytest.mark.parametrize(
    "pattern", ["a{1000000000}", "(?:(?:a{1000}){1000}){1000}", "(?:[a-z]{1000}){1000}"]
)
def test_a_pattern_that_would_unroll_past_memory_is_a_definition_error(pattern: str) -> None:
    # `regex` unrolls a counted repeat's minimum: the first asked for ~20 GB.
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}}}
    with pytest.raises(ToolDefinitionError, match="repeats too much to compile safely"):
        ToolRegistry().register(SchemaTool(schema))


def test_long_repeats_with_a_low_minimum_still_work() -> None:
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "pattern": "^.{0,65535}$"},
            "w": {"type": "string", "pattern": "^[a-z]{1,1000000}$"},
            "ip": {"type": "string", "pattern": r"^(\d{1,3}\.){3}\d{1,3}$"},
        },
    }
    registry = ToolRegistry()
    registry.register(SchemaTool(schema))
    assert registry.execute_sync("t", {"q": "x" * 1000, "w": "abc", "ip": "10.0.0.1"}).success
    assert not registry.execute_sync("t", {"w": "ABC"}).success


@pytest.mark.parametrize("name", ["enum", "const", "default", "examples"])
def test_a_property_named_like_a_data_keyword_is_checked_too(name: str) -> None:
    # Property names are no keywords: a property called "enum" is a schema like any other.
    bad_ref = {"type": "object", "properties": {name: {"$ref": "file:///etc/passwd"}}}
    with pytest.raises(ToolDefinitionError, match="does not resolve inside the schema"):
        ToolRegistry().register(SchemaTool(bad_ref))
    bad_pattern = {"type": "object", "properties": {name: {"pattern": "(unclosed"}}}
    with pytest.raises(ToolDefinitionError, match="does not compile"):
        ToolRegistry().register(SchemaTool(bad_pattern))


# -- remote schemas, however deep or strange (issue 21, item 7) ---------------------------------


def nested(kind: str, depth: int) -> dict[str, Any]:
    """An object schema whose one property nests ``depth`` levels of ``kind``."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        if kind == "items":
            schema = {"type": "array", "items": schema}
        elif kind == "properties":
            schema = {"type": "object", "properties": {"a": schema}}
        elif kind == "anyOf":
            schema = {"anyOf": [schema, {"type": "null"}]}
        elif kind == "not":
            schema = {"not": schema}
        else:
            schema = {"type": "object", "additionalProperties": schema}
    return {"type": "object", "properties": {"a": schema}}


def server_with(parameters: dict[str, Any]) -> Any:
    """An in-process fastmcp server: a plain tool ``fine`` and ``deep`` with ``parameters``."""
    fastmcp = pytest.importorskip("fastmcp")
    from fastmcp.tools import Tool as FastMCPTool

    class Deep(FastMCPTool):
        async def run(self, arguments: dict[str, Any]) -> Any:
            return "deep"

    server = fastmcp.FastMCP("deep")

    @server.tool
    def fine(x: int) -> int:
        return x

    server.add_tool(Deep(name="deep", parameters=parameters))
    return server


def test_a_remote_tool_nested_130_levels_is_skipped_and_the_rest_imported() -> None:
    registry = ToolRegistry()
    with pytest.warns(UserWarning, match=r"skipped 1 tool.*'deep' \(its inputSchema nests"):
        proxies = registry.use_mcp(server_with(nested("items", 130)))
    assert [p.name for p in proxies] == ["fine"]
    assert registry.call_tool("fine", {"x": 3}) == 3


@given(
    kind=st.sampled_from(["items", "properties", "anyOf", "not", "additionalProperties"]),
    depth=st.integers(0, 90),  # deeper, fastmcp cannot serialize its own listing
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_import_survives_any_nesting(kind: str, depth: int) -> None:
    registry = ToolRegistry()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = [p.name for p in registry.use_mcp(server_with(nested(kind, depth)))]
    skipped = [str(w.message) for w in caught if "use_mcp skipped" in str(w.message)]
    assert "fine" in names
    if "deep" in names:
        assert not skipped
        for fmt in ("openai", "anthropic", "gemini", "mcp"):  # what it imported, it exports
            assert len(registry.export(fmt)) == 2
    else:
        assert len(skipped) == 1 and "'deep'" in skipped[0]

"""What ``use_mcp`` makes of a listing: tags, names, annotations, skipped tools, remote logs.

The listings come from ``mcp_servers/raw_listing.py``, a stdio server written by hand
that sends exactly the ``tools`` it is given — what another framework (fastmcp 2.x)
or a buggy server sends — and from fastmcp's own servers and proxies.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy
from mcp_types import ToolAnnotations

from forkserver import ForkServer
from tooldeck import ToolRegistry
from tooldeck.errors import ToolDefinitionError

RAW = Path(__file__).parent / "mcp_servers" / "raw_listing.py"
OBJECT = {"type": "object", "properties": {}}

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def listing(tmp_path: Path) -> Any:
    """``listing(tools)``: a stdio transport to a raw server listing ``tools``."""
    made: list[Path] = []

    def make(tools: list[dict[str, Any]]) -> StdioTransport:
        path = tmp_path / f"listing{len(made)}.json"
        path.write_text(json.dumps(tools))
        made.append(path)
        return StdioTransport(sys.executable, [str(RAW), str(path)], keep_alive=True)

    return make


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    with ToolRegistry() as fresh:
        yield fresh


# -- tags of both fastmcp majors ------------------------------------------------------------


LEGACY = {"name": "legacy", "inputSchema": OBJECT, "_meta": {"_fastmcp": {"tags": ["v2", "x"]}}}


def test_tags_a_fastmcp_2_server_sends(listing: Any, registry: ToolRegistry) -> None:
    registry.use_mcp(listing([LEGACY]), tags="remote")
    assert registry.get("legacy").tags == ("v2", "x", "remote")  # type: ignore[union-attr]


async def test_tags_of_a_fastmcp_2_tool_relayed_by_a_fastmcp_4_proxy(listing: Any) -> None:
    proxy = create_proxy(listing([LEGACY]), mode="legacy")  # a 2.x-era backend
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(proxy)
        assert registry.get("legacy").tags == ("v2", "x")  # type: ignore[union-attr]


async def test_2x_tags_beside_an_empty_4x_list_are_read() -> None:
    # Why 2.x tags were lost: a fastmcp 4 server always sends its own `fastmcp.tags`,
    # empty when the tool has none, and a tool carrying 2.x metadata keeps
    # `_fastmcp.tags` beside it. Reading only the first section found gave no tags.
    server: FastMCP[Any] = FastMCP("carried")
    server.tool(name="carried", meta={"_fastmcp": {"tags": ["old"]}})(lambda: 1)
    server.tool(
        name="both", tags={"new", "shared"}, meta={"_fastmcp": {"tags": ["old", "shared"]}}
    )(lambda: 1)
    async with Client(server) as client:
        listed = {t.name: t.meta for t in await client.list_tools()}
    assert listed["carried"] == {"_fastmcp": {"tags": ["old"]}, "fastmcp": {"tags": []}}
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(server)
        assert registry.get("carried").tags == ("old",)  # type: ignore[union-attr]
        assert registry.get("both").tags == ("new", "shared", "old")  # type: ignore[union-attr]


# -- names -----------------------------------------------------------------------------------


def test_a_prefix_names_every_remote_tool(listing: Any, registry: ToolRegistry) -> None:
    tools = [
        {"name": "status", "inputSchema": OBJECT},
        {"name": "log.show", "inputSchema": OBJECT},
        {"name": "log_show", "inputSchema": OBJECT},
    ]
    proxies = registry.use_mcp(listing(tools), prefix="git_")
    assert [p.name for p in proxies] == ["git_status", "git_log_show_2", "git_log_show"]
    # calls use the remote names
    answers = [registry.call_tool(p.name) for p in proxies]
    assert [a["name"] for a in answers] == ["status", "log.show", "log_show"]


def test_two_servers_behind_one_registry_by_prefix(listing: Any, registry: ToolRegistry) -> None:
    tools = [{"name": "status", "inputSchema": OBJECT}]
    registry.use_mcp(listing(tools), prefix="git_")
    registry.use_mcp(listing(tools), prefix="svn_")
    assert registry.list_tools() == ["git_status", "svn_status"]


def test_a_long_name_and_its_suffix_stay_within_64_characters(
    listing: Any, registry: ToolRegistry
) -> None:
    tools = [
        {"name": "x" * 70 + ".a", "inputSchema": OBJECT},
        {"name": "x" * 70, "inputSchema": OBJECT},
    ]
    names = [p.name for p in registry.use_mcp(listing(tools), prefix="p_")]
    assert names == ["p_" + "x" * 62, "p_" + "x" * 60 + "_2"]
    assert all(len(n) <= 64 for n in names)


@pytest.mark.parametrize("prefix", ["git.", "a b", "x" * 64, 3])
def test_a_prefix_outside_the_name_rule_is_refused(
    listing: Any, registry: ToolRegistry, prefix: Any
) -> None:
    with pytest.raises(ToolDefinitionError, match="prefix"):
        registry.use_mcp(listing([LEGACY]), prefix=prefix)
    assert len(registry) == 0


# -- annotations and title ---------------------------------------------------------------------


ANNOTATED = {
    "name": "drop_table",
    "title": "Drop a table",
    "description": "Drops it.",
    "inputSchema": OBJECT,
    "annotations": {"title": "Drop", "destructiveHint": True, "idempotentHint": True},
}


async def test_annotations_and_title_are_kept_exported_and_served(listing: Any) -> None:
    async with ToolRegistry() as registry:
        (proxy,) = await registry.async_use_mcp(listing([ANNOTATED]))
        assert proxy.title == "Drop a table"  # type: ignore[attr-defined]
        assert proxy.annotations == ANNOTATED["annotations"]
        exported = registry.export("mcp")[0]
        assert exported["annotations"] == ANNOTATED["annotations"]
        async with Client(registry.as_mcp_server()) as client:
            (served,) = await client.list_tools()
        assert served.title == "Drop a table"
        assert served.annotations == ToolAnnotations.model_validate(ANNOTATED["annotations"])


RICH = [
    {
        "name": "rich",
        "title": "A rich tool",
        "description": "Has every field a tool may carry.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
        "annotations": {"title": "Rich", "readOnlyHint": True, "openWorldHint": False},
        "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png"}],
        "_meta": {"vendor": {"cost": 3}, "fastmcp": {"tags": ["b", "a"]}},
    },
    {"name": "bare", "inputSchema": OBJECT},  # no title, no description, nothing else
]


async def test_a_served_proxy_is_exactly_its_mcp_export(listing: Any) -> None:
    # DESIGN: what is served is what is exported; title, annotations, _meta,
    # outputSchema and icons included (issue 21, item 16).
    async with ToolRegistry() as registry:
        await registry.async_use_mcp(listing(RICH), tags="extra")
        exported = registry.export("mcp")
        async with Client(registry.as_mcp_server()) as client:
            served = await client.list_tools()
    listed = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in served]
    assert listed == exported
    rich = exported[0]
    assert rich["title"] == "A rich tool"
    assert rich["icons"] == RICH[0]["icons"]
    assert rich["outputSchema"] == RICH[0]["outputSchema"]
    assert rich["_meta"]["vendor"] == {"cost": 3}
    assert rich["_meta"]["fastmcp"]["tags"] == ["a", "b", "extra"]


# -- tools that cannot be used --------------------------------------------------------------------


UNUSABLE = [
    ({"name": "not_object", "inputSchema": {"type": "string"}}, "type: Input should be 'object'"),
    ({"name": "not_a_dict", "inputSchema": "nope"}, "inputSchema"),
    ({"name": "bad_keyword",
      "inputSchema": {"type": "object", "properties": {"a": {"type": "nonsense"}}}},
     "inputSchema is not valid JSON Schema"),
    ({"name": "bad_output", "inputSchema": OBJECT,
      "outputSchema": {"type": "object", "properties": {"a": {"type": "nonsense"}}}},
     "outputSchema is not valid JSON Schema"),
    ({"name": "bad_output_shape", "inputSchema": OBJECT,
      "outputSchema": {"type": "object", "required": 3}}, "outputSchema.required"),
]  # fmt: skip


@pytest.mark.parametrize(("bad", "reason"), UNUSABLE, ids=[b["name"] for b, _ in UNUSABLE])
def test_an_unusable_tool_is_skipped_with_a_warning(
    listing: Any, registry: ToolRegistry, bad: dict[str, Any], reason: str
) -> None:
    good = {"name": "good", "inputSchema": OBJECT}
    optional = {"name": "optional", "inputSchema": OBJECT, "execution": {"taskSupport": "optional"}}
    with pytest.warns(UserWarning, match="skipped 1 tool") as warned:
        registry.use_mcp(listing([good, bad, optional]))
    message = str(warned[0].message)
    assert repr(bad["name"]) in message
    assert reason in message
    assert registry.list_tools() == ["good", "optional"]
    # the others work, also on a session opened again (which lists the tools afresh)
    assert registry.call_tool("good")["name"] == "good"
    registry.close()
    assert registry.call_tool("optional", {"k": 1}) == {"name": "optional", "arguments": {"k": 1}}


def test_schemas_in_json_schemas_own_regex_dialect_are_imported(
    listing: Any, registry: ToolRegistry
) -> None:
    # The metaschema's "regex" format check compiled patterns with Python's `re`, which
    # refuses ECMA-262's \p{L}: a valid tool was skipped as "not valid JSON Schema".
    letters = {"type": "string", "pattern": r"^\p{L}+$"}
    tool = {
        "name": "letters",
        "inputSchema": {"type": "object", "properties": {"w": letters}},
        "outputSchema": {"type": "object", "properties": {"w": letters}},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no tool skipped
        registry.use_mcp(listing([tool]))
    assert registry.list_tools() == ["letters"]


# -- the server's notifications ------------------------------------------------------------


def test_remote_logs_and_progress_go_to_the_tooldeck_mcp_logger(
    listing: Any, registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.use_mcp(listing([{"name": "chatty", "inputSchema": OBJECT}]))
    with caplog.at_level(logging.DEBUG, logger="tooldeck.mcp"):
        assert registry.call_tool("chatty")["name"] == "chatty"
    remote = {
        r.getMessage().rsplit(": ", 1)[1]: r.levelno
        for r in caplog.records
        if r.name == "tooldeck.mcp" and "from chatty" in r.getMessage()
    }
    assert remote == {
        "debug from chatty": logging.DEBUG,
        "info from chatty": logging.INFO,
        "notice from chatty": logging.INFO,
        "warning from chatty": logging.WARNING,
        "error from chatty": logging.ERROR,
        "critical from chatty": logging.CRITICAL,
        "alert from chatty": logging.CRITICAL,
        "emergency from chatty": logging.CRITICAL,
    }
    assert all(
        "(chatter)" in r.getMessage() for r in caplog.records if "from chatty" in r.getMessage()
    )
    assert any("progress 1/2 (half)" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("given", ["a transport", "a fastmcp Client"])
def test_remote_logs_never_reach_the_importing_programs_output(
    tmp_path: Path, given: str, server_forks: ForkServer
) -> None:
    # A Client given as the transport kept fastmcp's default handler, which prints.
    path = tmp_path / "chatty.json"
    path.write_text(json.dumps([{"name": "chatty", "inputSchema": OBJECT}]))
    transport = f"StdioTransport(sys.executable, [{str(RAW)!r}, {str(path)!r}])"
    if given == "a fastmcp Client":
        transport = f"Client({transport})"
    code = textwrap.dedent(
        f"""
        import sys
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport
        from tooldeck import ToolRegistry
        with ToolRegistry() as registry:
            registry.use_mcp({transport})
            print(registry.call_tool("chatty")["name"])
        """
    )
    # A program of its own (forked from one that imported fastmcp: what it prints is its).
    done = server_forks.run(code=code, timeout=60)
    stdout, stderr = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr
    assert stdout == "chatty\n"
    assert "from chatty" not in stderr
    assert "progress" not in stderr

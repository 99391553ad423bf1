"""The ``tooldeck`` command line, run for real: a process per command.

Fixture modules live in ``cli_fixtures/`` (on PYTHONPATH for the subprocess). Every
run is made under ``LC_ALL=C`` with locale coercion and UTF-8 mode off, so stdout
would be ASCII if the CLI did not insist on UTF-8. Nothing here reaches the internet:
the weather call goes to a server on 127.0.0.1.

Most commands run as ``python -m tooldeck`` forked from one process per test worker
that imported tooldeck's command line once (tests/forkserver.py): a process, exit
status and output of its own each, without a Python start-up each. The entry points
themselves (the console script, ``python -m tooldeck`` from a cold start, serving),
and every command that needs its own working directory or PYTHONPATH, start a new
interpreter.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx
import pytest

from forkserver import SERVING, ForkedProcess, ForkServer
from listening import free_port, started
from mcp_probe import INITIALIZE
from tooldeck import ToolRegistry
from tooldeck.tools.weather import get_weather

FIXTURES = Path(__file__).parent / "cli_fixtures"
FILE_TOOLS = FIXTURES / "standalone" / "file_tools.py"
FORMATS = ["openai", "openai-responses", "anthropic", "gemini", "mcp", "agently"]
TIMEOUT = 60


@dataclass
class Run:
    status: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def cli_env(**extra: str) -> dict[str, str]:
    """A C-locale environment with the fixtures importable."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONIOENCODING", "PYTHONUTF8", "LANG", "LC_CTYPE", "PYTHONPATH"}
        and not k.lower().endswith("_proxy")
    }
    env.update(LC_ALL="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0", PYTHONPATH=str(FIXTURES))
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(extra)
    return env


_servers: dict[bool, ForkServer] = {}


@pytest.fixture(scope="module", autouse=True)
def _fork_server() -> Iterator[None]:
    yield
    while _servers:
        _servers.popitem()[1].close()


def _forks(serving: bool) -> ForkServer:
    """The fork server for a command: one that imported the command line and its default
    tool (the weather tool, and httpx with it: ~0.15 s a command otherwise), and one that
    also imported the HTTP stack (uvicorn, fastmcp) for a server in the background."""
    if serving not in _servers:
        preload = "import tooldeck.cli, tooldeck.tools.weather" + (
            f"\n{SERVING}" if serving else ""
        )
        _servers[serving] = ForkServer(preload, env=cli_env())
    return _servers[serving]


def serve_in_background(*args: str, **env: str) -> ForkedProcess:
    """``python -m tooldeck serve ARGS`` in a process of its own, in the background."""
    return _forks(serving=True).start_module("tooldeck", "serve", *args, env=env)


def tooldeck(*args: str, cwd: Path | None = None, **env: str) -> Run:
    """``python -m tooldeck ARGS`` in a process of its own; output decoded as UTF-8.

    Forked from a process that imported the command line (the environment's changes
    made in the child), or, for a working directory or a ``PYTHON*`` variable of its
    own (read at an interpreter's start), a new interpreter."""
    if cwd is not None or any(name.startswith("PYTHON") for name in env):
        return tooldeck_process(*args, cwd=cwd, **env)
    done = _forks(serving=False).run(module="tooldeck", argv=args, env=env, timeout=TIMEOUT)
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def tooldeck_process(*args: str, cwd: Path | None = None, **env: str) -> Run:
    """``python -m tooldeck ARGS`` in a new interpreter; output decoded as UTF-8."""
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,  # a stdio server that should not have started ends at once
        env=cli_env(**env),
        cwd=cwd,
        timeout=TIMEOUT,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def assert_usage_error(run: Run, *fragments: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr (no traceback) naming the problem."""
    assert run.status == 2, run
    assert run.out == ""
    lines = [line for line in run.err.splitlines() if not line.startswith("cli_tools imported")]
    assert len(lines) == 1, run.err
    assert lines[0].startswith("tooldeck")
    assert "Traceback" not in run.err
    for fragment in fragments:
        assert fragment in lines[0]


# -- the console script and the basics ------------------------------------------------------


def test_console_script_lists_the_builtin_weather_tool() -> None:
    script = Path(sys.executable).parent / ("tooldeck.exe" if os.name == "nt" else "tooldeck")
    if not script.exists():
        pytest.skip("the tooldeck console script is not installed next to this Python")
    done = subprocess.run(
        [str(script), "list"], capture_output=True, env=cli_env(), timeout=TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8")
    assert out.splitlines()[0].split() == ["NAME", "TAGS", "DESCRIPTION"]
    assert out.splitlines()[1].startswith("get_weather  weather  查詢台灣城市的即時天氣資訊")


def test_listing_and_schemas_open_no_http_client() -> None:
    """httpx (and, with it, rich, click and pygments) is imported on the weather tool's
    first call, not to list the tools or print a schema: about a fifth of a start."""
    code = (
        "import io, sys, contextlib\n"
        "from tooldeck.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['list']) == 0 and main(['schema', 'get_weather']) == 0\n"
        "print(sorted(m for m in ('httpx', 'rich', 'pygments') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=cli_env(), timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == "[]"


def test_help_and_version() -> None:
    run = tooldeck_process("--help")  # `python -m tooldeck` from a cold start
    assert run.status == 0
    for command in ("list", "schema", "call", "serve"):
        assert command in run.out
    assert tooldeck("call", "--help").status == 0
    version = tooldeck("--version")
    assert version.status == 0
    assert version.out.startswith("tooldeck ")


def test_no_command_or_unknown_command_is_a_usage_error() -> None:
    assert_usage_error(tooldeck())
    assert_usage_error(tooldeck("bogus"), "bogus")
    assert_usage_error(tooldeck("list", "--bogus"), "--bogus")


# -- list -------------------------------------------------------------------------------------


def test_list_table_shows_name_tags_and_first_line() -> None:
    run = tooldeck("list", "--tools", "cli_tools")
    assert run.status == 0, run.err
    rows = run.out.splitlines()
    assert rows[0].split() == ["NAME", "TAGS", "DESCRIPTION"]
    assert "add      math        Add two integers." in rows
    assert "shout    text,async  Upper-case a text, asynchronously." in rows
    assert "A second line" not in run.out
    assert "hidden" not in run.out  # disabled


def test_list_json_and_tags() -> None:
    everything = tooldeck("list", "--json", "--tools", "cli_tools").json()
    names = [row["name"] for row in everything]
    assert names == ["add", "echo", "shout", "where", "explode", "refuse", "ping", "tune"]
    assert everything[0] == {
        "name": "add",
        "tags": ["math"],
        "description": "Add two integers.\n\nA second line the table leaves out.",
    }
    text = tooldeck("list", "--json", "--tag", "text", "--tools", "cli_tools").json()
    assert [row["name"] for row in text] == ["echo", "shout"]
    either = tooldeck("list", "--json", "--tag", "math", "--tag", "async", "--tools", "cli_tools")
    assert [row["name"] for row in either.json()] == ["add", "shout"]
    both = tooldeck(
        "list",
        "--json",
        "--tag",
        "text",
        "--tag",
        "async",
        "--match",
        "all",
        "--tools",
        "cli_tools",
    )
    assert [row["name"] for row in both.json()] == ["shout"]
    assert tooldeck("list", "--json", "--tag", "nothing", "--tools", "cli_tools").json() == []


def test_module_output_at_import_does_not_reach_stdout() -> None:
    run = tooldeck("list", "--json", "--tools", "cli_tools")
    json.loads(run.out)  # pure JSON
    assert "cli_tools imported" in run.err


# -- schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_schema_of_the_builtin_tools_matches_the_registry_export(fmt: str) -> None:
    registry = ToolRegistry()
    registry.register(get_weather)
    run = tooldeck("schema", "--format", fmt)
    assert run.status == 0, run.err
    assert run.json() == registry.export(fmt)
    assert "台北" in run.out  # UTF-8, not \u escapes
    assert "\\u" not in run.out


def test_schema_defaults_to_openai_and_takes_strict() -> None:
    run = tooldeck("schema", "get_weather", "--strict")
    assert run.status == 0, run.err
    exported = run.json()
    assert exported == get_weather.export("openai", strict=True)
    assert exported["function"]["strict"] is True
    assert exported["function"]["parameters"]["required"] == ["city", "include_details"]


def test_schema_with_tags_and_one_tool() -> None:
    tagged = tooldeck("schema", "--tag", "text", "--format", "anthropic", "--tools", "cli_tools")
    assert [t["name"] for t in tagged.json()] == ["echo", "shout"]
    one = tooldeck("schema", "add", "--format", "mcp", "--tools", "cli_tools").json()
    assert one["name"] == "add"
    assert one["inputSchema"]["properties"]["b"] == {
        "type": "integer",
        "description": "second addend",
        "default": 0,
    }


def test_schema_usage_errors() -> None:
    assert_usage_error(tooldeck("schema", "nope", "--tools", "cli_tools"), "nope", "available")
    assert_usage_error(tooldeck("schema", "hidden", "--tools", "cli_tools"), "disabled")
    assert_usage_error(tooldeck("schema", "--format", "yaml"), "yaml")
    assert_usage_error(tooldeck("schema", "add", "--tag", "math", "--tools", "cli_tools"))
    # A tool strict mode cannot express: named, with its parameter.
    assert_usage_error(tooldeck("schema", "--strict", "--tools", "cli_tools"), "tune", "values")
    strict_others = tooldeck("schema", "--strict", "--tag", "text", "--tools", "cli_tools")
    assert strict_others.status == 0


def test_schema_strict_best_effort_exports_the_tools_strict_mode_cannot_express() -> None:
    # Issue 21, item 17 on the command line: the refusal says how to export the rest in
    # the CLI's words (no Python keyword), and --best-effort does it.
    refused = tooldeck("schema", "--strict", "--tools", "cli_tools")
    assert_usage_error(refused, "tune", "--best-effort")
    assert "strict=" not in refused.err and "tags=" not in refused.err
    assert_usage_error(
        tooldeck("schema", "tune", "--strict", "--tools", "cli_tools"), "--best-effort"
    )
    run = tooldeck("schema", "--strict", "--best-effort", "--tools", "cli_tools")
    assert run.status == 0, run
    functions = {t["function"]["name"]: t["function"] for t in run.json()}
    assert functions["add"]["strict"] is True
    assert functions["tune"].get("strict") is not True
    assert run.err.count("tooldeck: warning: exported 1 tool(s) without strict mode: 'tune'") == 1
    one = tooldeck("schema", "tune", "--strict", "--best-effort", "--tools", "cli_tools")
    assert one.status == 0 and one.json()["function"].get("strict") is not True
    assert "tooldeck: warning: exported without strict mode" in one.err
    assert_usage_error(tooldeck("schema", "--best-effort", "--tools", "cli_tools"), "--strict")


# -- call -------------------------------------------------------------------------------------


def test_call_prints_the_value() -> None:
    assert tooldeck("call", "add", "a=1", "b=2", "--tools", "cli_tools").out == "3\n"
    # Pairs may come before or after the options.
    assert tooldeck("call", "add", "--tools", "cli_tools", "a=40", "b=2").out == "42\n"
    assert tooldeck("call", "echo", "text=ab", "times=2", "--tools", "cli_tools").out == "abab\n"


def test_call_values_are_json_where_they_parse_except_for_strings() -> None:
    # text is a string parameter: 123 stays "123" (JSON would make it an int).
    assert tooldeck("call", "echo", "text=123", "times=2", "--tools", "cli_tools").out == (
        "123123\n"
    )
    run = tooldeck("call", "where", 'tags=["a", "b"]', "--tools", "cli_tools")
    assert run.status == 0, run.err
    assert run.json() == {"city": "台北", "tags": ["a", "b"], "country": "台灣"}
    assert tooldeck("call", "echo", "text=a=b", "--tools", "cli_tools").out == "a=b\n"
    assert tooldeck("call", "echo", "text=", "--tools", "cli_tools").out == "\n"


def test_call_with_json_arguments_and_pairs_winning() -> None:
    run = tooldeck("call", "add", "--json", '{"a": 1, "b": 2}', "--tools", "cli_tools")
    assert run.out == "3\n"
    run = tooldeck("call", "add", "--json", '{"a": 1, "b": 2}', "b=10", "--tools", "cli_tools")
    assert run.out == "11\n"


def test_call_async() -> None:
    run = tooldeck("call", "shout", "text=hi", "--async", "--tools", "cli_tools")
    assert (run.status, run.out) == (0, "HI!\n")
    run = tooldeck("call", "shout", "text=hi", "mood=calm", "--tools", "cli_tools")
    assert (run.status, run.out) == (0, "HI\n")
    run = tooldeck("call", "add", "a=2", "--async", "--tools", "cli_tools")
    assert (run.status, run.out) == (0, "2\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explode"], "Error: boom"),
        (["explode", "message=kaput", "--async"], "Error: kaput"),
        (["refuse"], "Error: not today"),
        (["hidden"], "Error: Tool 'hidden' is disabled"),
        (["add", "a=one"], "Error: Invalid arguments for tool 'add':\na: "),
        (["add"], "a: missing required argument"),
        (["add", "a=1", "c=3"], "c: unexpected argument"),
        (["shout", "text=x", "mood=angry"], "mood: "),
    ],
)
def test_call_tool_answering_with_an_error_exits_1(args: list[str], message: str) -> None:
    run = tooldeck("call", *args, "--tools", "cli_tools")
    assert run.status == 1, run
    assert run.out == ""
    assert message in run.err
    assert "Traceback" not in run.err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["nope"], ["'nope'", "available: add, echo"]),
        (["add", "a"], ["KEY=VALUE", "'a'"]),
        (["add", "=1"], ["KEY=VALUE"]),
        (["add", "--json", "{a: 1}"], ["--json", "not valid JSON"]),
        (["add", "--json", "[1, 2]"], ["--json", "object"]),
        (["add", "a=1", "--bogus"], ["--bogus"]),
    ],
)
def test_call_usage_errors_exit_2(args: list[str], fragments: list[str]) -> None:
    assert_usage_error(tooldeck("call", *args, "--tools", "cli_tools"), *fragments)


def test_call_needs_a_tool_name() -> None:
    assert_usage_error(tooldeck("call"))


# -- --tools ----------------------------------------------------------------------------------


def test_tools_module_attr_forms() -> None:
    registry = tooldeck("list", "--json", "--tools", "cli_tools:registry").json()
    assert [row["name"] for row in registry] == ["ping"]
    pair = tooldeck("list", "--json", "--tools", "cli_tools:PAIR").json()
    assert [row["name"] for row in pair] == ["add", "echo"]
    one = tooldeck("list", "--json", "--tools", "cli_tools:echo").json()
    assert [row["name"] for row in one] == ["echo"]
    plain = tooldeck("call", "plain", "x=21", "--tools", "cli_tools:plain")
    assert (plain.status, plain.out) == (0, "42\n")
    builtin = tooldeck("list", "--json", "--tools", "tooldeck.tools.weather:get_weather").json()
    assert [row["name"] for row in builtin] == ["get_weather"]


def test_tools_from_a_file_path_with_sibling_imports(tmp_path: Path) -> None:
    relative = os.path.relpath(FILE_TOOLS, tmp_path)
    for spec in (str(FILE_TOOLS), relative):
        run = tooldeck("list", "--json", "--tools", spec, cwd=tmp_path, PYTHONPATH="")
        assert run.status == 0, run.err
        assert [row["name"] for row in run.json()] == ["to_fahrenheit", "reading"]
    run = tooldeck(
        "call", "reading", "--json", '{"reading": {"celsius": 30}}', "--tools", str(FILE_TOOLS)
    )
    assert (run.status, run.out) == (0, "高雄: 86°F\n")
    run = tooldeck("call", "to_fahrenheit", "celsius=100", "--tools", f"{FILE_TOOLS}:to_fahrenheit")
    assert (run.status, run.out) == (0, "212.0\n")


def test_tools_module_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "here_tools.py").write_text(
        "from tooldeck import tool\n\n@tool\ndef here() -> str:\n    return 'here'\n",
        encoding="utf-8",
    )
    run = tooldeck("call", "here", "--tools", "here_tools", cwd=tmp_path, PYTHONPATH="")
    assert (run.status, run.out) == (0, "here\n")


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("broken_tools", ["'broken_tools'", "No module named 'tooldeck_missing_dependency'"]),
        ("no_such_module", ["'no_such_module'", "ModuleNotFoundError"]),
        ("bad_definition", ["'bad_definition'", "ToolDefinitionError", "spread", "numbers"]),
        ("empty_module", ["'empty_module'", "no tools"]),
        ("cli_tools:nope", ["'cli_tools'", "'nope'"]),
        ("cli_tools:ANSWER_IS_MISSING", ["ANSWER_IS_MISSING"]),
        ("missing/file.py", ["missing/file.py", "no such file"]),
        (":attr", ["module:attr"]),
    ],
)
def test_tools_that_cannot_be_loaded_exit_2(spec: str, fragments: list[str]) -> None:
    assert_usage_error(tooldeck("list", "--tools", spec), *fragments)


@pytest.mark.parametrize("command", [["schema"], ["call", "add"]])
def test_every_command_reports_a_module_that_fails_to_import(command: list[str]) -> None:
    assert_usage_error(tooldeck(*command, "--tools", "broken_tools"), "'broken_tools'")


# -- UTF-8, whatever the locale -----------------------------------------------------------------


def test_utf8_survives_the_c_locale() -> None:
    # cli_env sets LC_ALL=C without locale coercion: sys.stdout would be ASCII.
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.stdout.encoding)"],
        capture_output=True,
        env=cli_env(),
        timeout=TIMEOUT,
        check=True,
    )
    assert probe.stdout.decode().strip().lower() in {"ascii", "ansi_x3.4-1968", "us-ascii"}
    run = tooldeck_process("call", "where", "city=台北", "--tools", "cli_tools")
    assert run.status == 0, run.err
    assert run.json()["city"] == "台北"
    assert "台灣" in run.out
    # The error goes to stderr, in UTF-8 too; no network call for an unsupported city.
    refused = tooldeck("call", "get_weather", "city=東京")
    assert refused.status == 1
    assert refused.err.startswith("Error: unsupported_city")
    assert "東京" in refused.err


class _OpenMeteo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(
            {
                "current": {
                    "temperature_2m": 22.5,
                    "apparent_temperature": 24.1,
                    "relative_humidity_2m": 75,
                    "weather_code": 2,
                    "wind_speed_10m": 12.3,
                }
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def weather_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OpenMeteo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1/forecast"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("face", [[], ["--async"]])
def test_call_the_builtin_weather_tool(weather_url: str, face: list[str]) -> None:
    run = tooldeck(
        "call", "get_weather", "city=Taipei", "include_details=true", *face,
        TOOLDECK_WEATHER_URL=weather_url,
    )  # fmt: skip
    assert run.status == 0, run.err
    answer = run.json()
    assert answer["city"] == "台北"
    assert answer["temperature"] == 22.5
    assert answer["humidity"] == 75
    assert '"台北"' in run.out


# -- serve ------------------------------------------------------------------------------------


async def test_serve_over_stdio_answers_a_fastmcp_client() -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "tooldeck", "serve", "--tools", "cli_tools"],
        env=cli_env(),
        keep_alive=False,
    )

    async def session() -> None:
        async with Client(transport) as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert "add" in tools
            assert "hidden" not in tools
            assert tools["add"].input_schema["properties"]["b"]["description"] == "second addend"
            added = await client.call_tool("add", {"a": 1, "b": 2})
            assert added.data == 3
            where = await client.call_tool("where", {"city": "高雄"})
            assert where.structured_content is not None
            assert where.data["city"] == "高雄"
            failed = await client.call_tool("explode", {}, raise_on_error=False)
            assert failed.is_error

    # wait_for, not asyncio.timeout: that is Python 3.11+, and 3.10 is supported.
    await asyncio.wait_for(session(), TIMEOUT)


async def test_serve_over_http_with_a_token_and_tags() -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import Client

    process, port = started(
        lambda port: serve_in_background(
            "--transport", "http", "--port", str(port), "--tag", "text", "--tools", "cli_tools",
            TOOLDECK_MCP_TOKEN="s3cret",
        ),
        TIMEOUT,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/mcp"

        async def session() -> None:
            async with Client(url, auth="s3cret") as client:
                assert sorted(t.name for t in await client.list_tools()) == ["echo", "shout"]
                shouted = await client.call_tool("shout", {"text": "台北"})
                assert shouted.data == "台北!"

        await asyncio.wait_for(session(), TIMEOUT)
        async with httpx.AsyncClient(timeout=TIMEOUT, trust_env=False) as http:
            for headers in ({}, {"Authorization": "Bearer wrong"}):
                refused = await http.post(url, json={}, headers=headers)
                assert refused.status_code == 401
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_serve_without_the_mcp_extra_names_it() -> None:
    hidden = os.pathsep.join([str(FIXTURES / "no_fastmcp"), str(FIXTURES)])
    run = tooldeck("serve", "--tools", "cli_tools", PYTHONPATH=hidden)
    assert_usage_error(run, "tooldeck[mcp]")


def test_serve_usage_errors() -> None:
    assert_usage_error(tooldeck("serve", "--token", "x"), "--transport http")
    assert_usage_error(tooldeck("serve", "--stateless"), "--stateless", "--transport http")
    assert_usage_error(tooldeck("serve", "--allow-host", "a.example"), "--allow-host")
    run = tooldeck("serve", "--token", "x", "--port", "9000")
    assert_usage_error(run, "--port, --token are HTTP-only options", "--transport http")
    assert_usage_error(tooldeck("serve", "--transport", "carrier-pigeon"), "carrier-pigeon")
    assert_usage_error(tooldeck("serve", "--tools", "broken_tools"), "broken_tools")


async def test_serve_defer_lists_search_tools_and_finds_the_others() -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "tooldeck", "serve", "--tools", "cli_tools", "--defer", "text"],
        env=cli_env(),
        keep_alive=False,
    )

    async def session() -> None:
        async with Client(transport) as client:
            names = [t.name for t in await client.list_tools()]
            assert "search_tools" in names and "add" in names
            assert "echo" not in names and "shout" not in names
            found = await client.call_tool("search_tools", {"query": "echo text"})
            assert "- echo" in found.content[0].text  # type: ignore[union-attr]
            echoed = await client.call_tool("echo", {"text": "hi", "times": 2})
            assert echoed.data == "hihi"

    await asyncio.wait_for(session(), TIMEOUT)


def test_serve_defer_usage_errors() -> None:
    run = tooldeck("serve", "--tools", "cli_tools", "--defer-tool", "nope")
    assert_usage_error(run, "Tool 'nope' is not registered")
    run = tooldeck("serve", "--tools", "cli_tools", "--defer", "text", "--defer-tool", "add")
    assert_usage_error(run, "--defer and --defer-tool: give one")


HTTP = ("serve", "--tools", "cli_tools", "--transport", "http")
HTTP_ONLY = [
    ("--host", "0.0.0.0"),
    ("--host", "127.0.0.1"),
    ("--port", "8000"),
    ("--token", "t"),
    ("--token", "alice=t"),
    ("--stateless",),
    ("--allow-host", "tools.example"),
    ("--max-sessions-per-client", "5"),
    ("--session-idle-timeout", "60"),
]


@pytest.mark.parametrize("transport", [(), ("--transport", "stdio")], ids=["default", "stdio"])
@pytest.mark.parametrize("option", HTTP_ONLY, ids=lambda option: " ".join(option))
def test_http_only_options_with_stdio_are_usage_errors(
    transport: tuple[str, ...], option: tuple[str, ...]
) -> None:
    run = tooldeck("serve", "--tools", "cli_tools", *transport, *option)
    assert_usage_error(run, f"{option[0]} is an HTTP-only option", "add --transport http")


def test_an_empty_token_is_refused_in_the_cli_s_words() -> None:
    run = tooldeck(*HTTP, "--token", "")
    assert_usage_error(run, "token is empty")
    assert "None" not in run.err


def test_serving_beyond_loopback_without_a_token_warns_in_one_tooldeck_line() -> None:
    with socket.socket() as taken:  # the warning comes first, then the port in use ends it
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        run = tooldeck(*HTTP, "--host", "0.0.0.0", "--port", port)
    assert run.status == 2
    lines = [line for line in run.err.splitlines() if not line.startswith("cli_tools imported")]
    assert lines[0] == (
        "tooldeck: warning: serving MCP on 0.0.0.0 without a token: "
        "anyone who can reach it may call"
    )
    assert lines[1].startswith("tooldeck: error: cannot serve MCP on 0.0.0.0")
    assert len(lines) == 2
    assert "Warning" not in run.err and ".py" not in run.err


def test_call_usage_does_not_mark_the_arguments_required() -> None:
    run = tooldeck("call")
    assert_usage_error(run, "required: NAME")
    assert "KEY=VALUE" not in run.err
    assert "NAME [KEY=VALUE ...]" in " ".join(tooldeck("call", "--help").out.split())


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("--token", ""), ("token is empty",)),
        (("--port", "99999"), ("--port", "from 0 to 65535", "99999")),
        (("--port", "eighty"), ("--port", "eighty")),
        (("--port", "-1"), ("--port", "from 0 to 65535")),
        (("--token", "alice=t1", "--token", "t2"), ("NAME=TOKEN",)),
        (("--token", "alice=t1", "--token", "bob=t1"), ("alice", "bob", "share one token")),
        (("--token", "pässwörd"), ("token has a character outside printable ASCII",)),
        (("--token", "alice=pässwörd"), ("client 'alice'", "outside printable ASCII")),
        (("--max-sessions-per-client", "0"), ("--max-sessions-per-client", "positive")),
        (("--max-sessions-per-client", "2.5"), ("--max-sessions-per-client", "2.5")),
        (("--session-idle-timeout", "-1"), ("--session-idle-timeout", "positive")),
        (("--session-idle-timeout", "nan"), ("--session-idle-timeout", "nan")),
        (  # in the command line's words, not the Python keyword's
            ("--stateless", "--max-sessions-per-client", "3"),
            ("--max-sessions-per-client", "--stateless keeps no sessions"),
        ),
        (
            ("--stateless", "--session-idle-timeout", "3"),
            ("--session-idle-timeout", "--stateless keeps no sessions"),
        ),
    ],
)
def test_serve_http_usage_errors(args: tuple[str, ...], fragments: tuple[str, ...]) -> None:
    assert_usage_error(tooldeck(*HTTP, *args), *fragments)


def test_serve_with_an_empty_token_in_the_environment_is_a_usage_error() -> None:
    run = tooldeck(*HTTP, "--port", str(free_port()), TOOLDECK_MCP_TOKEN="")
    assert_usage_error(run, "TOOLDECK_MCP_TOKEN is set but empty")


def test_serve_with_a_non_ascii_token_in_the_environment_is_a_usage_error() -> None:
    run = tooldeck(*HTTP, "--port", str(free_port()), TOOLDECK_MCP_TOKEN="台北-token")
    assert_usage_error(run, "TOOLDECK_MCP_TOKEN has a character outside printable ASCII")


def test_serve_on_a_port_in_use_is_a_usage_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert_usage_error(tooldeck(*HTTP, "--port", port), f"127.0.0.1:{port}", "in use")


async def test_serve_stateless_with_named_tokens_and_an_allowed_host() -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    process, port = started(
        lambda port: serve_in_background(
            *HTTP[1:], "--port", str(port), "--stateless",
            "--token", "alice=t-alice", "--token", "bob=t-bob", "--allow-host", "tools.example",
        ),
        TIMEOUT,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        for token in ("t-alice", "t-bob"):
            transport = StreamableHttpTransport(url, auth=token)
            with anyio.fail_after(TIMEOUT):  # not asyncio.timeout: 3.11+, and 3.10 is supported
                async with Client(transport) as client:
                    assert (await client.call_tool("add", {"a": 1, "b": 2})).data == 3
        headers = {
            "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer t-alice",
        }
        async with httpx.AsyncClient(timeout=TIMEOUT, trust_env=False) as http:
            for host, status in (("tools.example", 200), ("evil.example", 421)):
                answer = await http.post(url, json=INITIALIZE, headers={**headers, "Host": host})
                assert answer.status_code == status
            refused = await http.post(
                url, json=INITIALIZE, headers={**headers, "Authorization": "Bearer t-carol"}
            )
            assert refused.status_code == 401
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def test_serve_caps_the_sessions_of_each_client() -> None:
    process, port = started(
        lambda port: serve_in_background(
            *HTTP[1:], "--port", str(port), "--token", "alice=t-alice", "--token", "bob=t-bob",
            "--max-sessions-per-client", "1", "--session-idle-timeout", "600",
        ),
        TIMEOUT,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(timeout=TIMEOUT, trust_env=False) as http:

            async def initialize(token: str) -> httpx.Response:
                auth = {**headers, "Authorization": f"Bearer {token}"}
                return await http.post(url, json=INITIALIZE, headers=auth)

            assert (await initialize("t-alice")).status_code == 200
            refused = await initialize("t-alice")
            assert refused.status_code == 429
            assert "max_sessions_per_client=1" in refused.json()["error"]["message"]
            assert (await initialize("t-bob")).status_code == 200
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# -- in process: main() itself ------------------------------------------------------------------


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fixture modules importable; the default registry and sys.modules restored after."""
    from tooldeck import _registry

    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setattr(_registry, "_default_registry", [None])
    before = set(sys.modules)
    try:
        yield
    finally:
        for name in set(sys.modules) - before:
            if name in {"cli_tools", "file_tools", "units", "broken_tools"}:
                del sys.modules[name]


def test_main_in_process(in_process: None, capsys: pytest.CaptureFixture[str]) -> None:
    from tooldeck.cli import main

    assert main(["call", "add", "a=1", "b=2", "--tools", "cli_tools"]) == 0
    assert capsys.readouterr().out == "3\n"
    assert main(["list", "--json", "--tag", "math", "--tools", "cli_tools"]) == 0
    assert [row["name"] for row in json.loads(capsys.readouterr().out)] == ["add"]
    assert main(["call", "explode", "--tools", "cli_tools"]) == 1
    assert capsys.readouterr().err.endswith("Error: boom\n")
    assert main(["call", "add", "oops", "--tools", "cli_tools"]) == 2
    assert capsys.readouterr().err == "tooldeck: error: expected KEY=VALUE, got 'oops'\n"
    assert main(["schema", "reading", "--tools", str(FILE_TOOLS)]) == 0
    assert json.loads(capsys.readouterr().out)["function"]["name"] == "reading"
    assert main(["list", "--tools", "broken_tools"]) == 2
    assert main(["--version"]) == 0
    assert main([]) == 2


def test_parse_arguments_keeps_text_for_string_parameters() -> None:
    from tooldeck import Tool
    from tooldeck.cli import parse_arguments

    def pick(code: str, mode: Literal["1", "2"] = "1", count: int = 0, data: object = None) -> None:
        """Pick."""

    picker = Tool(pick)
    parsed = parse_arguments(
        picker, ["code=01234", "mode=2", "count=3", 'data={"a": [1]}'], '{"count": 1, "x": 2}'
    )
    assert parsed == {"code": "01234", "mode": "2", "count": 3, "data": {"a": [1]}, "x": 2}
    assert parse_arguments(picker, ["data=not json", "data2=null"], None) == {
        "data": "not json",
        "data2": None,
    }

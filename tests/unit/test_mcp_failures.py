"""`failure_kind`: which MCP client failures are the transport's (retried by `Retry` as a
``ConnectionError`` or a ``TimeoutError``) and which are the server speaking."""

from __future__ import annotations

import pytest

pytest.importorskip("fastmcp")

from mcp.shared.exceptions import MCPError

from tooldeck.mcp._failures import (
    RemoteFailure,
    RemoteTimeout,
    RemoteUnreachable,
    failure_kind,
)


def caused(outer: BaseException, inner: BaseException) -> BaseException:
    outer.__cause__ = inner
    return outer


@pytest.mark.parametrize(
    ("exc", "statuses", "kind"),
    [
        (ConnectionRefusedError(111, "refused"), (), RemoteUnreachable),
        (
            caused(RuntimeError("Client failed to connect"), ConnectionResetError()),
            (),
            RemoteUnreachable,
        ),
        (MCPError(-32000, "Connection closed"), (), RemoteUnreachable),
        (MCPError(-32603, "Server returned an error response"), (503,), RemoteUnreachable),
        (MCPError(-32603, "Server returned an error response"), (502,), RemoteUnreachable),
        (MCPError(-32603, "Server returned an error response"), (504,), RemoteTimeout),
        (MCPError(-32603, "Server returned an error response"), (500,), RemoteFailure),
        (MCPError(-32603, "Server returned an error response"), (), RemoteFailure),
        (MCPError(-32602, "Unknown tool"), (), RemoteFailure),
        # the server's JSON-RPC error answer decides, whatever it was raised from
        (caused(MCPError(-32602, "bad params"), ConnectionError()), (), RemoteFailure),
        (TimeoutError(), (), RemoteTimeout),
        (ValueError("a result it cannot read"), (), RemoteFailure),
    ],
)
def test_failure_kind(exc: BaseException, statuses: tuple[int, ...], kind: type) -> None:
    assert failure_kind(exc, statuses) is kind


def test_httpx_transport_errors_by_their_kind() -> None:
    import httpx2

    request = httpx2.Request("POST", "http://127.0.0.1:1/mcp")
    assert failure_kind(httpx2.ConnectError("x", request=request)) is RemoteUnreachable
    assert failure_kind(httpx2.RemoteProtocolError("x", request=request)) is RemoteUnreachable
    assert failure_kind(httpx2.ReadTimeout("x", request=request)) is RemoteTimeout


def test_a_cause_chain_that_loops_ends() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert failure_kind(a) is RemoteFailure


def test_the_failures_are_the_builtins_retry_matches_and_read_as_before() -> None:
    down = RemoteUnreachable("failed to open a session: refused", server="srv")
    late = RemoteTimeout("did not answer in time", server="srv")
    assert isinstance(down, ConnectionError) and isinstance(down, RemoteFailure)
    assert isinstance(late, TimeoutError) and late.timed_out and not down.timed_out
    assert str(down) == "MCP server srv failed to open a session: refused"
    assert (down.server, down.reason) == ("srv", "failed to open a session: refused")

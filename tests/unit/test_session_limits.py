"""`SessionLimits` on its own: the bookkeeping behind ``max_sessions_per_client``.

The middleware runs in front of a small ASGI app standing in for the session manager
(it opens a session for a request without one, and answers 404 for one it forgot), on a
clock the tests move. The real server is in tests/reliability/test_session_limits.py.
"""

from __future__ import annotations

import asyncio
import itertools
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("starlette")

from tooldeck.mcp import _session_limits
from tooldeck.mcp._session_limits import SessionLimits, check_limits

IDLE = 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Manager:
    """Opens sessions, serves live ones, 404 for the rest; can hold a request open."""

    def __init__(self) -> None:
        self.ids = (f"s{n}".encode() for n in itertools.count())
        self.live: set[bytes] = set()
        self.hold: asyncio.Event | None = None  # GET requests wait for it
        self.holding = 0
        self.fail_next = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the manager broke")
        session = dict(scope["headers"]).get(b"mcp-session-id")
        headers = []
        if session is None:
            session = next(self.ids)
            self.live.add(session)
            headers = [(b"mcp-session-id", session)]
            status = 200
        elif session not in self.live:
            status = 404
        elif scope["method"] == "DELETE":
            self.live.discard(session)
            status = 200
        else:
            status = 200
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if self.hold is not None and scope["method"] == "GET":
            self.holding += 1
            await self.hold.wait()
        await send({"type": "http.response.body", "body": b""})


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(_session_limits.time, "monotonic", fake)
    return fake


async def request(
    limits: SessionLimits, who: str, session: bytes | None = None, method: str = "POST"
) -> tuple[int, dict[bytes, bytes]]:
    headers = [(b"mcp-session-id", session)] if session is not None else []
    scope = {
        "type": "http",
        "method": method,
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "user": SimpleNamespace(access_token=SimpleNamespace(client_id=who)),
    }
    started: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.append(message)

    await limits(scope, receive, send)
    return started[0]["status"], dict(started[0]["headers"])


async def test_an_expired_session_used_again_counts_again(clock: Clock) -> None:
    manager = Manager()
    limits = SessionLimits(manager, cap=1, idle_timeout=IDLE)
    _, headers = await request(limits, "alice")
    first = headers[b"mcp-session-id"]
    assert (await request(limits, "alice"))[0] == 429
    clock.now += IDLE + 1  # idle here; say the manager has not reaped it yet
    assert (await request(limits, "alice"))[0] == 200  # its place was free
    assert (await request(limits, "alice", first))[0] == 200  # ...and it lives on
    assert (await request(limits, "alice"))[0] == 429  # so it counts again


async def test_a_session_with_a_request_in_flight_never_expires(clock: Clock) -> None:
    manager = Manager()
    limits = SessionLimits(manager, cap=1, idle_timeout=IDLE)
    _, headers = await request(limits, "alice")
    manager.hold = asyncio.Event()  # a GET stream stays open until it is set
    stream = asyncio.create_task(request(limits, "alice", headers[b"mcp-session-id"], "GET"))
    while not stream.done() and not manager.holding:
        await asyncio.sleep(0)
    clock.now += 10 * IDLE
    assert (await request(limits, "alice"))[0] == 429  # the open stream keeps it alive
    manager.hold.set()
    await stream
    # Idle from the stream's end: it expires IDLE later, not before.
    assert (await request(limits, "alice"))[0] == 429
    clock.now += IDLE + 1
    assert (await request(limits, "alice"))[0] == 200


async def test_a_failed_opening_request_gives_its_place_back(clock: Clock) -> None:
    manager = Manager()
    limits = SessionLimits(manager, cap=1, idle_timeout=IDLE)
    manager.fail_next = True
    with pytest.raises(RuntimeError):
        await request(limits, "alice")
    assert (await request(limits, "alice"))[0] == 200


async def test_delete_and_404_free_the_place(clock: Clock) -> None:
    manager = Manager()
    limits = SessionLimits(manager, cap=1, idle_timeout=IDLE)
    _, headers = await request(limits, "alice")
    assert (await request(limits, "alice", headers[b"mcp-session-id"], "DELETE"))[0] == 200
    _, headers = await request(limits, "alice")
    manager.live.clear()  # the manager forgot it (restarted, reaped)
    assert (await request(limits, "alice", headers[b"mcp-session-id"]))[0] == 404
    assert (await request(limits, "alice"))[0] == 200


async def test_clients_that_never_come_back_are_forgotten(clock: Clock) -> None:
    limits = SessionLimits(Manager(), cap=1, idle_timeout=IDLE)
    for who in ("a", "b", "c"):
        await request(limits, who)
    assert set(limits.clients) == {"client a", "client b", "client c"}
    clock.now += 2 * IDLE + 1
    await request(limits, "d")
    assert set(limits.clients) == {"client d"}


async def test_the_refusal_names_the_limit_and_when_to_retry(clock: Clock) -> None:
    limits = SessionLimits(Manager(), cap=2, idle_timeout=IDLE)
    await request(limits, "alice")
    clock.now += 20
    await request(limits, "alice")
    status, headers = await request(limits, "alice")
    assert status == 429
    assert headers[b"retry-after"] == b"40"  # the first session expires in 40 s


def test_the_defaults() -> None:
    assert check_limits(None, None) == (100, 1800.0)
    assert check_limits(3, 2) == (3, 2.0)

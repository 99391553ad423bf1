"""``UsedBatches(storage="redis://...")``: a signed batch runs once across workers.

Two workers are two registries, each with its own ``UsedBatches`` on the same URL (its
own Redis client, as in two processes): the text runs in one of them only, racing or
not. The id is kept with ``SET NX`` for the batch's expiry plus the clock-skew margin,
or for good without one. A Redis that does not answer runs nothing (closed). The server
is a real ``redis-server`` on a free port (tests skip, saying why, where it is missing);
one test runs the text in a process of its own first (tests/forkserver.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from listening import closed_port
from redis_process import redis_started
from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)

KEY = b"kept on the server"
NOT_AGAIN = "Error: Tool 'transfer' was not run: its batch of calls has run already"
REPLY = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "transfer", "arguments": '{"amount": 100}'}},
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_started(tmp_path_factory) as url:
        yield url


def tools(paid: list[int]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def transfer(amount: int) -> str:
        paid.append(amount)
        return f"sent {amount}"

    return registry


def worker(paid: list[int], url: str) -> tuple[ToolRegistry, Any]:
    """A worker: its registry, and its own store on ``url``."""
    from tooldeck.approval import UsedBatches

    return tools(paid), UsedBatches(storage=url)


def approved_text(**to_json: Any) -> tuple[str, str]:
    batch = tools([]).prepare_tool_calls(REPLY)
    batch.approve("c1")
    return batch.id, batch.to_json(key=KEY, **to_json)


def test_two_workers_racing_on_one_redis_run_the_text_once(redis_url: str) -> None:
    import redis

    paid: list[int] = []
    id, text = approved_text(expires_in=120)
    workers = [worker(paid, redis_url) for _ in range(6)]
    batches = [registry.load_tool_calls(text, key=KEY, once=used) for registry, used in workers]
    start = threading.Barrier(len(batches))
    answers: list[str] = []

    def run(batch: Any) -> None:
        start.wait()
        answers.append(batch.run()[0]["content"])

    threads = [threading.Thread(target=run, args=(b,)) for b in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert paid == [100]
    assert sorted(answers) == sorted(["sent 100"] + [NOT_AGAIN + " (a batch runs once)"] * 5)
    client = redis.Redis.from_url(redis_url)
    ttl = client.pttl(f"tooldeck:batch-run:{id}")
    assert 120_000 + 300_000 - 10_000 < ttl <= 120_000 + 300_000  # expiry + SKEW
    client.close()


async def test_without_an_expiry_the_id_is_kept_for_good_async_too(redis_url: str) -> None:
    import redis

    paid: list[int] = []
    id, text = approved_text()
    (first, one), (second, two) = worker(paid, redis_url), worker(paid, redis_url)
    assert (await first.load_tool_calls(text, key=KEY, once=one).arun())[0]["content"] == (
        "sent 100"
    )
    again = await second.load_tool_calls(text, key=KEY, once=two).arun()
    assert again[0]["content"].startswith(NOT_AGAIN)
    assert paid == [100]
    client = redis.Redis.from_url(redis_url)
    assert client.pttl(f"tooldeck:batch-run:{id}") == -1  # no expiry
    client.close()


def test_a_redis_that_does_not_answer_runs_nothing(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooldeck.middleware import _redis

    monkeypatch.setattr(_redis, "TIMEOUT", 0.2)  # the socket timeouts, shortened
    paid: list[int] = []
    _, text = approved_text()
    with closed_port() as refusing:
        registry, used = worker(paid, f"redis://:secret@127.0.0.1:{refusing}/0")
        answer = registry.load_tool_calls(text, key=KEY, once=used).run()
    assert answer[0]["content"] == (
        "Error: Tool 'transfer' was not run: whether its batch of calls has run already "
        f"cannot be checked (its storage redis://127.0.0.1:{refusing}/0 did not answer)"
    )
    assert paid == []


CHILD = """
import json, os
from tooldeck import ToolRegistry
from tooldeck.approval import UsedBatches

registry = ToolRegistry()
paid = []

@registry.tool(requires_approval=True)
def transfer(amount: int) -> str:
    paid.append(amount)
    return f"sent {amount}"

used = UsedBatches(storage=os.environ["URL"])
key = bytes.fromhex(os.environ["KEY"])
batch = registry.load_tool_calls(os.environ["BATCH"], key=key, once=used)
print(json.dumps([batch.run()[0]["content"], paid]))
"""


def test_a_text_run_in_one_process_does_not_run_in_another(
    redis_url: str, server_forks: Any
) -> None:
    import json

    paid: list[int] = []
    _, text = approved_text(expires_in=60)
    env = {"BATCH": text, "KEY": KEY.hex(), "URL": redis_url}
    child = server_forks.run(code=CHILD, env=env, timeout=30)  # a worker of its own
    assert child.returncode == 0, child.stderr.decode()
    assert json.loads(child.stdout) == ["sent 100", [100]]
    registry, used = worker(paid, redis_url)  # this process, the text posted again
    again = registry.load_tool_calls(text, key=KEY, once=used).run()
    assert again[0]["content"].startswith(NOT_AGAIN)
    assert paid == []

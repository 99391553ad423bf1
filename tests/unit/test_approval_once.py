"""A signed batch runs once: its id, its expiry, and ``load_tool_calls(once=...)``.

The same signed text, loaded twice (two registries standing for two workers, or one
loading it again), would run its approved calls twice. Each batch has an id signed into
its text; with ``once=UsedBatches()`` the first run claims it and any other run of that
id answers, call by call, that its batch has run already, running nothing. An expiry
signed into the text refuses loading from then on. Changing the id or the expiry under
a signature is refused like any other change.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry
from tooldeck.approval import UsedBatches

KEY = b"kept on the server"
NOT_AGAIN = "its batch of calls has run already (a batch runs once)"

REPLY = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in [
            ("c1", "transfer", {"amount": 100}),
            ("c2", "add", {"a": 1, "b": 2}),
            ("c3", "transfer", {"amount": 7}),
            ("c4", "transfer", {"amount": 9}),
        ]
    ],
}


def worker(paid: list[int]) -> ToolRegistry:
    """One worker's registry: its own tools, paying into ``paid``."""
    registry = ToolRegistry()

    @registry.tool(requires_approval=True)
    def transfer(amount: int) -> str:
        paid.append(amount)
        return f"sent {amount}"

    @registry.tool
    def add(a: int, b: int) -> int:
        return a + b

    return registry


def decided_text(**to_json: Any) -> str:
    """The text an app keeps: c1 approved, c3 declined, c4 answered, signed."""
    batch = worker([]).prepare_tool_calls(REPLY)
    batch.approve("c1")
    batch.reject("c3", "too small")
    batch.answer("c4", "Done by hand.")
    return batch.to_json(key=KEY, **to_json)


FIRST = ["sent 100", "3", "Error: too small", "Done by hand."]
AGAIN = [
    f"Error: Tool 'transfer' was not run: {NOT_AGAIN}",
    f"Error: Tool 'add' was not run: {NOT_AGAIN}",
    "Error: too small",
    "Done by hand.",
]


def contents(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages]


# -- the id ------------------------------------------------------------------------------


def test_every_batch_has_its_own_unguessable_id_kept_in_its_text() -> None:
    registry = worker([])
    ids = {registry.prepare_tool_calls(REPLY).id for _ in range(50)}
    assert len(ids) == 50
    batch = registry.prepare_tool_calls(REPLY)
    assert len(batch.id) >= 22 and batch.id.replace("-", "").replace("_", "").isalnum()
    signed, unsigned = batch.to_json(key=KEY), batch.to_json()
    assert json.loads(signed)["id"] == batch.id
    assert registry.load_tool_calls(signed, key=KEY).id == batch.id
    assert registry.load_tool_calls(unsigned).id == batch.id
    again = registry.load_tool_calls(signed, key=KEY)
    again.approve("c1")
    assert registry.load_tool_calls(again.to_json(key=KEY), key=KEY).id == batch.id


def test_text_written_before_ids_loads_with_an_id_made_from_its_calls() -> None:
    registry = worker([])
    data = json.loads(registry.prepare_tool_calls(REPLY).to_json())
    del data["id"]
    old = json.dumps(data)
    first, second = registry.load_tool_calls(old), registry.load_tool_calls(old)
    assert first.id == second.id and first.id.startswith("v1-")
    other = dict(data, calls=data["calls"][:1])
    assert registry.load_tool_calls(json.dumps(other)).id != first.id


# -- once --------------------------------------------------------------------------------


def test_without_once_the_same_signed_text_pays_twice() -> None:
    """What the store is for: nothing else records that a text was used."""
    paid: list[int] = []
    text = decided_text()
    for registry in (worker(paid), worker(paid)):
        assert contents(registry.load_tool_calls(text, key=KEY).run()) == FIRST
    assert paid == [100, 100]


def test_two_workers_sharing_a_store_run_the_text_once() -> None:
    paid: list[int] = []
    used = UsedBatches()
    text = decided_text()
    first = worker(paid).load_tool_calls(text, key=KEY, once=used).run()
    second = worker(paid).load_tool_calls(text, key=KEY, once=used).run()
    assert contents(first) == FIRST
    assert contents(second) == AGAIN
    assert [m["tool_call_id"] for m in second] == ["c1", "c2", "c3", "c4"]
    assert paid == [100]


def test_a_replay_is_answered_in_the_replys_own_format_async_too() -> None:
    paid: list[int] = []
    anthropic = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t1", "name": "transfer", "input": {"amount": 5}},
            {"type": "tool_use", "id": "t2", "name": "transfer", "input": {"amount": 6}},
        ],
    }
    batch = worker(paid).prepare_tool_calls(anthropic)
    batch.approve("t1")  # t2 stays pending: declined, as any run answers it
    text = batch.to_json(key=KEY)
    used = UsedBatches()

    async def twice() -> list[list[dict[str, Any]]]:
        return [
            await worker(paid).load_tool_calls(text, key=KEY, once=used).arun() for _ in range(2)
        ]

    first, second = asyncio.run(twice())
    assert first[0]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "sent 5",
        "is_error": False,
    }
    assert second == [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": f"Error: Tool 'transfer' was not run: {NOT_AGAIN}",
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "Error: The user declined to run tool 'transfer'",
                    "is_error": True,
                },
            ],
        }
    ]
    assert paid == [5]


@pytest.mark.timeout(30)
def test_racing_runs_of_one_text_run_the_tool_exactly_once() -> None:
    paid: list[int] = []
    used = UsedBatches()
    text = decided_text()
    batches = [worker(paid).load_tool_calls(text, key=KEY, once=used) for _ in range(8)]
    start = threading.Barrier(len(batches))
    answers: list[list[str]] = []

    def run(batch: Any) -> None:
        start.wait()
        answers.append(contents(batch.run()))

    threads = [threading.Thread(target=run, args=(b,)) for b in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert paid == [100]
    assert sorted(answers) == sorted([FIRST] + [AGAIN] * 7)


@pytest.mark.timeout(30)
def test_racing_async_runs_run_the_tool_exactly_once() -> None:
    paid: list[int] = []
    used = UsedBatches()
    text = decided_text()

    async def race() -> list[list[dict[str, Any]]]:
        batches = [worker(paid).load_tool_calls(text, key=KEY, once=used) for _ in range(6)]
        return list(await asyncio.gather(*(b.arun() for b in batches)))

    answers = [contents(m) for m in asyncio.run(race())]
    assert paid == [100]
    assert sorted(answers) == sorted([FIRST] + [AGAIN] * 5)


@settings(max_examples=25, deadline=None)
@given(runs=st.lists(st.booleans(), min_size=1, max_size=5), redecide=st.booleans())
def test_whatever_the_copies_and_faces_only_the_first_run_runs(
    runs: list[bool], redecide: bool
) -> None:
    """Copies loaded from the text (or re-saved from a copy) share its id: of any run
    sequence, sync or async, only the first runs."""
    paid: list[int] = []
    used = UsedBatches()
    text = worker([]).prepare_tool_calls(REPLY).to_json(key=KEY)
    for n, asynchronous in enumerate(runs):
        batch = worker(paid).load_tool_calls(text, key=KEY, once=used)
        if redecide:  # decided afresh by each, and kept again: still the same batch
            batch = worker(paid).load_tool_calls(batch.to_json(key=KEY), key=KEY, once=used)
        for call in batch.pending:
            batch.approve(call.id)
        answer = asyncio.run(batch.arun()) if asynchronous else batch.run()
        assert contents(answer)[1] == (
            "3" if n == 0 else f"Error: Tool 'add' was not run: {NOT_AGAIN}"
        )
    assert sorted(paid) == [7, 9, 100]  # one run: its three transfers, run concurrently


def test_a_store_that_fails_or_doubts_runs_nothing_and_never_raises() -> None:
    class Down:
        def claim(self, id: str, expires: float | None) -> bool:
            raise ConnectionError("no route")

    class Vague:
        def claim(self, id: str, expires: float | None) -> Any:
            return None  # forgot to answer: not a first run

    paid: list[int] = []
    text = decided_text()
    down = contents(worker(paid).load_tool_calls(text, key=KEY, once=Down()).run())
    assert down[0] == (
        "Error: Tool 'transfer' was not run: whether its batch of calls has run already "
        "cannot be checked (its storage Down did not answer)"
    )
    vague = asyncio.run(worker(paid).load_tool_calls(text, key=KEY, once=Vague()).arun())
    assert contents(vague) == AGAIN
    assert paid == []


def test_a_store_sees_the_batch_id_and_expiry_and_is_asked_only_when_a_call_runs() -> None:
    seen: list[tuple[str, float | None]] = []

    class Mine:
        def claim(self, id: str, expires: float | None) -> bool:
            seen.append((id, expires))
            return True

    registry = worker([])
    batch = registry.prepare_tool_calls(REPLY)
    for call in batch.pending:
        batch.reject(call.id)
    text = batch.to_json(key=KEY, expires_in=60)
    loaded = registry.load_tool_calls(text, key=KEY, once=Mine())
    loaded.run()
    assert seen == [(batch.id, json.loads(text)["expires"])]
    only_declined = registry.prepare_tool_calls(
        {"role": "assistant", "tool_calls": REPLY["tool_calls"][:1]}
    )  # type: ignore[index]
    only_declined.reject("c1")
    registry.load_tool_calls(only_declined.to_json(key=KEY), key=KEY, once=Mine()).run()
    assert len(seen) == 1  # nothing ran: nothing to claim


def test_once_must_be_a_store() -> None:
    with pytest.raises(TypeError, match="once must be a store of batches run"):
        worker([]).load_tool_calls(decided_text(), key=KEY, once=object())  # type: ignore[arg-type]


def test_the_memory_store_forgets_an_id_only_after_its_batch_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tooldeck.approval import _once, _text

    now = [1_000_000.0]
    monkeypatch.setattr(_text, "_clock", lambda: now[0])
    used = UsedBatches()
    assert used.claim("a", now[0] + 10) and used.claim("forever", None)
    assert not used.claim("a", now[0] + 10)
    now[0] += 10 + _once.SKEW + 1
    used._prune()
    assert not used.claim("forever", None)
    assert used.claim("a", None)  # gone: a text that old no longer loads anyway


# -- expiry ------------------------------------------------------------------------------


def test_a_text_loads_until_its_expiry_and_then_says_it_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tooldeck.approval import _text

    now = [1_700_000_000.0]
    monkeypatch.setattr(_text, "_clock", lambda: now[0])
    registry = worker([])
    text = registry.prepare_tool_calls(REPLY).to_json(key=KEY, expires_in=600)
    assert json.loads(text)["expires"] == 1_700_000_600.0
    now[0] += 599.9
    loaded = registry.load_tool_calls(text, key=KEY)
    kept = loaded.to_json(key=KEY)  # re-saved: the expiry stays (not extended)
    assert json.loads(kept)["expires"] == 1_700_000_600.0
    now[0] += 0.1
    for again in (text, kept):
        with pytest.raises(ValueError, match="the batch expired 0 s ago"):
            registry.load_tool_calls(again, key=KEY)
        with pytest.raises(ValueError, match="expired"):
            registry.load_tool_calls(again)  # unsigned reading checks it too
    assert "expires" not in json.loads(registry.prepare_tool_calls(REPLY).to_json(key=KEY))


@pytest.mark.parametrize(
    ("expires_in", "error"),
    [(0, ValueError), (-1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
     (True, TypeError), ("60", TypeError)],
)  # fmt: skip
def test_expires_in_is_a_positive_number_of_seconds(expires_in: Any, error: type) -> None:
    with pytest.raises(error, match="expires_in must be"):
        worker([]).prepare_tool_calls(REPLY).to_json(key=KEY, expires_in=expires_in)


# -- tampering ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(id="another-batch-id"),
        lambda d: d.pop("id"),
        lambda d: d.update(expires=d["expires"] + 3600),
        lambda d: d.pop("expires"),
    ],
    ids=["new id", "no id", "later expiry", "no expiry"],
)
def test_changing_the_id_or_expiry_under_a_signature_is_refused(change: Any) -> None:
    data = json.loads(decided_text(expires_in=60))
    change(data)
    with pytest.raises(ValueError, match="signature does not match"):
        worker([]).load_tool_calls(json.dumps(data), key=KEY)


@pytest.mark.parametrize(
    ("field", "value"),
    [("id", ""), ("id", "a b"), ("id", 7), ("id", "x" * 129), ("expires", "soon"),
     ("expires", True), ("expires", -5), ("expires", 1e400)],
)  # fmt: skip
def test_an_id_or_expiry_that_is_none_is_not_a_batch(field: str, value: Any) -> None:
    data = json.loads(worker([]).prepare_tool_calls(REPLY).to_json())
    data[field] = value
    with pytest.raises(ValueError, match="its id or expiry is not one"):
        worker([]).load_tool_calls(json.dumps(data))


def test_a_store_in_redis_is_named_by_a_redis_url() -> None:
    with pytest.raises(ValueError, match=r"UsedBatches\(storage=\) takes a Redis URL"):
        UsedBatches(storage="memcached://127.0.0.1")
    assert repr(UsedBatches()) == "UsedBatches(storage='memory')"


def test_a_search_conversation_loads_with_once_too() -> None:
    paid: list[int] = []
    used = UsedBatches()
    text = decided_text()
    for n in range(2):
        search = worker(paid).tool_search("openai", defer=["add"])
        assert (
            contents(search.load_tool_calls(text, key=KEY, once=used).run())[0]
            == (FIRST if n == 0 else AGAIN)[0]
        )
    assert paid == [100]

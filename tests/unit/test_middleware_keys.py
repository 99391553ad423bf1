"""What names a state in a shared storage: a ``key=`` callable by what it is (never by
its name alone: every lambda is ``<lambda>``), the same in every process; and a call's
key text, the same in every process (tests/cache_keys.py has the callables)."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cache_keys import ByField, by_field, named_keys, read_field, set_text
from tooldeck.middleware._select import KeyReader

pytestmark = pytest.mark.timeout(60)


def stored(key: Any) -> str:
    return KeyReader(key).stored_name()


def test_distinct_callables_have_distinct_names() -> None:
    fields = ["user", "tenant"]
    loop = [lambda call, f=f: call.context.get(f) for f in fields]  # one line, two defaults
    pairs = [
        (lambda call: call.context.get("user"), lambda call: call.context.get("tenant")),
        (by_field("user"), by_field("tenant")),
        (functools.partial(read_field, "user"), functools.partial(read_field, "tenant")),
        (ByField("user"), ByField("tenant")),
        (ByField("user").read, ByField("tenant").read),
        (loop[0], loop[1]),
    ]
    for first, second in pairs:
        assert stored(first) != stored(second)
        assert stored(first).startswith("key=")
    names = [stored(k) for k in named_keys().values()]
    assert len(set(names)) == len(names)


def _defined(source: str, blank_lines: int) -> Any:
    """``source``'s last definition, as a module ``deployed`` defines it after
    ``blank_lines`` (a deploy that moved it)."""
    space: dict[str, Any] = {"__name__": "deployed"}
    exec(compile("\n" * blank_lines + source, "deployed.py", "exec"), space)
    return space["key"]


def test_a_module_function_keeps_its_name_when_moved_or_edited_a_lambda_does_not() -> None:
    first = "def key(call):\n    return call.context.get('user')\n"
    edited = "def key(call):\n    return call.context.get('user') or 'anonymous'\n"
    assert stored(_defined(first, 0)) == stored(_defined(first, 7)) == stored(_defined(edited, 3))
    lambdas = "key = lambda call: call.context.get('user')\n"
    assert stored(_defined(lambdas, 0)) != stored(_defined(lambdas, 7))


def test_callables_made_alike_have_one_name() -> None:
    assert stored(by_field("user")) == stored(by_field("user"))
    assert stored(ByField("user")) == stored(ByField("user"))
    assert stored(functools.partial(read_field, "u")) == stored(functools.partial(read_field, "u"))
    assert stored("user") == "key='user'" and stored(None) == ""


@pytest.mark.timeout(30)
def test_names_and_key_texts_are_the_same_in_another_process() -> None:
    """Another process (another str hash seed: a set's order differs) names each key
    callable, and writes a call's key text, exactly as this one does."""
    tests = Path(__file__).resolve().parent.parent
    script = (
        f"import sys; sys.path.insert(0, {str(tests)!r})\n"
        "from cache_keys import named_keys, set_text\n"
        "from tooldeck.middleware._select import KeyReader\n"
        "for key in named_keys().values(): print(KeyReader(key).stored_name())\n"
        "print(set_text())\n"
    )
    seed = "1" if os.environ.get("PYTHONHASHSEED") == "2" else "2"
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONHASHSEED": seed},
        capture_output=True,
        text=True,
        timeout=25,
        check=True,
    )
    here = [stored(key) for key in named_keys().values()] + [set_text()]
    assert done.stdout.splitlines() == here


def test_a_callable_holding_an_unknown_object_needs_a_name() -> None:
    pytest.importorskip("limits", reason="the redis extra is not installed")
    from tooldeck.middleware import RateLimit

    lock = object()
    url = "redis://127.0.0.1:1/0"  # (never asked: a limit is made without connecting)
    with pytest.raises(ValueError, match=r"give RateLimit\(name=\.\.\.\)"):
        RateLimit(5, per=60, key=lambda call: (lock, call.context.get("user")), storage=url)
    named = RateLimit(5, per=60, key=lambda call: call.context.get("user"), storage=url, name="u")
    assert repr(named).endswith("<lambda>, name='u', storage='redis://127.0.0.1:1/0')")
    assert named._state_name() == "RateLimit:5/60s:name='u'"
    with pytest.raises(TypeError, match="name="):
        RateLimit(5, per=60, name="")

"""The registry stays consistent under any sequence of changes, and under threads.

1. A hypothesis state machine drives register / replace / unregister / tag / enable /
   disable against a plain model and checks, after every step, that listings, tag
   queries, exports and lookups equal the model.
2. A stress test runs threads that register, unregister, tag, enable, disable and call
   at once for a few seconds, then checks that nothing was lost, every tool has its
   schema, and the tag index equals the tools' tags.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tooldeck import Tool, ToolRegistry

_serial = itertools.count()


def make_tool(name: str, tags: tuple[str, ...] = ()) -> Tool[..., Any]:
    """A tool answering its own name and a serial: calls can tell tools apart."""
    serial = next(_serial)  # itertools.count is atomic under the GIL

    def answer(x: int = 0) -> str:
        return f"{name}#{serial}:{x}"

    # A qualified name of its own: the same one would be the same function decorated
    # again, which replaces the tool instead of clashing (DESIGN.md).
    answer.__qualname__ = f"answer_{serial}"
    return Tool(answer, name=name, tags=tags)


def expected_listing(registry: ToolRegistry, tag: str | None) -> list[str]:
    """What ``list_tools(tag)`` must say, computed from the tools themselves."""
    return [t.name for t in registry if t.enabled and (tag is None or tag in t.tags)]


def check_consistent(registry: ToolRegistry, tags: list[str]) -> None:
    tools = list(registry)
    assert len(tools) == len(registry) == len({t.name for t in tools})
    for tool in tools:
        assert registry.get(tool.name) is tool
        assert tool.name in registry
        assert tool.parameters["type"] == "object"  # never stored without its schema
    assert registry.list_tools() == expected_listing(registry, None)
    for tag in tags:
        assert registry.list_tools(tag) == expected_listing(registry, tag), tag
    exported = [entry["function"]["name"] for entry in registry.export("openai")]
    assert exported == registry.list_tools()


# -- 1. the state machine ---------------------------------------------------------------------

NAMES = [f"tool_{i}" for i in range(6)]
TAGS = ["red", "green", "blue"]


class RegistryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.registry = ToolRegistry()
        self.model: dict[str, dict[str, Any]] = {}  # name -> {"tags": [...], "enabled": bool}
        self.order: list[str] = []  # registration order of the names in the model

    @rule(name=st.sampled_from(NAMES), tags=st.lists(st.sampled_from(TAGS), unique=True))
    def register(self, name: str, tags: list[str]) -> None:
        replace = name in self.model
        self.registry.register(make_tool(name, tuple(tags)), replace=replace)
        self.model[name] = {"tags": list(tags), "enabled": True}
        if not replace:
            self.order.append(name)

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def unregister(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.model)))
        self.registry.unregister(name)
        del self.model[name]
        self.order.remove(name)

    @precondition(lambda self: self.model)
    @rule(data=st.data(), tags=st.lists(st.sampled_from(TAGS), min_size=1, unique=True))
    def tag(self, data: st.DataObject, tags: list[str]) -> None:
        names = data.draw(st.lists(st.sampled_from(sorted(self.model)), min_size=1, unique=True))
        self.registry.tag(names, tags)
        for name in names:
            known = self.model[name]["tags"]
            known.extend(t for t in tags if t not in known)

    @rule(name=st.sampled_from(NAMES), tags=st.lists(st.sampled_from(TAGS), min_size=1))
    def tag_with_an_unknown_name(self, name: str, tags: list[str]) -> None:
        """Atomic: one unknown name and nothing is tagged."""
        if name in self.model:
            return
        known = sorted(self.model)[:1]
        try:
            self.registry.tag([*known, name], tags)
        except LookupError:
            pass
        else:
            raise AssertionError("tagging an unknown name must raise")

    @precondition(lambda self: self.model)
    @rule(data=st.data(), enabled=st.booleans())
    def switch(self, data: st.DataObject, enabled: bool) -> None:
        name = data.draw(st.sampled_from(sorted(self.model)))
        (self.registry.enable if enabled else self.registry.disable)(name)
        self.model[name]["enabled"] = enabled

    @rule(name=st.sampled_from(NAMES))
    def duplicate_is_refused(self, name: str) -> None:
        if name not in self.model:
            return
        try:
            self.registry.register(make_tool(name))
        except ValueError:
            pass
        else:
            raise AssertionError("a second tool under a taken name must be refused")

    @rule(name=st.sampled_from(NAMES))
    def call(self, name: str) -> None:
        answer = self.registry.call_tool(name, {"x": 7})
        state = self.model.get(name)
        if state is None:
            assert answer == f"Can not find tool named '{name}'"
        elif not state["enabled"]:
            assert answer == f"Error: Tool '{name}' is disabled"
        else:
            assert answer.startswith(f"{name}#")
            assert answer.endswith(":7")

    @invariant()
    def matches_the_model(self) -> None:
        registry, model, order = self.registry, self.model, self.order
        assert [t.name for t in registry] == order
        for name, state in model.items():
            tool = registry.get(name)
            assert tool is not None
            assert list(tool.tags) == state["tags"]
            assert tool.enabled == state["enabled"]
        enabled = [n for n in order if model[n]["enabled"]]
        assert registry.list_tools() == enabled
        for tag in TAGS:
            assert registry.list_tools(tag) == [n for n in enabled if tag in model[n]["tags"]]
        assert registry.list_tools(TAGS[:2], match="all") == [
            n for n in enabled if set(TAGS[:2]) <= set(model[n]["tags"])
        ]
        check_consistent(registry, TAGS)


RegistryMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=25, deadline=None)
TestRegistryMachine = RegistryMachine.TestCase


# -- 2. threads at once ------------------------------------------------------------------------

STRESS_SECONDS = 3.0
STRESS_TAGS = ["t0", "t1", "t2", "t3"]


def test_threads_changing_and_calling_at_once_leave_the_registry_consistent() -> None:
    registry = ToolRegistry()
    stable = [f"stable_{i}" for i in range(20)]  # registered once, never removed
    registry.register_many([make_tool(name, ("stable",)) for name in stable])
    deadline = time.monotonic() + STRESS_SECONDS
    errors: list[BaseException] = []
    final: dict[str, dict[str, Any]] = {}  # each changer's own names, as it left them
    final_lock = threading.Lock()
    stable_tags: dict[str, set[str]] = {name: {"stable"} for name in stable}
    answered: list[int] = []

    def changer(k: int) -> None:
        rng = random.Random(k)
        mine: dict[str, dict[str, Any]] = {}
        names = [f"w{k}_{i}" for i in range(8)]
        try:
            while time.monotonic() < deadline:
                name = rng.choice(names)
                action = rng.randrange(6)
                if name not in mine:
                    tags = tuple(rng.sample(STRESS_TAGS, rng.randrange(3)))
                    registry.register(make_tool(name, tags))
                    mine[name] = {"tags": set(tags), "enabled": True}
                elif action == 0:
                    registry.unregister(name)
                    del mine[name]
                elif action == 1:
                    registry.register(make_tool(name, ("t0",)), replace=True)
                    mine[name] = {"tags": {"t0"}, "enabled": True}
                elif action == 2:
                    tag, other = rng.choice(STRESS_TAGS), rng.choice(stable)
                    registry.tag([name, other], tag)
                    mine[name]["tags"].add(tag)
                    with final_lock:
                        stable_tags[other].add(tag)
                elif action == 3:
                    enabled = rng.random() < 0.5
                    (registry.enable if enabled else registry.disable)(name)
                    mine[name]["enabled"] = enabled
                else:
                    registry.list_tools(rng.choice(STRESS_TAGS))
                    registry.export("anthropic", tags=rng.choice(STRESS_TAGS))
        except BaseException as exc:
            errors.append(exc)
        with final_lock:
            final.update(mine)

    def caller(k: int) -> None:
        rng = random.Random(100 + k)
        ok = 0
        try:
            while time.monotonic() < deadline:
                name = rng.choice([*stable, f"w{rng.randrange(4)}_{rng.randrange(8)}"])
                answer = registry.call_tool(name, {"x": 1})
                if answer.startswith(f"{name}#") and answer.endswith(":1"):
                    ok += 1
                elif answer not in (
                    f"Can not find tool named '{name}'",
                    f"Error: Tool '{name}' is disabled",
                ):
                    raise AssertionError(f"{name}: {answer!r}")
        except BaseException as exc:
            errors.append(exc)
        answered.append(ok)

    threads = [threading.Thread(target=changer, args=(k,)) for k in range(4)]
    threads += [threading.Thread(target=caller, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(STRESS_SECONDS + 30)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert all(answered)  # every caller got real answers throughout

    # No lost tool: exactly the stable tools and what each changer left registered.
    assert {t.name for t in registry} == set(stable) | set(final)
    for name, state in final.items():
        tool = registry.get(name)
        assert tool is not None
        assert set(tool.tags) == state["tags"]
        assert tool.enabled == state["enabled"]
    for name in stable:  # never replaced, so every tag given is still there
        tool = registry.get(name)
        assert tool is not None
        assert set(tool.tags) == stable_tags[name]
    check_consistent(registry, [*STRESS_TAGS, "stable"])

"""tooldeck against the real Agently 4.0.6 ``ToolManager``, on the same functions (issue 11,
item 7).

``agently_views.py`` registers ``agently_corpus`` on a manager and reads everything back:
names, descriptions, ``kwargs``, ``returns``, tags, call results (sync and async), and
the shifted functions. The real Agently runs in a subprocess (it configures logging and
its event machinery on import); tooldeck runs here. Both views must be equal, but for the
differences DESIGN.md chooses on purpose, each pinned below.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import agently_views  # noqa: E402

from tooldeck import ToolRegistry  # noqa: E402

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("agently") is None,
    reason="agently 4.0.6 is not installed (it is in the dev extra)",
)


@pytest.fixture(scope="module")
def agently() -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(HERE / "agently_views.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    view: dict[str, Any] = json.loads(done.stdout)
    return view


@pytest.fixture(scope="module")
def tooldeck() -> dict[str, Any]:
    view: dict[str, Any] = json.loads(json.dumps(agently_views.views(ToolRegistry())))
    return view


def test_it_is_agently_4_0_6_that_answers() -> None:
    from importlib.metadata import version

    assert version("agently") == "4.0.6"


@pytest.mark.parametrize("name", [f.__name__ for f in agently_views.corpus.DECORATED])
def test_tool_func_views_are_agentlys(
    agently: dict[str, Any], tooldeck: dict[str, Any], name: str
) -> None:
    """name, desc, kwargs (types as declared, Annotated texts, Default:) and returns
    (Annotated stripped, a model as its fields) — as the real ToolManager keeps them."""
    assert tooldeck["info"][name] == agently["info"][name]


@pytest.mark.parametrize("name", [entry["name"] for entry in agently_views.corpus.MANUAL])
def test_manual_registrations_are_shown_as_given(
    agently: dict[str, Any], tooldeck: dict[str, Any], name: str
) -> None:
    assert tooldeck["info"][name] == agently["info"][name]


def test_listings_and_tags_are_agentlys(agently: dict[str, Any], tooldeck: dict[str, Any]) -> None:
    assert tooldeck["list"] == agently["list"]
    assert tooldeck["by_tag"] == agently["by_tag"]
    assert set(tooldeck["info"]) == set(agently["info"])


@pytest.mark.parametrize("face", ["calls", "async_calls", "shifted"])
def test_call_results_and_shifting_are_agentlys(
    agently: dict[str, Any], tooldeck: dict[str, Any], face: str
) -> None:
    """Well-typed calls: the same values, the same "Error: <message>" when the tool
    raises, the same "Can not find tool named ..." for an unknown one."""
    assert tooldeck[face] == agently[face]
    assert len(tooldeck[face]) == len(agently_views.corpus.calls())


def test_get_tool_func_returns_the_original_function(
    agently: dict[str, Any], tooldeck: dict[str, Any]
) -> None:
    assert tooldeck["originals"] == agently["originals"]
    assert all(tooldeck["originals"].values())


# -- where DESIGN.md parts from Agently, on purpose -------------------------------------------


def test_the_docstrings_args_describe_the_parameters(
    agently: dict[str, Any], tooldeck: dict[str, Any]
) -> None:
    theirs, ours = agently["different"]["documented"], tooldeck["different"]["documented"]
    assert theirs["desc"].startswith("Forecast for a city.\n\nArgs:")
    assert ours["desc"] == "Forecast for a city."
    assert theirs["kwargs"]["days"]["tuple"][1] == "Default: 1"
    assert ours["kwargs"]["days"]["tuple"][1] == "How many days ahead.;Default: 1"
    assert {k: v for k, v in ours.items() if k not in ("desc", "kwargs")} == {
        k: v for k, v in theirs.items() if k not in ("desc", "kwargs")
    }


def test_an_unannotated_parameter_is_any(agently: dict[str, Any], tooldeck: dict[str, Any]) -> None:
    theirs, ours = agently["different"]["unannotated"], tooldeck["different"]["unannotated"]
    assert theirs["kwargs"]["x"]["tuple"][0] == {"repr": "<class 'inspect._empty'>"}
    assert ours["kwargs"]["x"]["tuple"][0] == {"repr": "typing.Any"}
    assert ours["kwargs"]["y"]["tuple"][1] == theirs["kwargs"]["y"]["tuple"][1] == "Default: 1"


def test_string_annotations_are_resolved(agently: dict[str, Any], tooldeck: dict[str, Any]) -> None:
    theirs, ours = agently["different"]["quoted"], tooldeck["different"]["quoted"]
    assert theirs["kwargs"]["a"]["tuple"][0] == "int"
    assert ours["kwargs"]["a"]["tuple"][0] == {"repr": "<class 'int'>"}
    assert theirs["kwargs"]["p"]["tuple"][0] == "Point"
    assert ours["kwargs"]["p"]["tuple"][0] == {"repr": "<class 'agently_corpus.Point'>"}
    assert ours["returns"] == theirs["returns"]  # Agently resolves the return type too

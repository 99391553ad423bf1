"""``--tools`` naming code that fails in any way: exit 2 and one line, never a traceback.

A module may raise anything while it is imported — a custom ``BaseException``
subclass, ``GeneratorExit``, ``SystemExit`` — and ``module:attr`` may be a property or
a module ``__getattr__`` that raises. Each is a module that fails to load (DESIGN,
Command line): exit status 2, one line naming the module and what it raised.
``KeyboardInterrupt`` stays an interrupt: exit status 130.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck.cli import main

COMMANDS = [["list"], ["schema"], ["call", "anything"]]

MODULES = {
    "custom_base_exception": """
class Abort(BaseException):
    pass

raise Abort("the module gave up")
""",
    "generator_exit": "raise GeneratorExit('closing')\n",
    "system_exit_code": "import sys\nsys.exit(3)\n",
    "system_exit_text": "import sys\nsys.exit('no tools today')\n",
    "top_level_object_raising": """
class Sly:
    @property
    def __class__(self):
        raise RuntimeError("what am I?")

sly = Sly()  # read when the module's top-level tools are looked for
""",
    "unprintable_error": """
class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no text")

raise Odd()
""",
}

ATTRIBUTES = {
    # module:attr where reading attr raises
    "module_getattr": ("def __getattr__(name):\n    raise ValueError(f'no {name}')\n", "tools"),
    "property_raises": (
        """
class Holder:
    @property
    def tools(self):
        raise RuntimeError("computed at import, and broken")

holder = Holder()
""",
        "holder.tools",
    ),
    "property_raises_base_exception": (
        """
class Abort(BaseException):
    pass

class Holder:
    @property
    def tools(self):
        raise Abort("not today")

holder = Holder()
""",
        "holder.tools",
    ),
    "class_property_raises": (
        """
class Sly:
    @property
    def __class__(self):
        raise RuntimeError("what am I?")

sly = Sly()
""",
        "sly",
    ),
}


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def assert_one_line_usage_error(status: int, out: str, err: str, *fragments: str) -> None:
    assert status == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tooldeck: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("name", list(MODULES))
def test_a_module_raising_anything_at_import_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: list[str]
) -> None:
    path = write(tmp_path, name, MODULES[name])
    status = main([*command, "--tools", str(path)])
    out, err = capsys.readouterr()
    assert_one_line_usage_error(status, out, err, f"{name}.py")


def test_the_message_names_what_the_module_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {
        "custom_base_exception": "Abort: the module gave up",
        "generator_exit": "GeneratorExit: closing",
        "system_exit_code": "SystemExit: 3",
        "system_exit_text": "SystemExit: no tools today",
        "unprintable_error": "Odd",
    }
    for name, fragment in expected.items():
        path = write(tmp_path, name, MODULES[name])
        assert main(["list", "--tools", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"cannot import {str(path)!r}: {fragment}" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("name", list(ATTRIBUTES))
def test_an_attribute_that_raises_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: list[str]
) -> None:
    source, attr = ATTRIBUTES[name]
    path = write(tmp_path, name, source)
    status = main([*command, "--tools", f"{path}:{attr}"])
    out, err = capsys.readouterr()
    assert_one_line_usage_error(status, out, err, f"{name}.py", attr)


def test_a_keyboard_interrupt_while_importing_is_an_interrupt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "interrupted", "raise KeyboardInterrupt\n")
    assert main(["list", "--tools", str(path)]) == 130
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["custom_base_exception", "generator_exit", "system_exit_code"])
def test_the_command_exits_2_with_one_line(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, MODULES[name])
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "list", "--tools", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert_one_line_usage_error(done.returncode, done.stdout, done.stderr, f"{name}.py")

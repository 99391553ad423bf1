"""CI runs the suite on the oldest and the newest supported Python, beside the README's run.

The supported versions are pyproject's ``Programming Language :: Python :: 3.N``
classifiers, the oldest being ``requires-python``'s bound too; ``.ci/run`` must name
exactly the oldest and the newest. ``.ci/find-python`` takes only an interpreter that
really runs: a pyenv shim whose version is not selected, or a missing version, is
reported rather than used.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import conftest
from test_readme import quick_start_commands

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci" / "run"
FIND_PYTHON = ROOT / ".ci" / "find-python"
HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"  # the version running this test


def supported_versions() -> list[str]:
    # A regex, not tomllib: this test runs on Python 3.10 too.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)
    return sorted(found, key=lambda version: tuple(map(int, version.split("."))))


def ci_versions() -> list[str]:
    [loop] = re.findall(r"^for version in ([\d. ]+); do$", CI.read_text(), re.MULTILINE)
    return loop.split()


def test_classifiers_span_requires_python() -> None:
    versions = supported_versions()
    assert len(versions) >= 2
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'requires-python = ">={versions[0]}"' in pyproject


def test_ci_runs_the_oldest_and_the_newest_python() -> None:
    versions = supported_versions()
    assert ci_versions() == [versions[0], versions[-1]]


def test_ci_runs_the_suite_on_each_in_a_venv_of_its_own() -> None:
    script = CI.read_text(encoding="utf-8")
    _install_and_run, test = quick_start_commands()
    loop = script.index("for version in ")
    body = script[loop : script.index("\ndone\n", loop)]
    assert 'python=$(bash .ci/find-python "$version")' in body
    assert 'dev_venv "$python" "$venv"' in body
    # uv where it can be had, else pip: the same dev extra either way.
    define = script[
        script.index("dev_venv() {") : script.index("\n}\n", script.index("dev_venv() {"))
    ]
    assert '"$uv" pip install -q --python "$2/bin/python" -e ".[dev]"' in define
    assert '"$1" -m venv "$2" && "$2/bin/pip" install -q -e ".[dev]"' in define
    assert "not found" in body  # a missing version is said, and the loop goes on
    assert "continue" in body
    # Each suite runs in its venv, once it is installed, beside the README's commands.
    assert 'dev_venv "$python" "$venv" >"$ci/py$version.install.log" 2>&1 || exit 3' in body
    assert '"$venv/bin/python" -m pytest -n 0 "${ignore[@]}"' in body
    assert body.index("dev_venv") < body.index("-m pytest") < body.index(") >")
    # The README's run, started in the background before them, is waited for after.
    started = script.index(f'cd "$readme" && {test} ')
    assert started < script.index("readme_job=$!") < script.index(body)
    assert script.index(body) < script.index('wait "$readme_job"')


def test_ci_never_touches_the_checkouts_venv() -> None:
    # A developer running .ci/run keeps their .venv: the README's second command (which
    # makes .venv) runs in a fresh copy of the committed tree, in CI's own folder.
    script = CI.read_text(encoding="utf-8")
    _install_and_run, test = quick_start_commands()
    assert "rm -rf .venv" not in script
    assert 'readme="$ci/readme"' in script
    assert 'fresh_copy "$readme"' in script
    assert f'cd "$readme" && {test} ' in script
    assert "git archive HEAD" in script
    # Every other venv is in CI's folder too: none is made in the checkout.
    makes = re.findall(
        r"(?:-m venv(?: --upgrade-deps)?|uv\" venv -q --python \"\$1\") (\S+)", script
    )
    # The README's; dev_venv's (uv, then pip); uv itself goes into CI's folder too.
    assert makes == [".venv", '"$2"', '"$2"']
    assert 'install -q --target "$ci/uv" uv' in script
    assert 'dev_venv "$python" "$venv"' in script
    assert 'venv="$copy/.venv"' in script
    assert 'copy="$ci/py$version"' in script


def test_the_tests_run_once_exist() -> None:
    # The other Pythons skip the repository's own checks (run once, on the README's run):
    # a file renamed must not slip into being run nowhere.
    script = CI.read_text(encoding="utf-8")
    listed = script[script.index("once=(") : script.index(")", script.index("once=("))]
    once = listed.removeprefix("once=(").split()
    assert once
    assert all((ROOT / path).is_file() for path in once), once


def test_the_suite_runs_in_parallel() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^addopts = ".*-n (\d+|auto)\b.*"$', pyproject, re.MULTILINE)
    assert '"pytest-xdist' in pyproject


def test_only_the_other_pythons_try_fewer_examples() -> None:
    # The README's run (what a new user runs) tries every example; the suites on the
    # oldest and the newest Python run every property with a share of them.
    script = CI.read_text(encoding="utf-8")
    _install_and_run, test = quick_start_commands()
    [readme_run] = [line for line in script.splitlines() if f"{test} " in line]
    assert "TOOLDECK_EXAMPLES_SCALE" not in readme_run
    [other_run] = [line for line in script.splitlines() if '"$venv/bin/python" -m pytest' in line]
    assert re.search(r"TOOLDECK_EXAMPLES_SCALE=0\.\d+ ", other_run)


def _item(test: object, cls: type | None = None) -> pytest.Item:
    class Item:  # what the hook reads of a pytest item
        obj = test

    Item.cls = cls  # type: ignore[attr-defined]
    return Item()  # type: ignore[return-value]


def test_the_examples_scale_scales_every_property_down_to_a_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried = {"many": 0, "few": 0}

    @settings(max_examples=200, database=None)
    @given(st.integers())
    def many(n: int) -> None:
        tried["many"] += 1

    @settings(max_examples=12, database=None)
    @given(st.integers())
    def few(n: int) -> None:
        tried["few"] += 1

    class Machine:  # a state machine's TestCase keeps its settings on the class
        settings = settings(max_examples=50)

    monkeypatch.setenv("TOOLDECK_EXAMPLES_SCALE", "0.25")
    items = [_item(many), _item(many), _item(few), _item(None, Machine)]
    conftest.pytest_collection_modifyitems(items)
    many()
    few()
    assert tried == {"many": 50, "few": conftest.MIN_EXAMPLES}  # scaled once, not twice
    assert Machine.settings.max_examples == 12
    monkeypatch.setenv("TOOLDECK_EXAMPLES_SCALE", "2")
    with pytest.raises(pytest.UsageError):
        conftest.pytest_collection_modifyitems(items)


def test_ci_log_names_each_python_and_closes_with_the_suite_results() -> None:
    lines = CI.read_text(encoding="utf-8").rstrip().splitlines()
    assert lines[-1] == 'exit "$status"'
    assert lines[-2] == (
        'echo "Python $readme_python (python3, the README\'s command): $(summary "$log")"'
    )


# --- .ci/find-python ---------------------------------------------------------------------

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="needs bash")


def fake_python(path: Path, *, works: bool = True) -> Path:
    """An executable at ``path``: this test's interpreter, or a failing pyenv-like shim."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if works:
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    else:
        path.write_text("#!/bin/sh\necho 'pyenv: command not found' >&2\nexit 127\n")
    path.chmod(0o755)
    return path


def find_python(version: str, path: Path, pyenv_root: Path) -> subprocess.CompletedProcess[str]:
    # PATH holds ``path`` and sort alone: not the machine's own pythons.
    tools = pyenv_root.parent / "tools"
    tools.mkdir(exist_ok=True)
    sort = shutil.which("sort")
    assert sort is not None
    (tools / "sort").symlink_to(sort)
    env = {"PATH": f"{path}:{tools}", "PYENV_ROOT": str(pyenv_root), "HOME": "/nonexistent"}
    return subprocess.run(
        [BASH or "bash", str(FIND_PYTHON), version],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_bash
def test_a_broken_shim_on_path_gives_way_to_pyenv(tmp_path: Path) -> None:
    fake_python(tmp_path / "bin" / f"python{HERE}", works=False)
    installed = fake_python(tmp_path / "pyenv" / "versions" / f"{HERE}.1" / "bin" / "python")
    found = find_python(HERE, tmp_path / "bin", tmp_path / "pyenv")
    assert found.returncode == 0, found.stderr
    assert found.stdout == f"{installed}\n"


@needs_bash
def test_a_working_python_on_path_comes_first(tmp_path: Path) -> None:
    on_path = fake_python(tmp_path / "bin" / f"python{HERE}")
    fake_python(tmp_path / "pyenv" / "versions" / f"{HERE}.1" / "bin" / "python")
    found = find_python(HERE, tmp_path / "bin", tmp_path / "pyenv")
    assert found.stdout == f"{on_path}\n"


@needs_bash
def test_the_newest_patch_in_pyenv_wins(tmp_path: Path) -> None:
    versions = tmp_path / "pyenv" / "versions"
    for patch in ("2", "10", "9"):
        fake_python(versions / f"{HERE}.{patch}" / "bin" / "python")
    found = find_python(HERE, tmp_path / "bin", tmp_path / "pyenv")
    assert found.stdout == f"{versions / f'{HERE}.10' / 'bin' / 'python'}\n"


@needs_bash
@pytest.mark.parametrize("layout", ["nothing", "shim only", "another version under the name"])
def test_no_working_interpreter_is_exit_status_1(tmp_path: Path, layout: str) -> None:
    if layout == "shim only":
        fake_python(tmp_path / "bin" / "python3.99", works=False)
    elif layout == "another version under the name":
        # This interpreter, wherever 3.99 is looked for: it runs, but is not 3.99.
        fake_python(tmp_path / "bin" / "python3.99")
        fake_python(tmp_path / "pyenv" / "versions" / "3.99.0" / "bin" / "python")
    found = find_python("3.99", tmp_path / "bin", tmp_path / "pyenv")
    assert found.returncode == 1
    assert found.stdout == ""


def ci_folder(tmp_path: Path, **fakes: str) -> tuple[Path, list[Path]]:
    """Where `.ci/run`'s ci_folder() puts CI's folder, with some commands faked (each a
    shell script body on a PATH of their own); and what it left in the temporary dir."""
    script = CI.read_text(encoding="utf-8")
    body = script[
        script.index("ci_folder() {") : script.index("\n}\n", script.index("ci_folder() {")) + 2
    ]
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir(parents=True)
    for name, text in fakes.items():
        (fake_bin / name).write_text(f"#!/bin/sh\n{text}\n")
        (fake_bin / name).chmod(0o755)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run(
        ["bash", "-c", f"{body}\nci_folder"],
        capture_output=True,
        text=True,
        env={"PATH": f"{fake_bin}:/usr/bin:/bin", "TMPDIR": str(temporary)},
        check=True,
        timeout=30,
    )
    folder = Path(done.stdout.strip())
    return folder, sorted(temporary.iterdir())


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm here")
def test_ci_folder_is_in_memory_only_with_room_and_leave_to_run_programs(tmp_path: Path) -> None:
    # Too little room in /dev/shm: the temporary directory.
    small, left = ci_folder(
        tmp_path, df='echo "Filesystem 1K-blocks Used Available"; echo "shm 1 1 1000"'
    )
    assert left == [small] and small.is_dir()
    # Room, but programs cannot run from there (noexec: here chmod does nothing): the
    # temporary directory too, and nothing left behind in /dev/shm.
    before = set(Path("/dev/shm").iterdir())
    plenty = 'echo "Filesystem 1K-blocks Used Available"; echo "shm 1 1 99999999"'
    noexec, left = ci_folder(tmp_path / "noexec", df=plenty, chmod="exit 0")
    assert left == [noexec] and noexec.is_dir()
    assert set(Path("/dev/shm").iterdir()) == before
    # Room, and programs run: in memory.
    memory, left = ci_folder(tmp_path / "memory", df=plenty)
    try:
        assert memory.parent == Path("/dev/shm") and left == []
        assert list(memory.iterdir()) == []  # the probe is gone
    finally:
        memory.rmdir()

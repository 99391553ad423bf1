"""The README's Quick start: exactly two commands, and CI runs them as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]


def test_quick_start_has_exactly_two_one_line_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    install_and_run, test = commands
    assert "tooldeck list" in install_and_run
    assert "pytest" in test
    # Python's bundled pip (23.2 with 3.11) spends ~50 CPU-s resolving the dev extra
    # (every index link checked against a list of tags); a current one ~17.
    assert all(
        command.startswith("python3 -m venv --upgrade-deps .venv && ") for command in commands
    )


def test_ci_runs_both_commands_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    _install_and_run, test = quick_start_commands()
    # the suite, exactly as the README says, in a fresh copy of the committed tree (its
    # output kept for the closing line)
    assert any(
        line.strip().startswith(f'cd "$readme" && {test} 2>&1 | tee "$log"')
        for line in ci.splitlines()
    )
    assert "quick-start" in ci  # and the first command, read from the README itself

"""The documentation site builds with ``mkdocs build --strict``.

Strict mode turns every warning into a failure: a nav entry or a link to a missing page,
a broken anchor, an API reference that does not resolve.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed")
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [
            sys.executable, "-m", "mkdocs", "build", "--strict",
            "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert (site / "index.html").exists()
    reference = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("tooldeck.ToolRegistry", "tooldeck.Tool", "tooldeck.ToolResult", "tooldeck.tool"):
        assert f'id="{name}"' in reference, name
    assert (site / "cli" / "index.html").exists()
    assert (site / "migration" / "agently" / "index.html").exists()

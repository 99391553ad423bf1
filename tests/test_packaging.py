"""What ``pip`` and PyPI see: the sdist and the wheel, built offline by hatchling itself.

The metadata links the docs, the changelog and the issues (one placeholder repository,
the same in every link) and says who the library is for; the sdist leaves out the
benchmark results and the chart (generated, and most of the repository's bytes).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://github.com/tooldeck/tooldeck"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--directory", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


def sdist_names(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        # Each name without the leading "tooldeck-X.Y.Z/".
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def wheel_metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode())


def test_the_sdist_has_no_benchmark_results_and_no_chart(built: dict[str, Path]) -> None:
    names = sdist_names(built["sdist"])
    assert not [n for n in names if n.startswith(("benchmarks/results/", "docs/img/"))]
    assert not [n for n in names if n.endswith((".png", ".json"))], names
    # What the sdist is for is still there: the source, the tests, the docs, the harness.
    for needed in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "src/tooldeck/__init__.py",
        "src/tooldeck/py.typed",
        "tests/conftest.py",
        "docs/index.md",
        "benchmarks/run.py",
    ):
        assert needed in names
    # The results and the chart were 498 KB of a 580 KB sdist; no written file comes near
    # the size of one of them (a measured run's JSON, the chart).
    with tarfile.open(built["sdist"]) as archive:
        sizes = {member.name: member.size for member in archive.getmembers()}
    assert max(sizes.values()) < 100_000, max(sizes, key=sizes.__getitem__)


def test_the_wheel_holds_the_package_only(built: dict[str, Path]) -> None:
    with zipfile.ZipFile(built["wheel"]) as archive:
        top = {name.split("/", 1)[0] for name in archive.namelist()}
    assert top == {"tooldeck", "tooldeck-0.1.0.dist-info"}


def test_the_metadata_links_the_docs_the_changelog_and_the_issues(
    built: dict[str, Path],
) -> None:
    urls = dict(
        value.split(", ", 1) for value in wheel_metadata(built["wheel"]).get_all("Project-URL", [])
    )
    assert {"Documentation", "Changelog", "Issues"} <= set(urls)
    assert all(url.startswith(REPOSITORY) for url in urls.values()), urls
    assert urls["Changelog"].endswith("/CHANGELOG.md")
    assert urls["Issues"] == f"{REPOSITORY}/issues"


def test_the_classifiers_say_status_audience_and_topic(built: dict[str, Path]) -> None:
    classifiers = wheel_metadata(built["wheel"]).get_all("Classifier", [])
    for prefix in ("Development Status :: ", "Intended Audience :: ", "Topic :: "):
        assert any(c.startswith(prefix) for c in classifiers), prefix
    assert "Typing :: Typed" in classifiers

"""The layout stays as docs/architecture.md draws it: small modules, imports one way.

The layers are read from the table in docs/architecture.md, so the page and the code
cannot drift apart. Imports are read from the source with ``ast`` — every import,
including those inside functions and under ``TYPE_CHECKING``: a lazy import is still a
dependency.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((SRC / "tooldeck").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, source: str, *, is_package: bool = False) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in its source."""
    package = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # `from pkg import sub` depends on the submodule `sub`, not on pkg's __init__
            subs = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
            targets.update(subs or {base})
    return {t for t in targets if t in MODULES and t != name}


GRAPH = {
    name: _imports(name, path.read_text(encoding="utf-8"), is_package=path.name == "__init__.py")
    for name, path in MODULES.items()
}


def _layers() -> list[list[str]]:
    """The "Layers" table of docs/architecture.md, lowest first: module names per row."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if re.match(r"^\|\s*\d+\s*\|", line)]
    return [re.findall(r"`([\w.]+)`", row.split("|")[3]) for row in rows]


LAYERS = _layers()


def _layer_of(module: str) -> int:
    """The layer a module sits in (a package's submodules sit with their package)."""
    for index, names in enumerate(LAYERS):
        for listed in names:
            full = "tooldeck" if listed == "tooldeck" else f"tooldeck.{listed}"
            if module == full or (full != "tooldeck" and module.startswith(full + ".")):
                return index
    raise AssertionError(f"{module} is in no layer of docs/architecture.md: place it there")


def test_every_module_is_placed_in_exactly_one_layer() -> None:
    listed = [name for names in LAYERS for name in names]
    assert len(listed) == len(set(listed)), "a module is listed twice"
    for module in MODULES:
        _layer_of(module)


def test_imports_point_down_only() -> None:
    upward = []
    for module, targets in GRAPH.items():
        for target in targets:
            same_package = target.startswith(module + ".") or (
                "." in module.removeprefix("tooldeck.")
                and target.rpartition(".")[0] == module.rpartition(".")[0]
            )
            if same_package:
                continue  # a package's own modules: checked for cycles below
            if _layer_of(target) >= _layer_of(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that do not point down:\n" + "\n".join(sorted(upward))


def test_the_import_graph_has_no_cycle() -> None:
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            cycle = (*path[path.index(module) :], module)
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        for target in sorted(GRAPH[module]):
            visit(target, (*path, module))
        done.add(module)

    for module in sorted(GRAPH):
        visit(module, ())


def test_no_module_is_past_the_size_line() -> None:
    sizes = {name: len(p.read_text(encoding="utf-8").splitlines()) for name, p in MODULES.items()}
    big = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not big, f"modules past {MAX_LINES} lines (split by concept): {big}"


def test_the_reader_sees_lazy_and_type_only_imports() -> None:
    # The check above is only as good as this reader: it must see an import inside a
    # function and one under TYPE_CHECKING, and resolve `from . import sub`.
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ._tool import Tool\n"
        "def f():\n    from . import _shifting\n    from .errors import ToolDeckError\n"
    )
    found = _imports("tooldeck._probe", source)
    assert found == {"tooldeck._tool", "tooldeck._shifting", "tooldeck.errors"}
    # and in a package's __init__, `from . import x` is the package's own submodule
    assert _imports("tooldeck.cli", "from . import _usage\n", is_package=True) == {
        "tooldeck.cli._usage"
    }


def test_every_provider_module_holds_its_three_parts_and_is_registered() -> None:
    # A provider is one module: its export shape, reading its replies, writing its
    # answers. One left out of PROVIDERS (or of RECOGNISING) would export but never be
    # recognised, or the other way round.
    import importlib

    from tooldeck import providers

    folder = SRC / "tooldeck" / "providers"
    names = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))
    assert names, "no provider module found"
    registered = {id(provider) for provider in providers.PROVIDERS.values()}
    for name in names:
        module = importlib.import_module(f"tooldeck.providers.{name}")
        provider = module.PROVIDER
        for part in ("export", "read", "write"):
            assert callable(getattr(module, part, None)), f"providers.{name} has no {part}()"
            assert getattr(provider, part) is getattr(module, part), f"{name}.PROVIDER.{part}"
        assert id(provider) in registered, f"providers.{name} is not in PROVIDERS"
        assert providers.PROVIDERS[provider.name] is provider
    recognising = [p.name for p in providers.RECOGNISING]
    assert sorted(recognising) == sorted(providers.PROVIDERS), "RECOGNISING: each provider once"
    assert len(registered) == len(names), "a provider in PROVIDERS has no module of its own"


def test_the_providers_cover_every_reply_and_export_format() -> None:
    from tooldeck import _tool_calls, exporters, providers

    assert set(_tool_calls.FORMATS) == set(providers.PROVIDERS)
    assert set(exporters.FORMATS) == {*providers.PROVIDERS, "mcp"}

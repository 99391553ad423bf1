"""``--tools SPEC``: finding the tools a command works on.

* ``module:attr`` — a `ToolRegistry`, a tool (or a plain function), or a list of tools;
* ``module`` — the tools bound at the module's top level;
* ``path/to/file.py`` (or ``file.py:attr``) — the same rules for a file.

Code that fails while it is loaded — the module raising anything at all as it is
imported (``SystemExit`` and ``GeneratorExit`` too), an attribute that raises when read
— is a usage error naming the module and what it raised (exit 2, one line). Only
``KeyboardInterrupt`` goes through: the user interrupted (exit 130).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from tooldeck import BaseTool, ToolRegistry
from tooldeck.errors import ToolDeckError

from ._usage import UsageError, described, first_line

__all__ = ["load_tools"]


def load_tools(spec: str) -> ToolRegistry:
    """The tools ``spec`` names, in a fresh registry (a registry it names is used as is).

    Raises:
        UsageError: the module or file cannot be imported, the attribute is missing,
            or it holds no tools.
    """
    target, attr = _split_spec(spec)
    # Whatever an imported module prints must not corrupt our output (or serve's stdio).
    with contextlib.redirect_stdout(sys.stderr):
        module = _import(target)
    try:
        if attr is None:
            return _module_tools(module, target)
        return _attr_tools(module, target, attr, spec)
    except (UsageError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # its code raised while read: a property, __getattr__...
        where = target if attr is None else f"{target}:{attr}"
        raise UsageError(f"cannot load {where!r}: {described(exc)}") from None


def _attr_tools(module: ModuleType, target: str, attr: str, spec: str) -> ToolRegistry:
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{target!r} has no attribute {attr!r}") from None
    if isinstance(obj, ToolRegistry):
        return obj
    items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    return _registry_of(items, spec)


def _split_spec(spec: str) -> tuple[str, str | None]:
    if spec.endswith(".py"):  # a path, perhaps with a drive letter's colon in it
        return spec, None
    target, colon, attr = spec.rpartition(":")
    if not colon:
        return spec, None
    if not target or not attr:
        raise UsageError(f"--tools {spec!r}: expected module:attr, module or path/to/file.py")
    return target, attr


def _import(target: str) -> ModuleType:
    is_path = target.endswith(".py") or os.sep in target or "/" in target
    try:
        return _import_file(Path(target)) if is_path else _import_module(target)
    except (UsageError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # SystemExit and GeneratorExit included: see above
        raise UsageError(f"cannot import {target!r}: {described(exc)}") from None


def _import_module(name: str) -> ModuleType:
    # A console script does not put the working directory on sys.path; `python -m` does.
    # `tooldeck --tools mytools` should find ./mytools.py either way.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(name)


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise UsageError(f"cannot import {str(path)!r}: no such file")
    path = path.resolve()
    name = path.stem if path.stem.isidentifier() else "_tooldeck_tools"
    if name in sys.modules:
        name = f"_tooldeck_file_{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {str(path)!r}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    # As `python file.py` would: its own directory first, so sibling imports work.
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module  # dataclasses and Pydantic models look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _module_tools(module: ModuleType, target: str) -> ToolRegistry:
    found = _unique(
        obj for obj in vars(module).values() if isinstance(obj, BaseTool) and not _is_class(obj)
    )
    if not found:
        registries = _unique(obj for obj in vars(module).values() if isinstance(obj, ToolRegistry))
        if len(registries) == 1:
            registry: ToolRegistry = registries[0]
            return registry
        raise UsageError(
            f"{target!r} defines no tools at its top level; name them with {target}:attr"
        )
    return _registry_of(found, target)


def _is_class(obj: object) -> bool:
    return isinstance(obj, type)


def _unique(objects: Iterable[Any]) -> list[Any]:
    seen: dict[int, Any] = {}
    for obj in objects:
        seen.setdefault(id(obj), obj)
    return list(seen.values())


def _registry_of(items: Iterable[Any], spec: str) -> ToolRegistry:
    registry = ToolRegistry()
    for item in items:
        if not isinstance(item, BaseTool) and not callable(item):
            raise UsageError(f"--tools {spec!r}: {item!r} is not a tool, a registry or a list")
        try:
            registry.register(item)
        except ToolDeckError as exc:
            raise UsageError(f"--tools {spec!r}: {first_line(exc)}") from exc
    return registry

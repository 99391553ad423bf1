"""Cleaning a generated JSON Schema for a model's eyes, and validating against one.

Pydantic's schemas carry a ``title`` on every property and model, a root
``description`` (the model docstring, which the tool's description already says),
``$defs`` + ``$ref`` for every nested model, and ``additionalProperties: false`` for
a closed model. A tool schema is read by a language model on every request, so
`clean_schema` drops the noise and inlines every ``$ref`` that is not
recursive (a recursive model keeps ``$defs`` for the part that recurses).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from ._result import MORE_PROBLEMS, clip

__all__ = [
    "FrozenDict",
    "FrozenList",
    "clean_schema",
    "copy_json",
    "freeze",
    "schema_validator",
    "share_leaves",
]

_COLLECT = 100  # problems collected from jsonschema before it is stopped

# Keywords whose values are data, not schemas: never rewritten.
_DATA_KEYWORDS = frozenset({"default", "examples", "example", "const", "enum"})
# Keywords whose values map names to schemas.
_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def clean_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh, clean copy of a root object schema (see the module docstring)."""
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        defs.update(schema.get(key, {}))
    recursive: dict[str, Any] = {}
    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    cleaned: dict[str, Any] = _clean(root, defs, (), recursive)
    cleaned.pop("title", None)
    cleaned.pop("description", None)
    if cleaned.get("additionalProperties") is False:
        # Unknown arguments are rejected by validation, but a non-strict schema does
        # not advertise it (seed 002's exact JSON has no such key).
        del cleaned["additionalProperties"]
    if cleaned.get("type") == "object" and "properties" not in cleaned:
        cleaned["properties"] = {}
    if recursive:
        cleaned["$defs"] = recursive
    return cleaned


def _clean(
    node: Any, defs: dict[str, Any], stack: tuple[str, ...], recursive: dict[str, Any]
) -> Any:
    if isinstance(node, list):
        return [_clean(item, defs, stack, recursive) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        return _inline(node, ref, defs, stack, recursive)
    # "type" first, as people write schemas (seed 002's JSON reads type, properties...).
    out: dict[str, Any] = {"type": node["type"]} if "type" in node else {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _DATA_KEYWORDS:
            out[key] = value
        elif key == "discriminator" and isinstance(value, dict):
            # Its "mapping" points at $defs entries that inlining removes.
            out[key] = {k: v for k, v in value.items() if k != "mapping"}
        elif key in _MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {k: _clean(v, defs, stack, recursive) for k, v in value.items()}
        else:
            out[key] = _clean(value, defs, stack, recursive)
    return out


def _inline(
    node: dict[str, Any],
    ref: str,
    defs: dict[str, Any],
    stack: tuple[str, ...],
    recursive: dict[str, Any],
) -> dict[str, Any]:
    name = ref.rsplit("/", 1)[-1]
    siblings = {k: v for k, v in node.items() if k != "$ref" and k != "title"}
    if name in stack or name not in defs:
        # Recursion: keep the reference, and the definition it points to.
        if name in defs and name not in recursive:
            recursive[name] = {}  # placeholder breaks cycles while cleaning
            recursive[name] = _clean(defs[name], defs, (name,), recursive)
        return {"$ref": f"#/$defs/{name}", **_clean(siblings, defs, stack, recursive)}
    target: dict[str, Any] = _clean(defs[name], defs, (*stack, name), recursive)
    target.update(_clean(siblings, defs, stack, recursive))
    return target


def schema_validator(schema: Mapping[str, Any]) -> Callable[[Any], list[str]]:
    """A prebuilt ``jsonschema`` check: arguments → one message per problem (none = valid).

    JSON Schema's own semantics: no coercion; extra arguments are accepted unless
    the schema forbids them.
    """
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    types = cls.TYPE_CHECKER

    def is_number(_: Any, value: Any) -> bool:
        # JSON has no NaN or Infinity: a "number" must be finite, as for signature tools.
        finite = not isinstance(value, float) or math.isfinite(value)
        return finite and types.is_type(value, "number")

    finite_cls = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls, type_checker=types.redefine("number", is_number)
    )
    validator = finite_cls(schema)

    def problems(arguments: Any) -> list[str]:
        try:
            # Stop early: 200,000 wrong items would otherwise cost seconds of messages.
            found = list(itertools.islice(validator.iter_errors(arguments), _COLLECT + 1))
        except RecursionError:
            return ["arguments: nested too deeply"]
        except Exception as exc:  # e.g. an int too long to print in jsonschema's message
            return [f"arguments: cannot be checked against the schema ({type(exc).__name__})"]
        errors = sorted(found[:_COLLECT], key=_path_key)
        lines = [line for error in errors for line in _problems(error)]
        return [*lines, MORE_PROBLEMS] if len(found) > _COLLECT else lines

    return problems


def _path_key(error: Any) -> list[tuple[bool, Any]]:
    # Indices before keys: a path mixes ints and strs, which do not compare.
    return [(isinstance(part, str), part) for part in error.path]


def _problems(error: Any) -> list[str]:
    """``<where>: <message>``, the instance jsonschema quotes cut to a short prefix."""
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        # jsonschema lists the unexpected names whole: name them one by one, clipped.
        extra = _unexpected(error.instance, error.schema)
        if extra:
            prefix = "" if where == "arguments" else f"{where}."
            names = [prefix + str(key) or '""' for key in extra]
            return [f"{clip(name)}: unexpected argument" for name in names]
    message: str = error.message
    try:
        quoted = repr(error.instance)
    except Exception:
        return [f"{clip(where)}: {clip(message)}"]
    return [f"{clip(where)}: {message.replace(quoted, clip(quoted))}"]


def _unexpected(instance: dict[Any, Any], schema: Mapping[str, Any]) -> list[Any]:
    """The names ``additionalProperties: false`` refuses (not listed, matching no pattern)."""
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in known and not any(re.search(p, str(key)) for p in patterns)
    ]


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts and lists; other values are shared)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


# -- read-only exports --------------------------------------------------------------------
# Exports are computed once and shared by every caller; handing out copies would cost as
# much as computing them. They are plain dict/list subclasses (json.dumps, the provider
# SDKs and jsonschema take them as they are) that refuse to be changed in place.

_READ_ONLY = (
    "exported tool definitions are shared and read-only; copy before changing one: "
    "copy.deepcopy(tool) or {**tool, ...}"
)


def _read_only(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_READ_ONLY)


class FrozenDict(dict[str, Any]):
    """A ``dict`` that cannot be changed; ``copy.deepcopy`` gives a plain, mutable one."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        copied: dict[str, Any] = copy_json(self)
        return copied

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class FrozenList(list[Any]):
    """A ``list`` that cannot be changed; ``copy.deepcopy`` gives a plain, mutable one."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        copied: list[Any] = copy_json(self)
        return copied

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON-shaped data."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList([freeze(v) for v in value])
    return value


# -- sharing leaves -------------------------------------------------------------------------
# Thousands of tools repeat the same small schemas ({"type": "integer"}, a string with a
# format...). A spec's schemas are never changed after it is built (they are handed out as
# copies), so identical leaves can be one object: a few hundred bytes less per tool.

_LEAVES: dict[tuple[tuple[str, type, Any], ...], dict[str, Any]] = {}
_MAX_LEAVES = 4096


def share_leaves(node: Any) -> Any:
    """``node`` with every scalar-only dict replaced by one shared, equal dict."""
    if isinstance(node, list):
        return [share_leaves(item) for item in node]
    if not isinstance(node, dict):
        return node
    values = node.values()
    if all(v is None or isinstance(v, (str, int, float)) for v in values):
        key = tuple((k, type(v), v) for k, v in node.items())
        shared = _LEAVES.get(key)
        if shared is None:
            if len(_LEAVES) >= _MAX_LEAVES:
                return node
            shared = _LEAVES[key] = node
        return shared
    return {k: (v if k in _DATA_KEYWORDS else share_leaves(v)) for k, v in node.items()}

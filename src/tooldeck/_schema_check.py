"""Validating arguments against a JSON Schema (``jsonschema``): tools defined by a schema.

JSON Schema's own semantics: no coercion; extra arguments are accepted unless the
schema forbids them. Problems come back as one short line each, for a model to read.

The schema is not trusted (a ``BaseTool`` may hold one from anywhere): a ``$ref`` is
never retrieved — no network, no files — so every ``$ref`` must resolve inside the
schema, which is checked when the tool is defined; and ``pattern``s are matched within
a time budget (`tooldeck._patterns`), so no pattern can freeze the process.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

from . import _patterns
from ._jsonschema import DATA_KEYWORDS, MAP_KEYWORDS
from ._result import MORE_PROBLEMS, clip

__all__ = ["SchemaError", "metaschema_problem", "schema_validator"]

_COLLECT = 100  # problems collected from jsonschema before it is stopped


class SchemaError(ValueError):
    """A schema that cannot be used: a ``$ref`` that does not resolve inside it, a
    ``pattern`` that does not compile, or a schema that is not one."""


def schema_validator(schema: Mapping[str, Any]) -> Callable[[Any], list[str]]:
    """A prebuilt ``jsonschema`` check: arguments → one message per problem (none = valid).

    JSON Schema's own semantics: no coercion; extra arguments are accepted unless
    the schema forbids them.

    Raises:
        SchemaError: the schema cannot be used as it is.
    """
    import jsonschema
    import referencing
    from referencing.jsonschema import DRAFT202012

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    invalid = metaschema_problem(schema)
    if invalid is not None:
        raise SchemaError(f"not a valid JSON Schema ({clip(invalid[1], 200)})")
    registry: Any = referencing.Registry(retrieve=_never_retrieve)  # type: ignore[call-arg]
    resource = DRAFT202012.create_resource(schema)
    keywords: set[str] = set()
    _check(schema, registry.with_resource("", resource).resolver(), keywords)
    if {"unevaluatedProperties", "patternProperties"} <= keywords:
        # jsonschema works out which keys unevaluatedProperties leaves with Python's `re`,
        # out of reach of the time budget: a pattern there could freeze the process.
        raise SchemaError(
            "unevaluatedProperties together with patternProperties cannot be checked "
            "within tooldeck's time budget for patterns; use additionalProperties"
        )
    validator = _safe(cls)(schema, registry=registry)

    def problems(arguments: Any) -> list[str]:
        try:
            # Stop early: 200,000 wrong items would otherwise cost seconds of messages.
            with _patterns.budget():
                errors = validator.iter_errors(arguments)
                found = list(itertools.islice(errors, _COLLECT + 1))
        except RecursionError:
            return ["arguments: nested too deeply"]
        except _patterns.PatternTimeout as exc:
            return [f"arguments: cannot be checked against the schema: {exc}"]
        except Exception as exc:  # e.g. an int too long to print in jsonschema's message
            return [f"arguments: cannot be checked against the schema ({type(exc).__name__})"]
        errors = sorted(found[:_COLLECT], key=_path_key)
        lines = [line for error in errors for line in _problems(error)]
        return [*lines, MORE_PROBLEMS] if len(found) > _COLLECT else lines

    return problems


def metaschema_problem(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """Where and how ``schema`` breaks its draft's metaschema (jsonschema's best match:
    the path, ``/``-joined, and the message), or ``None`` when it is a valid schema.

    Against the metaschema, but without its format checks: they would compile every
    pattern with `re`, which knows less than `regex` (no ``\\p{L}``); `_check` compiles
    them. The check costs 1-3 ms a schema (jsonschema resolves the 2020-12 metaschema's
    ``$dynamicRef`` at every subschema), so a verdict is remembered per schema, by its
    JSON text, for the last `_REMEMBERED` schemas up to `_REMEMBERED_CHARS` long: a tool
    registered again, a server reconnected, or many tools of one shape (an MCP server's
    tools without parameters) pay once. A schema is a JSON document: one that is not
    plain JSON (a tuple, a key that is no string) is checked each time as it is.
    """
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return _metaschema_problem(schema)
    if len(text) > _REMEMBERED_CHARS:
        return _metaschema_problem(schema)
    if schema != json.loads(text):  # a tuple, a key that is no string: not plain JSON
        return _metaschema_problem(schema)
    return _remembered_problem(text)


_REMEMBERED = 1024
_REMEMBERED_CHARS = 16_384  # at most 16 MB of schemas remembered


@functools.lru_cache(maxsize=_REMEMBERED)
def _remembered_problem(text: str) -> tuple[str, str] | None:
    return _metaschema_problem(json.loads(text))


def _metaschema_problem(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    found = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    if found is None:
        return None
    return "/".join(str(part) for part in found.absolute_path), found.message


def _never_retrieve(uri: str) -> NoReturn:
    raise LookupError(f"tooldeck never retrieves a $ref ({uri!r})")


def _check(node: Any, resolver: Any, keywords: set[str]) -> None:
    """Every ``$ref`` resolves inside the schema; every ``pattern`` compiles; the
    keywords met go into ``keywords``."""
    if isinstance(node, list):
        for item in node:
            _check(item, resolver, keywords)
    elif isinstance(node, dict):
        resolver = _check_node(node, resolver)
        keywords.update(k for k in node if isinstance(k, str))
        for key, value in node.items():
            if key in MAP_KEYWORDS and isinstance(value, dict):
                for subschema in value.values():  # names are no keywords: "enum" may be one
                    _check(subschema, resolver, keywords)
            elif key not in DATA_KEYWORDS:
                _check(value, resolver, keywords)


def _check_node(node: Mapping[str, Any], resolver: Any) -> Any:
    from referencing.jsonschema import DRAFT202012

    if isinstance(node.get("$id"), str):  # a resource of its own: refs resolve against it
        resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
    for ref in (node.get("$ref"), node.get("$dynamicRef")):
        if not isinstance(ref, str):
            continue
        try:
            resolver.lookup(ref)
        except Exception as exc:
            raise SchemaError(
                f"$ref {clip(ref)} does not resolve inside the schema "
                "(tooldeck never retrieves one: no network, no files)"
            ) from exc
    for pattern in _patterns_in(node):
        try:
            _patterns.compiled(pattern)
        except Exception as exc:
            raise SchemaError(f"the pattern {clip(pattern)} does not compile ({exc})") from exc
    return resolver


def _patterns_in(node: Mapping[str, Any]) -> Iterator[str]:
    if isinstance(node.get("pattern"), str):
        yield node["pattern"]
    pattern_properties = node.get("patternProperties")
    if isinstance(pattern_properties, Mapping):
        yield from (p for p in pattern_properties if isinstance(p, str))


@functools.cache
def _safe(cls: Any) -> Any:
    """``cls`` with finite numbers and every regular expression on the time budget.

    Made once per draft: jsonschema makes a class of its own for it, about 1 ms."""
    import jsonschema

    types = cls.TYPE_CHECKER

    def is_number(_: Any, value: Any) -> bool:
        # JSON has no NaN or Infinity: a "number" must be finite, as for signature tools.
        finite = not isinstance(value, float) or math.isfinite(value)
        return finite and types.is_type(value, "number")

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls,
        validators={
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
        type_checker=types.redefine("number", is_number),
    )


# jsonschema's own `pattern`, `patternProperties` and `additionalProperties`, with every
# regular expression matched by tooldeck._patterns instead of `re`.


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _patterns.search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _patterns.search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    unexpected = _unexpected(instance, schema)
    if validator.is_type(extra, "object"):
        for key in unexpected:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and unexpected:
        names = ", ".join(repr(key) for key in sorted(unexpected, key=str))
        yield ValidationError(f"Additional properties are not allowed ({names} unexpected)")


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
        if key not in known and not any(_patterns.search(p, str(key)) for p in patterns)
    ]

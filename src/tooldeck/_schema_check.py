"""Validating arguments against a JSON Schema (``jsonschema``): tools defined by a schema.

JSON Schema's own semantics: no coercion; extra arguments are accepted unless the
schema forbids them. Problems come back as one short line each, for a model to read.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from ._result import MORE_PROBLEMS, clip

__all__ = ["schema_validator"]

_COLLECT = 100  # problems collected from jsonschema before it is stopped


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

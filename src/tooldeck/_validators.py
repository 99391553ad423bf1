"""Building the validator and the JSON Schema, once: steps 4-5 of the introspection pass.

4. the argument validator — a pydantic-core *typed-dict* schema, so a validated call
   yields a plain ``dict`` for ``func(**args)`` (no model instance, no ``model_dump``,
   and parameter names such as ``schema`` or ``model_config`` cannot clash with
   ``BaseModel`` attributes), with the lenient argument rules wrapped around each field;
5. the JSON Schema, generated from the same core schema and cleaned once (no titles,
   ``$ref``s inlined), and the return value's schema.
"""

from __future__ import annotations

import copyreg
import dataclasses
from collections.abc import Callable
from typing import Any, cast, get_args

import pydantic
from pydantic import ConfigDict
from pydantic_core import CoreSchema, SchemaValidator
from pydantic_core import SchemaError as PydanticSchemaError
from pydantic_core import core_schema as cs

from ._jsonschema import JsonSchemaGenerator, clean_schema
from ._media import mentions_media
from ._null_defaults import null_default_plan
from ._result import ToolResult, clip
from ._spec import EMPTY, Param, ToolSpec, Validate
from ._typing import (
    admits_container,
    admits_none,
    admits_text,
    object_fields,
    parse_container,
    split_annotated,
    validates_to_itself,
)
from .errors import ToolDefinitionError

__all__ = ["return_schema", "signature_validators"]


# -- the lenient argument rules ----------------------------------------------------------


def _lenient(param: Param, inner: CoreSchema) -> CoreSchema:
    """``inner`` wrapped for the lenient argument rules (unchanged when none apply).

    * ``null`` for a parameter with a default that does not admit ``None`` means the
      default (strict exports send defaulted parameters as nullable);
    * a JSON string for a parameter that takes a list or object, and no string, is
      parsed (some clients stringify nested arguments);
    * nested ``null``s for defaulted fields are dropped (the same rule, one level down).

    A wrapper runs only when its field is given, and its cost is one Python call, so
    the common cases get one small function each: ``None`` → a default that validates
    to itself (an ``int`` for ``int``, an enum member, a literal's value: one function
    shared by every field with that default), or text → a parsed container. Otherwise
    ``null`` must act exactly as an omitted argument — the default, unvalidated — which
    takes a wrap-validator.
    """
    null_means_default = not param.required and not admits_none(param.base)
    parse_json = admits_container(param.base) and not admits_text(param.base)
    plan = null_default_plan(param.base)
    if not (null_means_default or parse_json or plan):
        return inner
    default, factory = param.default, param.default_factory
    simple = factory is None and validates_to_itself(param.annotation, default)
    if null_means_default and simple and not parse_json and plan is None:
        return cs.no_info_before_validator_function(_null_to(default), inner)
    if parse_json and not null_means_default and plan is None:
        return cs.no_info_before_validator_function(_parse_text, inner)
    return _lenient_in_general(param, inner, null_means_default, parse_json, plan, simple)


def _lenient_in_general(
    param: Param,
    inner: CoreSchema,
    null_means_default: bool,
    parse_json: bool,
    plan: Callable[[Any], Any] | None,
    simple: bool,
) -> CoreSchema:
    default, factory = param.default, param.default_factory

    def prepare(value: Any) -> Any:
        if parse_json and isinstance(value, str):
            value = parse_container(value)
        return plan(value) if plan is not None else value

    if not null_means_default or simple:

        def before(value: Any) -> Any:
            if value is None and null_means_default:
                return default
            return prepare(value)

        return cs.no_info_before_validator_function(before, inner)

    def wrap(value: Any, validate: Callable[[Any], Any]) -> Any:
        if value is None:  # exactly as if omitted: the default, unvalidated
            return factory() if factory is not None else default
        return validate(prepare(value))

    return cs.no_info_wrap_validator_function(wrap, inner)


_SHARED_DEFAULTS: dict[tuple[type, Any], Callable[[Any], Any]] = {}


def _null_to(default: Any) -> Callable[[Any], Any]:
    """``None`` → ``default``, anything else as it is; one function per default value."""
    try:
        key = (type(default), default)
        found = _SHARED_DEFAULTS.get(key)
    except TypeError:  # an unhashable default: a function of its own
        key, found = None, None
    if found is None:

        def null_to_default(value: Any) -> Any:
            return default if value is None else value

        found = null_to_default
        if key is not None and len(_SHARED_DEFAULTS) < 4096:
            _SHARED_DEFAULTS[key] = found
    return found


def _parse_text(value: Any) -> Any:
    return parse_container(value) if value.__class__ is str else value


# -- the validator and its schema --------------------------------------------------------------


def _schema_generator() -> tuple[Callable[[Any], CoreSchema], Callable[[CoreSchema], CoreSchema]]:
    """Per-type core-schema generation without building a validator per field.

    pydantic's public ``TypeAdapter`` builds a validator *and* a serializer for every
    type it sees; one private ``GenerateSchema`` does only the schema, which is what
    makes definition ~3x faster. If that private API moves, fall back to the public one.
    """
    try:
        from pydantic._internal._config import ConfigWrapper
        from pydantic._internal._generate_schema import GenerateSchema

        gen = GenerateSchema(ConfigWrapper(ConfigDict(allow_inf_nan=False)), None)
        return gen.generate_schema, gen.clean_schema
    except Exception:  # pragma: no cover - only on a pydantic that moved its internals
        return (lambda tp: pydantic.TypeAdapter(tp).core_schema), (lambda schema: schema)


def _typed_dict_schema(params: tuple[Param, ...], tool_name: str) -> CoreSchema:
    generate, clean = _schema_generator()
    fields: dict[str, cs.TypedDictField] = {}
    for param in params:
        try:
            inner = generate(param.annotation)
        except Exception as exc:
            raise ToolDefinitionError(
                f"pydantic cannot validate its type {param.annotation!r} "
                f"({exc.__class__.__name__}); use a JSON-compatible type or a Pydantic model",
                tool=tool_name,
                param=param.name,
            ) from exc
        inner = _lenient(param, inner)
        if param.default_factory is not None:
            inner = cs.with_default_schema(inner, default_factory=param.default_factory)
        elif param.default is not EMPTY:
            inner = cs.with_default_schema(inner, default=param.default)
        fields[param.name] = cs.typed_dict_field(inner, required=param.required)
    # JSON has no NaN or Infinity: a number argument must be finite (nested TypedDicts
    # and dataclasses too, through the generator's config; Pydantic models keep theirs).
    config = cs.CoreConfig(allow_inf_nan=False)
    return clean(cs.typed_dict_schema(fields, extra_behavior="forbid", config=config))


def _json_schema(core: CoreSchema, tool_name: str, what: str = "parameters") -> dict[str, Any]:
    try:
        return JsonSchemaGenerator().generate(core, mode="validation")
    except Exception as exc:
        raise ToolDefinitionError(
            f"no JSON Schema can describe its {what} ({exc})", tool=tool_name
        ) from exc


def _with_descriptions(schema: dict[str, Any], params: tuple[Param, ...]) -> dict[str, Any]:
    """Put each resolved description in place, before ``default`` (seed 002's order)."""
    props = schema.get("properties", {})
    for param in params:
        prop = props.get(param.name)
        if prop is None:
            continue
        rebuilt = {k: v for k, v in prop.items() if k not in ("description", "default")}
        description = param.description or prop.get("description")
        if description:
            rebuilt["description"] = description
        if "default" in prop:
            rebuilt["default"] = prop["default"]
        props[param.name] = rebuilt
    return schema


def signature_validators(
    params: tuple[Param, ...], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any]]:
    core = _typed_dict_schema(params, tool_name)
    try:
        validator = SchemaValidator(core)
    except PydanticSchemaError as exc:  # e.g. a Field pattern Rust's regex cannot take
        problem = " ".join(line.strip() for line in str(exc).splitlines()[-3:])
        raise ToolDefinitionError(
            f"pydantic cannot build a validator for the parameters: {clip(problem, 300)}",
            tool=tool_name,
        ) from exc
    try:
        generated = JsonSchemaGenerator().generate(core, mode="validation")
    except Exception as exc:
        raise _no_json_schema(params, tool_name, exc) from exc
    schema = _with_descriptions(clean_schema(generated), params)
    # A SchemaValidator keeps the schema it was built from, only to pickle itself: for
    # a tool, ~3 KB of dicts, most of what it holds. Emptied, so that 10,000 tools do
    # not keep 30 MB for nothing; a spec with these validators pickles by rebuilding
    # them from its params (`_reduce_spec`).
    cast("dict[str, Any]", core).clear()
    return validator.validate_python, validator.validate_json, schema


def _reduce_spec(spec: ToolSpec) -> Any:
    """How pickle saves a `ToolSpec`: as its fields, or — when its validators are the
    signature's, which cannot pickle themselves — as its fields but those."""
    owner = getattr(spec.validate_python, "__self__", None)
    if not (isinstance(owner, SchemaValidator) and owner.__reduce__()[1][0] == {}):
        return object.__reduce_ex__(spec, 2)
    state = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    del state["validate_python"], state["validate_json"]
    return _rebuilt_spec, (state,)


def _rebuilt_spec(state: dict[str, Any]) -> ToolSpec:
    validate_python, validate_json, _ = signature_validators(state["params"], state["name"])
    return ToolSpec(**state, validate_python=validate_python, validate_json=validate_json)


copyreg.pickle(ToolSpec, _reduce_spec)


def _no_json_schema(params: tuple[Param, ...], tool_name: str, exc: Exception) -> Exception:
    """Which parameter, and which field of which model inside it, has no JSON Schema."""
    for param in params:
        where = _without_schema(param.annotation, param.name, None)
        if where is None:
            continue
        path, kind, owner = where
        culprit = "" if path == param.name else f": at {path}, "
        if owner is not None:
            culprit += f"the field {_type_name(owner)}.{path.rpartition('.')[2]} has type "
            culprit += f"{_type_name(kind)}, which has none"
        elif culprit:
            culprit += f"{_type_name(kind)} has none"
        return ToolDefinitionError(
            f"no JSON Schema can describe its type {_type_name(param.annotation)}{culprit} "
            f"({exc.__class__.__name__}); use a JSON-compatible type, or describe it with "
            "pydantic.WithJsonSchema",
            tool=tool_name,
            param=param.name,
        )
    reason = f"no JSON Schema can describe its parameters ({exc})"
    return ToolDefinitionError(reason, tool=tool_name)


def _without_schema(tp: Any, path: str, owner: Any, depth: int = 0) -> tuple[str, Any, Any] | None:
    """The innermost ``(path, type, model owning it)`` in ``tp`` without a JSON Schema."""
    if _has_json_schema(tp):
        return None
    base = split_annotated(tp)[0]
    if depth < 8:
        inner = [(f"{path}.{f.key}", f.annotation, base) for f in object_fields(base) or ()]
        inner += [(f"{path}[]", a, None) for a in get_args(base) if a is not Ellipsis]
        for where, sub, sub_owner in inner:
            found = _without_schema(sub, where, sub_owner, depth + 1)
            if found is not None:
                return found
    return path, base, owner


def _has_json_schema(tp: Any) -> bool:
    generate, clean = _schema_generator()
    try:
        JsonSchemaGenerator().generate(clean(generate(tp)), mode="validation")
    except Exception:
        return False
    return True


def _type_name(tp: Any) -> str:
    if isinstance(tp, type) and not get_args(tp):
        return tp.__qualname__
    return repr(tp).replace("typing.", "")


def return_schema(hints: dict[str, Any], tool_name: str) -> tuple[Any, dict[str, Any] | None, bool]:
    annotation = hints.get("return", EMPTY)
    base = split_annotated(annotation)[0]
    if annotation is EMPTY or base is type(None) or base is Any or mentions_media(base):
        return annotation, None, False  # media is content, never JSON: no output schema
    if isinstance(base, type) and issubclass(base, ToolResult):
        return annotation, None, True
    if annotation in _SCALAR_SCHEMAS:  # the common case, without a schema generator
        return annotation, {"type": _SCALAR_SCHEMAS[annotation]}, False
    generate, clean = _schema_generator()
    try:
        schema = clean_schema(_json_schema(clean(generate(annotation)), tool_name, "return"))
    except Exception:  # a return type without a JSON Schema is informational only
        return annotation, None, False
    return annotation, schema, False


_SCALAR_SCHEMAS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}

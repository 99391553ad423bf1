"""The one introspection pass: a callable (or a model) in, a frozen ``ToolSpec`` out.

The steps, each a small function:

1. normalise the callable and resolve its type hints once (``include_extras=True``);
2. parse the docstring once;
3. analyse each parameter into a `Param` (type, default, description);
4. build the argument validator once — a pydantic-core *typed-dict* schema, so a
   validated call yields a plain ``dict`` for ``func(**args)`` (no model instance,
   no ``model_dump``, and parameter names such as ``schema`` or ``model_config``
   cannot clash with ``BaseModel`` attributes);
5. generate and clean the JSON Schema once (no titles, ``$ref``s inlined).

Nothing here runs again per call: the spec is the cache.
"""

from __future__ import annotations

import enum
import functools
import inspect
import re
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Optional, get_args, get_origin

import pydantic
from pydantic import ConfigDict
from pydantic.fields import FieldInfo
from pydantic.json_schema import CoreSchemaOrFieldType, GenerateJsonSchema
from pydantic_core import (
    CoreSchema,
    PydanticOmit,
    PydanticUndefined,
    SchemaValidator,
    to_jsonable_python,
)
from pydantic_core import core_schema as cs
from typing_extensions import Doc
from typing_inspection.introspection import get_literal_values

from ._docstrings import parse_docstring
from ._jsonschema import clean_schema, share_leaves
from ._result import ToolResult
from ._shifting import is_async_callable
from ._typing import (
    admits_container,
    admits_none,
    admits_text,
    null_default_plan,
    split_annotated,
)
from .errors import ToolDefinitionError

__all__ = ["NAME_RULE", "Param", "ToolSpec", "build_spec", "check_name"]

NAME_RULE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
EMPTY: Any = inspect.Parameter.empty

Validate = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Param:
    """One analysed parameter.

    Attributes:
        name: The parameter's name (the argument key).
        annotation: The annotation as written, ``Annotated`` metadata included.
        base: The annotation without ``Annotated`` (``typing.Any`` if unannotated).
        default: The default value, or ``inspect.Parameter.empty``.
        default_factory: A factory for the default (from ``Field(default_factory=)``).
        description: The resolved description, if any.
    """

    name: str
    annotation: Any
    base: Any
    default: Any = EMPTY
    default_factory: Callable[[], Any] | None = None
    description: str | None = None

    @property
    def required(self) -> bool:
        return self.default is EMPTY and self.default_factory is None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything tooldeck knows about a tool, computed once. Treat as read-only.

    Attributes:
        name: The tool name.
        description: What the tool does, for a model.
        parameters: The arguments' JSON Schema (never handed out uncopied).
        returns: The return value's JSON Schema, or ``None`` when unknown.
        return_annotation: The return annotation as written (``EMPTY`` if none).
        params: The analysed parameters, in signature order.
        validate_python: Mapping of arguments → validated keyword arguments.
        validate_json: JSON text → validated keyword arguments.
        positional: Names of positional-only parameters, in order.
        is_async: Whether calling the function returns an awaitable.
        returns_tool_result: Whether the function is annotated ``-> ToolResult``.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any] | None
    return_annotation: Any
    params: tuple[Param, ...]
    validate_python: Validate
    validate_json: Validate
    positional: tuple[str, ...]
    is_async: bool
    returns_tool_result: bool


def check_name(name: Any, *, func_name: str | None = None) -> str:
    """Reject a tool name a provider would refuse (``^[A-Za-z0-9_-]{1,64}$``)."""
    if not isinstance(name, str) or not NAME_RULE.match(name):
        raise ToolDefinitionError(
            f"invalid tool name {name!r}: names must match ^[A-Za-z0-9_-]{{1,64}}$ "
            "(providers reject anything else); pass name=... to choose one",
            tool=func_name,
        )
    return name


# -- step 1: the callable and its hints ------------------------------------------------


def _unwrap_partial(func: Callable[..., Any]) -> Callable[..., Any]:
    """The function behind ``functools.partial`` layers (its name, hints and docstring)."""
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _signature_target(func: Callable[..., Any]) -> Callable[..., Any]:
    """What to read hints from: the function, or a callable object's ``__call__``."""
    func = _unwrap_partial(func)
    if inspect.isfunction(func) or inspect.ismethod(func):
        return func
    call = getattr(type(func), "__call__", None)  # noqa: B004
    return call if call is not None else func


def _type_hints(func: Callable[..., Any], name: str) -> dict[str, Any]:
    target = _signature_target(func)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        # String annotations naming a class local to the decorating function: resolve
        # them in the caller's namespace, as pydantic does.
        try:
            return typing.get_type_hints(target, localns=_caller_locals(), include_extras=True)
        except Exception as exc:
            raise _unresolved(exc, name) from exc
    except Exception as exc:
        raise _unresolved(exc, name) from exc


def _caller_locals() -> dict[str, Any]:
    """The locals of the innermost frame outside tooldeck (the decorating code)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("tooldeck."):
        frame = frame.f_back  # type: ignore[assignment]
    return dict(frame.f_locals) if frame is not None else {}


def _unresolved(exc: Exception, name: str) -> ToolDefinitionError:
    return ToolDefinitionError(
        f"cannot resolve the type annotations ({exc}); define the types they name "
        "at module level, or import them, before decorating",
        tool=name,
    )


# -- step 3: one parameter --------------------------------------------------------------


def _describe(meta: tuple[Any, ...], default: Any, doc_text: str | None) -> str | None:
    """First found wins: Annotated strs > Field(description) > Doc() > the docstring."""
    texts = [m for m in meta if isinstance(m, str)]
    if texts:
        return ";".join(texts)
    fields = [m for m in meta if isinstance(m, FieldInfo)]
    if isinstance(default, FieldInfo):
        fields.append(default)
    for info in fields:
        if info.description:
            return info.description
    for m in meta:
        if isinstance(m, Doc):
            return m.documentation
    return doc_text or None


def analyse_param(name: str, annotation: Any, default: Any, doc_text: str | None) -> Param:
    """Annotation, default and docstring entry of one parameter → a `Param`."""
    if annotation is EMPTY:
        annotation = Any
    base, meta = split_annotated(annotation)
    description = _describe(meta, default, doc_text)
    factory = None
    if isinstance(default, FieldInfo):
        # ``x: int = Field(5, ge=0)``: the constraints join the type, the default stays.
        annotation = typing.Annotated[annotation, default]
        factory = default.default_factory
        default = EMPTY if default.default is PydanticUndefined else default.default
    if default is None and not admits_none(base):
        # ``x: int = None`` is an implicit Optional: accept the null it defaults to.
        annotation = Optional[annotation]  # noqa: UP045 - runtime construction
        base = Optional[base]  # noqa: UP045
    return Param(name, annotation, base, default, factory, description)  # type: ignore[arg-type]


def _lenient(param: Param, inner: CoreSchema) -> CoreSchema:
    """``inner`` wrapped for the lenient argument rules (unchanged when none apply).

    * ``null`` for a parameter with a default that does not admit ``None`` means the
      default (strict exports send defaulted parameters as nullable);
    * a JSON string for a parameter that takes a list or object, and no string, is
      parsed (some clients stringify nested arguments);
    * nested ``null``s for defaulted fields are dropped (the same rule, one level down).

    ``null`` must act exactly as an omitted argument: the default, unvalidated. That
    takes a wrap-validator (~0.35 us a call); a default that validates to itself (an
    ``int`` for ``int``, an enum member, a literal's value) allows a before-validator,
    several times cheaper, with the same outcome.
    """
    null_means_default = not param.required and not admits_none(param.base)
    parse_json = admits_container(param.base) and not admits_text(param.base)
    plan = null_default_plan(param.base)
    if not (null_means_default or parse_json or plan):
        return inner
    default, factory = param.default, param.default_factory

    def prepare(value: Any) -> Any:
        if parse_json and isinstance(value, str):
            value = _parse_container(value)
        return plan(value) if plan is not None else value

    if not null_means_default or (factory is None and _validates_to_itself(param.base, default)):

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


def _validates_to_itself(base: Any, default: Any) -> bool:
    """Whether validating ``default`` against ``base`` surely returns ``default`` itself."""
    if base in (int, str, float, bool):
        return type(default) is base
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return isinstance(default, base)
    if get_origin(base) is Literal:
        return any(
            default is arg or (type(default) is type(arg) and default == arg)
            for arg in get_args(base)
        )
    return False


def _parse_container(text: str) -> Any:
    stripped = text.lstrip()
    if not stripped.startswith(("[", "{")):
        return text
    import json

    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):  # validation then reports the string
        return text
    return parsed if isinstance(parsed, (list, dict)) else text


# -- step 4: the validator --------------------------------------------------------------


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


class _JsonSchemaGenerator(GenerateJsonSchema):
    """pydantic's generator, minus its per-instance cost.

    ``GenerateJsonSchema.__init__`` rebuilds a table of ~70 handler methods from the
    ``CoreSchemaOrFieldType`` literal every time; a tool needs two generators, so the
    table's method names are computed once per class and only bound per instance.
    """

    _names: ClassVar[tuple[tuple[str, str], ...] | None] = None

    def build_schema_type_to_method(self) -> dict[Any, Callable[[Any], Any]]:
        names = type(self)._names
        if names is None:
            keys = get_literal_values(CoreSchemaOrFieldType)
            names = tuple((k, f"{k.replace('-', '_')}_schema") for k in keys)
            type(self)._names = names
        return {key: getattr(self, name) for key, name in names}

    def encode_default(self, dft: Any) -> Any:
        # pydantic builds a TypeAdapter per default value to encode it (~13% of a
        # definition); JSON-compatible encoding of the value itself says the same.
        try:
            return to_jsonable_python(dft, by_alias=True)
        except Exception as exc:
            raise PydanticOmit from exc


def _json_schema(core: CoreSchema, tool_name: str, what: str = "parameters") -> dict[str, Any]:
    try:
        return _JsonSchemaGenerator().generate(core, mode="validation")
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


def _signature_validators(
    params: tuple[Param, ...], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any]]:
    core = _typed_dict_schema(params, tool_name)
    validator = SchemaValidator(core)
    schema = _with_descriptions(clean_schema(_json_schema(core, tool_name)), params)
    return validator.validate_python, validator.validate_json, schema


# -- args_schema: a Pydantic v2 or v1 model replaces the signature ----------------------


def _model_validators(
    model: type[Any], docs: dict[str, str], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any], tuple[Param, ...]]:
    if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        from ._models import v2_model_validators

        return v2_model_validators(model, docs, tool_name)
    from ._models import is_v1_model, v1_model_validators

    if is_v1_model(model):
        return v1_model_validators(model, docs, tool_name)
    raise ToolDefinitionError(
        f"args_schema must be a Pydantic v2 or v1 model class, not {model!r}", tool=tool_name
    )


# -- the pass ---------------------------------------------------------------------------


def _signature_params(
    func: Callable[..., Any],
    hints: dict[str, Any],
    docs: dict[str, str],
    tool_name: str,
    *,
    allow_var_kwargs: bool,
) -> tuple[tuple[Param, ...], tuple[str, ...]]:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"cannot read its signature ({exc})", tool=tool_name) from exc
    params: list[Param] = []
    positional: list[str] = []
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            raise ToolDefinitionError(
                f"*{p.name} is not supported: a model sends named arguments; "
                "take a list parameter instead",
                tool=tool_name,
                param=p.name,
            )
        if p.kind is p.VAR_KEYWORD:
            if allow_var_kwargs:
                continue
            raise ToolDefinitionError(
                f"**{p.name} needs args_schema=... (a Pydantic model) to say which "
                "arguments the tool takes",
                tool=tool_name,
                param=p.name,
            )
        if p.kind is p.POSITIONAL_ONLY:
            positional.append(p.name)
        params.append(analyse_param(p.name, hints.get(p.name, EMPTY), p.default, docs.get(p.name)))
    return tuple(params), tuple(positional)


def _check_doc_params(docs: dict[str, str], known: set[str], tool_name: str) -> None:
    for documented in docs:
        if documented not in known:
            raise ToolDefinitionError(
                f"the docstring documents {documented!r}, which is not a parameter; "
                "fix the docstring or the signature",
                tool=tool_name,
                param=documented,
            )


def _returns(hints: dict[str, Any], tool_name: str) -> tuple[Any, dict[str, Any] | None, bool]:
    annotation = hints.get("return", EMPTY)
    base = split_annotated(annotation)[0]
    if annotation is EMPTY or base is type(None) or base is Any:
        return annotation, None, False
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


def build_spec(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    args_schema: type[Any] | None = None,
    manual_params: Mapping[str, tuple[Any, str]] | None = None,
    returns: Any = EMPTY,
) -> ToolSpec:
    """Introspect ``func`` once into a `ToolSpec`.

    Args:
        func: The function (sync or async) or callable object.
        name: The tool name; defaults to the function's ``__name__``.
        description: Overrides the docstring.
        args_schema: A Pydantic v2/v1 model whose fields are the arguments.
        manual_params: Agently's ``{param: (type, "description")}``; replaces the
            signature's parameters (defaults still come from the signature).
        returns: Agently's ``returns`` annotation, when given by hand.

    Raises:
        ToolDefinitionError: anything that would only fail later, at call time.
    """
    inner = _unwrap_partial(func)
    func_name = getattr(inner, "__name__", None) or type(inner).__name__
    tool_name = check_name(func_name if name is None else name, func_name=func_name)
    hints = _type_hints(func, tool_name)
    doc = parse_docstring(inspect.getdoc(inner) if description is None else None)
    sig_params, positional = _signature_params(
        func,
        hints,
        doc.params,
        tool_name,
        allow_var_kwargs=args_schema is not None or manual_params is not None,
    )
    if args_schema is not None:
        vpy, vjson, schema, params = _model_validators(args_schema, doc.params, tool_name)
        positional = ()
    else:
        if manual_params is not None:
            sig_params = _manual_params(manual_params, sig_params, tool_name)
        params = sig_params
        vpy, vjson, schema = _signature_validators(params, tool_name)
    known = {p.name for p in params}
    if inner is not func:  # a partial: the wrapped docstring may document bound parameters
        known |= set(inspect.signature(inner).parameters)
    _check_doc_params(doc.params, known, tool_name)
    if returns is not EMPTY:
        hints = {**hints, "return": returns}
    return_annotation, returns_schema, returns_result = _returns(hints, tool_name)
    return ToolSpec(
        name=tool_name,
        description=description if description is not None else (doc.description or tool_name),
        parameters=share_leaves(schema),
        returns=share_leaves(returns_schema),
        return_annotation=return_annotation,
        params=params,
        validate_python=vpy,
        validate_json=vjson,
        positional=positional,
        is_async=is_async_callable(func),
        returns_tool_result=returns_result,
    )


_TYPE_NAMES: dict[str, Any] = {
    "str": str,
    "string": str,
    "int": int,
    "integer": int,
    "float": float,
    "number": float,
    "bool": bool,
    "boolean": bool,
    "list": list,
    "array": list,
    "dict": dict,
    "object": dict,
    "any": Any,
}


def _manual_params(
    kwargs: Mapping[str, tuple[Any, str]], signature_params: tuple[Param, ...], tool_name: str
) -> tuple[Param, ...]:
    """Agently's ``kwargs`` format; defaults come from the function where it has them."""
    defaults = {p.name: p for p in signature_params}
    params = []
    for key, spec in kwargs.items():
        if isinstance(spec, tuple) and len(spec) == 2:
            kind, text = spec
        else:
            kind, text = spec, ""
        if isinstance(kind, str):
            kind = _TYPE_NAMES.get(kind.strip().lower(), Any)
        from_signature = defaults.get(key)
        default = from_signature.default if from_signature else EMPTY
        param = analyse_param(key, kind, default, None)
        params.append(
            Param(param.name, param.annotation, param.base, param.default, None, str(text) or None)
        )
    missing = [p.name for p in signature_params if p.required and p.name not in kwargs]
    if missing:
        raise ToolDefinitionError(
            f"kwargs does not describe the required parameter(s) {', '.join(missing)}",
            tool=tool_name,
            param=missing[0],
        )
    return tuple(params)

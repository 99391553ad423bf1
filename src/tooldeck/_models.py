"""``args_schema``: a Pydantic model (v2, or v1 through ``pydantic.v1``) as the arguments.

The model validates, so its validators, aliases and coercion apply; the function
receives the model's fields as keyword arguments (shallow: nested models stay
model instances). A model that does not say what to do with unknown arguments is
made to reject them, like every other tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pydantic
from pydantic import ConfigDict

from ._jsonschema import JsonSchemaGenerator, clean_schema
from ._null_defaults import null_default_plan
from ._result import CallFailure, clip, problem_lines
from ._spec import EMPTY, Param, Validate
from ._typing import admits_container, admits_text, object_fields, parse_container
from .errors import ToolDefinitionError

__all__ = ["is_v1_model", "v1_model_validators", "v2_model_validators"]


def _describe(schema: dict[str, Any], docs: dict[str, str]) -> dict[str, Any]:
    for name, prop in schema.get("properties", {}).items():
        if "description" not in prop and docs.get(name):
            prop["description"] = docs[name]
    return schema


def v2_model_validators(
    model: type[pydantic.BaseModel], docs: dict[str, str], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any], tuple[Param, ...]]:
    if model.model_config.get("extra") is None:
        model = type(  # a subclass that rejects unknown arguments
            model.__name__,
            (model,),
            {"model_config": ConfigDict(extra="forbid"), "__module__": model.__module__},
        )
    try:
        schema = _describe(
            clean_schema(model.model_json_schema(schema_generator=JsonSchemaGenerator)), docs
        )
    except Exception as exc:
        raise ToolDefinitionError(
            f"args_schema has no JSON Schema ({exc})", tool=tool_name
        ) from exc
    validator = model.__pydantic_validator__
    names = tuple(model.model_fields)
    lenient = _lenient_rules(model)

    def validate_python(arguments: Any) -> dict[str, Any]:
        if lenient is not None:
            arguments = lenient(arguments)
        instance = validator.validate_python(arguments)
        return {name: getattr(instance, name) for name in names}

    def validate_json(text: Any) -> dict[str, Any]:
        if lenient is None:
            instance = validator.validate_json(text)
            return {name: getattr(instance, name) for name in names}
        return validate_python(_loads(text, tool_name))

    params = tuple(
        Param(
            name,
            info.annotation,
            info.annotation,
            EMPTY if info.is_required() or info.default_factory else info.default,
            info.default_factory,  # type: ignore[arg-type]
            info.description or docs.get(name),
        )
        for name, info in model.model_fields.items()
    )
    return validate_python, validate_json, schema, params


def _lenient_rules(model: Any) -> Callable[[Any], Any] | None:
    """The lenient argument rules for a model's fields, as for a signature's parameters:
    a container sent as JSON text is parsed, a null for a defaulted field is its default
    (at any depth). ``None`` when no field needs them."""
    texts = frozenset(
        f.key
        for f in object_fields(model) or ()
        if admits_container(f.annotation) and not admits_text(f.annotation)
    )
    plan = null_default_plan(model)
    if not texts and plan is None:
        return None

    def lenient(arguments: Any) -> Any:
        if texts and isinstance(arguments, dict):
            arguments = {
                k: parse_container(v) if k in texts and isinstance(v, str) else v
                for k, v in arguments.items()
            }
        return plan(arguments) if plan is not None else arguments

    return lenient


def is_v1_model(obj: Any) -> bool:
    """Whether ``obj`` is a ``pydantic.v1`` model class."""
    try:
        from pydantic import v1
    except Exception:  # pragma: no cover - pydantic.v1 is unavailable on some Pythons
        return False
    return isinstance(obj, type) and issubclass(obj, v1.BaseModel)


def v1_model_validators(
    model: Any, docs: dict[str, str], tool_name: str
) -> tuple[Validate, Validate, dict[str, Any], tuple[Param, ...]]:
    from pydantic import v1

    if model.__config__.extra == v1.Extra.ignore:
        config = type("Config", (), {"extra": v1.Extra.forbid})
        model = type(model.__name__, (model,), {"Config": config, "__module__": model.__module__})
    schema = _describe(clean_schema(model.schema()), docs)
    lenient = _lenient_rules(model)

    def validate_python(arguments: Any) -> dict[str, Any]:
        if lenient is not None:
            arguments = lenient(arguments)
        try:
            return dict(model.parse_obj(arguments))
        except v1.ValidationError as exc:
            raise CallFailure(_format_v1(exc, tool_name)) from exc
        except (TypeError, ValueError, OverflowError) as exc:  # pydantic.v1's own limits
            raise CallFailure(_header_and(tool_name, [f"arguments: {exc}"])) from exc

    def validate_json(text: Any) -> dict[str, Any]:
        return validate_python(_loads(text, tool_name))

    params = tuple(
        Param(
            name,
            field.outer_type_,
            field.outer_type_,
            EMPTY if field.required else field.default,
            None,
            field.field_info.description or docs.get(name),
        )
        for name, field in model.__fields__.items()
    )
    return validate_python, validate_json, schema, params


def _header_and(tool_name: str, problems: list[str]) -> str:
    return problem_lines(f"Invalid arguments for tool '{clip(tool_name)}':", problems)


def _loads(text: Any, tool_name: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CallFailure(_header_and(tool_name, [f"arguments: not valid JSON ({exc})"])) from exc


def _format_v1(exc: Any, tool_name: str) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "value_error.extra":
            problems.append(f"{where}: unexpected argument")
        elif error["type"] == "value_error.missing":
            problems.append(f"{where}: missing required argument")
        else:
            problems.append(f"{where}: {error['msg']}")
    return _header_and(tool_name, problems)

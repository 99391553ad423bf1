"""Tools defined by a JSON Schema instead of a signature: seed 000's `BaseTool` instances.

Their arguments are validated with `jsonschema` (JSON Schema's own semantics: no
coercion, no lenient parsing, extra arguments passed on where the schema allows them).
(MCP proxies, also defined by a schema, leave validation to their server: `tooldeck.mcp`.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic_core import from_json

from ._injected import Injection
from ._jsonschema import copy_json
from ._lenient import Lenient
from ._result import CallFailure, ToolResult, clip, echo, problem_lines
from ._schema_check import SchemaError, schema_validator
from ._spec import EMPTY, Param, ToolSpec, check_name
from ._tool import Approval, BaseTool, Tool
from .errors import ToolDefinitionError
from .frameworks import Foreign
from .frameworks._faces import approval_of

__all__ = ["foreign_tool", "from_base_tool", "schema_params", "schema_tool"]


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def schema_tool(
    name: str,
    description: str,
    parameters: Mapping[str, Any],
    func: Callable[..., Any],
    *,
    returns: Mapping[str, Any] | None = None,
    tags: str | Iterable[str] | None = None,
    returns_tool_result: bool = False,
    timeout: float | None = None,
    enabled: bool = True,
    validate: bool = True,
    injected: tuple[Injection, ...] = (),
    requires_approval: Approval = False,
) -> Tool[..., Any]:
    """A `Tool` whose arguments are checked against a JSON Schema (``jsonschema``).

    JSON Schema's own semantics: no coercion, no lenient parsing; extra arguments
    are passed on where the schema allows them. ``validate=False`` passes any JSON
    object on as it is (the function's own framework validates it). ``injected``: the
    parameters ``func`` takes from a call's context, beside the arguments.
    """
    check_name(name)
    schema = copy_json(parameters)
    try:
        problems = schema_validator(schema)
    except SchemaError as exc:
        raise ToolDefinitionError(str(exc), tool=name) from exc

    header = f"Invalid arguments for tool '{clip(name)}':"
    # (validated by someone else: only the lenient rules that cannot change meaning)
    lenient = None if validate else Lenient(schema)

    def validate_python(arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, Mapping):
            lines = [f"arguments: expected a JSON object, got {echo(arguments)}"]
        elif lenient is not None:
            return lenient(dict(arguments))
        else:
            arguments = dict(arguments)
            lines = problems(arguments)
        if lines:
            raise CallFailure(problem_lines(header, lines))
        return arguments  # type: ignore[no-any-return]

    def validate_json(text: Any) -> dict[str, Any]:
        try:
            # jiter: bounded nesting; NaN and Infinity are not JSON.
            parsed = from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            raise CallFailure(f"{header} not valid JSON ({exc})") from exc
        return validate_python(parsed)

    spec = ToolSpec(
        name=name,
        description=description or name,
        parameters=schema,
        returns=None if returns is None else copy_json(returns),
        return_annotation=ToolResult if returns_tool_result else EMPTY,
        params=schema_params(schema),
        validate_python=validate_python,
        validate_json=validate_json,
        positional=(),
        is_async=inspect.iscoroutinefunction(func),
        returns_tool_result=returns_tool_result,
        injected=injected,
    )
    return Tool(
        func,
        tags=tags,
        timeout=timeout,
        enabled=enabled,
        spec=spec,
        requires_approval=requires_approval,
    )


def schema_params(schema: Mapping[str, Any]) -> tuple[Param, ...]:
    """Agently's view of a JSON Schema's properties: name, base type, default, description."""
    params = []
    for key, prop in schema.get("properties", {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        base = _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any
        default = prop.get("default", EMPTY) if isinstance(prop, dict) else EMPTY
        description = prop.get("description") if isinstance(prop, dict) else None
        params.append(Param(key, base, base, default, None, description))
    return tuple(params)


def from_base_tool(obj: BaseTool) -> Tool[..., Any]:
    """Wrap a seed-000 `BaseTool` instance as a `Tool`."""
    try:
        name, description, parameters = obj.name, obj.description, obj.parameters
    except Exception as exc:
        raise ToolDefinitionError(f"{type(obj).__name__} cannot describe itself ({exc})") from exc
    wrapped = schema_tool(name, description, parameters, obj.execute, returns_tool_result=True)
    wrapped._source = obj  # type: ignore[attr-defined]
    return wrapped


# The parameter a framework's tool takes the call's whole context by (never a model's:
# injected values are added after validation, over any argument of that name).
_CONTEXT = "tooldeck_context__"


def _same(value: Any) -> Any:
    return value


def foreign_tool(
    described: Foreign,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    requires_approval: Approval | None = None,
    enabled: bool = True,
) -> Tool[..., Any]:
    """A framework's tool (LangChain, OpenAI Agents, Pydantic AI) as a `Tool`: its schema
    kept for every export, its arguments passed on to its own framework, which validates
    them (as a proxy leaves validation to its server), with the call's context as its
    framework's run context when it takes one. ``name`` and ``description`` replace
    its own in tooldeck's declaration (a framework may allow names providers reject:
    dots, other scripts, more than 64 characters); it still runs as itself.
    ``timeout`` bounds its framework's invocation; ``requires_approval`` (as for any
    tool) replaces the approval its framework asks for, when given; it is disabled
    when ``enabled`` is false or its framework disables it."""
    arun = described.arun
    needs: list[Any] = [None]  # the tool's approval check, once the tool is made

    async def run(**arguments: Any) -> ToolResult:
        context = arguments.pop(_CONTEXT, None)
        check = needs[0]
        return await arun(
            arguments, context, lambda: check is not None and check(arguments, context)
        )

    # (``wrap``: the value is made per call, never read by key on the faces' fast paths)
    whole = Injection(_CONTEXT, "*", None, wrap=_same, whole=True)
    if requires_approval is None:
        requires_approval = described.requires_approval
    tool = schema_tool(
        described.name if name is None else name,
        described.description if description is None else description,
        described.parameters,
        run,
        returns_tool_result=True,
        validate=False,
        timeout=timeout,
        enabled=enabled and described.enabled,
        injected=(whole,) if described.takes_context else (),
        requires_approval=requires_approval,
    )
    needs[0] = approval_of(tool)
    return tool

"""A remote MCP tool as a `Tool`: `ProxyTool`, and what its calls answer.

The server owns validation. A proxy accepts what its remote tool accepts: it only
checks that the arguments are a JSON object and applies the lenient rules that cannot
change meaning (JSON text for a parameter whose schema admits neither a string nor
anything, parsed when it is a list or an object; ``null`` for a defaulted parameter
whose schema does not admit ``null``, left out so the server applies its default).
The call then goes to the server as is.

What the faces answer (seed 001 §7.2 for the Agently face):

* a result: ``call_tool`` → `to_value` of it; ``execute`` → ``ToolResult.ok`` of that,
  or, when the result holds media, of every content item as tooldeck values
  (`media_value`: an `Image`, or ``["caption", Image(...)]``);
* ``isError``: ``{"error": <text>}``; ``ToolResult.fail(<text>)``;
* no answer (a transport or protocol failure, the timeout, a result that breaks the
  tool's output schema): ``None``; ``ToolResult.fail`` naming the server.

Served again (`tooldeck.mcp._provider`), a proxy hands on the server's result as it
came, through `ProxyTool.reply`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json

from tooldeck._jsonschema import copy_json
from tooldeck._lenient import Lenient
from tooldeck._progress import PROGRESS_KEY, CallProgress, Progress, reporter_of
from tooldeck._result import CallFailure, ToolResult, clip, echo, problem_lines
from tooldeck._schema_check import SchemaError, schema_validator
from tooldeck._schema_tools import schema_params
from tooldeck._spec import EMPTY, ToolSpec
from tooldeck._tool import Approval, Arguments, Context, Tool
from tooldeck.errors import ToolDefinitionError

from . import _loop
from ._extra import logger
from ._results import error_text, media_value, output_problems, to_value
from ._session import LogSink, RemoteFailure, RemoteTimeout, Session, log_sink

if TYPE_CHECKING:
    import mcp_types

__all__ = ["ProxyTool", "sanitise_name"]

_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_LOOP_GRACE = 1.0  # seconds a caller waits past the timeout for the MCP loop itself

Reply = Any  # mcp_types.CallToolResult | RemoteFailure


def sanitise_name(remote: str) -> str:
    """A remote tool name made to fit ``^[A-Za-z0-9_-]{1,64}$``: others → ``_``, cut to 64."""
    return _BAD_NAME_CHARS.sub("_", remote)[:64] or "_"


def _remote_refusal(exc: ToolDefinitionError) -> ToolDefinitionError:
    """A strict-mode refusal of a remote tool: what strict mode cannot express, without
    the fix a local tool is offered ("check it in the tool", "use a model"), which
    cannot be applied to a schema the server owns."""
    what = exc.reason.partition("; ")[0]
    reason = f"{what} (the MCP server's schema, which cannot be changed here)"
    return ToolDefinitionError(reason, tool=exc.tool, param=exc.param)


# -- the proxy -------------------------------------------------------------------------------


class ProxyTool(Tool[..., Any]):
    """A tool of an MCP server, called through that server's session.

    Its name is local (sanitised, prefixed); the call uses the remote one. Its schemas,
    description, annotations and title are the server's.

    Args:
        session: The server's session.
        remote: The tool as the server listed it.
        name: The local name.
        tags: Its tags (the server's, then the importer's).
        requires_approval: As for any tool (``use_mcp(..., requires_approval=...)``).
    """

    def __init__(
        self,
        session: Session,
        remote: mcp_types.Tool,
        *,
        name: str,
        tags: tuple[str, ...],
        requires_approval: Approval = False,
    ) -> None:
        self.session = session
        self.remote = remote
        output = remote.output_schema
        self._wrapped = bool(output and output.get("x-fastmcp-wrap-result"))
        execution = remote.execution
        # A tool that runs only as an MCP task is called as one (`tooldeck.mcp._tasks`).
        self._as_task = execution is not None and execution.task_support == "required"
        annotations = remote.annotations
        super().__init__(
            functools.partial(_call_proxy, self),
            tags=tags,
            annotations=annotations.model_dump(by_alias=True, exclude_none=True)
            if annotations
            else None,
            spec=_spec(name, remote, self._wrapped),
            requires_approval=requires_approval,
        )

    @functools.cached_property
    def _output_check(self) -> Callable[[Any], list[str]] | None:
        # Built on the first call: most imported tools are never called.
        output = self.remote.output_schema
        if not output:
            return None
        try:
            return schema_validator(output)
        except SchemaError as exc:  # a \$ref that does not resolve, a pattern that fails
            logger.warning("not checking the output of %r: %s", self.name, exc)
            return None

    @property
    def title(self) -> str | None:
        """The remote tool's display title (MCP ``Tool.title``), if it has one."""
        return self.remote.title

    def _export(self, format: str, strict: bool) -> dict[str, Any]:
        """In the ``mcp`` format, the tool as a gateway serves it (what is served is what
        is exported): as the server listed it, under its local name, with its title,
        icons, output schema and ``execution`` (``taskSupport``), and its ``_meta``
        with our tag sections."""
        try:
            exported = super()._export(format, strict)
        except ToolDefinitionError as exc:  # strict mode refused the remote schema
            raise _remote_refusal(exc) from exc
        if format != "mcp":
            return exported
        remote = self.remote
        tool: dict[str, Any] = {"name": exported["name"]}
        if remote.title is not None:
            tool["title"] = remote.title
        if remote.description is not None:  # nothing made up for a tool without one
            tool["description"] = remote.description
        tool["inputSchema"] = exported["inputSchema"]
        if remote.output_schema is not None:
            tool["outputSchema"] = copy_json(remote.output_schema)
        if remote.icons:
            tool["icons"] = [
                icon.model_dump(by_alias=True, mode="json", exclude_none=True)
                for icon in remote.icons
            ]
        if "annotations" in exported:
            tool["annotations"] = exported["annotations"]
        if remote.execution is not None:  # taskSupport, as the server said it
            tool["execution"] = remote.execution.model_dump(
                by_alias=True, mode="json", exclude_none=True
            )
        tool["_meta"] = {**copy_json(remote.meta or {}), **exported["_meta"]}
        return tool

    # -- the call faces -----------------------------------------------------------------

    def call(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Seed 001 §7.2: the value, ``{"error": <text>}``, or ``None`` (no answer)."""
        try:
            args = self._arguments(arguments, kwargs)
            reply = self._reply_sync(args, _reporter(context))
        except Exception as exc:
            return "Error: " + self._failure(exc)
        return self._value(reply)

    async def acall(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> Any:
        """Async twin of `call`."""
        try:
            args = self._arguments(arguments, kwargs)
        except Exception as exc:
            return "Error: " + self._failure(exc)
        return self._value(await self._reply_async(args, _reporter(context)))

    async def run(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """A `ToolResult`: the value, the server's error text, or why it did not answer."""
        try:
            args = self._arguments(arguments, kwargs)
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=exc)
        return self._result(await self._reply_async(args, _reporter(context)))

    def run_sync(
        self, arguments: Arguments = None, /, *, context: Context = None, **kwargs: Any
    ) -> ToolResult:
        """Sync twin of `run`."""
        try:
            args = self._arguments(arguments, kwargs)
            reply = self._reply_sync(args, _reporter(context))
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=exc)
        return self._result(reply)

    async def reply(
        self, arguments: Arguments, *, progress: Progress | None = None
    ) -> mcp_types.CallToolResult | RemoteFailure:
        """The server's result as it came (for serving again), or why there is none.

        Arguments this proxy refuses (not an object) come back as a `RemoteFailure`
        carrying the refusal. The server's progress reports go to ``progress``.
        """
        try:
            args = self._arguments(arguments, {})
        except Exception as exc:
            return RemoteFailure(self._failure(exc))
        reply: mcp_types.CallToolResult | RemoteFailure = await self._reply_async(args, progress)
        return reply

    # -- through a registry's middleware (tooldeck.middleware._chain) -------------------
    # The result and the server's reply it was made from: a face answers from the reply
    # (call_tool's §7.2 value; serving hands it on as it came) when the middleware hand
    # the result back unchanged.

    _raw_answers = True

    def _answer_sync(self, arguments: Any, context: Context) -> tuple[ToolResult, Any]:
        try:
            args = self._arguments(arguments, {})
        except Exception as exc:  # refused here: worded alike by every face
            return ToolResult.fail(self._failure(exc), exception=exc), None
        reply = self._reply_sync(args, _reporter(context))
        return self._result(reply), reply

    async def _answer(self, arguments: Any, context: Context) -> tuple[ToolResult, Any]:
        try:
            args = self._arguments(arguments, {})
        except Exception as exc:
            return ToolResult.fail(self._failure(exc), exception=exc), None
        reply = await self._reply_async(args, _reporter(context))
        return self._result(reply), reply

    def _answer_value(self, raw: Any) -> Any:
        return self._value(raw)

    # -- the pipeline -------------------------------------------------------------------

    def _arguments(self, arguments: Arguments, kwargs: dict[str, Any]) -> dict[str, Any]:
        args = self._validate(arguments)
        return self._validate({**args, **kwargs}) if kwargs else args

    @property
    def _bound(self) -> float | None:
        timeout = self.session.timeout
        return None if timeout is None else timeout + _LOOP_GRACE

    def _reply_sync(self, args: dict[str, Any], progress: Progress | None) -> Reply:
        try:
            return _loop.call_sync(self._ask(args, progress, log_sink()), self._bound)
        except TimeoutError as exc:
            return RemoteTimeout(f"did not answer in time ({exc})", server=self.session.server)
        finally:  # the caller's own reporter: nothing reaches it after the answer
            if type(progress) is CallProgress:
                progress.finish()

    async def _reply_async(self, args: dict[str, Any], progress: Progress | None) -> Reply:
        try:
            # (the served call's log sink is read here: the MCP loop has other context)
            reply = await _loop.call(self._ask(args, progress, log_sink()), self._bound)
        except TimeoutError as exc:
            reply = RemoteTimeout(f"did not answer in time ({exc})", server=self.session.server)
        except BaseException:  # cancelled: the caller's reporter ends at once
            if type(progress) is CallProgress:
                progress.end()
            raise
        if type(progress) is CallProgress:  # the caller's own: nothing after the answer
            await progress.finish_async()
        return reply

    async def _ask(
        self, args: dict[str, Any], progress: Progress | None, logs: LogSink | None
    ) -> Reply:
        """On the MCP loop: the call, its result checked against the output schema."""
        try:
            result = await self.session.call(
                self.remote.name, args, progress, as_task=self._as_task, logs=logs
            )
        except RemoteFailure as failure:
            logger.debug("MCP call of %r failed: %s", self.remote.name, failure)
            return failure
        check = self._output_check
        if check is None or result.is_error:
            return result
        lines = output_problems(check, result.structured_content)
        if not lines:
            return result
        return RemoteFailure(
            problem_lines(
                f"returned a result of tool {self.remote.name!r} that does not match its "
                "output schema:",
                lines,
            ),
            server=self.session.server,
        )

    def _value(self, reply: Reply) -> Any:
        if isinstance(reply, RemoteFailure):
            return None  # seed 001 §7.2: a failure in the client is None
        return to_value(reply, wrapped=self._wrapped)

    def _result(self, reply: Reply) -> ToolResult:
        if isinstance(reply, RemoteFailure):
            return ToolResult.fail(str(reply), exception=reply)
        if reply.is_error:
            return ToolResult.fail(error_text(reply))
        media = media_value(reply, server=self.session.server)  # every item, when media
        return ToolResult.ok(to_value(reply, wrapped=self._wrapped) if media is None else media)


def _reporter(context: Context) -> Progress | None:
    """Where the server's progress reports go: ``context["progress"]``, if callable."""
    try:
        found = context.get(PROGRESS_KEY) if context is not None else None
    except Exception:  # a strange mapping: no reporter, not a failed call
        return None
    return reporter_of(found) if callable(found) else None


async def _call_proxy(proxy: ProxyTool, **arguments: Any) -> Any:
    """What calling a proxy as a function does: `ProxyTool.acall`."""
    return await proxy.acall(arguments)


# -- the spec: the server's schemas, the lenient rules, no validation ----------------------


def _spec(name: str, remote: mcp_types.Tool, wrapped: bool) -> ToolSpec:
    schema = copy_json(remote.input_schema)
    lenient = Lenient(schema)
    header = f"Invalid arguments for tool '{clip(name)}':"

    def validate_python(arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, Mapping):
            lines = [f"arguments: expected a JSON object, got {echo(arguments)}"]
            raise CallFailure(problem_lines(header, lines))
        return lenient(dict(arguments))

    def validate_json(text: Any) -> dict[str, Any]:
        try:
            # jiter: bounded nesting; NaN and Infinity are not JSON.
            parsed = from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            raise CallFailure(f"{header} not valid JSON ({exc})") from exc
        return validate_python(parsed)

    output = remote.output_schema
    return ToolSpec(
        name=name,
        description=remote.description or remote.name,
        parameters=schema,
        returns=_unwrapped(output) if output and wrapped else copy_json(output),
        return_annotation=EMPTY,
        params=schema_params(schema),
        validate_python=validate_python,
        validate_json=validate_json,
        positional=(),
        is_async=True,
        returns_tool_result=False,
    )


def _unwrapped(output: Mapping[str, Any]) -> dict[str, Any]:
    """The schema of ``x`` in fastmcp's ``{"result": x}``: what the proxy returns."""
    inner = output.get("properties", {}).get("result")
    if not isinstance(inner, Mapping):
        return dict(copy_json(output))
    defs = output.get("$defs")
    unwrapped = dict(copy_json(inner))
    return {**unwrapped, "$defs": copy_json(defs)} if defs else unwrapped

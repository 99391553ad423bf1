"""``use_mcp``: list a server's tools once and register a `ProxyTool` for each.

* Bounded: listing (opening the session included) takes at most ``timeout`` seconds,
  plus a second at most for tooldeck's own bookkeeping, whatever the server does;
  a server that fails is described by an `MCPConnectionError` (an `MCPAuthError`
  for HTTP 401/403, an `MCPTimeoutError` past the timeout).
* Names: a remote name is registered as ``prefix + name``; one outside tooldeck's name
  rule is sanitised (other characters → ``_``, cut to 64), and two remote names that
  end up alike get distinct local names (``_2``, ``_3``...). Calls use the remote name.
* Tools that cannot be used are skipped with a warning naming them: tools whose schema
  is unusable (not valid JSON Schema, nested deeper than `MAX_DEPTH`, or anything else
  that fails to read): one strange tool never fails the whole import. A task-only tool
  (``execution.taskSupport: "required"``) is imported, and run as a task
  (`tooldeck.mcp._tasks`).
* Any failure (the server's, a clash, a bug) stops the server process the import
  started before it is raised: gone when ``use_mcp`` raises (a frozen one included),
  within its bound; only past that bound does its stop go on in the background.
* Atomic: a clash with a tool that is not one of this server's earlier proxies raises
  `DuplicateToolError` before anything is registered; importing the same server again
  replaces its proxies (and removes those the server no longer has).
* Sessions are kept per registry and server (`tooldeck.mcp._sessions`), closed by
  `close` / `aclose` (also when the registry is garbage-collected).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from tooldeck._schema_check import metaschema_problem
from tooldeck._spec import NAME_RULE
from tooldeck._tool import Approval, Tool, _check_approval, normalise_tags
from tooldeck.errors import (
    DuplicateToolError,
    MCPAuthError,
    MCPConnectionError,
    MCPTimeoutError,
    ToolDefinitionError,
)

from . import _loop
from ._extra import require_fastmcp
from ._proxy import ProxyTool, sanitise_name
from ._session import HURRY, RemoteFailure, Session
from ._sessions import aclose, close, server_key, state_of

if TYPE_CHECKING:
    import mcp_types

    from tooldeck._base_registry import BaseRegistry as ToolRegistry

__all__ = ["aclose", "async_use_mcp", "close", "server_tags", "use_mcp"]

Tags = str | Iterable[str] | None
Listing = tuple[list["mcp_types.Tool"], list[tuple[str, str]]]

CALL_TIMEOUT = 60.0  # default seconds an import, and each proxied call, may take
# Seconds past the timeout a caller waits for the MCP loop, which bounds the work at the
# timeout plus a ping (`PING_GRACE`): this only fires if the loop itself stalled.
_GRACE = 1.0
_MARGIN = 0.1  # seconds of that kept for raising the failure
_PREFIX_RULE = "letters, digits, '_' and '-', at most 63 of them"
# How deep a remote schema may nest (dicts and lists, each a level): every part of
# tooldeck that walks a schema (checks, exports, strict mode) reads this deep on any
# stack. Real schemas stay far below it; deeper is a server's mistake or an attack.
MAX_DEPTH = 64


# -- the two faces ---------------------------------------------------------------------------


def use_mcp(
    registry: ToolRegistry,
    transport: Any,
    *,
    tags: Tags = None,
    replace: bool = False,
    timeout: float | None = CALL_TIMEOUT,
    prefix: str = "",
    requires_approval: Approval = False,
) -> list[Tool[..., Any]]:
    """Register a proxy for each tool of an MCP server; return the proxies.

    Args:
        registry: Where the proxies go.
        transport: Anything ``fastmcp.Client`` accepts: a URL, a script path, an MCP
            config dict, a ``FastMCP`` server (in process), a transport, a ``Client``.
        tags: Tags added to the server's own.
        replace: Replace local tools whose names clash instead of raising.
        timeout: Seconds the import, and each proxied call, may take (plus at most one
            second); a call past it gives seed 001 §7.2's failure value, ``None``.
            ``None`` waits forever.
        prefix: Put before every remote name (``"git_"``: ``status`` → ``git_status``),
            so many servers can sit behind one registry.
        requires_approval: Every proxy needs a person's approval when a model calls it
            (``True``), or a policy ``(arguments, context) -> bool`` decides per call
            (docs/approval.md).

    Raises:
        MCPConnectionError: The server could not be reached or listed (an
            `MCPAuthError` when it refused our credentials, an `MCPTimeoutError` past
            the timeout). Nothing is registered.
        DuplicateToolError: A name is taken by a tool that is not one of this server's
            earlier proxies (nothing is registered).
        ImportError: ``fastmcp`` is not installed.
    """
    job = _Import(registry, transport, tags, replace, timeout, prefix, requires_approval)
    try:
        return job.finish(_loop.call_sync(job.session.list_tools(), job.bound))
    except BaseException as exc:  # whatever failed: what this import started is stopped
        if job.forget():
            _loop.settle_sync(job.session.aclose(hurry=True), job.left())
        job.fail(exc)


async def async_use_mcp(
    registry: ToolRegistry,
    transport: Any,
    *,
    tags: Tags = None,
    replace: bool = False,
    timeout: float | None = CALL_TIMEOUT,
    prefix: str = "",
    requires_approval: Approval = False,
) -> list[Tool[..., Any]]:
    """Async twin of `use_mcp`."""
    job = _Import(registry, transport, tags, replace, timeout, prefix, requires_approval)
    try:
        return job.finish(await _loop.call(job.session.list_tools(), job.bound))
    except BaseException as exc:  # whatever failed: what this import started is stopped
        if job.forget():
            await _loop.settle(job.session.aclose(hurry=True), job.left())
        job.fail(exc)


class _Import:
    """One ``use_mcp`` call: its checked options and its server's session."""

    def __init__(
        self,
        registry: ToolRegistry,
        transport: Any,
        tags: Tags,
        replace: bool,
        timeout: float | None,
        prefix: str,
        requires_approval: Approval = False,
    ) -> None:
        self.approval = _check_approval(requires_approval, "use_mcp")  # before connecting
        require_fastmcp()
        self.registry = registry
        self.extra = normalise_tags(tags)
        self.replace = replace
        self.timeout = _check_timeout(timeout)
        self.prefix = _check_prefix(prefix)
        self.bound = None if self.timeout is None else self.timeout + _GRACE
        self.started = time.monotonic()
        self.state, self.key = state_of(registry), server_key(transport)
        with self.state.lock:
            session = self.state.sessions.get(self.key)
            self.created = session is None
            if session is None:  # stored now, so concurrent imports share it
                session = self.state.sessions[self.key] = Session(transport, self.timeout)
            session.timeout = self.timeout
        self.session = session

    def forget(self) -> bool:
        """Forget a session this import opened; whether it is to be closed (and the
        server process it started stopped) before the failure is raised."""
        state, session = self.state, self.session
        if not self.created:
            return False
        with state.lock:
            if state.sessions.get(self.key) is session and self.key not in state.imported:
                del state.sessions[self.key]
        return True

    def left(self) -> float:
        """Seconds the import may still wait for its server to stop: what is left of
        its bound (a frozen server is killed at once; one that does not stop in time
        is stopped in the background after)."""
        if self.bound is None:
            return 2 * HURRY + _GRACE  # a server's stop in a hurry, and some slack
        return self.bound - _MARGIN - (time.monotonic() - self.started)

    def fail(self, exc: BaseException) -> NoReturn:
        """Raise ``exc``, as an `MCPConnectionError` when the server is why."""
        session = self.session
        if isinstance(exc, RemoteFailure):
            raise self._connection_error(exc) from exc.__cause__ or exc
        if isinstance(exc, TimeoutError) and self.timeout is not None:
            reason = f"did not list its tools within {self.timeout:g} seconds"
            raise MCPTimeoutError(session.server, reason, timeout=self.timeout) from exc
        raise exc

    def _connection_error(self, failure: RemoteFailure) -> MCPConnectionError:
        server, refusals = self.session.server, self.session.refusals
        if refusals.status is not None:
            said = self.session.redact(str(failure.__cause__ or "").strip())
            detail = f" (it says: {said})" if said and "error response" not in said else ""
            reason = refusals.describe() + detail
            return MCPAuthError(server, reason, url=refusals.url, status=refusals.status)
        if failure.timed_out and self.timeout is not None:
            return MCPTimeoutError(server, failure.reason, timeout=self.timeout)
        return MCPConnectionError(server, failure.reason)

    def finish(self, listing: Listing) -> list[Tool[..., Any]]:
        """Warn about the tools left out; register the proxies, atomically.

        The warning comes first: where warnings are errors, it fails the import before
        anything is registered.
        """
        tools, rejected = listing
        proxies, skipped = _proxies(self.session, tools, self.extra, self.prefix, self.approval)
        skipped = [f"{name!r} ({reason})" for name, reason in rejected] + skipped
        if skipped:
            warnings.warn(
                f"use_mcp skipped {len(skipped)} tool(s) of MCP server "
                f"{self.session.server}: {'; '.join(skipped)}",
                stacklevel=4,
            )
        self._register(proxies)
        return list(proxies)

    def _register(self, proxies: list[ProxyTool]) -> None:
        registry, state = self.registry, self.state
        with registry._lock, state.lock:
            previous = state.imported.get(self.key, {})
            _check_clashes(registry, proxies, previous, replace=self.replace)
            registry.register_many(proxies, replace=True)
            mine: dict[str, Tool[..., Any]] = {p.name: p for p in proxies}
            for name, old in previous.items():
                if name not in mine and registry.get(name) is old:
                    registry.unregister(name)
            state.sessions[self.key] = self.session
            state.imported[self.key] = mine


def _check_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def _check_prefix(prefix: Any) -> str:
    if not isinstance(prefix, str) or not (prefix == "" or NAME_RULE.match(prefix + "x")):
        raise ToolDefinitionError(f"prefix must be {_PREFIX_RULE}, got {prefix!r}")
    return prefix


# -- proxies -----------------------------------------------------------------------------------


def _proxies(
    session: Session,
    tools: Sequence[mcp_types.Tool],
    extra: tuple[str, ...],
    prefix: str,
    approval: Any = None,
) -> tuple[list[ProxyTool], list[str]]:
    """A proxy per usable tool, and a note on each tool left out."""
    usable, skipped = [], []
    for remote in tools:
        try:
            reason = _unusable(remote)
        except Exception as exc:  # one strange tool does not fail the import
            reason = _unreadable(exc)
        if reason is None:
            usable.append(remote)
        else:
            skipped.append(f"{remote.name!r} ({reason})")
    proxies = []
    for remote, name in zip(usable, local_names([t.name for t in usable], prefix), strict=True):
        tags = normalise_tags((*server_tags(remote.meta), *extra))
        try:
            proxies.append(
                ProxyTool(
                    session,
                    remote,
                    name=name,
                    tags=tags,
                    requires_approval=False if approval is None else approval,
                )
            )
        except Exception as exc:
            skipped.append(f"{remote.name!r} ({_unreadable(exc)})")
    return proxies, skipped


def _unreadable(exc: Exception) -> str:
    """Why reading a remote tool failed, for the warning."""
    if isinstance(exc, RecursionError):
        return "its schema nests deeper than tooldeck can read"
    if isinstance(exc, ToolDefinitionError):
        return str(exc)
    text = str(exc).strip()  # e.g. a schema that breaks a checker's assumptions
    return f"it cannot be read: {text.splitlines()[0] if text else type(exc).__name__}"


def _unusable(remote: mcp_types.Tool) -> str | None:
    """Why a listed tool cannot be a proxy, or ``None``."""
    if remote.input_schema.get("type") != "object":
        return "its inputSchema is not an object schema"
    for which, schema in (
        ("inputSchema", remote.input_schema),
        ("outputSchema", remote.output_schema),
    ):
        if schema is not None and json_depth(schema) > MAX_DEPTH:
            return f"its {which} nests deeper than {MAX_DEPTH} levels"
        problem = _schema_problem(schema)
        if problem:
            return f"its {which} is not valid JSON Schema: {problem}"
    return None


def _schema_problem(schema: dict[str, Any] | None) -> str | None:
    if schema is None:
        return None
    found = metaschema_problem(schema)
    if found is None:
        return None
    where, message = found
    return f"at {where or 'the root'}: {message}"


def json_depth(value: Any) -> int:
    """How deep JSON data nests, without recursion: a scalar (or an empty ``{}`` or
    ``[]``) is 1 level, a dict or list one more than its deepest item."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break  # deep enough to refuse: no need to walk the rest
        children = item.values() if isinstance(item, Mapping) else item
        if isinstance(item, (Mapping, list, tuple)):
            stack.extend((child, depth + 1) for child in children)
    return deepest


def local_names(remote: Sequence[str], prefix: str = "") -> list[str]:
    """Distinct local names for remote ones, in order.

    A name that fits tooldeck's rule as it is keeps it; the others are sanitised and,
    when that makes them alike, get the next free ``_2``, ``_3``...
    """
    names: list[str | None] = [None] * len(remote)
    taken: set[str] = set()
    for i, name in enumerate(remote):
        local = prefix + name
        if NAME_RULE.match(local) and local not in taken:
            names[i] = local
            taken.add(local)
    for i, name in enumerate(remote):
        if names[i] is not None:
            continue
        base = local = sanitise_name(prefix + name)
        count = 1
        while local in taken:
            count += 1
            suffix = f"_{count}"
            local = base[: 64 - len(suffix)] + suffix
        names[i] = local
        taken.add(local)
    return [name for name in names if name is not None]


def server_tags(meta: Mapping[str, Any] | None) -> list[str]:
    """A tool's tags, from where fastmcp 4 (``fastmcp``) and 2 (``_fastmcp``) put them.

    Both are read: a fastmcp 4 server relaying a 2.x tool (a proxy) sends the 2.x
    tags under ``_fastmcp`` and its own, empty, list under ``fastmcp``.
    """
    tags: list[str] = []
    for key in ("fastmcp", "_fastmcp"):
        section = (meta or {}).get(key)
        found = section.get("tags") if isinstance(section, Mapping) else None
        if isinstance(found, list):
            tags += [t for t in found if isinstance(t, str) and t and t not in tags]
    return tags


def _check_clashes(
    registry: ToolRegistry,
    proxies: Sequence[Tool[..., Any]],
    previous: Mapping[str, Tool[..., Any]],
    *,
    replace: bool,
) -> None:
    for proxy in proxies:
        existing = registry.get(proxy.name)
        if existing is not None and not replace and existing is not previous.get(proxy.name):
            raise DuplicateToolError(proxy.name)

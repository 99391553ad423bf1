"""A batch as text, to decide and run it in another process or request; signed with a key.

The text holds what the reply asked for (each call's provider id, name and arguments as
sent), the batch's ids, and the decisions so far; never a context value (a context may
hold secrets or connections: it is given again where the text is loaded). The text is
only as trustworthy as where it was kept, so its decisions count only when it is signed:
``key`` adds an HMAC-SHA256 of the batch's canonical JSON, and loading with a key refuses
text whose signature does not match. Loaded without a key, its decisions are dropped
and every call that needs approval waits again.

Each batch has an id of its own (random, unguessable), in the text so that a run can
be recorded against it (`_once`); text written before ids existed gets one made from its
calls. ``expires`` (seconds since the epoch, on the writer's wall clock) makes the text
refuse to load from then on, on the loader's clock: the processes' clocks must agree
(NTP), and signed, neither the id nor the expiry can be changed.

Reading is strict: anything but a batch this module wrote (a duplicate key, an unknown
field, a status that does not exist) is a ``ValueError``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck._reply_fields import ToolCall
from tooldeck._result import clip
from tooldeck.providers import PROVIDERS

from ._record import STATUSES, BatchCall

__all__ = ["Decision", "Parsed", "dump", "expiry", "new_id", "parse"]

KIND = "tooldeck.tool_call_batch"
VERSION = 1
_TOP = frozenset({"kind", "version", "id", "expires", "format", "calls", "signature"})
_clock = time.time  # wall time: an expiry is compared across processes (tests set it)
_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_REQUIRED = frozenset({"id", "call_id", "name", "arguments", "status"})
_CALL = _REQUIRED | {"message", "edited"}
_NO_EDIT: Any = object()


@dataclass(frozen=True)
class Decision:
    """A call's status and message as the text records them (its edits, if any)."""

    status: str
    message: str | None
    edited: Any = _NO_EDIT

    @property
    def has_edits(self) -> bool:
        return self.edited is not _NO_EDIT


@dataclass(frozen=True)
class Parsed:
    """What a batch's text holds: the reply's format and calls, the batch's ids, and the
    decisions (``None``: the text was not signed, or loaded without a key); the batch's
    own id, and its expiry (seconds since the epoch) or ``None``."""

    format: str | None
    calls: list[ToolCall]
    ids: list[str]
    decisions: list[Decision] | None
    id: str
    expires: float | None


def new_id() -> str:
    """A batch's id: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def expiry(expires_in: Any) -> float:
    """The wall time ``expires_in`` seconds from now.

    Raises:
        TypeError: ``expires_in`` is not a number.
        ValueError: it is not a positive, finite number.
    """
    if isinstance(expires_in, bool) or not isinstance(expires_in, (int, float)):
        raise TypeError(f"expires_in must be a number of seconds, not {clip(expires_in)}")
    if not (math.isfinite(expires_in) and expires_in > 0):
        raise ValueError(f"expires_in must be a positive number of seconds, not {expires_in!r}")
    return _clock() + float(expires_in)


def dump(
    format: str | None,
    calls: Sequence[BatchCall],
    key: bytes | None,
    id: str,
    expires: float | None,
) -> str:
    """The batch as JSON text, with an HMAC when ``key`` is given."""
    records = []
    for call in calls:
        provider_id, name, arguments = call._call
        record: dict[str, Any] = {
            "id": call.id,
            "call_id": provider_id,
            "name": name,
            "arguments": arguments,
            "status": call.status,
        }
        # A person's words only: a failure's are made again on loading (a policy's
        # error may quote the context).
        if call.status in ("rejected", "answered"):
            record["message"] = call.message
        if call.status == "approved" and call._arguments is not arguments:
            record["edited"] = call._arguments
        records.append(record)
    payload: dict[str, Any] = {"kind": KIND, "version": VERSION, "id": id}
    if expires is not None:
        payload["expires"] = expires
    payload |= {"format": format, "calls": records}
    try:  # as a reader will see it (tuples as lists...), so the signature matches there
        payload = json.loads(json.dumps(payload))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the batch cannot be written as JSON: {exc}") from None
    if key is not None:
        payload["signature"] = _sign(_checked_key(key), payload)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def parse(text: str | bytes, key: bytes | None) -> Parsed:
    """Read `dump`'s text; with ``key``, only when its signature matches.

    Raises:
        ValueError: not a batch's text, or (with a key) its signature does not match.
        TypeError: ``text`` is no ``str`` or ``bytes``, or ``key`` no ``bytes``.
    """
    checked = None if key is None else _checked_key(key)
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")  # a UnicodeDecodeError is a ValueError
    elif not isinstance(text, str):
        raise TypeError(f"a batch's text is a str or bytes, not {type(text).__name__}")
    try:
        data = json.loads(text, object_pairs_hook=_unique)
    except RecursionError:
        raise ValueError("not a tool-call batch: nested too deep") from None
    signature = _check_top(data)
    if checked is not None:
        _verify(checked, signature, data)
    expires = _check_expiry(data.get("expires"))
    format, records = data["format"], data["calls"]
    for record in records:
        _check_call(record, format)
    calls = [(r["call_id"], r["name"], r["arguments"]) for r in records]
    ids = [r["id"] for r in records]
    decisions = None
    if checked is not None:
        decisions = [
            Decision(r["status"], r.get("message"), r.get("edited", _NO_EDIT)) for r in records
        ]
    id = data.get("id")
    if id is None:  # text written before ids: one made from its calls, the same each time
        made = json.dumps([format, calls], sort_keys=True, ensure_ascii=True)
        id = "v1-" + hashlib.sha256(made.encode("ascii")).hexdigest()[:32]
    return Parsed(format, calls, ids, decisions, id, expires)


def _check_expiry(expires: Any) -> float | None:
    """The text's expiry, refused once passed (on this process's clock)."""
    if expires is None:
        return None
    now = _clock()
    if now >= expires:
        raise ValueError(f"the batch expired {now - expires:.0f} s ago: it can no longer be loaded")
    return float(expires)


def _verify(key: bytes, signature: Any, data: dict[str, Any]) -> None:
    if not isinstance(signature, str):
        raise ValueError("the batch is not signed: load it without a key, or sign it")
    try:
        given = bytes.fromhex(signature)
    except ValueError:
        given = b""
    if not hmac.compare_digest(given, bytes.fromhex(_sign(key, data))):
        raise ValueError(
            "the batch's signature does not match: the text was changed, or signed with another key"
        )


def _sign(key: bytes, payload: dict[str, Any]) -> str:
    unsigned = {k: v for k, v in payload.items() if k != "signature"}
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, canonical.encode("ascii"), hashlib.sha256).hexdigest()


def _checked_key(key: Any) -> bytes:
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key must be bytes, not {type(key).__name__}")
    if not len(key):
        raise ValueError("key must not be empty")
    return bytes(key)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the text, refused when a key repeats (which value would count?)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("not a tool-call batch: a key appears twice in one object")
    return data


def _check_top(data: Any) -> Any:
    """The batch's outer object checked; its signature (or ``None``)."""
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise ValueError("not a tool-call batch (to_json's text)")
    if data.get("version") != VERSION or not set(data) <= _TOP:
        raise ValueError(f"not a tool-call batch of version {VERSION}")
    id, expires = data.get("id"), data.get("expires")
    if not (id is None or (isinstance(id, str) and _ID.fullmatch(id))) or not (
        expires is None
        or (type(expires) in (int, float) and math.isfinite(expires) and expires > 0)
    ):
        raise ValueError("not a tool-call batch: its id or expiry is not one")
    format, calls = data.get("format"), data.get("calls")
    if not isinstance(calls, list) or not (
        (format is None and not calls) or (isinstance(format, str) and format in PROVIDERS)
    ):
        raise ValueError("not a tool-call batch: its format or calls are not one")
    return data.get("signature")


def _check_call(record: Any, format: str) -> None:
    if not isinstance(record, dict) or not _REQUIRED <= set(record) <= _CALL:
        raise ValueError("not a tool-call batch: a call is not one")
    call_id, status, message = record["call_id"], record["status"], record.get("message")
    if not (
        isinstance(record["id"], str)
        and isinstance(record["name"], str)
        and (isinstance(call_id, str) or (call_id is None and format == "gemini"))
        and status in STATUSES
        and (message is None or isinstance(message, str))
        and ("edited" not in record or status == "approved")
    ):
        raise ValueError(f"not a tool-call batch: call {clip(record['id'])} is not one")

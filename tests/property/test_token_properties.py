"""Bearer tokens: every token the server accepts can be sent by an HTTP client.

A header value travels as bytes: HTTP clients send ASCII (httpx refuses anything else,
others send UTF-8 that the server reads as Latin-1) and trim spaces at its ends. So a
token outside printable ASCII, or with spaces at its ends, is refused when configured
(``token=`` as a str or a mapping, ``TOOLDECK_MCP_TOKEN``) instead of being accepted and
never matching. Each accepted token is sent by a real ``httpx`` client through the real
middleware (in process, ``httpx.ASGITransport``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastmcp")

from tooldeck.mcp._auth import TOKEN_ENV, BearerTokens, tokens


def sendable(token: str) -> bool:
    return bool(token) and all(" " <= c <= "~" for c in token) and token == token.strip()


async def ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"in"})


def status_with(accepted: dict[str, str], sent: str) -> int:
    app = BearerTokens(ok, tokens=accepted)

    async def request() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            answer = await http.get("/mcp", headers={"Authorization": f"Bearer {sent}"})
            return answer.status_code

    return asyncio.run(request())


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_a_token_is_accepted_only_if_a_client_can_send_it(token: str) -> None:
    for given_as in (token, {token: "alice"}):
        if not sendable(token):
            with pytest.raises(ValueError, match=r"(printable ASCII|starts or ends with a space)"):
                tokens(given_as)
            continue
        accepted = tokens(given_as)
        assert list(accepted) == [token]
        assert status_with(accepted, token) == 200


@settings(max_examples=50, deadline=None)
@given(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=20))
def test_a_token_that_differs_is_refused(token: str) -> None:
    accepted = tokens(token)
    assert status_with(accepted, token + "x") == 401


@pytest.mark.parametrize(
    "token", ["pässwörd", "台北-token", "tab\there", "emoji🙂", " padded", "x "]
)
def test_unsendable_tokens_are_refused_in_every_form(
    token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match=r"^token "):
        tokens(token)
    with pytest.raises(ValueError, match=r"^the token of client 'alice' "):
        tokens({"t-bob": "bob", token: "alice"})
    monkeypatch.setenv(TOKEN_ENV, token)
    with pytest.raises(ValueError, match=f"^{TOKEN_ENV} "):
        tokens(None)


def test_the_message_never_shows_the_token() -> None:
    with pytest.raises(ValueError) as refused:
        tokens("sëcret-value")
    assert "sëcret" not in str(refused.value)

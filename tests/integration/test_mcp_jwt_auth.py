"""``auth=`` takes a fastmcp auth provider: JWTs signed with a test RSA key, verified
against a JWKS served on 127.0.0.1, with issuer and audience; the context callable reads
the verified token (``get_access_token()``); static tokens keep working."""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Any

import pytest

from tooldeck import Injected, ToolRegistry

pytest.importorskip("fastmcp")

pytestmark = pytest.mark.timeout(60)

ISSUER = "https://issuer.example"
AUDIENCE = "tooldeck-tests"
KID = "test-key"


@pytest.fixture(scope="module")
def keys() -> Any:
    from fastmcp.server.auth.providers.jwt import RSAKeyPair

    return RSAKeyPair.generate(), RSAKeyPair.generate()  # the issuer's, and a stranger's


@pytest.fixture(scope="module")
def jwks_url(keys: Any) -> Iterator[str]:
    """The issuer's public key as a JWKS, served on 127.0.0.1 (port 0: any free one)."""
    from joserfc.jwk import RSAKey

    public = RSAKey.import_key(keys[0].public_key).as_dict(private=False)
    body = json.dumps({"keys": [{**public, "kid": KID, "use": "sig", "alg": "RS256"}]}).encode()

    class JWKS(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), JWKS)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/.well-known/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.tool
    def whoami(user: Annotated[str, Injected], scopes: Annotated[list[str], Injected]) -> str:
        """Who is calling, and what they may do."""
        return f"{user} {' '.join(scopes)}"

    return tools


def caller(context: Any) -> dict[str, Any]:
    """The served context: who the verified token says is calling."""
    from fastmcp.server.dependencies import get_access_token

    token = get_access_token()
    assert token is not None
    return {"user": token.claims["sub"], "scopes": sorted(token.scopes)}


@contextlib.asynccontextmanager
async def served(app: Any) -> AsyncIterator[Any]:
    """An httpx client talking to ``app`` in process (a real HTTP stack, no socket)."""
    import httpx2
    from fastmcp.utilities.asgi_transport import StreamingASGITransport, run_asgi_lifespan

    async with (
        run_asgi_lifespan(app),
        httpx2.AsyncClient(
            transport=StreamingASGITransport(app), base_url="http://127.0.0.1"
        ) as http,
    ):
        yield http


async def call_whoami(app: Any, token: str) -> str:
    import httpx2
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport
    from fastmcp.utilities.asgi_transport import StreamingASGITransport, run_asgi_lifespan

    def factory(**kwargs: Any) -> httpx2.AsyncClient:
        kwargs.pop("follow_redirects", None)
        return httpx2.AsyncClient(
            transport=StreamingASGITransport(app), base_url="http://127.0.0.1", **kwargs
        )

    transport = StreamableHttpTransport(
        "http://127.0.0.1/mcp", httpx_client_factory=factory, auth=token
    )
    async with run_asgi_lifespan(app), Client(transport) as client:
        result = await client.call_tool("whoami", {})
    return str(result.data)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


async def status_for(app: Any, token: str | None) -> int:
    headers = {"accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    async with served(app) as http:
        response = await http.post("/mcp", json=INIT, headers=headers)
        return int(response.status_code)


def verifier(jwks_url: str) -> Any:
    from fastmcp.server.auth.providers.jwt import JWTVerifier

    return JWTVerifier(jwks_uri=jwks_url, issuer=ISSUER, audience=AUDIENCE)


def token(keys: Any, **overrides: Any) -> str:
    key = overrides.pop("key", keys[0])
    options: dict[str, Any] = {
        "subject": "alice",
        "issuer": ISSUER,
        "audience": AUDIENCE,
        "scopes": ["tools:call", "tools:read"],
        "kid": KID,
    }
    options.update(overrides)
    return str(key.create_token(**options))


def unsigned(claims: dict[str, Any]) -> str:
    """A token with ``alg: none`` and no signature."""

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT', 'kid': KID})}.{part(claims)}."


async def test_the_right_issuer_and_audience_are_accepted_and_claims_read(
    jwks_url: str, keys: Any
) -> None:
    app = registry().http_app(auth=verifier(jwks_url), context=caller)
    assert await call_whoami(app, token(keys)) == "alice tools:call tools:read"


async def test_refused_tokens_get_401(jwks_url: str, keys: Any) -> None:
    app = registry().http_app(auth=verifier(jwks_url), context=caller)
    now = int(time.time())
    refused = {
        "no token": None,
        "wrong audience": token(keys, audience="someone-else"),
        "wrong issuer": token(keys, issuer="https://evil.example"),
        "expired": token(keys, expires_in_seconds=-60),
        "wrong key": token(keys, key=keys[1]),
        "alg none": unsigned(
            {"sub": "alice", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
        ),
        "not a JWT": "s3cret",
    }
    for why, sent in refused.items():
        assert await status_for(app, sent) == 401, why
    assert await status_for(app, token(keys)) == 200


def test_auth_and_a_static_token_are_one_or_the_other(jwks_url: str) -> None:
    with pytest.raises(ValueError, match="auth"):
        registry().http_app(auth=verifier(jwks_url), token="s3cret")
    with pytest.raises(TypeError, match="auth provider"):
        registry().http_app(auth="s3cret")  # type: ignore[arg-type]


async def test_static_tokens_keep_working() -> None:
    app = registry().http_app(token="s3cret", context={"user": "static", "scopes": []})
    assert await status_for(app, None) == 401
    assert await status_for(app, "wrong") == 401
    assert await call_whoami(app, "s3cret") == "static "


async def test_two_credentials_are_refused_with_an_auth_provider_too(
    jwks_url: str, keys: Any
) -> None:
    """The provider reads the first Authorization header; a proxy may read the last:
    a request with two is refused, whichever is valid."""
    app = registry().http_app(auth=verifier(jwks_url), context=caller)
    good, stranger = token(keys), token(keys, key=keys[1])
    base = [("accept", "application/json, text/event-stream")]
    async with served(app) as http:
        for pair in ((good, stranger), (stranger, good), (good, good)):
            headers = [*base, *(("authorization", f"Bearer {sent}") for sent in pair)]
            response = await http.post("/mcp", json=INIT, headers=headers)
            assert response.status_code == 400
            assert "two credentials were sent" in response.json()["error"]["message"]
        one = [*base, ("authorization", f"Bearer {good}")]
        assert (await http.post("/mcp", json=INIT, headers=one)).status_code == 200

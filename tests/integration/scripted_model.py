"""A model API stand-in on 127.0.0.1, for the real SDK clients to talk to.

`ScriptedModel` answers the n-th POST with the n-th scripted reply (a provider's JSON
body), after running that turn's check on the request body: a failed check answers
HTTP 400 with the problem (the SDK raises it) and is recorded in ``problems``. Every
request is kept in ``requests`` as ``(path, body)``.
"""

from __future__ import annotations

import json
import threading
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Check = Callable[[dict[str, Any]], None]


class ScriptedModel:
    def __init__(self, turns: list[tuple[Check | None, dict[str, Any]]]) -> None:
        self.turns = list(turns)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.problems: list[str] = []
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, answer = model._answer(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # keep the test output clean
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append((path, body))
            if not self.turns:
                self.problems.append(f"unscripted request to {path}")
                return 400, _error("no more scripted turns")
            check, reply = self.turns.pop(0)
        try:
            if check is not None:
                check(body)
        except AssertionError:
            problem = traceback.format_exc(limit=1)
            self.problems.append(problem)
            return 400, _error(problem)
        return 200, reply

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def _error(message: str) -> dict[str, Any]:
    # OpenAI's, Anthropic's and Google's error bodies all have an "error" object.
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message,
                                       "code": 400, "status": "INVALID_ARGUMENT"}}  # fmt: skip

"""The stand-in model over HTTP on loopback, for curl, other SDKs and workshop machines.

``python -m nightwatch serve --port 8000`` answers ``POST /v1/chat/completions`` and ``GET /v1/models``
exactly as the in-process stand-in does: the same ``StandInModel.handle`` serves both, so what goes
over the network cannot drift from what the notebooks use. It binds 127.0.0.1 only.
"""

from __future__ import annotations

import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

from nightwatch.standin import StandInModel, invalid_request

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 4 * 1024 * 1024


def make_server(port: int, standin: StandInModel | None = None) -> ThreadingHTTPServer:
    """A threaded HTTP server on 127.0.0.1:``port`` (0 picks a free port) around one stand-in."""
    standin = standin or StandInModel()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                response = invalid_request("The request body is too large.", status=413)
            else:
                body = self.rfile.read(length) if length else b""
                request = httpx2.Request(self.command, f"http://{LOOPBACK}{self.path}", content=body)
                try:
                    with lock:  # one request at a time through the model, like a single worker
                        response = standin.handle(request)
                except Exception as exc:  # a bug must answer 500, never take the server down
                    body = {"error": {"message": f"stand-in error: {exc}", "type": "server_error",
                                      "param": None, "code": None}}
                    response = httpx2.Response(500, json=body)
            payload = response.content
            self.send_response(response.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _serve
        do_POST = _serve
        do_PUT = _serve
        do_DELETE = _serve

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # quiet: the terminal shows the address and Ctrl-C, not a line per request

    return ThreadingHTTPServer((LOOPBACK, port), Handler)


def serve(port: int, context_limit: int) -> None:
    """Serve until Ctrl-C (or SIGTERM), then close the socket cleanly."""
    server = make_server(port, StandInModel(context_limit=context_limit))
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    host, bound_port = server.server_address[:2]
    try:
        print(f"代役モデルを http://{host}:{bound_port}/v1 で待ち受けています（上限 {context_limit} トークン）。"
              "Ctrl-C で止まります。", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        print("代役モデルを止めました。", flush=True)




def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt

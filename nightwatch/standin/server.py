"""The stand-in model over HTTP on loopback, for curl, other SDKs, frameworks and a workshop room.

``python -m nightwatch serve --port 8000`` serves ``POST /v1/chat/completions``, ``/v1/responses``
(create, retrieve, delete, input items, compact, input tokens) and ``GET /v1/models``
on a real ASGI stack (Starlette on uvicorn, the way OpenAI-compatible servers are usually served).
Behind it is the same ``StandInModel.handle`` the notebooks use in-process, so what goes over the
network cannot drift from what they see. It binds 127.0.0.1 only.

The server's own duties are the ones a stand-in in a room full of clients needs: the model's work
runs in a thread pool (no global lock: one big request never holds up the small ones); a body over
the limit is refused with a 413 before it is parsed; a client that sends its request too slowly is
timed out; and every refusal, down to malformed HTTP framing, is OpenAI's JSON error object. A body
declared over the limit is refused from its ``Content-Length`` at once, before any of it is read.
"""

from __future__ import annotations

import asyncio
import errno
import json
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol, h11  # the h11 uvicorn runs on, not a dependency of ours

from nightwatch.standin import StandInModel, error_body
from nightwatch.standin.model import EventStream, RequestLog

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 4 * 1024 * 1024
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024  # past this, an oversized body is not read to the end before the 413
READ_TIMEOUT_SECONDS = 30.0  # to send a request's headers, and again its body
SERVED_REQUEST_LOG_SIZE = 16  # a server may run for days; nobody reads its log over HTTP
SERVED_REQUEST_LOG_BYTES = 8 * 2**20
SERVED_RESPONSE_STORE_BYTES = 8 * 2**20
MEMORY_BUDGET_MB = 64
"""What a served stand-in may hold above its warm size, in all: the caches of every count and reading
(``SHARED_CACHE_BYTES``, 24 MiB together, bookkeeping included), the request log (``SERVED_REQUEST_LOG_BYTES``, 8 MiB), and
the Responses API's stored responses (``SERVED_RESPONSE_STORE_BYTES``, 8 MiB, oldest first out); the rest
is the allocator's slack. ``benchmarks/load_server.py`` checks it on distinct and hostile traffic."""
CLOSE = {"connection": "close"}
BACKLOG = 2048


class ServerStartError(RuntimeError):
    """The server could not start (port in use, invalid port); the message is one line for the terminal."""


def error_response(status: int, message: str, param: str | None = None, kind: str = "invalid_request_error",
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(message, param, kind), status_code=status, headers=headers)


def create_app(standin: StandInModel, max_body_bytes: int = MAX_BODY_BYTES,
               read_timeout: float = READ_TIMEOUT_SECONDS) -> Starlette:
    """The ASGI application: chat completions, the Responses API and the model list, all around
    ``standin.handle``, every error as OpenAI JSON."""

    async def forward(request: Request, body: bytes = b"") -> Response:
        outgoing = httpx2.Request(request.method, f"http://{LOOPBACK}{request.url.path}", content=body)
        try:
            answer = await run_in_threadpool(standin.handle, outgoing)
        except httpx2.TimeoutException:  # a fault told to time out: answer like a gateway would
            return error_response(504, "The stand-in did not answer in time.", kind="server_error")
        except Exception as exc:  # a bug must answer 500, never take the server down
            return error_response(500, f"The stand-in failed: {type(exc).__name__}", kind="server_error")
        media_type = answer.headers.get("content-type", "application/json")
        if isinstance(answer.stream, EventStream):  # each event goes out as soon as it is made
            return StreamingResponse(iter(answer.stream), status_code=answer.status_code, media_type=media_type)
        return Response(answer.content, status_code=answer.status_code, media_type=media_type)

    async def chat_completions(request: Request) -> Response:
        content_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
        if content_type != "application/json" and not content_type.endswith("+json"):
            return error_response(415, f"Unsupported Content-Type {content_type!r}: send the body as "
                                  "application/json.", headers=CLOSE)
        declared = int(request.headers.get("content-length") or 0)  # h11 has checked it is a number
        if declared > DRAIN_LIMIT_BYTES:
            return _too_large(max_body_bytes)
        if declared > max_body_bytes:  # answered at once, from the length alone (see _refused_unread)
            return _refused_unread(max_body_bytes)
        try:
            with anyio.fail_after(read_timeout):
                body = await _read_body(request, max_body_bytes)
        except TimeoutError:
            return error_response(408, f"The request body did not arrive in time (limit: {read_timeout:g} s).",
                                  headers=CLOSE)
        except ClientDisconnect:
            return Response(status_code=400, headers=CLOSE)  # nobody is left to read it
        if body is None:
            return _too_large(max_body_bytes)
        return await forward(request, body)

    async def models(request: Request) -> Response:
        return await forward(request)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            message = f"Invalid URL ({request.method} {request.url.path})"
        elif exc.status_code == 405:
            message = f"Method {request.method} is not allowed on {request.url.path}."
        else:
            message = str(exc.detail)
        return error_response(exc.status_code, message, headers=exc.headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"The server failed: {type(exc).__name__}", kind="server_error")

    async def responses(request: Request) -> Response:
        if request.method == "POST":
            return await chat_completions(request)  # the same checks on the body, then forwarded
        return await forward(request)

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/responses", responses, methods=["POST"]),
        Route("/v1/responses/{rest:path}", responses, methods=["GET", "POST", "DELETE"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/models/{model:path}", models, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error})


def _too_large(limit: int) -> JSONResponse:
    return error_response(413, f"The request body is larger than the stand-in accepts ({limit} bytes).",
                          headers=CLOSE)


def _refused_unread(limit: int) -> JSONResponse:
    """The 413 for a body whose declared length is over the limit, sent before a byte of it is read.

    Without ``connection: close``: the connection stays open and uvicorn discards the body as it
    arrives, so a client that sends the whole body before reading (most SDKs) finds the 413 waiting
    instead of a reset connection. A client that stops sending is closed by the read deadline."""
    return error_response(413, f"The request body is larger than the stand-in accepts ({limit} bytes).")


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None if it is over ``limit`` (checked as it arrives: a chunked body has no length).

    An oversized body is still read to its end (up to ``DRAIN_LIMIT_BYTES``) and thrown away: closing
    a socket with unread data in it resets the connection, and most clients then report the reset
    instead of the 413.
    """
    body, received, more = bytearray(), 0, True
    while more and received <= DRAIN_LIMIT_BYTES:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        more = message.get("more_body", False)
        chunk = message.get("body", b"")
        received += len(chunk)
        if received <= limit:
            body += chunk
    return bytes(body) if received <= limit else None


def protocol_with_timeouts(read_timeout: float) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol, plus a deadline for a request's headers and JSON for its own 400s.

    uvicorn times out idle keep-alive connections but not a client that is still sending its
    headers; a client that trickles them (or sends nothing) would hold a connection forever.
    """

    class TimedH11Protocol(H11Protocol):
        _header_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and self._header_deadline is None:
                self._arm()  # the first bytes of the next request on a kept-alive connection
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # headers complete: the body's own deadline is the application's
            elif self._drained_and_idle():
                self._disarm()  # the last bytes of a refused body: idle now, uvicorn's keep-alive applies
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.timeout_keep_alive_handler)

        def _drained_and_idle(self) -> bool:
            return (self._header_deadline is not None and self.cycle is not None
                    and self.conn.our_state is h11.IDLE and self.conn.their_state is h11.IDLE
                    and not self.conn.trailing_data[0])

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.SEND_BODY and self._header_deadline is None:
                self._arm()  # answered before the body was read: the rest has this long to arrive

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._header_deadline = self.loop.call_later(read_timeout, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_deadline is not None:
                self._header_deadline.cancel()
                self._header_deadline = None

        def _headers_too_slow(self) -> None:
            self._header_deadline = None
            if self.transport.is_closing() or (self.cycle is not None and not self.cycle.response_complete):
                return
            if self.conn.their_state is h11.SEND_BODY:  # the rest of a refused body stopped coming
                self.transport.close()
                return
            message = f"The request headers did not arrive in time (limit: {read_timeout:g} s)."
            self._send_json(408, "Request Timeout", error_body(message))

        def send_400_response(self, msg: str) -> None:
            # uvicorn's own answer to malformed framing (bad Content-Length, broken chunking)
            self._send_json(400, "Bad Request", error_body(f"Malformed HTTP request: {msg}"))

        def _send_json(self, status: int, reason: str, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
                    f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n")
            self.transport.write(head.encode() + payload)  # h11's state may be broken: write raw bytes
            self.transport.close()

    return TimedH11Protocol


def bind_loopback(port: int) -> socket.socket:
    """A socket bound to 127.0.0.1:``port`` and listening, or a one-line ``ServerStartError`` saying why not.

    Listening before the banner is printed: a client that connects the moment it reads the address
    waits in the backlog until the event loop starts, instead of being refused."""
    if type(port) is not int or not 0 <= port <= 65535:
        raise ServerStartError(f"ポート番号は 0〜65535 の整数にしてください（指定: {port}）。")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # uvicorn writes a response's head and body separately; without this, Nagle's algorithm holds the
    # body back until the client's delayed ACK (about 40 ms) on every kept-alive request.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((LOOPBACK, port))
        sock.listen(BACKLOG)  # now, not when uvicorn starts: a client told the address can connect at once
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServerStartError(f"ポート {port} は既に使われています。別の --port を指定してください。") from None
        if exc.errno == errno.EACCES:
            raise ServerStartError(f"ポート {port} を使う権限がありません。1024 以上の番号を指定してください。") from None
        raise ServerStartError(f"{LOOPBACK}:{port} で待ち受けられません: {exc.strerror}") from None
    return sock


def served_standin(context_limit: int | None = None) -> StandInModel:
    """The stand-in a server runs: its request log bounded in entries and in bytes."""
    standin = StandInModel(**({} if context_limit is None else {"context_limit": context_limit}))
    standin.requests = RequestLog(SERVED_REQUEST_LOG_SIZE, SERVED_REQUEST_LOG_BYTES)
    standin.responses.store.max_bytes = SERVED_RESPONSE_STORE_BYTES
    return standin


class StandInServer:
    """One stand-in served on loopback; ``run()`` blocks, ``running()`` serves from a thread."""

    def __init__(self, standin: StandInModel | None = None, port: int = 0,
                 max_body_bytes: int = MAX_BODY_BYTES, read_timeout: float = READ_TIMEOUT_SECONDS) -> None:
        self.standin = standin or served_standin()
        self.socket = bind_loopback(port)
        self.port: int = self.socket.getsockname()[1]
        config = uvicorn.Config(
            create_app(self.standin, max_body_bytes, read_timeout),
            http=protocol_with_timeouts(read_timeout),
            lifespan="off", log_level="error", access_log=False,
            backlog=BACKLOG, timeout_keep_alive=5,
        )
        self._server = uvicorn.Server(config)

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    def run(self) -> None:
        self._server.run(sockets=[self.socket])

    def stop(self) -> None:
        self._server.should_exit = True

    @contextmanager
    def running(self) -> Iterator[StandInServer]:
        """Serve from a background thread for the duration of the ``with`` block."""
        thread = threading.Thread(target=self.run, name=f"stand-in:{self.port}", daemon=True)
        thread.start()
        try:
            while not self._server.started:
                if not thread.is_alive():
                    raise ServerStartError("the server stopped while starting")
                thread.join(0.01)
            yield self
        finally:
            self.stop()
            thread.join(10)
            self.socket.close()


def serve(port: int, context_limit: int) -> None:
    """Serve until Ctrl-C (or SIGTERM), then close the socket cleanly."""
    server = StandInServer(served_standin(context_limit), port)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)  # uvicorn shuts down, then re-raises it here
    print(f"代役モデルを {server.base_url} で待ち受けています（上限 {context_limit} トークン）。"
          "Ctrl-C で止まります。", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.socket.close()
        print("代役モデルを止めました。", flush=True)


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt

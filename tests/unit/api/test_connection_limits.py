"""The HTTP connection's limits (app/api/connections.py), on the protocol itself over a transport
that records what the server wrote: malformed requests, header limits, the header deadline and
the connection limit, each answered in the API's error body and closed. The end-to-end suites
(tests/e2e/hostile) send the same over real sockets to a server process."""

from __future__ import annotations

import asyncio
import resource
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.server import ServerState

from app.api.connections import (
    RESERVED_FDS,
    GuardedHttpProtocol,
    protocol_class,
    raise_fd_limit,
)
from app.config import Settings


class Transport:
    """The socket side of one connection: what the server wrote, and whether it closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "a write after close"
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def answer(self) -> tuple[int, dict[str, Any]]:
        """The status and JSON body of what was written."""
        head, body = b"".join(self.writes).split(b"\r\n\r\n", 1)
        return int(head.split(b" ", 2)[1]), orjson.loads(body)


async def ok(scope: Scope, receive: Receive, send: Send) -> None:
    await Response(b"{}", media_type="application/json")(scope, receive, send)


class Server:
    """One server's protocol class and its connections, without a socket."""

    def __init__(self, settings: Settings) -> None:
        self.config = Config(app=ok, lifespan="off", log_level="warning")
        self.config.load()
        self.state = ServerState()
        self.cls = protocol_class(settings)

    def connect(self) -> tuple[GuardedHttpProtocol, Transport]:
        protocol = self.cls(config=self.config, server_state=self.state, app_state={})
        transport = Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        return protocol, transport

    async def settle(self) -> None:
        while self.state.tasks:
            await asyncio.gather(*self.state.tasks, return_exceptions=True)


def error_code(transport: Transport) -> tuple[int, str]:
    status, body = transport.answer()
    return status, body["error"]["code"]


async def test_a_malformed_request_is_answered_400_in_the_error_body(
    settings_factory: Any,
) -> None:
    server = Server(settings_factory())
    p, t = server.connect()
    p.data_received(b"NOT HTTP AT ALL\r\n\r\n")
    assert error_code(t) == (400, "INVALID_REQUEST")
    assert t.closed


async def test_more_header_fields_than_allowed_are_answered_431(settings_factory: Any) -> None:
    server = Server(settings_factory(max_headers=8))
    p, t = server.connect()
    fields = b"".join(b"x-%d: v\r\n" % i for i in range(8))
    p.data_received(b"GET / HTTP/1.1\r\nhost: a\r\n" + fields + b"\r\n")
    status, body = t.answer()
    assert (status, body["error"]["code"]) == (431, "REQUEST_HEADER_FIELDS_TOO_LARGE")
    assert "more than 8 header fields" in body["error"]["message"]
    assert t.closed


async def test_headers_over_the_byte_limit_are_answered_431(settings_factory: Any) -> None:
    server = Server(settings_factory(max_header_bytes=1024))
    p, t = server.connect()
    p.data_received(b"GET / HTTP/1.1\r\nhost: a\r\nx-big: " + b"v" * 2000 + b"\r\n\r\n")
    status, body = t.answer()
    assert (status, body["error"]["code"]) == (431, "REQUEST_HEADER_FIELDS_TOO_LARGE")
    assert "exceed 1024 bytes" in body["error"]["message"]


async def test_unfinished_headers_over_the_byte_limit_are_answered_431(
    settings_factory: Any,
) -> None:
    """Headers that never end are bounded too, before the parser sees a whole field."""
    server = Server(settings_factory(max_header_bytes=1024))
    p, t = server.connect()
    p.data_received(b"GET / HTTP/1.1\r\nx-a: ")
    assert not t.writes
    for _ in range(3):
        if t.closed:
            break
        p.data_received(b"v" * 500)
    assert error_code(t) == (431, "REQUEST_HEADER_FIELDS_TOO_LARGE")
    assert t.closed


async def test_headers_not_complete_by_the_deadline_are_answered_408(
    settings_factory: Any,
) -> None:
    server = Server(settings_factory(header_timeout_ms=2500))
    loop = asyncio.get_running_loop()
    p, t = server.connect()
    p.data_received(b"GET / HTTP/1.1\r\nhost")  # the line and part of a header
    deadline = p._deadline
    assert deadline is not None
    assert abs(deadline.when() - (loop.time() + 2.5)) < 0.5
    deadline.cancel()  # the test runs the timer's callback itself rather than wait for it
    p._headers_timed_out()
    status, body = t.answer()
    assert (status, body["error"]["code"]) == (408, "REQUEST_TIMEOUT")
    assert "within 2500 ms" in body["error"]["message"]
    assert t.closed


async def test_the_deadline_stops_at_the_headers_and_starts_again_after_the_answer(
    settings_factory: Any,
) -> None:
    server = Server(settings_factory())
    p, t = server.connect()
    assert p._deadline is not None and p in p.waiting
    p.data_received(b"GET / HTTP/1.1\r\nhost: a\r\n\r\n")
    await server.settle()
    assert b"".join(t.writes).startswith(b"HTTP/1.1 200 OK\r\n")
    assert not t.closed
    # kept alive: waiting for the next request again, under a new deadline
    assert p._deadline is not None and p in p.waiting
    p.connection_lost(None)
    assert p not in p.waiting


async def test_a_new_connection_over_the_limit_closes_the_one_waiting_longest(
    settings_factory: Any,
) -> None:
    server = Server(settings_factory(max_connections=16))
    opened = [server.connect() for _ in range(16)]
    (first, t1), (second, t2) = opened[:2]
    newest, t3 = server.connect()
    assert t1.closed and not t2.closed and not t3.closed
    assert first not in first.waiting and second in second.waiting
    for p, _ in [*opened, (newest, t3)]:
        p.connection_lost(None)


async def test_over_the_limit_with_every_connection_busy_the_new_one_is_closed(
    settings_factory: Any,
) -> None:
    server = Server(settings_factory(max_connections=16))
    busy = [server.connect() for _ in range(16)]
    for p, _ in busy:
        # a request whose headers came and whose body has not: in progress, never chosen
        p.data_received(b"POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\n")
        assert p not in p.waiting
    new, t = server.connect()
    assert t.closed and not any(bt.closed for _, bt in busy)
    for p, _ in [*busy, (new, t)]:
        p.connection_lost(None)
    await server.settle()


def test_each_server_has_its_own_limits_and_queue() -> None:
    a = protocol_class(Settings(max_connections=50, header_timeout_ms=1000))
    b = protocol_class(Settings(max_connections=70))
    assert (a.max_connections, a.header_timeout_s) == (50, 1.0)
    assert b.max_connections == 70
    assert a.waiting is not b.waiting


def test_the_open_files_limit_is_raised_to_fit_the_connections(caplog: Any) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(soft + 10, hard) - RESERVED_FDS if hard != resource.RLIM_INFINITY else soft + 10
    assert raise_fd_limit(max(want, 16)) == max(want, 16)
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= min(want + RESERVED_FDS, hard)
    # more than the hard limit allows: the connections that fit, and a warning that says why
    if hard != resource.RLIM_INFINITY:
        with caplog.at_level("WARNING", logger="sluice.connections"):
            fits = raise_fd_limit(hard + 10)
        assert fits == hard - RESERVED_FDS
        assert "lower SLUICE_MAX_CONNECTIONS" in caplog.text

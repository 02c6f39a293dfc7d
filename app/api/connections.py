"""The HTTP connection: uvicorn's httptools protocol with the limits a server on a network needs.

uvicorn bounds neither how long a client may take to send a request's headers nor how large
they may be, and accepts connections until the process runs out of file descriptors. The
protocol here adds, per connection and in the event loop's own callbacks (no task, no I/O):

- a header deadline: from the moment a connection opens, or its previous answer was sent,
  the next request's line and headers must arrive within ``header_timeout_ms``; otherwise the
  connection is answered 408 ``REQUEST_TIMEOUT`` and closed (slow headers, idle connections);
- header limits: more than ``max_header_bytes`` of request line and headers, or more than
  ``max_headers`` fields, is answered 431 ``REQUEST_HEADER_FIELDS_TOO_LARGE`` and closed;
- a connection limit: once ``max_connections`` are open (WebSockets included), a new one
  closes the connection that has waited longest for a request (one with a request in progress
  is never chosen); if every connection is busy, the new one is closed at once.

An answer built whole (with a ``Content-Length``, as every API answer is) goes out in one
write, its status line and headers with its body, instead of uvicorn's two: one system call and
one wake-up of the client fewer a request, the same bytes.

A malformed request is answered 400 ``INVALID_REQUEST`` in the API's error body instead of
uvicorn's plain text. The request body's deadline is ``app.api.deps.read_body``'s.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any, cast

import orjson
from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from app.config import Settings
from app.errors import ErrorCode, SluiceError

log = logging.getLogger("sluice.connections")

# file descriptors kept for the logs, the metadata database and the listening socket
RESERVED_FDS = 1024

_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class _HeadersTooLarge(Exception):
    """Raised inside the parser's callbacks to stop parsing a request whose headers are over."""


def refusal(code: ErrorCode, message: str) -> bytes:
    """A complete HTTP/1.1 answer with the API's error body that ends the connection."""
    body = orjson.dumps({"error": SluiceError(code, message).to_dict()})
    return b"".join(
        (
            b"HTTP/1.1 %d %s\r\n" % (code.status, _REASONS[code.status]),
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n\r\n",
            body,
        )
    )


class GuardedHttpProtocol(HttpToolsProtocol):
    """One HTTP connection. The limits are class attributes set by ``protocol_class``; the
    connections waiting for a request (oldest first) are shared by every connection of the
    class, so that the oldest can make room for a new one."""

    header_timeout_s: float = 10.0
    max_header_bytes: int = 64 * 1024
    max_headers: int = 100
    max_connections: int = 10_000
    waiting: dict[GuardedHttpProtocol, None]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._header_count = 0
        self._unparsed = 0
        self._refused: tuple[ErrorCode, str] | None = None

    # the deadline for the next request's headers, and the queue of waiting connections

    def _await_request(self) -> None:
        self._cancel_deadline()
        self._unparsed = 0
        self._deadline = self.loop.call_later(self.header_timeout_s, self._headers_timed_out)
        self.waiting[self] = None

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.waiting.pop(self, None)

    def _headers_timed_out(self) -> None:
        self._deadline = None
        self.waiting.pop(self, None)
        if not self.transport.is_closing():
            ms = round(self.header_timeout_s * 1000)
            self._refuse(ErrorCode.REQUEST_TIMEOUT, f"no complete request headers within {ms} ms")

    def _refuse(self, code: ErrorCode, message: str) -> None:
        self.transport.write(refusal(code, message))
        self.transport.close()

    # uvicorn's protocol, extended

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            oldest = next(iter(self.waiting), None)
            if oldest is None:  # every connection has a request in progress
                log.warning("%d connections open: a new one is closed", len(self.connections))
                transport.close()
                return
            oldest._cancel_deadline()
            oldest.transport.close()
        self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        waiting = self._deadline is not None
        super().data_received(data)
        if waiting and self._deadline is not None and not self.transport.is_closing():
            # headers still incomplete: the parser holds what came so far, bounded here
            self._unparsed += len(data)
            if self._unparsed > self.max_header_bytes:
                self._refuse(
                    ErrorCode.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    f"the request line and headers exceed {self.max_header_bytes} bytes",
                )

    def send_400_response(self, msg: str) -> None:
        if self._refused is not None:
            self._refuse(*self._refused)
        else:
            self._refuse(ErrorCode.INVALID_REQUEST, f"malformed HTTP request: {msg}")

    def on_message_begin(self) -> None:
        self._header_bytes = 0
        self._header_count = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._count(len(url), 0)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        # counted here rather than through ``_count``: a call less for each header
        self._header_bytes += len(name) + len(value) + 4
        self._header_count += 1
        if self._header_bytes > self.max_header_bytes or self._header_count > self.max_headers:
            self._count(0, 0)  # refuses
        super().on_header(name, value)

    def _count(self, size: int, fields: int) -> None:
        self._header_bytes += size
        self._header_count += fields
        if self._header_bytes > self.max_header_bytes:
            self._refused = (
                ErrorCode.REQUEST_HEADER_FIELDS_TOO_LARGE,
                f"the request line and headers exceed {self.max_header_bytes} bytes",
            )
        elif self._header_count > self.max_headers:
            self._refused = (
                ErrorCode.REQUEST_HEADER_FIELDS_TOO_LARGE,
                f"the request has more than {self.max_headers} header fields",
            )
        else:
            return
        raise _HeadersTooLarge

    def on_headers_complete(self) -> None:
        self._cancel_deadline()
        previous = self.cycle
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not previous and type(cycle) is RequestResponseCycle:
            # uvicorn builds its cycle itself: the request's cycle becomes one that answers
            # in one write (``_OneWriteCycle``), before its task first runs
            cycle.__class__ = _OneWriteCycle
            cycle.transport = cast(asyncio.Transport, _HeldHead(self.transport, self.loop))

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # as uvicorn arms its keep-alive timer: nothing pipelined, the connection still open
        if self.timeout_keep_alive_task is not None:
            self._await_request()

    def handle_websocket_upgrade(self) -> None:
        self._cancel_deadline()
        super().handle_websocket_upgrade()


class _HeldHead:
    """A request's transport, as its cycle writes to it: the status line and headers of an
    answer whose body follows (``hold``) are held, and go out with the body's first write, in
    one write instead of two (one system call, one segment, one wake-up of the client). Held
    headers go out on their own by the next turn of the event loop if the body is not there
    yet (a body read from a file), and before the connection is closed."""

    __slots__ = ("head", "hold", "loop", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        # the connection's loop, at hand: asking for the running loop is a system call on
        # every answer (the loop's check of the process id)
        self.loop = loop
        self.hold = False
        self.head: bytes | None = None

    def write(self, data: bytes) -> None:
        if self.hold:
            self.hold = False
            self.head = data
            self.loop.call_soon(self.release)
        elif self.head is not None:
            head, self.head = self.head, None
            self.transport.write(head + data)
        else:
            self.transport.write(data)

    def release(self) -> None:
        if self.head is not None:
            head, self.head = self.head, None
            if not self.transport.is_closing():
                self.transport.write(head)

    def close(self) -> None:
        self.release()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _OneWriteCycle(RequestResponseCycle):
    """uvicorn's request cycle, whose answers with a ``Content-Length`` (every answer built
    whole, as the API's are) go out in one write (``_HeldHead``): the bytes on the wire are
    the same."""

    async def send(self, message: ASGISendEvent) -> None:
        transport = self.transport
        if (
            message["type"] == "http.response.start"
            and not self.response_started
            and isinstance(transport, _HeldHead)
            and self.scope["method"] != "HEAD"
            and any(name.lower() == b"content-length" for name, _ in message.get("headers", ()))
        ):
            transport.hold = True
            try:
                await super().send(message)
            finally:
                transport.hold = False  # written, or not at all (a client gone, an error)
            return
        await super().send(message)


def protocol_class(settings: Settings) -> type[GuardedHttpProtocol]:
    """The protocol class of one server, with its settings and its own queue of waiting
    connections."""
    return type(
        "HttpProtocol",
        (GuardedHttpProtocol,),
        {
            "header_timeout_s": settings.header_timeout_ms / 1000,
            "max_header_bytes": settings.max_header_bytes,
            "max_headers": settings.max_headers,
            "max_connections": settings.max_connections,
            "waiting": {},
        },
    )


def raise_fd_limit(max_connections: int) -> int:
    """Raise the soft limit of open files to what ``max_connections`` needs (with room for the
    storage), as far as the hard limit allows; returns the connections that fit under it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + RESERVED_FDS
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    fits = max(soft - RESERVED_FDS, 16)
    if fits < max_connections:
        log.warning(
            "the open-files limit (%d, hard %d) allows %d connections, not %d: raise it "
            "(ulimit -n) or lower SLUICE_MAX_CONNECTIONS",
            soft,
            hard,
            fits,
            max_connections,
        )
    return min(fits, max_connections)

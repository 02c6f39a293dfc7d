"""Request helpers: the services off app.state, bounded body reading, JSON answers.

Routers reach the engine through the functions here: ``engine_of(request)``, the seam's
interfaces (``app.engine.Engine``), in the routes moved onto it (docs/engine.md, "Order of the
rewiring"); in the others, the services of the one ``Broker`` the app holds, through
``broker_of(request)``. ``broker_of`` also gives every
route what is the face's, not the engine's: the settings, the clock, the metrics, the quota
meters.
They are called directly, not through ``Depends``: FastAPI's dependency solving costs tens of
microseconds a request, more than the work of a small request. Readiness is checked once for
every endpoint, by ``app.main.RequestGate``, before a router runs.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from fastapi import Request
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Message

from app.engine import Engine
from app.errors import ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.feed import EventFeed
from app.runtime import Broker
from app.security import principal_of


def broker_of(request: HTTPConnection) -> Broker:
    b: Broker = request.app.state.broker
    return b


def engine_of(request: HTTPConnection) -> Engine:
    b: Broker = request.app.state.broker
    return b.engine


def feed(websocket: HTTPConnection) -> EventFeed:
    return broker_of(websocket).feed


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refusing more than ``limit`` bytes before reading it all, and a body that
    takes longer than ``body_timeout_ms`` to arrive (408 ``REQUEST_TIMEOUT``; the answer
    closes the connection). A body that came with its headers, as most do, is taken at once
    without a timer."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise TooLarge(
                    ErrorCode.REQUEST_TOO_LARGE,
                    f"the body is {declared} bytes; the limit is {limit}",
                )
        except ValueError:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "invalid Content-Length") from None
    message = await request.receive()
    if message["type"] == "http.request" and not message.get("more_body", False):
        body: bytes = message.get("body", b"")
        if len(body) > limit:
            raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"the body exceeds {limit} bytes")
    else:
        timeout_ms = broker_of(request).settings.body_timeout_ms
        try:
            async with asyncio.timeout(timeout_ms / 1000):
                body = await _rest_of_body(request, message, limit)
        except TimeoutError:
            raise SluiceError(
                ErrorCode.REQUEST_TIMEOUT, f"the body did not arrive within {timeout_ms} ms"
            ) from None
    broker_of(request).metrics.bytes_in.inc(len(body))
    return body


async def _rest_of_body(request: Request, message: Message, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        if message["type"] != "http.request":  # http.disconnect: nobody will read an answer
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "the client left during the body")
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"the body exceeds {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
        message = await request.receive()


class produce_body:
    """The body of a produce request, counted against the principal's produce quota: over the
    quota, the principal is refused (429) before its body is read; once read, the body counts
    whatever becomes of the request (docs/security.md#quotas). A class rather than a
    generator: it is entered on every produce."""

    __slots__ = ("quota", "request", "size")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.quota: Any = None
        self.size = 0

    async def __aenter__(self) -> bytes:
        b = broker_of(self.request)
        self.quota = b.quotas.produce.admit(principal_of(self.request))
        raw = await read_body(self.request, b.settings.max_request_bytes)
        self.size = len(raw)
        return raw

    async def __aexit__(self, *exc: object) -> None:
        if self.quota is not None:
            self.quota.record(self.size)


def json_response(content: Any, status_code: int = 200) -> Response:
    return Response(orjson.dumps(content), status_code=status_code, media_type="application/json")

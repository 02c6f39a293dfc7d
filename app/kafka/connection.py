"""One connection to one Kafka broker, an asyncio protocol (docs/kafka-protocol.md#connection).

Every message on the wire is a frame: an int32 size, then the header and the body. A request
carries a correlation id that its answer repeats; a broker answers the requests of one
connection in the order they came, so the connection keeps the requests in flight in a queue
and matches each answer to the oldest of them, checking that the ids agree.

At open the connection asks the broker for its API versions (ApiVersions) and chooses, for
each API that both the broker and the codec have, the highest version both take; a request is
sent at that version unless the caller names one. The request header is version 2 for a
flexible request version and 1 otherwise; the response header version 1 for a flexible
response version and 0 otherwise, except ApiVersions' response, whose header is always 0.

When the connection ends (the broker closed it, an answer could not be framed, a request timed
out, or ``close()``), every request in flight fails with ``ConnectionClosedError`` (or
``RequestTimeoutError`` for the one that timed out), and so does every later request: a
connection is never reopened; the cluster makes a new one.

TLS is a parameter (an ``ssl.SSLContext``) passed to the transport; SASL a login
(``app/kafka/sasl.py``) made right after ApiVersions, before the connection is handed out. A
login the broker refuses fails the opening with ``AuthenticationError``, a
``ConnectionClosedError``.
"""

from __future__ import annotations

import asyncio
import ssl as ssl_module
from collections import deque
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from app.kafka.protocol.errors import (
    UNSUPPORTED_VERSION,
    BrokerError,
    ConnectionClosedError,
    DecodeError,
    ProtocolError,
    RequestTimeoutError,
    UnsupportedVersionError,
)
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    REQUESTS,
    RESPONSES,
    ApiVersionsRequest,
    ApiVersionsResponse,
    ProduceRequest,
    RequestHeader,
    ResponseHeader,
)
from app.kafka.protocol.primitives import INT16, INT32
from app.kafka.sasl import SaslLogin, authenticate

R = TypeVar("R", bound=Response)

CLIENT_SOFTWARE_NAME = "sluice"
CLIENT_SOFTWARE_VERSION = "1.0"
# An answer larger than this is taken as a broken stream rather than read into memory (a
# fetch's answer is bounded by its max_bytes, 50 MiB by the broker's default).
MAX_FRAME_BYTES = 256 * 1024 * 1024
DEFAULT_REQUEST_TIMEOUT = 30.0
# How long a closing connection waits for the transport to finish closing. Over TLS that is the
# exchange of close_notify alerts, which a broker need not answer: the event loop would wait its
# TLS shutdown timeout (30 s) for it, holding up a gateway's stop. The connection is aborted then.
CLOSE_WAIT_S = 1.0
_MAX_CORRELATION_ID = (1 << 31) - 1
# where a frame's correlation id is: after its size, the API key and the version
_CORRELATION_AT = 8


@dataclass(frozen=True, slots=True)
class ApiRange:
    """The versions of one API the broker takes."""

    api_key: int
    min_version: int
    max_version: int


@dataclass(slots=True)
class _InFlight:
    correlation_id: int
    request: Request[Any]
    version: int
    future: asyncio.Future[Response]


def choose_versions(broker: dict[int, ApiRange]) -> dict[int, int]:
    """For each API that the codec and the broker both have, the highest version both take.

    The codec's side stops at each message's highest stable version: a broker offers a
    version still being designed only when told to, and its layout may still change.
    """
    chosen: dict[int, int] = {}
    for key, cls in REQUESTS.items():
        theirs = broker.get(key)
        if theirs is None:
            continue
        high = min(cls.MAX_STABLE_VERSION, theirs.max_version)
        if high >= max(cls.MIN_VERSION, theirs.min_version):
            chosen[key] = high
    return chosen


def request_header_version(request_cls: type[Request[Any]], version: int) -> int:
    return 2 if request_cls.is_flexible(version) else 1


def response_header_version(request_cls: type[Request[Any]], version: int) -> int:
    # ApiVersions' answer keeps header version 0 at every version, so that a client that asked
    # at a version the broker does not take can still read the answer's error code
    if request_cls.API_KEY == ApiVersionsRequest.API_KEY:
        return 0
    return 1 if RESPONSES[request_cls.API_KEY].is_flexible(version) else 0


def expects_response(request: Request[Any]) -> bool:
    """A produce request with acks=0 gets no answer at all."""
    return not (isinstance(request, ProduceRequest) and request.acks == 0)


class BrokerConnection(asyncio.Protocol):
    """An open connection to one broker. Make one with ``await BrokerConnection.open(...)``."""

    def __init__(
        self,
        *,
        address: str,
        client_id: str | None = CLIENT_SOFTWARE_NAME,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    ) -> None:
        self.address = address
        self.client_id = client_id
        self.request_timeout = request_timeout
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._in_flight: deque[_InFlight] = deque()
        self._next_id = 0
        self._closed: ProtocolError | None = None
        # bytes of an answer not yet whole
        self._partial = bytearray()
        # each kind and version's request header, encoded once (``_head``)
        self._heads: dict[tuple[int, int], bytes] = {}
        # the transport's flow control: writers wait while its buffer is over the high mark
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None
        self._lost: asyncio.Future[None] = self._loop.create_future()
        # what ApiVersions answered, and the version chosen for each API
        self.broker_versions: dict[int, ApiRange] = {}
        self.versions: dict[int, int] = {}

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        *,
        client_id: str | None = CLIENT_SOFTWARE_NAME,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        connect_timeout: float | None = None,
        ssl: ssl_module.SSLContext | None = None,
        sasl: SaslLogin | None = None,
        negotiate: bool = True,
    ) -> BrokerConnection:
        """Connect, and (unless ``negotiate`` is false) learn the broker's API versions and log
        in as ``sasl``."""
        address = f"{host}:{port}"
        conn = cls(address=address, client_id=client_id, request_timeout=request_timeout)
        try:
            async with asyncio.timeout(connect_timeout or request_timeout):
                await conn._loop.create_connection(lambda: conn, host, port, ssl=ssl)
        except TimeoutError as e:
            raise ConnectionClosedError(f"could not connect to {address}: timed out") from e
        except ssl_module.SSLError as e:
            # a certificate the CA does not vouch for, or a name it was not issued to
            raise ConnectionClosedError(f"TLS with {address} failed: {e}") from e
        except OSError as e:
            raise ConnectionClosedError(f"could not connect to {address}: {e}") from e
        if negotiate:
            try:
                await conn.negotiate()
                if sasl is not None:
                    await authenticate(conn, sasl)
            except BaseException:
                await conn.close()
                raise
        return conn

    # -- state ---------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed is not None

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def version(self, request_cls: type[Request[Any]]) -> int:
        """The version requests of this kind go at: the one chosen at open."""
        chosen = self.versions.get(request_cls.API_KEY)
        if chosen is None:
            raise UnsupportedVersionError(
                f"{self.address} takes no version of {request_cls.NAME} that the codec has"
            )
        return chosen

    # -- ApiVersions -----------------------------------------------------------------------------

    async def negotiate(self) -> None:
        """Ask the broker which versions it takes and choose one for each API."""
        version = ApiVersionsRequest.MAX_STABLE_VERSION
        request = ApiVersionsRequest(
            client_software_name=CLIENT_SOFTWARE_NAME,
            client_software_version=CLIENT_SOFTWARE_VERSION,
        )
        answer = await self.send(request, version)
        if answer.error_code == UNSUPPORTED_VERSION:
            # an older broker: it answered at version 0 with the versions it takes; ask again at
            # the highest of them
            mine = {k.api_key: k for k in answer.api_keys}.get(ApiVersionsRequest.API_KEY)
            if mine is None or mine.max_version < ApiVersionsRequest.MIN_VERSION:
                raise UnsupportedVersionError(f"{self.address} takes no version of ApiVersions")
            answer = await self.send(request, min(version, mine.max_version))
        if answer.error_code:
            raise BrokerError(answer.error_code, f"ApiVersions from {self.address}")
        self.broker_versions = {
            k.api_key: ApiRange(k.api_key, k.min_version, k.max_version) for k in answer.api_keys
        }
        self.versions = choose_versions(self.broker_versions)

    # -- requests --------------------------------------------------------------------------------

    async def send(
        self, request: Request[R], version: int | None = None, *, timeout: float | None = None
    ) -> R:
        """Send ``request`` and wait for its answer (at the chosen version unless ``version``).

        Requests sent one after another without waiting are all in flight at once; each gets
        its own answer. A produce request with acks=0 gets none: use ``send_no_response``.
        """
        if not expects_response(request):
            raise ValueError("a produce request with acks=0 gets no answer: send_no_response")
        future = self._write(request, version)
        assert future is not None
        limit = self.request_timeout if timeout is None else timeout
        # a timer rather than a timeout scope: the future is ours, and the timer fails it (and
        # the connection) only if no answer came first; a caller cancelled meanwhile cancels
        # only its future, whose answer, when it comes, is read and dropped
        timer = self._loop.call_later(limit, self._time_out, future, request.NAME, limit)
        try:
            if self._paused:
                await self._drain()
            return await future  # type: ignore[return-value]
        finally:
            timer.cancel()

    def _time_out(self, future: asyncio.Future[Response], name: str, limit: float) -> None:
        if not future.done():
            self._fail(
                RequestTimeoutError(f"{name} to {self.address}: no answer within {limit} s"),
                first=future,
            )

    async def send_no_response(self, request: Request[Any], version: int | None = None) -> None:
        """Send a request that gets no answer (produce with acks=0)."""
        if expects_response(request):
            raise ValueError(f"{request.NAME} gets an answer: send")
        self._write(request, version)
        if self._paused:
            await self._drain()
        if self._closed is not None:
            raise self._closed

    def _write(self, request: Request[Any], version: int | None) -> asyncio.Future[Response] | None:
        # Synchronous from the correlation id to the write: the order requests enter the
        # queue is the order their frames reach the stream, which is the order of the answers.
        if self._closed is not None or self._transport is None:
            raise ConnectionClosedError(f"{request.NAME}: {self._closed or 'not connected'}")
        if version is None:
            version = self.version(type(request))
        request.check_version(version)
        correlation_id = self._next_id
        self._next_id = 0 if correlation_id == _MAX_CORRELATION_ID else correlation_id + 1
        frame = bytearray(self._head(type(request), version))
        INT32.pack_into(frame, _CORRELATION_AT, correlation_id)
        request.encode_into(frame, version)
        INT32.pack_into(frame, 0, len(frame) - 4)
        future: asyncio.Future[Response] | None = None
        if expects_response(request):
            future = self._loop.create_future()
            self._in_flight.append(_InFlight(correlation_id, request, version, future))
        self._transport.write(frame)
        return future

    def _head(self, request_cls: type[Request[Any]], version: int) -> bytes:
        """The frame's size (to be filled in) and its request header, with correlation id 0:
        the same for every request of one kind and version on this connection."""
        key = (request_cls.API_KEY, version)
        head = self._heads.get(key)
        if head is None:
            header = RequestHeader(
                request_api_key=request_cls.API_KEY,
                request_api_version=version,
                correlation_id=0,
                client_id=self.client_id,
            )
            frame = bytearray(4)
            header.encode_into(frame, request_header_version(request_cls, version))
            head = self._heads[key] = bytes(frame)
        return head

    async def _drain(self) -> None:
        # the transport's buffer is over its high mark: wait until it is written out, or the
        # connection ends (which fails every request in flight)
        while self._paused and self._closed is None:
            if self._resumed is None:
                self._resumed = self._loop.create_future()
            await asyncio.shield(self._resumed)

    # -- the socket (asyncio.Protocol) -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's is not an ``asyncio.Transport`` subclass)
        self._transport = cast(asyncio.Transport, transport)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake_writers()

    def _wake_writers(self) -> None:
        if self._resumed is not None:
            if not self._resumed.done():
                self._resumed.set_result(None)
            self._resumed = None

    def data_received(self, data: bytes) -> None:
        """Cut the bytes that came into frames, and answer each whole one; the rest waits for
        more. Bytes that came alone and end on a frame's end, as most answers do, are read in
        place."""
        partial = self._partial
        src: bytes | bytearray = data
        if partial:
            partial += data
            src = partial
        pos, n = 0, len(src)
        try:
            while n - pos >= 4:
                (size,) = INT32.unpack_from(src, pos)
                if size < 4 or size > MAX_FRAME_BYTES:
                    raise DecodeError(f"an answer of {size} bytes")
                end = pos + 4 + size
                if end > n:
                    break
                if src is partial:
                    # its own bytes: the buffer is cut below, and an answer may keep views
                    self._answer(memoryview(bytes(partial[pos + 4 : end])))
                else:
                    self._answer(memoryview(data)[pos + 4 : end])
                pos = end
        except Exception as e:
            # a frame that does not line up with the requests in flight, or a fault of ours:
            # either way no later answer can be trusted to match its request
            self._fail(ConnectionClosedError(f"{self.address}: {e}"))
            return
        if src is partial:
            del partial[:pos]
        elif pos < n:
            partial += memoryview(data)[pos:]

    def eof_received(self) -> bool | None:
        return None  # the transport closes, and connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None:
            self._fail(ConnectionClosedError(f"{self.address} closed the connection"))
        else:
            self._fail(ConnectionClosedError(f"{self.address}: {exc}"))
        self._paused = False
        self._wake_writers()
        if not self._lost.done():
            self._lost.set_result(None)

    def _answer(self, frame: memoryview) -> None:
        (correlation_id,) = INT32.unpack_from(frame, 0)
        if not self._in_flight:
            raise DecodeError(f"an answer (correlation id {correlation_id}) to no request")
        pending = self._in_flight[0]
        if correlation_id != pending.correlation_id:
            raise DecodeError(
                f"answer with correlation id {correlation_id}, "
                f"expected {pending.correlation_id} ({pending.request.NAME})"
            )
        self._in_flight.popleft()
        request = pending.request
        try:
            hv = response_header_version(type(request), pending.version)
            _, pos = ResponseHeader.decode_from(frame, 0, hv)
            body = frame[pos:]
            version = pending.version
            if (
                request.API_KEY == ApiVersionsRequest.API_KEY
                and len(body) >= 2
                and INT16.unpack_from(body, 0)[0] == UNSUPPORTED_VERSION
            ):
                # a broker that does not take the version asked answers at version 0
                version = 0
            if request.API_KEY == ApiVersionsRequest.API_KEY:
                answer: Response = ApiVersionsResponse.decode(body, version)
            else:
                answer = request.decode_response(body, version)
        except ProtocolError as e:
            # the frame was whole: the stream still lines up, only this answer is lost
            if not pending.future.done():
                pending.future.set_exception(e)
                pending.future.exception()  # retrieved even if its caller gave up
            return
        if not pending.future.done():
            pending.future.set_result(answer)

    # -- closing ---------------------------------------------------------------------------------

    def _fail(self, error: ProtocolError, first: asyncio.Future[Response] | None = None) -> None:
        """End the connection: ``first`` fails with ``error``, every other request in flight
        (and every later one) with ConnectionClosedError."""
        if self._closed is None:
            self._closed = (
                error
                if isinstance(error, ConnectionClosedError)
                else ConnectionClosedError(f"connection to {self.address} ended: {error}")
            )
        if first is not None and not first.done():
            first.set_exception(error)
        while self._in_flight:
            pending = self._in_flight.popleft()
            if not pending.future.done():
                pending.future.set_exception(self._closed)
                # a caller that already gave up (its own cancellation) never reads it
                pending.future.exception()
        if first is not None:
            first.exception()
        if self._transport is not None:
            self._transport.close()

    async def close(self) -> None:
        """Close the connection; requests in flight fail with ConnectionClosedError."""
        self._fail(ConnectionClosedError(f"connection to {self.address} closed"))
        if self._transport is None:
            return
        try:
            async with asyncio.timeout(CLOSE_WAIT_S):
                await asyncio.shield(self._lost)
        except TimeoutError:
            self._transport.abort()

"""A broker of the tests' own at the socket seam: a real asyncio server on loopback that reads
size-prefixed request frames and writes the answers a test tells it to, in the order and with
the correlation ids the test chooses. It answers ApiVersions by itself (unless told not to), so
that a connection can open.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass, field

from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    REQUESTS,
    ApiVersionsRequest,
    ApiVersionsResponse,
    RequestHeader,
    ResponseHeader,
)
from app.kafka.protocol.primitives import INT16, INT32

WAIT = 5.0  # a deadline for what the test waits on, never a pause


def codec_ranges() -> dict[int, tuple[int, int]]:
    """Every API of the codec, at the versions the codec has."""
    return {key: (cls.MIN_VERSION, cls.MAX_VERSION) for key, cls in REQUESTS.items()}


@dataclass
class Received:
    api_key: int
    version: int
    header_version: int
    correlation_id: int
    client_id: str | None
    request: Request[Response]
    writer: asyncio.StreamWriter  # the connection it came on, which the answer goes back on


@dataclass
class FakeBroker:
    api_versions: dict[int, tuple[int, int]] = field(default_factory=codec_ranges)
    answer_api_versions: bool = True
    received: asyncio.Queue[Received] = field(default_factory=asyncio.Queue)
    connections: int = 0
    tls: ssl.SSLContext | None = None  # the server side of TLS, when the broker speaks it
    _server: asyncio.Server | None = None
    _writer: asyncio.StreamWriter | None = None

    async def start(self) -> FakeBroker:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self.connections += 1
        try:
            while True:
                (size,) = INT32.unpack(await reader.readexactly(4))
                frame = memoryview(await reader.readexactly(size))
                (api_key,) = INT16.unpack_from(frame, 0)
                (version,) = INT16.unpack_from(frame, 2)
                cls = REQUESTS[api_key]
                hv = 2 if cls.is_flexible(version) else 1
                header, pos = RequestHeader.decode_from(frame, 0, hv)
                got = Received(
                    api_key,
                    version,
                    hv,
                    header.correlation_id,
                    header.client_id,
                    cls.decode(frame[pos:], version),
                    writer,
                )
                if api_key == ApiVersionsRequest.API_KEY and self.answer_api_versions:
                    self.answer(got, self.versions_answer())
                else:
                    self.received.put_nowait(got)
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    def versions_answer(self) -> ApiVersionsResponse:
        return ApiVersionsResponse(
            api_keys=[
                ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
                for k, (lo, hi) in self.api_versions.items()
            ]
        )

    async def next(self) -> Received:
        """The next request the broker received (ApiVersions aside, when it answers those)."""
        async with asyncio.timeout(WAIT):
            return await self.received.get()

    def answer(
        self,
        to: Received,
        response: Response,
        *,
        version: int | None = None,
        header_version: int | None = None,
        correlation_id: int | None = None,
    ) -> None:
        """Write the answer to ``to``: at its version and the header version Kafka uses for
        it, unless told otherwise."""
        to.writer.write(self.frame(to, response, version, header_version, correlation_id))

    def frame(
        self,
        to: Received,
        response: Response,
        version: int | None = None,
        header_version: int | None = None,
        correlation_id: int | None = None,
    ) -> bytes:
        """The bytes of the answer ``answer`` writes."""
        v = to.version if version is None else version
        if header_version is None:
            flexible = response.is_flexible(v)
            header_version = 1 if flexible and to.api_key != ApiVersionsRequest.API_KEY else 0
        frame = bytearray(4)
        cid = to.correlation_id if correlation_id is None else correlation_id
        ResponseHeader(correlation_id=cid).encode_into(frame, header_version)
        response.encode_into(frame, v)
        INT32.pack_into(frame, 0, len(frame) - 4)
        return bytes(frame)

    def write(self, data: bytes) -> None:
        """Raw bytes on the latest connection."""
        assert self._writer is not None
        self._writer.write(data)

    def drop(self) -> None:
        """Close the latest connection, as a broker that stops would."""
        if self._writer is not None:
            self._writer.close()

"""WebSocket frames against both sockets (push consumption and the event feed), with
``SLUICE_WS_MAX_FRAME_BYTES`` at 4096: a message of exactly the limit is taken (and answered),
one byte more closes the socket with 1009, as does a fragmented message whose fragments are
each small but add up to more; a flood of small frames costs bounded memory, whether the
client reads the answers or not, and other clients are served meanwhile."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerProcess
from tests.e2e.hostile.helpers import end_server, healthy, memory_bound, start_server

pytestmark = pytest.mark.slow

LIMIT = 4096
SOCKETS = ["/v1/share-groups/g/consume", "/v1/events"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = start_server(tmp_path_factory.mktemp("ws") / "data", SLUICE_WS_MAX_FRAME_BYTES=str(LIMIT))
    assert httpx.post(s.url + "/v1/topics", json={"name": "t"}).status_code == 201
    yield s
    end_server(s)


def url(server: ServerProcess, path: str) -> str:
    return f"ws://127.0.0.1:{server.port}{path}"


def message(size: int) -> str:
    """A JSON frame of exactly ``size`` bytes that neither socket takes (an error frame)."""
    head = '{"type": "credit", "n": 1, "pad": "'
    return head + "x" * (size - len(head) - 2) + '"}'


async def error_frame(ws: ClientConnection) -> dict[str, object]:
    """The next error frame (the event feed sends its snapshot first)."""
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if frame["type"] == "error":
            error: dict[str, object] = frame["error"]
            return error


async def closed_with(ws: ClientConnection) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code


@pytest.mark.parametrize("path", SOCKETS)
@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
async def test_a_message_of_exactly_the_limit_is_answered(
    server: ServerProcess, path: str, binary: bool
) -> None:
    async with connect(url(server, path), max_size=None) as ws:
        frame = message(LIMIT)
        assert len(frame.encode()) == LIMIT
        for _ in range(3):
            await ws.send(frame.encode() if binary else frame)
            assert (await error_frame(ws))["code"] == "INVALID_REQUEST"


@pytest.mark.parametrize("path", SOCKETS)
@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
async def test_one_byte_over_the_limit_closes_1009(
    server: ServerProcess, path: str, binary: bool
) -> None:
    async with connect(url(server, path), max_size=None) as ws:
        frame = message(LIMIT + 1)
        await ws.send(frame.encode() if binary else frame)
        assert await closed_with(ws) == 1009
    healthy(server)


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_fragmented_message_over_the_limit_closes_1009(
    server: ServerProcess, path: str
) -> None:
    async with connect(url(server, path), max_size=None) as ws:
        # five fragments of 1 KiB: each under the limit, 5 KiB together
        with contextlib.suppress(ConnectionClosed):  # closed before the last fragment
            await ws.send(["x" * 1024 for _ in range(5)])
        assert await closed_with(ws) == 1009


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_fragmented_message_within_the_limit_is_answered(
    server: ServerProcess, path: str
) -> None:
    async with connect(url(server, path), max_size=None) as ws:
        # one byte under the limit: the server's WebSocket library counts a fragmented message
        # of exactly the limit one byte over (it is closed with 1009, as a larger one is)
        frame = message(LIMIT - 1)
        await ws.send([frame[i : i + 512] for i in range(0, LIMIT - 1, 512)])
        assert (await error_frame(ws))["code"] == "INVALID_REQUEST"


@pytest.mark.parametrize("path", SOCKETS)
async def test_many_small_frames_fast(server: ServerProcess, path: str) -> None:
    """20,000 frames sent as fast as the socket takes them while the answers are read: every
    one is answered; then a client that sends without ever reading: the server stops reading
    it (its answers wait to be taken), so its memory stays bounded; others are served."""
    n = 20_000
    with memory_bound(server, 20, f"{n} small frames on {path}"):
        async with connect(url(server, path)) as ws:

            async def send() -> None:
                for _ in range(n):
                    await ws.send('{"type":"credit","n":1}')

            sender = asyncio.create_task(send())
            answered = 0
            while answered < n:
                answered += (await error_frame(ws))["code"] == "INVALID_REQUEST"
            await sender
    with memory_bound(server, 20, f"a client flooding {path} without reading"):
        # a raw socket: a client library would read the answers, and its closing handshake can
        # wait for ever on a peer that no longer reads; this client just goes away
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        frame = masked_text_frame('{"type":"credit","n":1}')
        sent = 0

        async def flood() -> None:
            nonlocal sent
            while True:
                writer.write(frame)
                await writer.drain()  # blocks once the server stops reading: flow control
                sent += 1

        flooding = asyncio.create_task(flood())
        await asyncio.sleep(2)
        took = await asyncio.to_thread(healthy, server)
        print(f"{sent} frames sent unread; a request meanwhile took {took * 1000:.0f} ms")
        flooding.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await flooding
        writer.transport.abort()
    healthy(server)


def masked_text_frame(text: str) -> bytes:
    """One text frame as a client sends it (masked; payloads under 126 bytes)."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    return (
        bytes([0x81, 0x80 | len(payload)])
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    )

"""Slowloris: clients that send their headers or their body a byte at a time, or nothing at
all. Each such connection is answered 408 ``REQUEST_TIMEOUT`` and closed within its deadline
(``SLUICE_HEADER_TIMEOUT_MS``, ``SLUICE_BODY_TIMEOUT_MS``, 1 s here), its memory is given back,
and other clients are served meanwhile."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest

from app.errors import ErrorCode
from tests.conftest import ServerProcess
from tests.e2e.hostile.helpers import (
    Answer,
    assert_error,
    closed_by_server,
    connect,
    end_server,
    healthy,
    memory_bound,
    read_answer,
    request,
    start_server,
)

pytestmark = pytest.mark.slow

TIMEOUT_S = 1.0
# the deadline, plus the time a loaded machine takes to notice and answer
MARGIN_S = 2.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = start_server(
        tmp_path_factory.mktemp("slow") / "data",
        SLUICE_HEADER_TIMEOUT_MS=str(int(TIMEOUT_S * 1000)),
        SLUICE_BODY_TIMEOUT_MS=str(int(TIMEOUT_S * 1000)),
    )
    r = httpx.post(s.url + "/v1/topics", json={"name": "t"})
    assert r.status_code == 201, r.text
    yield s
    end_server(s)


async def trickle(
    server: ServerProcess, head: bytes, byte: bytes, every: float
) -> tuple[float, bytes]:
    """Send ``head``, then ``byte`` every ``every`` seconds until the server answers or closes;
    returns how long that took and what the server sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    started = time.monotonic()
    writer.write(head)
    got = b""
    try:
        while time.monotonic() - started < 30:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), every)
            except TimeoutError:
                writer.write(byte)
                continue
            if not chunk:
                break
            got += chunk
    except ConnectionResetError:
        pass
    finally:
        writer.close()
    return time.monotonic() - started, got


def answer_of(raw: bytes) -> Answer:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
    return Answer(int(lines[0].split()[1]), headers, body, closed=True)


async def many_trickles(
    server: ServerProcess, n: int, head: bytes, byte: bytes
) -> list[tuple[float, bytes]]:
    """``n`` slow clients at once; a normal client is served while they trickle."""
    tasks = [asyncio.create_task(trickle(server, head, byte, 0.1)) for _ in range(n)]
    await asyncio.sleep(0.3)
    took = await asyncio.to_thread(healthy, server)
    assert took < 1.0, f"a normal request took {took:.2f} s among {n} slow clients"
    return await asyncio.gather(*tasks)


async def test_slow_headers_are_answered_408_and_closed(server: ServerProcess) -> None:
    head = b"GET /v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    with memory_bound(server, 5, "100 slow-header clients"):
        results = await many_trickles(server, 100, head, b"a")
    for took, raw in results:
        assert took < TIMEOUT_S + MARGIN_S, f"a slow-header client was held {took:.2f} s"
        assert_error(answer_of(raw), 408, ErrorCode.REQUEST_TIMEOUT)


async def test_slow_request_line_is_answered_408(server: ServerProcess) -> None:
    took, raw = await trickle(server, b"GET /v1/", b"a", 0.1)
    assert took < TIMEOUT_S + MARGIN_S
    assert_error(answer_of(raw), 408, ErrorCode.REQUEST_TIMEOUT)


@pytest.mark.parametrize(
    "target",
    ["/v1/topics/t/records", "/v1/topics"],
    ids=["produce (called directly)", "create topic (routed)"],
)
async def test_slow_bodies_are_answered_408_and_closed(server: ServerProcess, target: str) -> None:
    body_head = b'{"records": [{"value": "'
    head = request("POST", target, headers={"Content-Length": "100000"}, keep_alive=True)
    head += body_head
    with memory_bound(server, 5, f"100 slow-body clients of {target}"):
        results = await many_trickles(server, 100, head, b"x")
    for took, raw in results:
        assert took < TIMEOUT_S + MARGIN_S, f"a slow-body client was held {took:.2f} s"
        answer = answer_of(raw)
        assert_error(answer, 408, ErrorCode.REQUEST_TIMEOUT)
        assert answer.headers["connection"] == "close"


async def test_slow_chunked_body_is_answered_408(server: ServerProcess) -> None:
    head = (
        b"POST /v1/topics/t/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n"
    )
    took, raw = await trickle(server, head, b"1\r\n \r\n", 0.1)
    assert took < TIMEOUT_S + MARGIN_S
    assert_error(answer_of(raw), 408, ErrorCode.REQUEST_TIMEOUT)


async def test_a_body_trickled_after_an_answer_does_not_hold_the_connection(
    server: ServerProcess,
) -> None:
    """A GET answered without reading its (declared, never finished) body: the connection is
    closed within the header deadline although bytes keep coming."""
    head = request("GET", "/v1/topics", headers={"Content-Length": "100000"}, keep_alive=True)
    took, raw = await trickle(server, head, b"x", 0.1)
    assert raw.startswith(b"HTTP/1.1 200"), raw[:100]
    assert took < TIMEOUT_S + MARGIN_S, f"held {took:.2f} s"


def test_an_idle_connection_is_answered_408_and_closed(server: ServerProcess) -> None:
    with connect(server) as sock:
        started = time.monotonic()
        answer = read_answer(sock)
        assert time.monotonic() - started < TIMEOUT_S + MARGIN_S
    assert_error(answer, 408, ErrorCode.REQUEST_TIMEOUT)
    assert answer.closed


def test_a_keep_alive_connection_idle_after_its_answer_is_closed(server: ServerProcess) -> None:
    with connect(server) as sock:
        sock.sendall(request("GET", "/v1/topics", keep_alive=True))
        first = read_answer(sock, close_within=0)
        assert first.status == 200
        started = time.monotonic()
        assert closed_by_server(sock, TIMEOUT_S + MARGIN_S)
        assert time.monotonic() - started < TIMEOUT_S + MARGIN_S

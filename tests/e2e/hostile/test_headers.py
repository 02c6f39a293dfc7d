"""Huge headers: one header of 1 MiB, 10,000 small ones, a request line of 1 MiB. Each is
answered 431 ``REQUEST_HEADER_FIELDS_TOO_LARGE`` and the connection closed, with the server's
memory bounded while 20 such requests are in flight at once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from app.errors import ErrorCode
from tests.conftest import ServerProcess
from tests.e2e.hostile.helpers import (
    MiB,
    assert_error,
    end_server,
    exchange,
    healthy,
    memory_bound,
    request,
    start_server,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = start_server(tmp_path_factory.mktemp("headers") / "data")
    yield s
    end_server(s)


HUGE = {
    "one header of 1 MiB": request(
        "GET", "/v1/topics", headers={"X-Big": "a" * MiB}, keep_alive=True
    ),
    "10,000 headers": request(
        "GET", "/v1/topics", headers={f"X-H{i}": "v" for i in range(10_000)}, keep_alive=True
    ),
    "a 1 MiB path": request("GET", "/v1/topics/" + "a" * MiB, keep_alive=True),
    "a 1 MiB query": request("GET", "/v1/topics?x=" + "a" * MiB, keep_alive=True),
    "101 headers": request(
        "GET", "/v1/topics", headers={f"X-H{i}": "v" for i in range(100)}, keep_alive=True
    ),
}


@pytest.mark.parametrize("raw", HUGE.values(), ids=HUGE.keys())
async def test_huge_headers_are_answered_431(server: ServerProcess, raw: bytes) -> None:
    with memory_bound(server, 25, "20 at once"):
        answers = await asyncio.gather(
            *(asyncio.to_thread(exchange, server, raw) for _ in range(20))
        )
        healthy(server)
    for answer in answers:
        assert_error(answer, 431, ErrorCode.REQUEST_HEADER_FIELDS_TOO_LARGE)
        assert answer.closed


def test_headers_just_under_the_limits_are_served(server: ServerProcess) -> None:
    # 100 fields with Host, Connection and Content-Length; 64 KiB with the request line
    many = request("GET", "/v1/topics", headers={f"X-H{i}": "v" for i in range(97)})
    assert exchange(server, many).status == 200
    big = request("GET", "/v1/topics", headers={"X-Big": "a" * (60 * 1024)})
    assert exchange(server, big).status == 200

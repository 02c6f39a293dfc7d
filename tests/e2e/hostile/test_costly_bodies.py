"""Bodies within the byte limit whose JSON would cost far more to parse than they take on the
wire: 16 MiB of empty arrays is 5.6 million lists, half a gigabyte once parsed. A real server
process at its default limits refuses each with 413 ``REQUEST_TOO_COMPLEX`` before parsing
it, also when the arrays are a record's JSON value, and its peak memory stays far below what
the parse would have cost; other clients are served meanwhile."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.e2e.hostile.helpers import MiB, end_server, healthy, peak_rss_kib, start_server

pytestmark = pytest.mark.slow

LIMIT = 16 * MiB  # SLUICE_MAX_REQUEST_BYTES's default


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = start_server(tmp_path_factory.mktemp("costly") / "data")
    with httpx.Client(base_url=s.url) as c:
        assert c.post("/v1/topics", json={"name": "t"}).status_code == 201
    yield s
    end_server(s)


def empty_arrays(size: int) -> bytes:
    """``[[],[],…]`` of ``size`` bytes (give or take two)."""
    return b"[" + b",".join([b"[]"] * (size // 3)) + b"]"


def in_a_record(size: int) -> bytes:
    head, tail = b'{"encoding": "json", "records": [{"value": ', b"}]}"
    return head + empty_arrays(size - len(head) - len(tail) - 2) + tail


BODIES = {
    "/v1/topics/t/records": [empty_arrays(LIMIT - 2), in_a_record(LIMIT)],
    "/v1/produce": [empty_arrays(LIMIT - 2)],
    "/v1/topics": [empty_arrays(LIMIT - 2)],
    "/v1/groups/g/heartbeat": [empty_arrays(LIMIT - 2)],
    "/v1/share-groups/g/fetch": [empty_arrays(LIMIT - 2)],
}


def test_bodies_of_empty_arrays_are_refused_unparsed(server: ServerProcess) -> None:
    before = peak_rss_kib(server)
    with httpx.Client(base_url=server.url, timeout=60) as c:
        for path, bodies in BODIES.items():
            for body in bodies:
                assert len(body) <= LIMIT
                r = c.post(path, content=body)
                assert r.status_code == 413, (path, r.status_code, r.text[:300])
                assert r.json()["error"]["code"] == "REQUEST_TOO_COMPLEX", r.text
                healthy(server)
    grown = (peak_rss_kib(server) - before) / 1024
    print(f"6 bodies of 16 MiB of empty arrays: peak RSS grew {grown:.1f} MiB")
    # parsing one of them alone costs the server about 400 MiB
    assert grown < 100, f"the server's peak memory grew {grown:.1f} MiB"
    with httpx.Client(base_url=server.url) as c:
        assert c.get("/v1/topics/t").json()["partitions"][0]["high_watermark"] == 0

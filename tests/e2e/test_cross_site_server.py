"""Pages of other sites against a real server process without keys (docs/security.md#browsers),
both as ``make serve`` runs it (127.0.0.1) and as the container recipe does (0.0.0.0 with
anonymous access allowed): what a page could send, a delete-records with a foreign Origin and a
text/plain body, a request to a foreign name, and a WebSocket handshake whose Host and Origin
are both a foreign name (DNS rebinding), are all refused; curl, without Origin, is served. A name
given to ``serve --allowed-hosts`` is answered."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]
EVIL = "http://evil.example"
DELETE_RECORDS = '{"partitions": [{"partition": 0, "before_offset": 3}]}'


def curl(*args: str) -> tuple[int, bytes]:
    """``curl`` as a person types it (no Origin): (status, body)."""
    run = subprocess.run(
        ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", *args],
        capture_output=True,
        timeout=30,
        check=True,
    )
    body, _, status = run.stdout.rpartition(b"\n")
    return int(status), body


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


@pytest.mark.parametrize(
    "env",
    [{}, {"SLUICE_HOST": "0.0.0.0", "SLUICE_ALLOW_ANONYMOUS": "true"}],
    ids=["loopback", "container-recipe"],
)
async def test_pages_of_other_sites_and_foreign_names_are_refused(
    server_factory: ServerFactory, env: dict[str, str]
) -> None:
    server = server_factory(**env)
    server.start()
    url = server.url
    status, _ = curl("-X", "POST", f"{url}/v1/topics", "-d", '{"name": "orders"}')
    assert status == 201
    records = '{"records": [{"value": "a"}, {"value": "b"}, {"value": "c"}, {"value": "d"}]}'
    status, _ = curl("-X", "POST", f"{url}/v1/topics/orders/records", "-d", records)
    assert status == 200
    with httpx.Client(base_url=url, timeout=10) as http:
        # a page of another site: a form or a fetch with a text/plain body
        page = {"Origin": EVIL, "Content-Type": "text/plain"}
        r = http.post("/v1/topics/orders/delete-records", content=DELETE_RECORDS, headers=page)
        assert (r.status_code, code(r)) == (403, "ORIGIN_NOT_ALLOWED"), r.text
        r = http.post("/v1/topics/orders/records", content=records, headers=page)
        assert (r.status_code, code(r)) == (403, "ORIGIN_NOT_ALLOWED"), r.text
        offsets = "/v1/topics/orders/partitions/0/offsets"
        assert http.get(offsets, params={"at": "earliest"}).json()["offset"] == 0
        assert http.get(offsets).json()["offset"] == 4
        # a name of the site's that resolves to this machine: reads are refused too
        foreign = {"Host": f"evil.example:{server.port}"}
        for path in ("/v1/topics", "/v1/topics/orders/partitions/0/records", "/"):
            r = http.get(path, headers=foreign)
            assert (r.status_code, code(r)) == (403, "HOST_NOT_ALLOWED"), r.text
            assert "SLUICE_ALLOWED_HOSTS" in r.json()["error"]["message"]
        rebound = {**foreign, "Origin": f"http://evil.example:{server.port}", **page}
        r = http.post("/v1/topics/orders/delete-records", content=DELETE_RECORDS, headers=rebound)
        assert (r.status_code, code(r)) == (403, "HOST_NOT_ALLOWED"), r.text
    # the same for the sockets: the page's URL names the site, the connection reaches here
    for path in ("/v1/events", "/v1/share-groups/g/consume"):
        with (
            socket.create_connection(("127.0.0.1", server.port)) as sock,
            pytest.raises(InvalidStatus) as refused,
        ):
            async with connect(
                f"ws://evil.example:{server.port}{path}",
                sock=sock,
                origin=Origin(f"http://evil.example:{server.port}"),
            ):
                pass
        answer = refused.value.response
        assert answer.status_code == 403
        assert orjson.loads(answer.body or b"{}")["error"]["code"] == "HOST_NOT_ALLOWED"
    # curl, without Origin, is served; so is the server's own page
    status, body = curl(
        "-X", "POST", f"{url}/v1/topics/orders/delete-records", "-d", DELETE_RECORDS
    )
    assert status == 200, body
    assert orjson.loads(body)["partitions"][0]["log_start_offset"] == 3
    async with connect(f"ws://127.0.0.1:{server.port}/v1/events", origin=Origin(url)) as ws:
        assert orjson.loads(await ws.recv())["type"] == "snapshot"
    assert server.stop() == 0


def test_a_name_given_to_serve_is_answered(server_factory: ServerFactory) -> None:
    server = server_factory(args=("--allowed-hosts", "queue.lan"))
    server.start()
    with httpx.Client(base_url=server.url, timeout=10) as http:
        r = http.get("/v1/topics", headers={"Host": f"queue.lan:{server.port}"})
        assert r.status_code == 200, r.text
        r = http.get("/v1/topics", headers={"Host": f"other.lan:{server.port}"})
        assert (r.status_code, code(r)) == (403, "HOST_NOT_ALLOWED")
    assert server.stop() == 0

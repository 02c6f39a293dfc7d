"""Push consumption over WebSocket against a real server process: the credit window, acks on
the socket, auto-renew, release on close and on a dropped connection, queue semantics across
sockets, frame errors, and kill -9 mid-stream with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerProcess, free_port

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def srv(
    tmp_path_factory: pytest.TempPathFactory, backend_env: dict[str, str]
) -> Iterator[ServerProcess]:
    import os

    s = ServerProcess(
        tmp_path_factory.mktemp("push") / "data",
        free_port(),
        {**os.environ, **backend_env, "SLUICE_WS_MAX_FRAME_BYTES": "4096"},
    )
    s.start()
    yield s
    if backend_env:  # a gateway's members leave before the cluster is emptied
        s.stop()
    s.kill()


@pytest.fixture
async def http(srv: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=srv.url, timeout=30) as c:
        yield c


async def setup(
    c: httpx.AsyncClient, topic: str, group: str, partitions: int = 1, **config: Any
) -> None:
    assert (
        await c.post("/v1/topics", json={"name": topic, "partitions": partitions})
    ).status_code == 201
    r = await c.patch(
        f"/v1/share-groups/{group}/config", json={"auto_offset_reset": "earliest", **config}
    )
    assert r.status_code == 200, r.text


async def produce(c: httpx.AsyncClient, topic: str, n: int, partition: int = 0) -> None:
    records = [{"value": f"v{i}", "partition": partition} for i in range(n)]
    r = await c.post(f"/v1/topics/{topic}/records", json={"records": records})
    assert r.status_code == 200, r.text


def ws_url(srv: ServerProcess, group: str) -> str:
    return f"ws://127.0.0.1:{srv.port}/v1/share-groups/{group}/consume"


async def recv(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    frame = orjson.loads(await asyncio.wait_for(ws.recv(), timeout))
    assert isinstance(frame, dict)
    return frame


async def send(ws: ClientConnection, frame: dict[str, Any]) -> None:
    await ws.send(orjson.dumps(frame).decode())


async def subscribe(ws: ClientConnection, topics: list[str], **extra: Any) -> dict[str, Any]:
    await send(ws, {"type": "subscribe", "topics": topics, **extra})
    frame = await recv(ws)
    assert frame["type"] == "subscribed", frame
    return frame


async def take(ws: ClientConnection, n: int, results: int = 0) -> list[dict[str, Any]]:
    """Frames until ``n`` records and ``results`` ack_result frames came (more records is a
    failure; every ack_result must be free of errors). Records may come before the ack_result
    of the acknowledgement that made room for them."""
    got: list[dict[str, Any]] = []
    while len(got) < n or results:
        frame = await recv(ws)
        if frame["type"] == "ack_result" and results:
            assert all(r["error"] is None for r in frame["results"]), frame
            results -= 1
            continue
        assert frame["type"] == "records", frame
        got.extend(frame["records"])
    assert len(got) == n, f"{len(got)} records came, the window was {n}"
    return got


async def nothing_more(ws: ClientConnection, within: float = 0.5) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), within)


def ack(records: list[dict[str, Any]], kind: str = "accept", **extra: Any) -> dict[str, Any]:
    return {
        "type": "ack",
        "acknowledgements": [
            {
                "topic": r["topic"],
                "partition": r["partition"],
                "first_offset": r["offset"],
                "last_offset": r["offset"],
                "type": kind,
                **extra,
            }
            for r in records
        ],
    }


async def views(c: httpx.AsyncClient, group: str, topic: str, p: int = 0) -> list[dict[str, Any]]:
    r = await c.get(f"/v1/share-groups/{group}/partitions/{topic}/{p}/records")
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["records"]
    return out


async def until(check: Callable[[], Any], timeout: float = 10) -> Any:
    """Poll the server until ``check`` answers something true (a real server has no clock to
    step); returns that answer."""
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


@pytest.mark.embedded_only("share_record_view")
async def test_window_honoured_under_a_burst_and_reopened_by_acks(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "burst", "g-burst")
    async with connect(ws_url(srv, "g-burst")) as ws:
        sub = await subscribe(ws, ["burst"], credits=10)
        assert sub["credits"] == 10 and sub["member_id"]
        await produce(http, "burst", 500)
        first = await take(ws, 10)  # pushed as they arrive: the client never asked
        assert [r["offset"] for r in first] == list(range(10))
        assert all(r["delivery_count"] == 1 and r["value"] == f"v{r['offset']}" for r in first)
        await nothing_more(ws)
        described = (await http.get("/v1/share-groups/g-burst")).json()["partitions"][0]
        assert described["acquired"] == 10

        await send(ws, ack(first[:4]) | {"id": "a1"})
        frames = [await recv(ws) for _ in range(2)]  # the four acknowledged make room for four
        (result,) = [f for f in frames if f["type"] == "ack_result"]
        assert result == {
            "type": "ack_result",
            "results": [{"topic": "burst", "partition": 0, "error": None}],
            "id": "a1",
        }
        (pushed,) = [f for f in frames if f["type"] == "records"]
        more = pushed["records"]
        assert [r["offset"] for r in more] == [10, 11, 12, 13]
        await nothing_more(ws)

        await send(ws, {"type": "credit", "n": 6})
        wider = await take(ws, 6)
        assert [r["offset"] for r in wider] == list(range(14, 20))
        await nothing_more(ws)
        states = {v["offset"]: v["state"] for v in await views(http, "g-burst", "burst")}
        # 0-3 acknowledged: the window starts after them
        assert sorted(states) == list(range(4, 20)) and set(states.values()) == {"acquired"}


@pytest.mark.embedded_only("share_record_view", "release_delay")
async def test_ack_types_on_the_socket(srv: ServerProcess, http: httpx.AsyncClient) -> None:
    await setup(http, "types", "g-types", dead_letter_topic=None)
    await produce(http, "types", 4)
    async with connect(ws_url(srv, "g-types")) as ws:
        await subscribe(ws, ["types"], credits=4)
        got = await take(ws, 4)
        frame = ack(got[:1])
        frame["acknowledgements"] += ack(got[1:2], "reject")["acknowledgements"]
        frame["acknowledgements"] += ack(got[2:3], "release", delay_ms=60_000)["acknowledgements"]
        frame["acknowledgements"] += ack(got[3:4], "renew")["acknowledgements"]
        await send(ws, frame)
        await produce(http, "types", 3)
        # three left the window (the renewed one stays out); the delayed one is not due yet
        more = await take(ws, 3, results=1)
        assert [r["offset"] for r in more] == [4, 5, 6]
        by_offset = {v["offset"]: v for v in await views(http, "g-types", "types")}
        # 0 accepted and 1 rejected are done: the window starts at 2
        assert min(by_offset) == 2
        assert by_offset[2]["state"] == "available" and by_offset[2]["available_at"]
        assert by_offset[3]["state"] == "acquired"

        # a malformed range is that partition's error; nothing of it is applied
        bad = ack(more[:1])
        bad["acknowledgements"][0]["first_offset"] = 6
        bad["acknowledgements"][0]["last_offset"] = 4
        await send(ws, bad)
        (res,) = (await recv(ws))["results"]
        assert res["error"]["code"] == "INVALID_REQUEST"
        # a record this member does not hold: INVALID_RECORD_STATE, the window unchanged
        await send(ws, ack([{"topic": "types", "partition": 0, "offset": 2}]))
        (res,) = (await recv(ws))["results"]
        assert res["error"]["code"] == "INVALID_RECORD_STATE"
        await nothing_more(ws, 0.3)


@pytest.mark.embedded_only("share_record_view")
async def test_auto_renew_keeps_a_record_past_its_lock(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "renew", "g-renew", record_lock_duration_ms=1000)
    await produce(http, "renew", 1)
    async with connect(ws_url(srv, "g-renew")) as ws:
        await subscribe(ws, ["renew"], credits=1, auto_renew=True)
        (record,) = await take(ws, 1)
        first = (await views(http, "g-renew", "renew"))[0]
        started = time.monotonic()
        # three lock durations: the record stays acquired by this member, delivered once
        seen_expiries = {first["lock_expires_at"]}
        while time.monotonic() - started < 3.0:
            (v,) = await views(http, "g-renew", "renew")
            assert v["state"] == "acquired" and v["delivery_count"] == 1, v
            seen_expiries.add(v["lock_expires_at"])
            await asyncio.sleep(0.1)
        # renewed a few times (about every half lock), not on every look
        assert 3 <= len(seen_expiries) <= 12, seen_expiries
        await send(ws, ack([record]))
        assert (await recv(ws))["results"][0]["error"] is None
        assert (await views(http, "g-renew", "renew")) == []  # acknowledged: the window moved


async def test_without_auto_renew_an_expired_lock_reopens_the_window(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "expire", "g-expire", record_lock_duration_ms=1000)
    await produce(http, "expire", 1)
    async with connect(ws_url(srv, "g-expire")) as ws:
        await subscribe(ws, ["expire"], credits=1)
        (first,) = await take(ws, 1)
        assert first["delivery_count"] == 1
        # not acknowledged: the lock expires, the session notices, the record comes again
        (again,) = await take(ws, 1)
        assert again["offset"] == first["offset"] and again["delivery_count"] == 2


@pytest.mark.embedded_only("share_record_view", "released_delivery_count")
@pytest.mark.parametrize("how", ["close", "drop"])
async def test_session_end_releases_with_delivery_count_lowered(
    srv: ServerProcess, http: httpx.AsyncClient, how: str
) -> None:
    topic, group = f"end-{how}", f"g-end-{how}"
    await setup(http, topic, group)
    await produce(http, topic, 5)
    ws = await connect(ws_url(srv, group))
    await subscribe(ws, [topic], credits=3)
    await take(ws, 3)
    if how == "close":
        await ws.close()
    else:  # the connection drops: no close frame, the TCP connection just ends
        ws.transport.abort()

    async def released() -> list[dict[str, Any]] | None:
        vs = await views(http, group, topic)
        return vs if vs and all(v["state"] == "available" for v in vs[:3]) else None

    vs = await until(released)
    assert [v["delivery_count"] for v in vs[:3]] == [0, 0, 0]
    assert (await http.get(f"/v1/share-groups/{group}")).json()["members"] == []


async def test_two_sockets_share_a_group(srv: ServerProcess, http: httpx.AsyncClient) -> None:
    await setup(http, "queue", "g-queue", partitions=2)
    total = 400
    seen: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}
    done = asyncio.Event()

    async def consumer(name: str) -> None:
        async with connect(ws_url(srv, "g-queue")) as ws:
            await subscribe(ws, ["queue"], credits=20)
            while not done.is_set():
                try:
                    frame = await recv(ws, 0.2)
                except TimeoutError:
                    continue
                if frame["type"] != "records":
                    continue
                seen[name].extend((r["partition"], r["offset"]) for r in frame["records"])
                await send(ws, ack(frame["records"]))
                if len(seen["a"]) + len(seen["b"]) >= total:
                    done.set()

    tasks = [asyncio.create_task(consumer(n)) for n in ("a", "b")]
    for p in (0, 1):
        for _ in range(4):
            await produce(http, "queue", total // 8, partition=p)
    await asyncio.wait_for(done.wait(), 30)
    await asyncio.gather(*tasks)
    a, b = set(seen["a"]), set(seen["b"])
    assert a and b, "both sockets got records"
    assert not a & b, "no record went to both"
    assert len(a) + len(b) == total and len(seen["a"]) + len(seen["b"]) == total


async def test_one_socket_carries_several_topics(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "multi-a", "g-multi")
    assert (await http.post("/v1/topics", json={"name": "multi-b"})).status_code == 201
    await produce(http, "multi-a", 3)
    await produce(http, "multi-b", 3)
    async with connect(ws_url(srv, "g-multi")) as ws:
        await subscribe(ws, ["multi-a", "multi-b"], credits=6)
        got = await take(ws, 6)
        assert sorted((r["topic"], r["offset"]) for r in got) == [
            (t, o) for t in ("multi-a", "multi-b") for o in range(3)
        ]


async def test_frame_errors_keep_the_socket_open(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "errs", "g-errs")
    async with connect(ws_url(srv, "g-errs")) as ws:
        for bad, code in [
            ("not json", "INVALID_REQUEST"),
            ("[1, 2]", "INVALID_REQUEST"),
            ('{"type": "dance"}', "INVALID_REQUEST"),
            ('{"type": "ack", "acknowledgements": []}', "INVALID_REQUEST"),  # before subscribe
            ('{"type": "subscribe", "topics": []}', "INVALID_REQUEST"),
            ('{"type": "subscribe", "topics": ["errs"], "credits": 0}', "INVALID_REQUEST"),
            (
                '{"type": "subscribe", "topics": ["errs"], "member_id": "ghost"}',
                "UNKNOWN_MEMBER_ID",
            ),
        ]:
            await ws.send(bad)
            frame = await recv(ws)
            assert frame["type"] == "error" and frame["error"]["code"] == code, (bad, frame)
        # still open: subscribing works, and a second subscribe is refused
        await subscribe(ws, ["errs"])
        await send(ws, {"type": "subscribe", "topics": ["errs"]})
        assert (await recv(ws))["error"]["code"] == "INVALID_REQUEST"
        await send(ws, {"type": "credit", "n": "many"})
        assert (await recv(ws))["error"]["code"] == "INVALID_REQUEST"
        # a frame over the limit (4096 bytes here) closes with 1009
        await ws.send("x" * 5000)
        with pytest.raises(ConnectionClosed) as closed:
            await recv(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    # nothing stays acquired or joined: the socket's end leaves the group once the server has
    # seen the close, which may come after the client saw it (on Kafka, a heartbeat later)

    async def left() -> bool:
        described = (await http.get("/v1/share-groups/g-errs")).json()
        return bool(described["members"] == [])

    assert await until(left)


@pytest.mark.embedded_only("share_record_view")
async def test_resume_a_member_joined_over_http(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "resume", "g-resume")
    r = await http.post(
        "/v1/share-groups/g-resume/heartbeat",
        json={"member_id": "worker-7", "member_epoch": 0, "subscribed_topics": ["resume"]},
    )
    assert r.status_code == 200
    await produce(http, "resume", 2)
    async with connect(ws_url(srv, "g-resume")) as ws:
        sub = await subscribe(ws, ["resume"], member_id="worker-7", credits=2)
        assert sub["member_id"] == "worker-7"
        got = await take(ws, 2)
        assert {v["member_id"] for v in await views(http, "g-resume", "resume")} == {"worker-7"}
        # a second socket may not take the same member
        async with connect(ws_url(srv, "g-resume")) as other:
            await send(other, {"type": "subscribe", "topics": ["resume"], "member_id": "worker-7"})
            assert (await recv(other))["type"] == "error"
        await send(ws, ack(got))
        assert (await recv(ws))["results"][0]["error"] is None


@pytest.mark.embedded_only("killed_gateway_members")
async def test_kill_minus_9_mid_stream_loses_no_acknowledgement(
    tmp_path: Path, server_factory: Callable[..., ServerProcess]
) -> None:
    total = 3000
    s = server_factory(tmp_path / "data")
    s.start()
    async with httpx.AsyncClient(base_url=s.url, timeout=30) as c:
        await setup(c, "crash", "g-crash", partitions=2, record_lock_duration_ms=2000)
        for p in (0, 1):
            for _ in range(3):
                await produce(c, "crash", total // 6, partition=p)
    acked: set[tuple[int, int]] = set()
    # acknowledged before the crash (the ack_result came back)
    async with connect(ws_url(s, "g-crash")) as ws:
        await subscribe(ws, ["crash"], credits=100)
        pending: dict[str, list[dict[str, Any]]] = {}
        n = 0
        while len(acked) < total // 2:
            frame = await recv(ws)
            if frame["type"] == "records":
                n += 1
                pending[str(n)] = frame["records"]
                await send(ws, ack(frame["records"]) | {"id": str(n)})
            elif frame["type"] == "ack_result":
                assert all(r["error"] is None for r in frame["results"])
                acked.update((r["partition"], r["offset"]) for r in pending.pop(frame["id"]))
        s.kill()  # acks in flight may or may not have landed; the answered ones must have
    in_flight = {(r["partition"], r["offset"]) for records in pending.values() for r in records}
    s.start()
    after: list[tuple[int, int]] = []

    async def lag() -> int:
        async with httpx.AsyncClient(base_url=s.url) as c:
            parts = (await c.get("/v1/share-groups/g-crash")).json()["partitions"]
        return sum(p["lag"] for p in parts)

    async with connect(ws_url(s, "g-crash")) as ws:
        await subscribe(ws, ["crash"], credits=100)
        deadline = time.monotonic() + 30
        while True:
            try:
                frame = await recv(ws, 0.5)
            except TimeoutError:
                if await lag() == 0:
                    break
                assert time.monotonic() < deadline, "not all records acknowledged after restart"
                continue
            assert frame["type"] in ("records", "ack_result"), frame
            if frame["type"] == "records":
                after.extend((r["partition"], r["offset"]) for r in frame["records"])
                await send(ws, ack(frame["records"]))
    redelivered = acked & set(after)
    assert not redelivered, f"{len(redelivered)} acknowledged records came again"
    everything = {(p, o) for p in (0, 1) for o in range(total // 2)}
    # every record was acknowledged once: answered before the crash, after the restart, or in
    # flight at the crash (landed before it, so not delivered again)
    assert acked | set(after) | in_flight == everything
    assert len(after) == len(set(after))
    s.stop()


@pytest.mark.embedded_only("share_record_counts")
async def test_a_socket_that_never_reads_gets_only_its_window(
    srv: ServerProcess, http: httpx.AsyncClient
) -> None:
    await setup(http, "deaf", "g-deaf")
    async with connect(ws_url(srv, "g-deaf"), max_queue=1) as ws:
        await subscribe(ws, ["deaf"], credits=50)
        for _ in range(20):
            await produce(http, "deaf", 250)

        async def acquired() -> int:
            parts = (await http.get("/v1/share-groups/g-deaf")).json()["partitions"]
            return int(parts[0]["acquired"]) if parts else 0

        assert await until(acquired) == 50
        await produce(http, "deaf", 1000)
        assert await acquired() == 50  # 6,000 records produced, 50 out: the window holds
        assert (await http.get("/v1/share-groups/g-deaf")).json()["partitions"][0]["lag"] == 6000

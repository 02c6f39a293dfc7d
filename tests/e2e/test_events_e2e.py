"""The event feed against a real ``python -m app serve`` process, with the ``websockets`` client:
the snapshot, how soon a produce shows, the close at shutdown, and what sockets that never
read cost the server while it works."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]


def ws_url(server: ServerProcess) -> str:
    return f"ws://127.0.0.1:{server.port}/v1/events"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def frame(ws: ClientConnection, timeout: float = 5) -> dict[str, Any]:
    raw = await asyncio.wait_for(ws.recv(), timeout)
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


def hw(topic: dict[str, Any]) -> int:
    return sum(p["high_watermark"] for p in topic["partitions"])


async def test_snapshot_a_produce_within_a_second_and_1001_at_shutdown(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()
    server.start()
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as c:
        r = await c.post("/v1/topics", json={"name": "orders", "partitions": 3})
        assert r.status_code == 201, r.text
        async with connect(ws_url(server)) as ws:
            snap = await frame(ws)
            assert snap["type"] == "snapshot" and snap["interval_ms"] == 500
            assert [t["topic"] for t in snap["topics"]] == ["orders"] and hw(snap["topics"][0]) == 0
            r = await c.post("/v1/topics/orders/records", json={"records": [{"value": "a"}] * 7})
            assert r.status_code == 200, r.text
            answered = time.monotonic()
            while True:
                event = await frame(ws)
                topics = {t["topic"]: t for t in event["changes"]["topics"]}
                if "orders" in topics and hw(topics["orders"]) == 7:
                    break
            delay = time.monotonic() - answered
            print(f"the produce showed after {delay:.3f} s")
            assert delay < 1.0, f"the produce showed after {delay:.3f} s"
            assert server.proc is not None
            await asyncio.to_thread(server.stop)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await frame(ws)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
    assert server.proc is not None and server.proc.returncode == 0


async def stalled_socket(server: ServerProcess) -> ClientConnection:
    """A socket that never reads: a small receive buffer and no compression (the server's
    frames then fill the connection's buffers within a second), no keepalive pings of its
    own."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    return await connect(
        ws_url(server), sock=sock, compression=None, ping_interval=None, max_queue=1
    )


async def test_sockets_that_never_read_cost_bounded_memory(
    server_factory: ServerFactory, group_session_timeout: Callable[[str, int], None]
) -> None:
    """20 sockets never read while 50,000 records are produced in 1,000 requests over about ten
    seconds and groups change. Topic ``wide`` (500 partitions) makes a frame of about 45 KB
    that changes every tick (50 ms): 20 sockets would be sent 18 MB a second, far more than
    the connections' buffers take in ten seconds. A socket that never reads holds on the
    server at most one pending entry per entity (here 5: three topics, two groups; a frame of
    them all is some 50 KB) and what uvicorn buffers before it stops writing (64 KiB and the
    frame that crossed it): about 20 × 0.3 MB = 6 MB. The bound, 30 MB over the RSS after
    warm-up, leaves the rest for the server's own work; a queue of every frame would pass it
    within seconds."""
    server = server_factory(SLUICE_EVENTS_INTERVAL_MS="50", SLUICE_FSYNC="interval")
    server.start()
    # on a gateway, the churned members (who never heartbeat again) end within a second, not
    # by Kafka's default session timeout after the test
    group_session_timeout("billing", 1000)
    assert server.proc is not None
    pid = server.proc.pid
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
        for name, parts in (("wide", 500), ("jobs", 4), ("probe", 1)):
            r = await c.post("/v1/topics", json={"name": name, "partitions": parts})
            assert r.status_code == 201, r.text
        r = await c.patch("/v1/share-groups/workers/config", json={"auto_offset_reset": "earliest"})
        assert r.status_code == 200, r.text
        share = await c.post(
            "/v1/share-groups/workers/heartbeat",
            json={"member_id": None, "member_epoch": 0, "subscribed_topics": ["jobs"]},
        )
        assert share.status_code == 200, share.text
        worker = share.json()["member_id"]
        batch = {"records": [{"value": f"record-{i:05d}"} for i in range(50)]}

        async def produce(requests: int, pause: float) -> None:
            for i in range(requests):
                r = await c.post(
                    f"/v1/topics/{'jobs' if i % 4 == 0 else 'wide'}/records", json=batch
                )
                assert r.status_code == 200, r.text
                await asyncio.sleep(pause)

        async def churn_groups(i: int) -> None:
            body = {"member_epoch": 0, "member_id": f"m{i}", "subscribed_topics": ["jobs"]}
            r = await c.post("/v1/groups/billing/heartbeat", json=body)
            assert r.status_code == 200, r.text
            got = await c.post(
                "/v1/share-groups/workers/fetch", json={"member_id": worker, "max_records": 300}
            )
            assert got.status_code == 200, got.text
            acks = [
                {
                    "topic": a["topic"],
                    "partition": a["partition"],
                    "first_offset": a["first_offset"],
                    "last_offset": a["last_offset"],
                    "type": "accept" if k % 3 else "release",
                }
                for k, a in enumerate(got.json()["acquired"])
            ]
            r = await c.post(
                "/v1/share-groups/workers/acknowledge",
                json={"member_id": worker, "acknowledgements": acks},
            )
            assert r.status_code == 200, r.text

        reader = await connect(ws_url(server), max_size=None)
        assert (await frame(reader))["type"] == "snapshot"
        seen: list[dict[str, Any]] = []

        async def read() -> None:
            while True:
                seen.append(await frame(reader, timeout=30))

        reading = asyncio.create_task(read())
        stalled = [await stalled_socket(server) for _ in range(20)]
        try:
            await produce(40, 0)  # warm-up: the allocator, the routes, the sockets' first frames
            await churn_groups(0)
            await asyncio.sleep(1)
            before = peak = rss_kib(pid)
            started = time.monotonic()
            producing = asyncio.create_task(produce(1000, 0.008))
            rounds = 0
            while not producing.done():
                rounds += 1
                await churn_groups(rounds)
                peak = max(peak, rss_kib(pid))
                await asyncio.sleep(0.1)
            await producing
            load_s = time.monotonic() - started
            events_during_load = len(seen)
            # a reading client still gets events, promptly
            r = await c.post("/v1/topics/probe/records", json={"records": [{"value": "p"}]})
            assert r.status_code == 200, r.text
            answered = time.monotonic()
            while not any(
                t["topic"] == "probe" and hw(t) == 1
                for f in seen
                for t in f.get("changes", {}).get("topics", [])
            ):
                assert time.monotonic() - answered < 2, "the probe never showed"
                await asyncio.sleep(0.01)
            probe_delay = time.monotonic() - answered
            after = rss_kib(pid)
        finally:
            reading.cancel()
            for ws in stalled:
                ws.transport.abort()
            await reader.close()
        print(
            f"RSS before {before} KiB, peak {peak} KiB (+{(peak - before) / 1024:.1f} MiB), "
            f"after {after} KiB; load {load_s:.1f} s, {rounds} group rounds; "
            f"{events_during_load} events read; probe shown after {probe_delay:.3f} s"
        )
        assert load_s > 8 and events_during_load >= 50
        assert peak - before < 30 * 1024, f"RSS grew by {(peak - before) / 1024:.1f} MiB"
        wide = (await c.get("/v1/topics/wide")).json()["partitions"]
        jobs = (await c.get("/v1/topics/jobs")).json()["partitions"]
        assert sum(p["high_watermark"] for p in wide + jobs) == 52_000
    server.stop()

"""Quotas in process, on a clock that moves only when told: over its quota a principal's
produce, read and share fetch are refused with 429 and ``Retry-After`` before any work (nothing
appended, nothing acquired), and admitted again after the throttle time; its WebSocket push
waits instead; another principal is unaffected; the counters; the admin endpoints; the
``quotas`` command against a running app.

Who is asking is set at the authentication seam: ``AsPrincipal`` stores a principal in the
scope as ``RequestGate`` does once it has checked a key.
"""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import orjson
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from app.clock import FakeClock
from app.config import Settings
from app.security import ANONYMOUS, PRINCIPAL, quotas_cli
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, metrics, produce, watermarks
from tests.integration.helpers import metric as sample
from tests.integration.share_helpers import ack_item, ack_ok, fetch, join, states, until, view
from tests.integration.txn_helpers import init_producer
from tests.integration.ws_client import AsgiSocket

BIG = "x" * 1500  # one record a little over what a 100 bytes/s quota lets through at once


class AsPrincipal:
    """Every request through this app is ``principal``'s."""

    def __init__(self, app: ASGIApp, principal: str) -> None:
        self.app = app
        self.principal = principal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[PRINCIPAL] = self.principal
        await self.app(scope, receive, send)


@asynccontextmanager
async def client_of(s: Served, principal: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=AsPrincipal(s.app, principal))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
        yield c


def at_window_start(clock: FakeClock) -> None:
    clock.advance(-int(clock.monotonic() * 1000) % 1000)


@pytest.fixture
async def served_on_clock(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> AsyncIterator[Served]:
    # the principals stand in for keys; as super-users the ACLs let them do everything
    async with running(settings_factory(super_users="alice,bob"), clock) as s:
        await create_topic(s.client, "t")
        at_window_start(clock)
        yield s


async def set_quota(c: httpx.AsyncClient, principal: str, **rates: int) -> dict[str, Any]:
    r = await c.put(f"/v1/admin/quotas/{principal}", json=rates)
    assert r.status_code == 200, r.text
    return dict(r.json())


def throttled(r: httpx.Response) -> int:
    """The throttle time of a 429 answer, checked against its Retry-After."""
    err = assert_error(r, 429, "THROTTLING_QUOTA_EXCEEDED")
    assert err["retriable"] is True and err["kafka_code"] == 89
    ms = err["throttle_time_ms"]
    assert isinstance(ms, int) and ms > 0
    assert r.headers["retry-after"] == str(math.ceil(ms / 1000))
    return ms


def acquired(v: dict[str, Any]) -> list[int]:
    """The offsets a share partition's view shows acquired."""
    return [offset for offset, state, _ in states(v) if state == "acquired"]


async def metric(c: httpx.AsyncClient, name: str, principal: str, kind: str) -> float:
    return sample(await metrics(c), name, principal=principal, kind=kind) or 0.0


async def test_produce_over_quota_is_refused_appends_nothing_and_is_admitted_after(
    served_on_clock: Served, clock: FakeClock
) -> None:
    s = served_on_clock
    await set_quota(s.client, "alice", producer_byte_rate=100)
    async with client_of(s, "alice") as alice, client_of(s, "bob") as bob:
        await produce(alice, "t", [{"value": BIG}])  # admitted: nothing measured yet
        r = await alice.post("/v1/topics/t/records", json={"records": [{"value": "small"}]})
        wait = throttled(r)
        assert await watermarks(s.client, "t") == [1]  # nothing appended
        await produce(bob, "t", [{"value": BIG}] * 3)  # another principal: no quota
        clock.advance(wait - 1)
        assert throttled(await alice.post("/v1/topics/t/records", json={"records": [{}]})) == 1
        clock.advance(1)
        await produce(alice, "t", [{"value": "small"}])
        assert await watermarks(s.client, "t") == [5]
        assert (
            await metric(s.client, "sluice_quota_throttled_requests_total", "alice", "produce") == 2
        )
        seconds = await metric(s.client, "sluice_quota_throttle_seconds_total", "alice", "produce")
        assert seconds == pytest.approx((wait + 1) / 1000)
        assert (
            await metric(s.client, "sluice_quota_throttled_requests_total", "bob", "produce") == 0
        )
        counted = await metric(s.client, "sluice_quota_bytes_total", "alice", "produce")
        assert counted > len(BIG)


# produce bodies refused for what they hold
REFUSED_BODIES = {
    "not JSON": b"{" + b"x" * 1500,
    "too deep": b'{"records": ' + b"[" * 700 + b"]" * 700 + b"}",
    "too many records": orjson.dumps({"records": [{}] * 10_001}),
}


@pytest.mark.parametrize("path", ["/v1/topics/t/records", "/v1/produce"])
async def test_a_produce_refused_for_its_body_counts_and_over_quota_no_body_is_read(
    served_on_clock: Served, clock: FakeClock, path: str
) -> None:
    """A body refused as invalid, too costly to parse or with too many records counts
    against the quota all the same; over the quota, the next request is refused before its
    body is read (so whatever it holds, and it is not counted)."""
    s = served_on_clock
    await set_quota(s.client, "alice", producer_byte_rate=100)
    async with client_of(s, "alice") as alice:
        for what, body in REFUSED_BODIES.items():
            r = await alice.post(path, content=body)
            assert r.status_code in (400, 413), (what, r.text)
            wait = throttled(await alice.post(path, content=b"{not even JSON"))
            clock.advance(wait)
        counted = await metric(s.client, "sluice_quota_bytes_total", "alice", "produce")
        assert counted == sum(len(body) for body in REFUSED_BODIES.values())
        assert await watermarks(s.client, "t") == [0]


async def test_a_commit_with_records_counts_whatever_its_outcome(
    served_on_clock: Served, clock: FakeClock
) -> None:
    s = served_on_clock
    await set_quota(s.client, "alice", producer_byte_rate=100)
    async with client_of(s, "alice") as alice:
        pid, epoch = await init_producer(alice, transactional_id="tx")
        batch = {"topic": "t", "partition": 0, "base_sequence": 0, "records": [{"value": BIG}]}
        stale = {"producer_id": pid, "producer_epoch": epoch + 1, "batches": [batch]}
        r = await alice.post("/v1/transactions/tx/commit", json=stale)
        assert 400 <= r.status_code < 500 and r.status_code != 429, r.text
        throttled(await alice.post("/v1/topics/t/records", json={"records": [{}]}))
        assert await watermarks(s.client, "t") == [0]


async def test_stateful_and_transactional_produce_are_throttled_before_appending(
    served_on_clock: Served, clock: FakeClock
) -> None:
    s = served_on_clock
    await set_quota(s.client, "alice", producer_byte_rate=100)
    async with client_of(s, "alice") as alice:
        pid, epoch = await init_producer(alice)
        batch = {"topic": "t", "partition": 0, "base_sequence": 0, "records": [{"value": BIG}]}
        body = {"producer_id": pid, "producer_epoch": epoch, "batches": [batch]}
        r = await alice.post("/v1/produce", json=body)
        assert r.status_code == 200 and r.json()["batches"][0]["error"] is None, r.text
        wait = throttled(await alice.post("/v1/produce", json={**body, "batches": [batch]}))
        tpid, tepoch = await init_producer(alice, transactional_id="tx")
        commit = {
            "producer_id": tpid,
            "producer_epoch": tepoch,
            "batches": [{**batch, "base_sequence": 0}],
        }
        throttled(await alice.post("/v1/transactions/tx/commit", json=commit))
        assert await watermarks(s.client, "t") == [1]
        # a commit that writes no records is not produce: not throttled
        empty = {"producer_id": tpid, "producer_epoch": tepoch}
        r = await alice.post("/v1/transactions/tx/commit", json=empty)
        assert r.status_code == 200, r.text
        clock.advance(wait)
        commit = {**commit, "producer_epoch": r.json()["producer_epoch"]}
        r = await alice.post("/v1/transactions/tx/commit", json=commit)
        assert r.status_code == 200, r.text
        # the records and the commit marker
        assert await watermarks(s.client, "t") == [3]


async def test_reads_over_quota_are_refused(served_on_clock: Served, clock: FakeClock) -> None:
    s = served_on_clock
    await set_quota(s.client, "alice", consumer_byte_rate=100)
    await produce(s.client, "t", [{"value": BIG}])
    async with client_of(s, "alice") as alice, client_of(s, "bob") as bob:
        path = "/v1/topics/t/partitions/0/records"
        r = await alice.get(path)
        assert r.status_code == 200 and len(r.json()["records"]) == 1
        wait = throttled(await alice.get(path))
        assert (await bob.get(path)).status_code == 200
        clock.advance(wait)
        assert (await alice.get(path)).status_code == 200
        counted = await metric(s.client, "sluice_quota_bytes_total", "alice", "fetch")
        assert counted == 2 * len(r.content)  # the answers' bytes


async def test_share_fetch_over_quota_acquires_nothing(
    served_on_clock: Served, clock: FakeClock
) -> None:
    s = served_on_clock
    r = await s.client.patch("/v1/share-groups/g/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text
    await set_quota(s.client, "alice", consumer_byte_rate=100)
    await produce(s.client, "t", [{"value": BIG}])
    async with client_of(s, "alice") as alice:
        member = await join(alice, "g", ["t"])
        first = await fetch(alice, "g", member, max_wait_ms=0)
        assert [r["offset"] for r in first["records"]] == [0]
        await ack_ok(alice, "g", member, ack_item(0, 0, "accept"))
        await produce(s.client, "t", [{"value": "next"}])
        wait = throttled(await alice.post("/v1/share-groups/g/fetch", json={"member_id": member}))
        v = await view(s.client, "g")
        assert v["end_offset"] == 1 and not acquired(v)  # nothing acquired
        clock.advance(wait)
        again = await fetch(alice, "g", member, max_wait_ms=0)
        assert [r["offset"] for r in again["records"]] == [1]


async def test_push_is_delayed_not_refused(served_on_clock: Served, clock: FakeClock) -> None:
    s = served_on_clock
    r = await s.client.patch("/v1/share-groups/g/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text
    await set_quota(s.client, "alice", consumer_byte_rate=100)
    async with AsgiSocket(AsPrincipal(s.app, "alice"), "/v1/share-groups/g/consume") as ws:  # type: ignore[arg-type]
        await ws.send({"type": "subscribe", "topics": ["t"], "credits": 10})
        assert (await ws.receive())["type"] == "subscribed"
        await produce(s.client, "t", [{"value": BIG}])
        frame = await ws.receive()
        assert frame["type"] == "records" and len(frame["records"]) == 1
        # over the quota now: the push loop waits before acquiring more
        registry = s.broker.metrics.registry
        name, labels = (
            "sluice_quota_throttled_requests_total",
            {"principal": "alice", "kind": "fetch"},
        )
        await until(lambda: (registry.get_sample_value(name, labels) or 0) >= 1)
        await produce(s.client, "t", [{"value": "next"}])
        await ws.nothing(0.3)
        assert acquired(await view(s.client, "g")) == [0]  # the next one is not acquired
        meter = s.broker.quotas.fetch["alice"]
        assert meter is not None
        clock.advance(meter.throttle_ms())
        frame = await ws.receive()  # no error frame: the records, once the rate is back
        assert frame["type"] == "records" and frame["records"][0]["offset"] == 1


async def test_default_quota_applies_to_anonymous_requests(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(quota_producer_byte_rate=100), clock) as s:
        await create_topic(s.client, "t")
        at_window_start(clock)
        await produce(s.client, "t", [{"value": BIG}])
        throttled(await s.client.post("/v1/topics/t/records", json={"records": [{}]}))
        assert await metric(s.client, "sluice_quota_throttled_requests_total", ANONYMOUS, "produce")
        r = await s.client.get("/v1/admin/quotas")
        assert r.json()["defaults"] == {"producer_byte_rate": 100, "consumer_byte_rate": 0}


async def test_admin_endpoints(served_on_clock: Served, clock: FakeClock) -> None:
    c = served_on_clock.client
    r = await c.get("/v1/admin/quotas")
    assert r.status_code == 200
    assert r.json() == {
        "defaults": {"producer_byte_rate": 0, "consumer_byte_rate": 0},
        "quotas": [],
    }
    row = await set_quota(c, "alice", producer_byte_rate=1000, consumer_byte_rate=2000)
    assert row == {
        "principal": "alice",
        "producer_byte_rate": 1000,
        "consumer_byte_rate": 2000,
        "updated_ms": clock.now_ms(),
    }
    # a PUT replaces: a kind left out takes the default again
    row = await set_quota(c, "alice", consumer_byte_rate=10)
    assert (row["producer_byte_rate"], row["consumer_byte_rate"]) == (None, 10)
    await set_quota(c, "bob", producer_byte_rate=5)
    listed = (await c.get("/v1/admin/quotas")).json()["quotas"]
    assert [(q["principal"], q["producer_byte_rate"]) for q in listed] == [
        ("alice", None),
        ("bob", 5),
    ]
    quotas = served_on_clock.broker.quotas
    assert quotas.limit("alice", "fetch") == 10 and quotas.limit("alice", "produce") == 0
    bodies: list[Any] = [
        {},
        {"producer_byte_rate": 0},
        {"producer_byte_rate": True},
        {"consumer_byte_rate": 2**40 + 1},
        {"producer_byte_rate": "1000"},
        [],
    ]
    for body in bodies:
        r = await c.put("/v1/admin/quotas/carol", json=body)
        assert_error(r, 400, "INVALID_REQUEST")
    assert_error(
        await c.put("/v1/admin/quotas/" + "p" * 256, json={"producer_byte_rate": 1}),
        400,
        "INVALID_REQUEST",
    )
    # a name no key can have (a fuzzer found both accepted): refused, nothing stored
    assert_error(
        await c.put("/v1/admin/quotas/null,null", json={"producer_byte_rate": 1}),
        400,
        "INVALID_REQUEST",
    )
    assert_error(await c.delete("/v1/admin/quotas/null,null"), 400, "INVALID_REQUEST")
    r = await c.delete("/v1/admin/quotas/alice")
    assert r.status_code == 204
    assert quotas.limit("alice", "fetch") == 0
    assert_error(await c.delete("/v1/admin/quotas/alice"), 404, "NOT_FOUND")
    listed = (await c.get("/v1/admin/quotas")).json()["quotas"]
    assert [q["principal"] for q in listed] == ["bob"]


async def test_the_command_changes_quotas_of_a_running_app(served_on_clock: Served) -> None:
    s = served_on_clock
    parser = argparse.ArgumentParser()
    quotas_cli.register(parser.add_subparsers())
    data_dir = s.broker.settings.data_dir

    def command(*argv: str) -> int:
        args = parser.parse_args(["quotas", *argv, "--data-dir", data_dir])
        return quotas_cli.main(args)

    # another process, as far as the app knows: it writes the table, the app reloads it
    assert (
        await asyncio.to_thread(
            command, "set", "--principal", "alice", "--producer-byte-rate", "100"
        )
        == 0
    )

    # the app's own reload loop (every second) applies it
    async def applied() -> None:
        while s.broker.quotas.limit("alice", "produce") != 100:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(applied(), 10)
    assert await s.broker.quota_admin.reload() is False  # unchanged: nothing applied
    assert await asyncio.to_thread(command, "list") == 0
    assert await asyncio.to_thread(command, "set", "--principal", "alice") == 1  # no rate
    assert await asyncio.to_thread(command, "remove", "--principal", "alice") == 0
    assert await asyncio.to_thread(command, "remove", "--principal", "alice") == 1
    assert await s.broker.quota_admin.reload() is True
    assert s.broker.quotas.limit("alice", "produce") == 0


def test_the_command_refuses_bad_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    quotas_cli.register(parser.add_subparsers())
    monkeypatch.setenv("SLUICE_PORT", "not a port")
    args = parser.parse_args(["quotas", "list"])
    assert quotas_cli.main(args) == 2
    assert "SLUICE_PORT" in capsys.readouterr().err


async def test_api_keys_name_the_principals_quotas_limit(
    served_on_clock: Served, clock: FakeClock
) -> None:
    """With real keys (no seam): alice over her quota is refused, bob is not."""
    s = served_on_clock
    _, alice_key = await s.broker.keys.create("alice")
    _, bob_key = await s.broker.keys.create("bob")
    transport = httpx.ASGITransport(app=s.app)

    def client(key: str) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {key}"}
        return httpx.AsyncClient(transport=transport, base_url="http://localhost", headers=headers)

    async with client(alice_key) as alice, client(bob_key) as bob:
        await set_quota(alice, "alice", producer_byte_rate=100)
        await produce(alice, "t", [{"value": BIG}])
        throttled(await alice.post("/v1/topics/t/records", json={"records": [{}]}))
        for _ in range(3):
            await produce(bob, "t", [{"value": BIG}])
        assert await watermarks(bob, "t") == [4]
        text = await metrics(bob)
        name = "sluice_quota_throttled_requests_total"
        assert sample(text, name, principal="alice", kind="produce") == 1
        assert 'principal="bob"' not in text

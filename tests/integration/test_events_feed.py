"""The event feed of a running app, its publisher driven by hand: each test calls ``tick`` (the
publisher's own loop waits 10 s between ticks, longer than any test) and moves the FakeClock,
so what each frame holds is decided by the test, not by timing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app._feed_state import empty_state
from app.clock import FakeClock
from app.config import Settings
from app.engine.feed import FeedObservation, FeedState
from app.errors import ErrorCode, InvalidRequest
from app.feed import GOING_AWAY, EventFeed, Subscription

from .conftest import Served, running
from .helpers import create_topic, produce, read
from .share_helpers import ack_item, ack_ok, fetch, join
from .txn_helpers import batch, end_txn, init_producer, produce_ok
from .ws_client import AsgiSocket, websocket_scope


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(events_interval_ms=10_000), clock) as served:
        yield served


def feed_of(s: Served) -> EventFeed:
    return s.broker.feed


def frames(sub: Subscription) -> list[dict[str, Any]]:
    """Every frame the subscription would send now, parsed."""
    out = []
    while sub.frames or sub.pending:
        out.append(json.loads(sub.frames.popleft() if sub.frames else sub.pending.take()))
    return out


def only(sub: Subscription) -> dict[str, Any]:
    (frame,) = frames(sub)
    return frame


async def test_snapshot_holds_what_exists(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t", 2)
    await produce(c, "t", [{"value": "a"}] * 3)
    sub = await feed_of(s).subscribe()
    snap = only(sub)
    assert snap["type"] == "snapshot" and snap["at"] == clock.now_ms()
    assert snap["interval_ms"] == 10_000
    assert snap["server"] == {"version": "0.1.0", "started_at": feed_of(s).started_at}
    assert snap["rates"] == {"produce": 0.0, "consume": 0.0}
    assert snap["history"] == {"seconds": 300, "produce": [], "consume": [], "topics": {}}
    (topic,) = snap["topics"]
    hws = sorted(p["high_watermark"] for p in topic["partitions"])
    assert topic["topic"] == "t" and hws == [0, 3] and topic["rate"] == 0.0
    assert set(topic["partitions"][0]) == {
        "partition",
        "log_start_offset",
        "last_stable_offset",
        "high_watermark",
    }
    assert snap["share_groups"] == snap["groups"] == snap["transactions"] == []


async def test_a_change_is_an_event_and_no_change_is_no_frame(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    feed = feed_of(s)
    sub = await feed.subscribe()
    frames(sub)
    await feed.tick()
    assert frames(sub) == []  # nothing changed and no second closed
    await produce(c, "t", [{"value": "a"}] * 4)
    clock.advance(250)
    await feed.tick()
    event = only(sub)
    assert event["type"] == "event" and event["at"] == clock.now_ms()
    assert "samples" not in event
    assert [p["high_watermark"] for p in event["changes"]["topics"][0]["partitions"]] == [4]
    assert event["removed"] == {"topics": [], "share_groups": [], "groups": [], "transactions": []}
    clock.advance(750)  # a second since the subscription: a sample, with the produce rate
    await feed.tick()
    event = only(sub)
    assert event["samples"] == {"produce": 4.0, "consume": 0.0, "topics": {"t": 4.0}}
    assert event["seconds"] == 1 and event["rates"] == {"produce": 4.0, "consume": 0.0}
    assert event["changes"]["topics"][0]["rate"] == 4.0


async def test_a_socket_that_never_drains_holds_one_entry_per_entity(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    for name in ("a", "b", "c"):
        await create_topic(c, name)
    feed = feed_of(s)
    stalled = await feed.subscribe()
    reader = await feed.subscribe()
    frames(reader)
    for i in range(60):
        await produce(c, "abc"[i % 3], [{"value": "x"}] * 10)
        if i % 20 == 0:  # a consumer group whose membership changes
            body = {"member_epoch": 0, "member_id": f"m{i}", "subscribed_topics": ["a"]}
            r = await c.post("/v1/groups/g/heartbeat", json=body)
            assert r.status_code == 200, r.text
        clock.advance(250)
        await feed.tick()
        # three topics and one group: never more than four entries, however many ticks
        assert len(stalled.pending.entities) <= 4
        assert len(reader.pending.entities) <= 4
        frames(reader)
    assert len(stalled.frames) == 1  # the snapshot, still unsent
    snapshot, event = frames(stalled)
    assert snapshot["type"] == "snapshot" and event["type"] == "event"
    # the one event holds the latest state of everything that changed since the snapshot
    assert {
        t["topic"]: t["partitions"][0]["high_watermark"] for t in event["changes"]["topics"]
    } == {
        "a": 200,
        "b": 200,
        "c": 200,
    }
    assert [g["members"] for g in event["changes"]["groups"]] == [3]
    assert event["seconds"] == 15  # every second that closed meanwhile


async def test_removed_entities(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "gone")
    await create_topic(c, "kept")
    r = await c.patch("/v1/share-groups/sg/config", json={"delivery_count_limit": 3})
    assert r.status_code == 200, r.text
    feed = feed_of(s)
    sub = await feed.subscribe()
    snap = only(sub)
    assert [t["topic"] for t in snap["topics"]] == ["gone", "kept"]
    assert [g["group_id"] for g in snap["share_groups"]] == ["sg"]
    assert (await c.delete("/v1/topics/gone")).status_code == 204
    assert (await c.delete("/v1/share-groups/sg")).status_code == 204
    await feed.tick()
    event = only(sub)
    assert event["removed"] == {
        "topics": ["gone"],
        "share_groups": ["sg"],
        "groups": [],
        "transactions": [],
    }
    assert event["changes"]["topics"] == []


async def test_an_open_transaction_counts_down_and_leaves_when_it_ends(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "out")
    feed = feed_of(s)
    sub = await feed.subscribe()
    frames(sub)
    pid, epoch = await init_producer(c, transactional_id="tx", transaction_timeout_ms=60_000)
    await feed.tick()
    assert frames(sub) == []  # Empty: not open, not shown, so nothing changed
    await produce_ok(c, pid, epoch, [batch("out", 0, 0, 2)], tid="tx")
    clock.advance(100)
    await feed.tick()
    (txn,) = only(sub)["changes"]["transactions"]
    assert txn == {
        "transactional_id": "tx",
        "producer_id": pid,
        "producer_epoch": epoch,
        "state": "Ongoing",
        "timeout_ms": 60_000,
        "time_left_ms": 60_000 - 100,
        "partitions": 1,
    }
    clock.advance(1000)
    await feed.tick()
    assert only(sub)["changes"]["transactions"][0]["time_left_ms"] == 60_000 - 1100
    r = await end_txn(c, "tx", pid, epoch)
    assert r.status_code == 200, r.text
    await feed.tick()
    event = only(sub)
    assert event["removed"]["transactions"] == ["tx"]
    assert [t["partitions"][0]["high_watermark"] for t in event["changes"]["topics"]] == [3]


async def test_share_group_entity(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    r = await c.patch(
        "/v1/share-groups/sg/config",
        json={"auto_offset_reset": "earliest", "delivery_count_limit": 2},
    )
    assert r.status_code == 200, r.text
    await produce(c, "t", [{"value": "v"}] * 6)
    m = await join(c, "sg", ["t"])
    got = await fetch(c, "sg", m)
    assert len(got["records"]) == 6
    await ack_ok(c, "sg", m, ack_item(0, 1, "accept"), ack_item(2, 3, "release"))
    feed = feed_of(s)
    sub = await feed.subscribe()
    (group,) = only(sub)["share_groups"]
    lock = clock.now_ms() + 30_000
    assert group["group_id"] == "sg" and group["state"] == "Stable"
    assert group["config"] == {
        "record_lock_duration_ms": 30_000,
        "delivery_count_limit": 2,
        "dead_letter_topic": None,
        "isolation_level": "read_uncommitted",
    }
    assert group["members"] == [
        {"member_id": m, "subscribed_topics": ["t"], "last_seen_ms": clock.now_ms()}
    ]
    (p,) = group["partitions"]
    assert p == {
        "topic": "t",
        "partition": 0,
        "start_offset": 2,
        "end_offset": 6,
        "available": 2,
        "acquired": 2,
        "acknowledged": 0,
        "archived": 0,
        "lag": 4,
        "delivery_limit_archived": 0,
        "runs": [
            {
                "first": 2,
                "last": 3,
                "state": "available",
                "delivery_count": 1,
                "member_id": None,
                "lock_expires_at": None,
            },
            {
                "first": 4,
                "last": 5,
                "state": "acquired",
                "delivery_count": 1,
                "member_id": m,
                "lock_expires_at": lock,
            },
        ],
        "runs_truncated": False,
    }
    # 2-3 delivered again and released at the limit: archived, and counted
    got = await fetch(c, "sg", m)
    assert [r["offset"] for r in got["records"]] == [2, 3]
    await ack_ok(c, "sg", m, ack_item(2, 3, "release"))
    await feed.tick()
    (p,) = only(sub)["changes"]["share_groups"][0]["partitions"]
    assert p["delivery_limit_archived"] == 2 and p["start_offset"] == 4


async def test_no_work_while_no_socket_is_subscribed(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    feed = feed_of(s)
    await feed.tick()
    clock.advance(5000)
    await feed.tick()
    assert not feed.rates.produce  # no tick sampled anything
    sub = await feed.subscribe()  # the first socket: the state now, the origin of the rates
    frames(sub)
    await produce(c, "t", [{"value": "x"}] * 30)
    feed.unsubscribe(sub)
    clock.advance(3000)
    await feed.tick()
    assert not feed.rates.produce  # idle again
    sub = await feed.subscribe()  # the idle time is filled with its average rate
    snap = only(sub)
    assert snap["history"]["produce"] == [10.0, 10.0, 10.0]
    assert snap["history"]["topics"] == {"t": [10.0, 10.0, 10.0]}


async def test_a_new_socket_gets_the_latest_computed_snapshot(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    feed = feed_of(s)
    first = await feed.subscribe()
    frames(first)
    await produce(c, "t", [{"value": "x"}])
    second = await feed.subscribe()  # between ticks: the state of the last one, shared
    assert second.frames[0] is feed.snapshot()
    assert json.loads(second.frames[0])["topics"][0]["partitions"][0]["high_watermark"] == 0
    await feed.tick()  # the change reaches both
    for sub in (first, second):
        event = frames(sub)[-1]
        assert event["changes"]["topics"][0]["partitions"][0]["high_watermark"] == 1


class Gated:
    """The server's feed state, each reading held until the test lets it finish (a reading of
    the cluster takes a while on the Kafka backend)."""

    def __init__(self, inner: FeedState) -> None:
        self.inner = inner
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def observe(self, now_ms: int, max_runs: int) -> FeedObservation:
        self.started.set()
        await self.go.wait()
        self.started.clear()
        self.go.clear()
        return await self.inner.observe(now_ms, max_runs)


async def test_a_socket_opened_during_a_reading_starts_from_its_state(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    feed = feed_of(s)
    gated = Gated(feed.state_source)
    feed.state_source = gated
    gated.go.set()
    first = await feed.subscribe()
    frames(first)
    await produce(c, "t", [{"value": "x"}])
    tick = asyncio.ensure_future(feed.tick())
    await gated.started.wait()  # the tick reads the state
    second = asyncio.ensure_future(feed.subscribe())
    await asyncio.sleep(0)
    assert not second.done()  # one reading at a time: the socket waits for the tick's
    gated.go.set()
    await tick
    sub = await second
    (snap,) = frames(sub)  # the tick's state, no event of its changes besides
    assert snap["topics"][0]["partitions"][0]["high_watermark"] == 1
    assert frames(first)[-1]["changes"]["topics"][0]["partitions"][0]["high_watermark"] == 1


async def test_the_state_read_after_the_last_socket_left_is_dropped(s: Served) -> None:
    feed = feed_of(s)
    gated = Gated(feed.state_source)
    feed.state_source = gated
    gated.go.set()
    sub = await feed.subscribe()
    tick = asyncio.ensure_future(feed.tick())
    await gated.started.wait()
    feed.unsubscribe(sub)  # the socket goes while the state is read
    gated.go.set()
    await tick
    assert feed._state is None and feed._snapshot is None  # nothing held for no socket
    assert [f["type"] for f in frames(sub)] == ["snapshot"]  # nothing merged after it left


class Unreadable:
    """The server's feed state, but its first reading fails (answered stale and empty, as the
    gateway answers when it cannot read the cluster)."""

    def __init__(self, inner: FeedState) -> None:
        self.inner = inner
        self.failed = False

    async def observe(self, now_ms: int, max_runs: int) -> FeedObservation:
        if not self.failed:
            self.failed = True
            return FeedObservation(empty_state(), {}, {}, stale=True)
        return await self.inner.observe(now_ms, max_runs)


async def test_a_stale_reading_is_shown_but_takes_no_rate_sample(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await produce(c, "t", [{"value": "x"}] * 3)
    feed = feed_of(s)
    feed.state_source = Unreadable(feed.state_source)
    sub = await feed.subscribe()
    assert only(sub)["topics"] == []  # what the reading answered
    clock.advance(1000)
    await feed.tick()  # the first reading of the records: the rates' start, not a sample
    (event,) = frames(sub)
    assert event["changes"]["topics"][0]["rate"] == 0.0
    assert "samples" not in event and feed.rates.history()["produce"] == []
    clock.advance(1000)
    await feed.tick()  # a second with no record: no rate, not the 3 records read late
    assert feed.rates.history()["topics"] == {"t": [0.0]}


async def test_close_ends_every_subscription_with_1001(s: Served) -> None:
    feed = feed_of(s)
    sub = await feed.subscribe()
    assert json.loads(await sub.next_frame() or b"")["type"] == "snapshot"
    waiting = asyncio.ensure_future(sub.next_frame())
    await asyncio.sleep(0)
    assert not waiting.done()  # nothing pending: the sender waits
    feed.close()
    assert await waiting is None and sub.close_code == GOING_AWAY
    late = await feed.subscribe()
    assert late.close_code == GOING_AWAY and await late.next_frame() is None
    assert feed.subscriptions == []


async def test_an_error_answer_waits_until_the_sender_takes_it(s: Served) -> None:
    feed = feed_of(s)
    sub = await feed.subscribe()
    assert json.loads(await sub.next_frame() or b"")["type"] == "snapshot"
    rejected = asyncio.ensure_future(sub.reject(InvalidRequest(ErrorCode.INVALID_REQUEST, "no")))
    await asyncio.sleep(0)
    assert not rejected.done()  # held until the sender takes the answer
    frame = json.loads(await sub.next_frame() or b"")
    assert frame == {
        "type": "error",
        "error": {"code": "INVALID_REQUEST", "message": "no", "retriable": False, "kafka_code": 42},
    }
    await rejected
    feed.unsubscribe(sub)


async def test_consume_counts_reads_and_share_deliveries(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    r = await c.patch("/v1/share-groups/g/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200
    await produce(c, "t", [{"value": "a"}] * 5)
    feed = feed_of(s)
    sub = await feed.subscribe()
    frames(sub)
    member = await join(c, "g", ["t"])
    assert len((await fetch(c, "g", member))["records"]) == 5  # five delivered to the group
    r = await c.get("/v1/topics/t/partitions/0/records", params={"offset": 0, "max_records": 2})
    assert len(r.json()["records"]) == 2  # two read by offset
    clock.advance(1000)
    await feed.tick()
    (event,) = [f for f in frames(sub) if "samples" in f]
    assert event["rates"] == {"produce": 0.0, "consume": 7.0}


async def test_a_dropped_socket_whose_answer_was_never_sent_ends(
    settings_factory: Callable[..., Settings],
) -> None:
    """A client that does not read sends a message, then its connection drops while the
    server is sending: the handler ends and its subscription goes (it used to wait forever
    for the answer to be taken)."""
    async with running(settings_factory(events_interval_ms=50)) as s:
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        sent = 0
        dropped = asyncio.Event()

        async def send(message: Any) -> None:
            nonlocal sent
            if message["type"] == "websocket.send":
                sent += 1
                if sent == 2:  # the first event frame: the client does not read
                    await dropped.wait()
                    raise OSError("connection reset by peer")

        scope = websocket_scope(s.app, "/v1/events")
        incoming.put_nowait({"type": "websocket.connect"})
        handler = asyncio.create_task(s.app(scope, incoming.get, send))
        await create_topic(s.client, "x")  # a change: an event frame, which blocks
        await asyncio.wait_for(_until(lambda: sent >= 2), 5)
        await incoming.put({"type": "websocket.receive", "text": "hello"})
        await asyncio.wait_for(_until(lambda: incoming.empty()), 5)
        dropped.set()
        await incoming.put({"type": "websocket.disconnect", "code": 1006})
        await asyncio.wait_for(handler, 5)
        assert not s.broker.feed.subscriptions


async def _until(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


@pytest.fixture
async def keyed(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> AsyncIterator[tuple[Served, dict[str, str]]]:
    """A served app that requires keys: its client is the super-user ``admin``'s; ``alice``
    may describe topic ``a`` and transactional id ``tx`` only (principal → key)."""
    settings = settings_factory(events_interval_ms=10_000, super_users="admin")
    async with running(settings, clock) as s:
        c = s.client
        keys = {}
        for name in ("admin", "alice"):
            r = await c.post("/v1/admin/keys", json={"principal": name})
            assert r.status_code == 201, r.text
            keys[name] = r.json()["key"]
            c.headers["authorization"] = f"Bearer {keys['admin']}"
        for rtype, name in (("TOPIC", "a"), ("TRANSACTIONAL_ID", "tx")):
            acl = {
                "principal": "alice",
                "resource_type": rtype,
                "resource_name": name,
                "operation": "DESCRIBE",
                "permission": "ALLOW",
            }
            r = await c.post("/v1/admin/acls", json=acl)
            assert r.status_code < 300, r.text
        yield s, keys


def feed_socket(s: Served, key: str) -> AsgiSocket:
    return AsgiSocket(s.app, "/v1/events", headers=[(b"authorization", f"Bearer {key}".encode())])


async def test_rates_count_only_the_topics_the_principal_may_describe(
    keyed: tuple[Served, dict[str, str]], clock: FakeClock
) -> None:
    """Traffic on topic b only: alice (DESCRIBE on a only) sees server-wide rates of 0 and no
    trace of b, the admin sees b's; traffic on a then shows in both."""
    s, keys = keyed
    c, feed = s.client, feed_of(s)
    await create_topic(c, "a")
    await create_topic(c, "b")
    async with feed_socket(s, keys["alice"]) as alice, feed_socket(s, keys["admin"]) as admin:
        for ws in (alice, admin):
            assert (await ws.receive())["type"] == "snapshot"
        # the super-user's socket is filtered by nothing: it costs what one without keys costs
        assert sorted(sub.view is None for sub in feed.subscriptions) == [False, True]
        await produce(c, "b", [{"value": "x"}] * 4)
        assert len((await read(c, "b", offset=0, max_records=2))["records"]) == 2
        clock.advance(1000)
        await feed.tick()
        mine, theirs = await alice.receive(), await admin.receive()
        assert mine["rates"] == {"produce": 0.0, "consume": 0.0}, mine
        assert mine["samples"] == {"produce": 0.0, "consume": 0.0, "topics": {"a": 0.0}}
        assert '"b"' not in json.dumps(mine)
        assert theirs["rates"] == {"produce": 4.0, "consume": 2.0}, theirs
        assert theirs["samples"]["topics"] == {"a": 0.0, "b": 4.0}

        await produce(c, "a", [{"value": "y"}] * 3)
        assert len((await read(c, "a", offset=0, max_records=1))["records"]) == 1
        clock.advance(1000)
        await feed.tick()
        mine, theirs = await alice.receive(), await admin.receive()
        assert mine["rates"] == {"produce": 3.0, "consume": 1.0}, mine
        assert mine["samples"] == {"produce": 3.0, "consume": 1.0, "topics": {"a": 3.0}}
        assert theirs["rates"] == {"produce": 3.0, "consume": 1.0}, theirs

        # a new socket's snapshot: its history too counts only what it may describe
        async with feed_socket(s, keys["alice"]) as late:
            snap = await late.receive()
        assert snap["rates"] == {"produce": 3.0, "consume": 1.0}
        assert snap["history"] == {
            "seconds": 300,
            "produce": [0.0, 3.0],
            "consume": [0.0, 1.0],
            "topics": {"a": [0.0, 3.0]},
        }
        assert [t["topic"] for t in snap["topics"]] == ["a"]
        assert '"b"' not in json.dumps(snap)
        async with feed_socket(s, keys["admin"]) as late:
            snap = await late.receive()
        assert snap["history"]["produce"] == [4.0, 3.0]
        assert snap["history"]["consume"] == [2.0, 1.0]


async def test_a_transaction_counts_only_the_partitions_the_principal_may_describe(
    keyed: tuple[Served, dict[str, str]], clock: FakeClock
) -> None:
    s, keys = keyed
    c, feed = s.client, feed_of(s)
    await create_topic(c, "a")
    await create_topic(c, "b", 2)
    pid, epoch = await init_producer(c, transactional_id="tx")
    await produce_ok(c, pid, epoch, [batch("a", 0, 0), batch("b", 0, 0)], tid="tx")
    async with feed_socket(s, keys["alice"]) as alice, feed_socket(s, keys["admin"]) as admin:
        (txn,) = (await alice.receive())["transactions"]
        assert txn["transactional_id"] == "tx" and txn["partitions"] == 1, txn
        assert (await admin.receive())["transactions"][0]["partitions"] == 2
        await produce_ok(c, pid, epoch, [batch("b", 1, 0)], tid="tx")
        clock.advance(100)
        await feed.tick()
        assert (await alice.receive())["changes"]["transactions"][0]["partitions"] == 1
        assert (await admin.receive())["changes"]["transactions"][0]["partitions"] == 3

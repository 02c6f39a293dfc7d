"""Share groups through create_app() with a FakeClock: membership, fetch, acknowledge, locks,
delivery counts, long polls, admin and the dead-letter topic."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, metric, metrics, produce
from tests.integration.share_helpers import (
    ack,
    ack_item,
    ack_ok,
    expire,
    fetch,
    group,
    heartbeat,
    join,
    offsets,
    parked,
    settle,
    states,
    until,
    view,
)

G = "g1"


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as served:
        yield served


async def earliest(s: Served, g: str = G, **config: Any) -> None:
    r = await s.client.patch(
        f"/v1/share-groups/{g}/config", json={"auto_offset_reset": "earliest", **config}
    )
    assert r.status_code == 200, r.text


async def values(s: Served, n: int, topic: str = "t", partition: int = 0) -> None:
    await produce(s.client, topic, [{"value": f"v{i}", "partition": partition} for i in range(n)])


# -- the seed's worked example, step by step --------------------------------------------------


async def test_seed_worked_example_through_http(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await values(s, 100)  # 0-99 exist before the group: latest starts it at 100
    c1 = await join(c, G, ["t"])
    c2 = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, c1)) == []
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"], v["records"]) == (100, 100, [])
    await values(s, 10)  # 100-109
    await values(s, 10)  # 110-119
    await values(s, 1)  # 120

    got = await fetch(c, G, c1, max_records=10)
    assert offsets(got) == list(range(100, 110))
    assert got["acquired"] == [
        {"topic": "t", "partition": 0, "first_offset": 100, "last_offset": 109, "delivery_count": 1}
    ]
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"]) == (100, 110)
    assert states(v) == [(o, "acquired", 1) for o in range(100, 110)]
    assert {r["member_id"] for r in v["records"]} == {c1}

    await ack_ok(c, G, c1, ack_item(100, 109, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"], v["records"]) == (110, 110, [])

    assert offsets(await fetch(c, G, c2, max_records=10)) == list(range(110, 120))
    clock.advance(1000)
    await ack_ok(c, G, c2, ack_item(110, 110, "release"))
    assert states(await view(c, G, to=111)) == [(110, "available", 1)]
    await ack_ok(c, G, c2, ack_item(119, 119, "accept"))
    v = await view(c, G)
    assert states(v) == [(110, "available", 1)] + [(o, "acquired", 1) for o in range(111, 119)] + [
        (119, "acknowledged", 1)
    ]

    clock.advance(9000)
    got = await fetch(c, G, c2, max_records=2, acquire_mode="record_limit")
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(110, 2), (120, 1)]
    assert (await view(c, G))["end_offset"] == 121

    clock.advance(10_000)  # renew 113-118; 111-112 keep the first lock
    await ack_ok(c, G, c2, ack_item(113, 118, "renew"))
    clock.advance(10_000)
    await expire(s.broker)
    v = await view(c, G)
    assert states(v) == [(110, "acquired", 2), (111, "available", 1), (112, "available", 1)] + [
        (o, "acquired", 1) for o in range(113, 119)
    ] + [(119, "acknowledged", 1), (120, "acquired", 1)]

    await ack_ok(c, G, c2, ack_item(113, 118, "accept"))
    assert states(await view(c, G, from_=113, to=120)) == [
        (o, "acknowledged", 1) for o in range(113, 120)
    ]
    got = await fetch(c, G, c1, max_records=10)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(111, 2), (112, 2)]

    await ack_ok(c, G, c2, ack_item(110, 110, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"]) == (111, 121)
    await ack_ok(c, G, c1, ack_item(111, 112, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"]) == (120, 121)
    assert states(v) == [(120, "acquired", 1)]
    d = await group(c, G)
    assert d["partitions"] == [
        {
            "topic": "t",
            "partition": 0,
            "start_offset": 120,
            "end_offset": 121,
            "available": 0,
            "acquired": 1,
            "acknowledged": 0,
            "archived": 0,
            "lag": 1,
        }
    ]


# -- membership -------------------------------------------------------------------------------


async def test_heartbeat_join_assignment_epochs_and_leave(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=3)
    lonely = await heartbeat(c, "other", None, 0, ["nothing-yet"])
    assert lonely["member_epoch"] >= 1 and lonely["assignment"] == []
    hb = await heartbeat(c, G, None, 0, ["t", "later"])
    mid = hb["member_id"]
    assert hb["member_epoch"] >= 1 and hb["heartbeat_interval_ms"] == 5000
    assert hb["assignment"] == [{"topic": "t", "partitions": [0, 1, 2]}]
    again = await heartbeat(c, G, mid, hb["member_epoch"])
    assert again["member_epoch"] == hb["member_epoch"]
    await create_topic(c, "later")
    moved = await heartbeat(c, G, mid, hb["member_epoch"])
    assert moved["member_epoch"] > hb["member_epoch"]
    assert [a["topic"] for a in moved["assignment"]] == ["t", "later"]
    r = await c.post(
        f"/v1/share-groups/{G}/heartbeat",
        json={"member_id": mid, "member_epoch": moved["member_epoch"] + 5},
    )
    assert_error(r, 409, "FENCED_MEMBER_EPOCH")
    other = await join(c, G, ["t"])  # every member gets every partition
    assert (await heartbeat(c, G, other, 0, ["t"]))["assignment"][0]["partitions"] == [0, 1, 2]
    d = await group(c, G)
    assert d["state"] == "Stable" and len(d["members"]) == 2
    left = await heartbeat(c, G, mid, -1)
    assert left["member_epoch"] == -1
    r = await c.post(f"/v1/share-groups/{G}/heartbeat", json={"member_id": mid, "member_epoch": 3})
    assert_error(r, 404, "UNKNOWN_MEMBER_ID")
    r = await c.delete(f"/v1/share-groups/{G}/members/{other}")
    assert r.status_code == 204
    assert (await group(c, G))["state"] == "Empty"
    r = await c.get("/v1/share-groups")
    assert r.json() == {
        "share_groups": [
            {"group_id": G, "state": "Empty", "members": 0},
            {"group_id": "other", "state": "Stable", "members": 1},
        ]
    }


async def test_group_size_limit(settings_factory: Callable[..., Settings]) -> None:
    async with running(settings_factory(share_max_group_size=2)) as s:
        await join(s.client, G, ["t"])
        await join(s.client, G, ["t"])
        r = await s.client.post(
            f"/v1/share-groups/{G}/heartbeat",
            json={"member_id": None, "member_epoch": 0, "subscribed_topics": ["t"]},
        )
        assert_error(r, 429, "GROUP_MAX_SIZE_REACHED")
        assert len((await group(s.client, G))["members"]) == 2


async def test_session_timeout_removes_silent_members_keeping_their_locks(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 3)
    m = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, m)) == [0, 1, 2]
    clock.advance(45_000)
    assert s.broker.share.membership.sweep_sessions() == 1
    await fetch(c, G, m, expect=404)
    # the records stay acquired until their locks expire (they already did: 45 s > 30 s)
    await expire(s.broker)
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]


async def test_implicit_join_on_fetch(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 2)
    got = await fetch(c, G, None, subscribed_topics=["t"])
    assert offsets(got) == [0, 1] and got["member_id"]
    assert got["acquisition_lock_timeout_ms"] == 30_000
    assert [r["delivery_count"] for r in got["records"]] == [1, 1]
    assert got["records"][0]["value"] == "v0" and got["records"][0]["topic"] == "t"
    r = await c.post(f"/v1/share-groups/{G}/fetch", json={"member_id": "nobody"})
    assert_error(r, 404, "UNKNOWN_MEMBER_ID")
    r = await c.post(f"/v1/share-groups/{G}/fetch", json={"member_id": None})
    assert_error(r, 400, "INVALID_REQUEST")


# -- locks and delivery counts ----------------------------------------------------------------


async def test_the_starting_partition_rotates_per_fetch(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=3)
    await earliest(s)
    for p in range(3):
        await values(s, 10, partition=p)
    a = await join(c, G, ["t"])
    firsts = []
    for _ in range(3):
        got = await fetch(c, G, a, max_records=2, acquire_mode="record_limit")
        firsts.append(got["records"][0]["partition"])
        assert {r["partition"] for r in got["records"]} == {firsts[-1]}
    assert sorted(firsts) == [0, 1, 2]


async def test_two_members_never_hold_the_same_record(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=2)
    await earliest(s)
    for p in (0, 1):
        for _ in range(10):
            await values(s, 7, partition=p)
    members = [await join(c, G, ["t"]) for _ in range(4)]
    seen: dict[tuple[int, int], str] = {}
    for _ in range(6):
        answers = await asyncio.gather(*(fetch(c, G, m, max_records=9) for m in members))
        for m, a in zip(members, answers, strict=True):
            for r in a["records"]:
                key = (r["partition"], r["offset"])
                assert key not in seen, (key, seen[key], m)
                seen[key] = m
    assert len(seen) == 140


async def test_lock_expiry_keeps_the_count_and_the_late_ack_is_refused(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 3)
    a = await join(c, G, ["t"])
    b = await join(c, G, ["t"])
    await fetch(c, G, a)
    clock.advance(30_000)
    await expire(s.broker)
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]
    results = await ack(c, G, a, ack_item(0, 2, "accept"))
    assert results[0]["error"]["code"] == "INVALID_RECORD_STATE"
    got = await fetch(c, G, b)
    assert [r["delivery_count"] for r in got["records"]] == [2, 2, 2]
    results = await ack(c, G, a, ack_item(0, 2, "accept"))
    assert results[0]["error"]["code"] == "INVALID_RECORD_STATE"  # b owns them now
    assert states(await view(c, G)) == [(o, "acquired", 2) for o in range(3)]


async def test_stale_ack_with_delivery_count_is_refused(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    clock.advance(30_000)
    await expire(s.broker)
    await fetch(c, G, a)  # the same member, second delivery
    results = await ack(c, G, a, ack_item(0, 0, "accept", delivery_count=1))
    assert results[0]["error"]["code"] == "INVALID_RECORD_STATE"
    await ack_ok(c, G, a, ack_item(0, 0, "accept", delivery_count=2))


async def test_ack_after_expiry_refused_even_before_the_sweep(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    clock.advance(30_000)
    results = await ack(c, G, a, ack_item(0, 0, "accept"))
    assert results[0]["error"]["code"] == "INVALID_RECORD_STATE"


async def test_renew_extends_the_lock(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 2)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    first = (await view(c, G))["records"][0]["lock_expires_at"]
    clock.advance(20_000)
    await ack_ok(c, G, a, ack_item(0, 1, "renew"))
    v = await view(c, G)
    assert v["records"][0]["lock_expires_at"] == first + 20_000
    clock.advance(15_000)
    await expire(s.broker)
    assert states(await view(c, G)) == [(0, "acquired", 1), (1, "acquired", 1)]
    await ack_ok(c, G, a, ack_item(0, 1, "accept"))
    r = await c.patch(f"/v1/share-groups/{G}/config", json={"renew_enabled": False})
    assert r.status_code == 200


async def test_limit_archives_via_expiry_and_via_release(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s, delivery_count_limit=2)
    await values(s, 2)
    a = await join(c, G, ["t"])
    await fetch(c, G, a, max_records=1, acquire_mode="record_limit")  # 0
    await fetch(c, G, a, max_records=1, acquire_mode="record_limit")  # 1
    await ack_ok(c, G, a, ack_item(1, 1, "release"))
    clock.advance(30_000)
    await expire(s.broker)  # 0: dc 1 → available
    got = await fetch(c, G, a)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2), (1, 2)]
    await ack_ok(c, G, a, ack_item(1, 1, "release"))  # at the limit: archived
    clock.advance(30_000)
    await expire(s.broker)  # 0 at the limit: archived
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"], v["records"]) == (2, 2, [])
    assert offsets(await fetch(c, G, a)) == []


async def test_release_with_delay_is_not_redelivered_early(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    await ack_ok(c, G, a, ack_item(0, 0, "release", delay_ms=10_000))
    v = await view(c, G)
    assert v["records"][0]["available_at"] == clock.now_ms() + 10_000
    assert v["records"][0]["state"] == "available"
    clock.advance(9_999)
    assert offsets(await fetch(c, G, a)) == []
    clock.advance(1)
    got = await fetch(c, G, a)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2)]


async def test_leaving_lowers_the_delivery_count(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 2)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    clock.advance(30_000)
    await expire(s.broker)
    await fetch(c, G, a)
    assert states(await view(c, G)) == [(0, "acquired", 2), (1, "acquired", 2)]
    await heartbeat(c, G, a, -1)
    assert states(await view(c, G)) == [(0, "available", 1), (1, "available", 1)]
    b = await join(c, G, ["t"])
    got = await fetch(c, G, b)
    assert [r["delivery_count"] for r in got["records"]] == [2, 2]


async def test_piggy_backed_acks_are_applied_before_acquiring(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 2)
    a = await join(c, G, ["t"])
    await fetch(c, G, a, max_records=1, acquire_mode="record_limit")
    got = await fetch(
        c, G, a, acknowledgements=[ack_item(0, 0, "release"), ack_item(5, 3, "accept", partition=1)]
    )
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2), (1, 1)]
    assert [(e["partition"], e["error"]["code"]) for e in got["acknowledgement_errors"]] == [
        (1, "INVALID_REQUEST")
    ]


async def test_control_markers_never_delivered_and_json_encoding(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await produce(c, "t", [{"value": {"n": 1}}], encoding="json")
    lg = s.broker.topics.get("t").log(0)
    from app.storage.record import CONTROL_FLAG, Record

    lg.append([Record(0, None, b"")], now_ms=0, attributes=CONTROL_FLAG)
    await s.broker.flusher.wait_durable([lg])
    await produce(c, "t", [{"value": {"n": 2}}], encoding="json")
    a = await join(c, G, ["t"])
    got = await fetch(c, G, a, encoding="json")
    assert [(r["offset"], r["value"]) for r in got["records"]] == [(0, {"n": 1}), (2, {"n": 2})]
    assert states(await view(c, G)) == [(0, "acquired", 1), (1, "archived", 0), (2, "acquired", 1)]
    await ack_ok(c, G, a, ack_item(0, 2, ["accept", "accept", "accept"]))


async def test_acks_arriving_together_share_one_commit(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=4)
    await earliest(s)
    for p in range(4):
        await values(s, 3, partition=p)
    a = await join(c, G, ["t"])
    assert len((await fetch(c, G, a))["records"]) == 12
    rounds = s.broker.share.writer.rounds
    results = await asyncio.gather(
        *(ack(c, G, a, ack_item(0, 2, "accept", partition=p)) for p in range(4))
    )
    assert all(r[0]["error"] is None for r in results)
    assert s.broker.share.writer.rounds - rounds < 4
    assert [p["start_offset"] for p in (await group(c, G))["partitions"]] == [3] * 4


# -- long polls -------------------------------------------------------------------------------


async def test_long_poll_woken_by_produce(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    a = await join(c, G, ["t"])
    await fetch(c, G, a)  # initialises the start at the (empty) end
    waiting = asyncio.create_task(fetch(c, G, a, max_wait_ms=30_000))
    await parked(s.broker)
    await values(s, 2)
    got = await asyncio.wait_for(waiting, 5)
    assert offsets(got) == [0, 1]


async def test_long_poll_woken_by_release(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)
    a = await join(c, G, ["t"])
    b = await join(c, G, ["t"])
    await fetch(c, G, a)
    waiting = asyncio.create_task(fetch(c, G, b, max_wait_ms=30_000))
    await parked(s.broker)
    await ack_ok(c, G, a, ack_item(0, 0, "release"))
    got = await asyncio.wait_for(waiting, 5)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2)]


async def test_long_poll_woken_by_lock_expiry(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)
    a = await join(c, G, ["t"])
    b = await join(c, G, ["t"])
    await fetch(c, G, a)
    waiting = asyncio.create_task(fetch(c, G, b, max_wait_ms=60_000))
    await parked(s.broker)
    clock.advance(30_000)
    s.broker.share.expire_due()
    got = await asyncio.wait_for(waiting, 5)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2)]


async def test_many_waiters_woken_one_at_a_time_without_losing_work(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    members = [await join(c, G, ["t"]) for _ in range(5)]
    await fetch(c, G, members[0])
    tasks = [
        asyncio.create_task(
            fetch(c, G, m, max_wait_ms=30_000, max_records=2, acquire_mode="record_limit")
        )
        for m in members
    ]
    await parked(s.broker, 5)
    await values(s, 4)  # work for two of them
    await until(lambda: sum(t.done() for t in tasks) >= 2)
    for _ in range(50):  # nobody else is woken: the work is gone
        await asyncio.sleep(0)
    got = [t.result() for t in tasks if t.done()]
    assert sorted(o for a in got for o in offsets(a)) == [0, 1, 2, 3]
    assert len(got) == 2
    s.broker.share.begin_shutdown()  # release the rest
    await asyncio.wait_for(asyncio.gather(*tasks), 5)


# -- admin ------------------------------------------------------------------------------------


async def test_config_patch_creates_the_group_and_validates(s: Served) -> None:
    c = s.client
    r = await c.patch("/v1/share-groups/new/config", json={"record_lock_duration_ms": 5000})
    assert r.status_code == 200
    assert r.json() == {
        "record_lock_duration_ms": 5000,
        "delivery_count_limit": 5,
        "partition_max_record_locks": 2000,
        "auto_offset_reset": "latest",
        "isolation_level": "read_uncommitted",
        "renew_enabled": True,
        "dead_letter_topic": None,
    }
    d = await group(c, "new")
    assert d["state"] == "Empty" and d["members"] == [] and d["partitions"] == []
    for bad in (
        {"nope": 1},
        {"delivery_count_limit": 1},
        {"delivery_count_limit": 11},
        {"partition_max_record_locks": 99},
        {"record_lock_duration_ms": 999},
        {"auto_offset_reset": "by_duration:x"},
        {"auto_offset_reset": "by_duration:1234567890123"},  # 13 digits
        {"isolation_level": "dirty"},
        {"renew_enabled": 1},
        [1],
    ):
        r = await c.patch("/v1/share-groups/new/config", json=bad)
        assert_error(r, 400, "INVALID_CONFIG")
    # well formed, but the topic it names does not exist: 404, as for any missing topic
    r = await c.patch("/v1/share-groups/new/config", json={"dead_letter_topic": "missing"})
    assert_error(r, 404, "UNKNOWN_TOPIC_OR_PARTITION")
    assert (await group(c, "new"))["config"]["record_lock_duration_ms"] == 5000


async def test_reset_only_when_empty_and_delete(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await values(s, 5)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)  # latest: starts at 5
    body = {"topics": [{"topic": "t", "partitions": None, "to": "earliest"}]}
    r = await c.post(f"/v1/share-groups/{G}/offsets", json=body)
    assert_error(r, 409, "NON_EMPTY_GROUP")
    assert_error(await c.delete(f"/v1/share-groups/{G}"), 409, "NON_EMPTY_GROUP")
    await heartbeat(c, G, a, -1)
    r = await c.post(f"/v1/share-groups/{G}/offsets", json={**body, "dry_run": True})
    assert r.status_code == 200
    assert r.json()["topics"] == [
        {"topic": "t", "partitions": [{"partition": 0, "start_offset": 0}]}
    ]
    assert (await view(c, G))["start_offset"] == 5
    r = await c.post(f"/v1/share-groups/{G}/offsets", json=body)
    assert r.status_code == 200
    assert (await view(c, G))["start_offset"] == 0
    b = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, b)) == [0, 1, 2, 3, 4]
    await heartbeat(c, G, b, -1)
    r = await c.post(
        f"/v1/share-groups/{G}/offsets", json={"topics": [{"topic": "t", "to": {"offset": 3}}]}
    )
    assert r.status_code == 200
    v = await view(c, G)
    assert (v["start_offset"], v["records"]) == (3, [])
    r = await c.post(
        f"/v1/share-groups/{G}/offsets", json={"topics": [{"topic": "t", "to": {"offset": 99}}]}
    )
    assert_error(r, 409, "OFFSET_OUT_OF_RANGE")
    assert (
        await c.delete(f"/v1/share-groups/{G}/offsets", params={"topic": "t"})
    ).status_code == 204
    assert (await view(c, G))["start_offset"] == -1
    assert (await c.delete(f"/v1/share-groups/{G}")).status_code == 204
    assert_error(await c.get(f"/v1/share-groups/{G}"), 404, "GROUP_ID_NOT_FOUND")
    assert_error(await c.delete(f"/v1/share-groups/{G}"), 404, "GROUP_ID_NOT_FOUND")


async def test_state_survives_a_restart(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "t")
        await earliest(s, delivery_count_limit=3)
        await values(s, 6)
        a = await join(c, G, ["t"])
        await fetch(c, G, a)
        await ack_ok(
            c, G, a, ack_item(0, 5, ["accept", "release", "reject", "accept", "accept", "accept"])
        )
        await fetch(c, G, a)  # 1 again (dc 2): acquired, not persisted
        await settle(s.broker)
    async with running(settings, clock) as s:
        c = s.client
        v = await view(c, G)
        assert (v["start_offset"], v["end_offset"]) == (1, 6)
        assert states(v)[:2] == [(1, "available", 1), (2, "archived", 1)]
        d = await group(c, G)
        assert d["config"]["delivery_count_limit"] == 3 and d["config"]["auto_offset_reset"] == (
            "earliest"
        )
        b = await join(c, G, ["t"])
        got = await fetch(c, G, b)
        assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(1, 2)]


# -- dead-letter topic ------------------------------------------------------------------------


async def test_dead_letter_copy_carries_the_headers(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t", partitions=3)
    await create_topic(c, "dlq", partitions=2)
    await earliest(s, dead_letter_topic="dlq", delivery_count_limit=2)
    await produce(
        c,
        "t",
        [
            {"key": "k", "value": "bad", "partition": 2, "headers": [{"key": "h", "value": "x"}]},
            {"value": "slow", "partition": 2},
        ],
    )
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    await ack_ok(
        c, G, a, ack_item(0, 0, "reject", partition=2), ack_item(1, 1, "release", partition=2)
    )
    await fetch(c, G, a)
    clock.advance(30_000)
    await expire(s.broker)  # offset 1 at the limit
    r = await c.get("/v1/topics/dlq/partitions/0/records", params={"offset": 0})
    recs = r.json()["records"]
    assert len(recs) == 2
    first = recs[0]
    assert (first["key"], first["value"]) == ("k", "bad")
    headers = {h["key"]: h["value"] for h in first["headers"]}
    assert headers == {
        "h": "x",
        "sluice.dlq.topic": "t",
        "sluice.dlq.partition": "2",
        "sluice.dlq.offset": "0",
        "sluice.dlq.group": G,
        "sluice.dlq.delivery_count": "1",
        "sluice.dlq.reason": "rejected",
    }
    second = {h["key"]: h["value"] for h in recs[1]["headers"]}
    assert (
        second["sluice.dlq.offset"],
        second["sluice.dlq.delivery_count"],
        second["sluice.dlq.reason"],
    ) == ("1", "2", "delivery_count_limit")
    v = await view(c, G, partition=2)
    assert (v["start_offset"], v["records"]) == (2, [])


async def test_a_dead_letter_copy_is_made_once_across_a_lost_archive_and_a_restart(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """The copies are durable, the archive is not (the share state write fails, standing in
    for a crash between the two): the record is rejected again, in the same process and after
    a restart, and its copy is not appended a second time."""
    from app.errors import ErrorCode, StorageError

    async def dlq_offsets(c: Any) -> list[tuple[str, str]]:
        r = await c.get("/v1/topics/dlq/partitions/0/records", params={"offset": 0})
        assert r.status_code == 200, r.text
        return [
            ({h["key"]: h["value"] for h in rec["headers"]}["sluice.dlq.offset"], rec["value"])
            for rec in r.json()["records"]
        ]

    async def lost_write(*args: object) -> list[bool]:
        raise StorageError(ErrorCode.KAFKA_STORAGE_ERROR, "the server stopped here")

    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "t")
        await create_topic(c, "dlq")
        await earliest(s, dead_letter_topic="dlq")
        await values(s, 2)
        a = await join(c, G, ["t"])
        assert offsets(await fetch(c, G, a)) == [0, 1]
        store = s.broker.share.store
        store.write = lost_write  # type: ignore[method-assign,assignment]
        (res,) = await ack(c, G, a, ack_item(0, 1, "reject"))
        assert res["error"]["code"] == "KAFKA_STORAGE_ERROR"
        del store.write  # the copies were appended and fsynced, the archive was not
        assert await dlq_offsets(c) == [("0", "v0"), ("1", "v1")]
        assert states(await view(c, G)) == [(0, "acquired", 1), (1, "acquired", 1)]
        await ack_ok(c, G, a, ack_item(0, 0, "reject"))  # the same delivery, in this process
        assert await dlq_offsets(c) == [("0", "v0"), ("1", "v1")]
        assert states(await view(c, G)) == [(1, "acquired", 1)]
    async with running(settings, clock) as s:  # offset 1 was never archived durably
        c = s.client
        b = await join(c, G, ["t"])
        got = await fetch(c, G, b)
        assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(1, 1)]
        await ack_ok(c, G, b, ack_item(1, 1, "reject"))
        assert await dlq_offsets(c) == [("0", "v0"), ("1", "v1")]  # no second copy
        assert (await view(c, G))["start_offset"] == 2
        await values(s, 1)  # a new record is copied as usual
        assert offsets(await fetch(c, G, b)) == [2]
        await ack_ok(c, G, b, ack_item(2, 2, "reject"))
        assert await dlq_offsets(c) == [("0", "v0"), ("1", "v1"), ("2", "v0")]
        assert s.broker.share.dead_letters.skipped == 1


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"first_offset": 3, "last_offset": 2, "type": "accept"}, "first > last"),
        ({"first_offset": 0, "last_offset": 2, "types": ["accept", "accept"]}, "count"),
        ({"first_offset": 0, "last_offset": 0, "type": "gap"}, "unknown type"),
        ({"first_offset": 0, "last_offset": 0, "types": []}, "empty types"),
        ({"first_offset": 0, "last_offset": 0}, "no type"),
        ({"first_offset": "0", "last_offset": 0, "type": "accept"}, "string offset"),
        ({"first_offset": 0, "last_offset": 0, "type": "accept", "delay_ms": 5}, "delay on accept"),
        ({"first_offset": 0, "last_offset": 0, "type": "release", "delay_ms": -1}, "neg delay"),
        ({"first_offset": 0, "last_offset": 9, "type": "accept"}, "beyond the window"),
    ],
)
async def test_malformed_ranges_are_per_partition_errors_changing_nothing(
    s: Served, item: dict[str, Any], why: str
) -> None:
    c = s.client
    await create_topic(c, "t", partitions=2)
    await earliest(s)
    await values(s, 3)
    await values(s, 1, partition=1)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    before = await view(c, G)
    results = await ack(
        c, G, a, {"topic": "t", "partition": 0, **item}, ack_item(0, 0, "accept", partition=1)
    )
    assert results[0]["error"]["code"] == "INVALID_REQUEST", why
    assert results[1]["error"] is None
    assert await view(c, G) == before


async def test_not_ascending_ranges_change_nothing(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 4)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    results = await ack(c, G, a, ack_item(2, 3, "accept"), ack_item(0, 2, "accept"))
    assert results == [{"topic": "t", "partition": 0, "error": results[0]["error"]}]
    assert results[0]["error"]["code"] == "INVALID_REQUEST"
    assert states(await view(c, G)) == [(o, "acquired", 1) for o in range(4)]


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("heartbeat", {"member_epoch": 0}, 400, "INVALID_REQUEST"),
        ("heartbeat", {"member_epoch": "x", "subscribed_topics": ["t"]}, 400, "INVALID_REQUEST"),
        ("heartbeat", {"member_epoch": 0, "subscribed_topics": "t"}, 400, "INVALID_REQUEST"),
        ("heartbeat", {"member_epoch": 0, "subscribed_topics": ["bad name"]}, 400, "INVALID_TOPIC"),
        ("heartbeat", {"member_id": "x", "member_epoch": -7}, 400, "INVALID_REQUEST"),
        ("heartbeat", {"member_id": "x", "member_epoch": 4}, 404, "UNKNOWN_MEMBER_ID"),
        ("heartbeat", [1, 2], 400, "INVALID_REQUEST"),
        ("fetch", {"member_id": "ghost"}, 404, "UNKNOWN_MEMBER_ID"),
        (
            "fetch",
            {"member_id": None, "subscribed_topics": ["t"], "max_records": 0},
            400,
            "INVALID_REQUEST",
        ),
        (
            "fetch",
            {"member_id": None, "subscribed_topics": ["t"], "acquire_mode": "x"},
            400,
            "INVALID_REQUEST",
        ),
        (
            "fetch",
            {"member_id": None, "subscribed_topics": ["t"], "acknowledgements": {}},
            400,
            "INVALID_REQUEST",
        ),
        ("acknowledge", {"member_id": "ghost", "acknowledgements": []}, 404, "UNKNOWN_MEMBER_ID"),
        ("acknowledge", {"acknowledgements": []}, 400, "INVALID_REQUEST"),
        (
            "acknowledge",
            {"member_id": "m", "acknowledgements": [{"topic": "t"}]},
            400,
            "INVALID_REQUEST",
        ),
        ("offsets", {"topics": []}, 400, "INVALID_REQUEST"),
    ],
)
async def test_bad_requests(s: Served, path: str, body: Any, status: int, code: str) -> None:
    await create_topic(s.client, "t")
    await s.client.patch(f"/v1/share-groups/{G}/config", json={})
    r = await s.client.post(f"/v1/share-groups/{G}/{path}", json=body)
    assert_error(r, status, code)


async def test_record_views_take_at_most_the_limit_of_offsets_and_records(s: Served) -> None:
    await create_topic(s.client, "t", partitions=1)
    await earliest(s)
    await values(s, 10)
    r = await s.client.post(
        f"/v1/share-groups/{G}/fetch",
        json={"member_id": None, "subscribed_topics": ["t"], "max_records": 1, "max_wait_ms": 0},
    )
    assert r.status_code == 200, r.text
    admin = s.broker.engine.share_admin
    # both ends given: the window is cut at the limit past its start
    start, end, views = await admin.record_views(G, "t", 0, 2, 9, 3)
    assert (start, end) == (0, 10) and [v.offset for v in views] == [2, 3, 4]
    # one end open: every offset of the window is looked at, the answer cut at the limit
    _, _, views = await admin.record_views(G, "t", 0, None, None, 4)
    assert [v.offset for v in views] == [0, 1, 2, 3]


async def test_bad_admin_requests(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    assert_error(await c.get("/v1/share-groups/nope"), 404, "GROUP_ID_NOT_FOUND")
    await c.patch(f"/v1/share-groups/{G}/config", json={})
    assert_error(
        await c.get(f"/v1/share-groups/{G}/partitions/zz/0/records"),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(
        await c.get(f"/v1/share-groups/{G}/partitions/t/0/records", params={"from": -1}),
        400,
        "INVALID_REQUEST",
    )
    for partition in (-1, 2**31):  # a bad partition, as every other path answers it
        assert_error(
            await c.get(f"/v1/share-groups/{G}/partitions/t/{partition}/records"),
            400,
            "INVALID_REQUEST",
        )
    # a range wider than an answer takes is answered from its start (it was refused)
    r = await c.get(f"/v1/share-groups/{G}/partitions/t/0/records", params={"from": 0, "to": 10**9})
    assert r.status_code == 200 and r.json()["records"] == []
    for to in ("middle", {"offset": -1}, {"timestamp": "x"}, {"a": 1, "b": 2}, None):
        r = await c.post(
            f"/v1/share-groups/{G}/offsets", json={"topics": [{"topic": "t", "to": to}]}
        )
        assert_error(r, 400, "INVALID_REQUEST")
    # a malformed target is reported where the reset reaches it: after the group and topic
    bad_to = {"topics": [{"topic": "t", "to": "middle"}]}
    assert_error(
        await c.post("/v1/share-groups/nope/offsets", json=bad_to), 404, "GROUP_ID_NOT_FOUND"
    )
    assert_error(
        await c.post(
            f"/v1/share-groups/{G}/offsets", json={"topics": [{"topic": "zz", "to": "middle"}]}
        ),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(await c.delete(f"/v1/share-groups/{G}/offsets"), 400, "INVALID_REQUEST")
    assert_error(await c.delete(f"/v1/share-groups/{G}/members/ghost"), 404, "UNKNOWN_MEMBER_ID")
    assert_error(
        await c.delete(f"/v1/share-groups/{G}/offsets", params={"topic": "zz"}),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(
        await c.post(
            f"/v1/share-groups/{G}/offsets",
            json={"topics": [{"topic": "t", "to": "earliest"}], "dry_run": "yes"},
        ),
        400,
        "INVALID_REQUEST",
    )
    assert_error(
        await c.post(
            "/v1/share-groups/bad name/heartbeat",
            json={"member_epoch": 0, "subscribed_topics": ["t"]},
        ),
        400,
        "INVALID_REQUEST",
    )
    _ = base64


# -- start offsets and log movement -----------------------------------------------------------


async def test_by_duration_and_partitions_added_later(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    now = clock.now_ms()
    await produce(
        c,
        "t",
        [{"value": "old", "timestamp": now - 120_000}, {"value": "new", "timestamp": now - 30_000}],
    )
    r = await c.patch(
        f"/v1/share-groups/{G}/config", json={"auto_offset_reset": "by_duration:60000"}
    )
    assert r.status_code == 200
    a = await join(c, G, ["t"])
    got = await fetch(c, G, a)
    assert [r["value"] for r in got["records"]] == ["new"]
    # a partition added later starts from the same rule at the group's first fetch from it
    r = await c.patch("/v1/topics/t", json={"partitions": 2})
    assert r.status_code == 200
    await produce(
        c,
        "t",
        [
            {"value": "p1-old", "partition": 1, "timestamp": now - 120_000},
            {"value": "p1-new", "partition": 1},
        ],
    )
    got = await fetch(c, G, a)
    assert [(r["partition"], r["value"]) for r in got["records"]] == [(1, "p1-new")]


async def test_delete_records_archives_what_the_log_no_longer_holds(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 6)
    a = await join(c, G, ["t"])
    await fetch(c, G, a, max_records=2, acquire_mode="record_limit")  # 0-1 acquired
    await fetch(c, G, a, max_records=2, acquire_mode="record_limit")  # 2-3 acquired
    await ack_ok(c, G, a, ack_item(2, 3, "release"))
    r = await c.post(
        "/v1/topics/t/delete-records", json={"partitions": [{"partition": 0, "before_offset": 4}]}
    )
    assert r.status_code == 200
    got = await fetch(c, G, a)
    assert offsets(got) == [4, 5]  # 2-3 were available below the new log start: archived
    assert (await view(c, G))["start_offset"] == 4


async def test_a_recreated_topic_starts_over(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 3)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    assert (await c.delete("/v1/topics/t")).status_code == 204
    await create_topic(c, "t")
    await values(s, 1)
    got = await fetch(c, G, a)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 1)]
    results = await ack(c, G, a, ack_item(0, 0, "accept"))
    assert results[0]["error"] is None


# -- isolation --------------------------------------------------------------------------------


async def test_read_committed_group_waits_for_commit_and_never_sees_aborted(s: Served) -> None:
    from tests.integration.txn_helpers import end_txn, init_producer, produce_one

    c = s.client
    await create_topic(c, "t")
    await earliest(s, isolation_level="read_committed")
    r = await c.patch("/v1/share-groups/dirty/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200
    pid, epoch = await init_producer(c, transactional_id="tx")
    await produce_one(c, pid, epoch, "t", 0, 0, n=2, tid="tx")  # 0-1, open
    a = await join(c, G, ["t"])
    d = await join(c, "dirty", ["t"])
    assert offsets(await fetch(c, G, a)) == []  # bounded by the LSO
    assert offsets(await fetch(c, "dirty", d)) == [0, 1]  # read_uncommitted sees them
    r = await end_txn(c, "tx", pid, epoch, "abort")  # marker at 2
    assert r.status_code == 200, r.text
    epoch = r.json()["producer_epoch"]
    await produce_one(c, pid, epoch, "t", 0, 0, n=1, tid="tx")  # 3
    r = await end_txn(c, "tx", pid, epoch, "commit")  # marker at 4
    assert r.status_code == 200, r.text
    await settle(s.broker)
    got = await fetch(c, G, a)
    assert offsets(got) == [3]  # the aborted records and the markers are never delivered
    v = await view(c, G)
    assert v["start_offset"] == 3  # 0-2 (aborted, and the abort marker) archived: complete
    assert [(r["offset"], r["state"]) for r in v["records"]] == [(3, "acquired"), (4, "archived")]
    await ack_ok(c, G, a, ack_item(0, 4, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"]) == (5, 5)


async def aborted_between_two_records(s: Served) -> None:
    """Topic t: record 0, an aborted transaction's records 1-3 and its marker 4, record 5."""
    from tests.integration.txn_helpers import end_txn, init_producer, produce_one

    c = s.client
    await values(s, 1)  # 0
    pid, epoch = await init_producer(c, transactional_id="tx")
    await produce_one(c, pid, epoch, "t", 0, 0, n=3, tid="tx")  # 1-3
    r = await end_txn(c, "tx", pid, epoch, "abort")  # marker at 4
    assert r.status_code == 200, r.text
    await values(s, 1)  # 5
    await settle(s.broker)


async def test_read_committed_archives_aborted_records_with_one_delivery(s: Served) -> None:
    """As in Kafka, aborted records are archived as if delivered once (count 1); the abort
    marker, which is no record, keeps count 0. Both are never delivered, before or after a
    release brings the fetch back over them."""
    c = s.client
    await create_topic(c, "t")
    await earliest(s, isolation_level="read_committed")
    await aborted_between_two_records(s)
    a = await join(c, G, ["t"])
    got = await fetch(c, G, a)
    assert offsets(got) == [0, 5]
    assert [(x["first_offset"], x["last_offset"]) for x in got["acquired"]] == [(0, 0), (5, 5)]
    expected = [
        (0, "acquired", 1),
        (1, "archived", 1),
        (2, "archived", 1),
        (3, "archived", 1),
        (4, "archived", 0),
        (5, "acquired", 1),
    ]
    assert states(await view(c, G)) == expected
    await ack_ok(c, G, a, ack_item(5, 5, "release"))
    assert offsets(await fetch(c, G, a)) == [5]
    assert states(await view(c, G))[1:5] == expected[1:5]
    # the aborted records are no gap: naming them in an acknowledgement is refused
    (res,) = await ack(c, G, a, ack_item(0, 5, "accept"))
    assert res["error"]["code"] == "INVALID_RECORD_STATE"
    await ack_ok(c, G, a, ack_item(0, 0, "accept"), ack_item(5, 5, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"]) == (6, 6)


async def test_switch_to_read_committed_archives_a_released_aborted_record_alone(
    s: Served,
) -> None:
    """Records delivered under read_uncommitted, then the group is switched to
    read_committed: a released record of an aborted transaction is archived at the next
    fetch, and the transaction's records acknowledged meanwhile stay acknowledged."""
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await aborted_between_two_records(s)
    a = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, a)) == [0, 1, 2, 3, 5]
    # 1 released, the rest accepted (4 is the marker); 0 stays acquired, so the view keeps
    # every offset in sight
    await ack_ok(c, G, a, ack_item(1, 5, ["release", "accept", "accept", "accept", "accept"]))
    r = await c.patch(f"/v1/share-groups/{G}/config", json={"isolation_level": "read_committed"})
    assert r.status_code == 200, r.text
    assert offsets(await fetch(c, G, a)) == []
    await settle(s.broker)
    assert states(await view(c, G)) == [
        (0, "acquired", 1),
        (1, "archived", 1),
        (2, "acknowledged", 1),
        (3, "acknowledged", 1),
        (4, "archived", 0),
        (5, "acknowledged", 1),
    ]
    await ack_ok(c, G, a, ack_item(0, 0, "accept"))
    v = await view(c, G)
    assert (v["start_offset"], v["end_offset"], v["records"]) == (6, 6, [])


async def test_switch_to_read_committed_keeps_released_records_past_the_lso(s: Served) -> None:
    """Records of a transaction still open, delivered under read_uncommitted and released,
    stay available once the group reads committed: out of reach until the transaction ends,
    then delivered."""
    from tests.integration.txn_helpers import end_txn, init_producer, produce_one

    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 1)  # 0
    pid, epoch = await init_producer(c, transactional_id="tx")
    await produce_one(c, pid, epoch, "t", 0, 0, n=2, tid="tx")  # 1-2, open
    await values(s, 1)  # 3
    await settle(s.broker)
    a = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, a)) == [0, 1, 2, 3]
    await ack_ok(c, G, a, ack_item(0, 3, ["accept", "release", "release", "release"]))
    r = await c.patch(f"/v1/share-groups/{G}/config", json={"isolation_level": "read_committed"})
    assert r.status_code == 200, r.text
    assert offsets(await fetch(c, G, a)) == []  # bounded by the LSO
    await settle(s.broker)
    assert states(await view(c, G)) == [
        (1, "available", 1),
        (2, "available", 1),
        (3, "available", 1),
    ]
    r = await end_txn(c, "tx", pid, epoch, "commit")  # marker at 4
    assert r.status_code == 200, r.text
    await settle(s.broker)
    got = await fetch(c, G, a)
    assert [
        (x["first_offset"], x["last_offset"], x["delivery_count"]) for x in got["acquired"]
    ] == [(1, 3, 2)]


async def test_metrics_show_records_by_state(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 3)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    await ack_ok(c, G, a, ack_item(1, 1, "accept"))
    text = await metrics(c)
    assert metric(text, "sluice_share_records_acquired") == 2
    assert metric(text, "sluice_share_records_acknowledged") == 1
    assert metric(text, "sluice_share_groups") == 1 and metric(text, "sluice_share_members") == 1


async def test_heartbeats_and_long_polls_keep_a_member_alive(s: Served, clock: FakeClock) -> None:
    c = s.client
    await create_topic(c, "t")
    a = await join(c, G, ["t"])
    b = await join(c, G, ["t"])
    hb = await heartbeat(c, G, a, 0, ["t"])
    await fetch(c, G, b)
    waiting = asyncio.create_task(fetch(c, G, b, max_wait_ms=60_000))
    await parked(s.broker)
    for _ in range(3):
        clock.advance(30_000)
        hb = await heartbeat(c, G, a, hb["member_epoch"])
        assert s.broker.share.membership.sweep_sessions() == 0  # a heartbeats, b is in a long poll
    await values(s, 1)
    assert offsets(await asyncio.wait_for(waiting, 5)) == [0]
    clock.advance(45_000)
    assert s.broker.share.membership.sweep_sessions() == 2


async def test_the_initial_start_offset_is_durable_before_records_are_delivered(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await values(s, 5)
    a = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, a)) == []  # latest: starts at 5
    rows = await s.broker.share.store.load_partitions()
    assert [(r.group_id, r.partition, r.start_offset) for r in rows] == [(G, 0, 5)]
    await values(s, 2)
    assert offsets(await fetch(c, G, a)) == [5, 6]


JUNK: list[Any] = [
    None,
    0,
    -1,
    2**70,
    "x",
    [],
    {},
    [None],
    {"member_id": 5},
    {"member_id": None, "subscribed_topics": [None]},
    {"member_id": "m", "acknowledgements": [None]},
    {"member_id": "m", "acknowledgements": [{"topic": "t", "partition": -1}]},
    {"member_id": "m", "member_epoch": 2**70},
    {"member_id": None, "subscribed_topics": ["t"], "max_wait_ms": "x"},
    {"member_id": None, "subscribed_topics": ["t"], "encoding": "rot13"},
    {"topics": [{"topic": "t", "partitions": [-1], "to": "earliest"}]},
    {"topics": [{"topic": "t", "partitions": [7], "to": "earliest"}]},
    {"record_lock_duration_ms": 2**70},
]


async def test_junk_never_500_and_changes_nothing(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(s)
    await values(s, 2)
    a = await join(c, G, ["t"])
    await fetch(c, G, a)
    before = (await view(c, G), await group(c, G))
    for path in ("heartbeat", "fetch", "acknowledge", "offsets", "config"):
        for body in JUNK:
            method = c.patch if path == "config" else c.post
            r = await method(f"/v1/share-groups/{G}/{path}", json=body)
            assert r.status_code < 500, (path, body, r.text)
            if r.status_code != 200:
                assert r.json()["error"]["code"], r.text
    r = await c.post(f"/v1/share-groups/{G}/fetch", content=b"{not json")
    assert_error(r, 400, "INVALID_REQUEST")
    after_view, after_group = await view(c, G), await group(c, G)
    assert after_view == before[0]
    assert after_group["partitions"] == before[1]["partitions"]

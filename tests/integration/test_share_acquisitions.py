"""Share fetches by acquisition id through create_app() with a FakeClock: replay, exclusivity,
acknowledging everything an acquisition holds (by id or prefix), releases, lock expiry, the
listing, members leaving, restarts and bad bodies (docs/semantics.md#share-acquisitions-by-id)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, produce
from tests.integration.share_helpers import (
    ack,
    ack_item,
    expire,
    fetch,
    group,
    heartbeat,
    join,
    offsets,
    parked,
    states,
    view,
)

G = "g1"


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as served:
        yield served


async def earliest(c: httpx.AsyncClient, g: str = G) -> None:
    r = await c.patch(f"/v1/share-groups/{g}/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text


async def values(c: httpx.AsyncClient, n: int, topic: str = "t", partition: int = 0) -> None:
    await produce(c, topic, [{"value": f"v{i}", "partition": partition} for i in range(n)])


async def take(
    c: httpx.AsyncClient,
    acquisition_id: str,
    topics: list[str] | None = None,
    *,
    g: str = G,
    expect: int = 200,
    **body: Any,
) -> dict[str, Any]:
    """A fetch by acquisition id."""
    r = await c.post(
        f"/v1/share-groups/{g}/fetch",
        json={"acquisition_id": acquisition_id, "subscribed_topics": topics or ["t"], **body},
    )
    assert r.status_code == expect, r.text
    return dict(r.json())


async def settle_acquisitions(
    c: httpx.AsyncClient, *, g: str = G, kind: str | None = None, **body: Any
) -> dict[str, Any]:
    if kind is not None:
        body["type"] = kind
    r = await c.post(f"/v1/share-groups/{g}/acquisitions/acknowledge", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


async def listing(c: httpx.AsyncClient, prefix: str | None = None, g: str = G) -> dict[str, Any]:
    params = {} if prefix is None else {"prefix": prefix}
    r = await c.get(f"/v1/share-groups/{g}/acquisitions", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def delivered(answer: dict[str, Any]) -> list[tuple[int, int, int]]:
    return [(r["partition"], r["offset"], r["delivery_count"]) for r in answer["records"]]


# -- replay -------------------------------------------------------------------------------------


async def test_the_same_id_answers_the_same_records_and_acquires_nothing(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 10)
    first = await take(c, "run1:0:0", max_records=3, acquire_mode="record_limit")
    assert first["member_id"] is None and first["acquisition_id"] == "run1:0:0"
    assert delivered(first) == [(0, 0, 1), (0, 1, 1), (0, 2, 1)]
    assert first["acquired"] == [
        {"topic": "t", "partition": 0, "first_offset": 0, "last_offset": 2, "delivery_count": 1}
    ]
    assert first["acquisition_lock_timeout_ms"] == 30_000
    assert first["acknowledgement_errors"] == []
    # again, even asking for more, with more available: exactly those records, counts unchanged
    again = await take(c, "run1:0:0", max_records=100, max_wait_ms=30_000)
    assert again == first
    v = await view(c, G)
    assert v["end_offset"] == 3  # nothing new was acquired
    assert states(v) == [(o, "acquired", 1) for o in range(3)]
    assert {r["member_id"] for r in v["records"]} == {"acquisition:/run1:0:0"}
    # the group was created as a join creates it, with no member
    d = await group(c, G)
    assert (d["state"], d["members"]) == ("Empty", [])


async def test_ids_never_share_a_record_and_members_take_the_rest(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=2)
    await earliest(c)
    for p in (0, 1):
        for _ in range(10):
            await values(c, 5, partition=p)
    member = await join(c, G, ["t"])
    seen: dict[tuple[int, int], str] = {}
    for round_ in range(4):
        ids = [f"run1:{round_}:{task}" for task in range(5)]
        answers = await asyncio.gather(
            *(take(c, i, max_records=4) for i in ids), fetch(c, G, member, max_records=4)
        )
        for who, a in zip([*ids, member], answers, strict=True):
            for r in a["records"]:
                key = (r["partition"], r["offset"])
                assert key not in seen, (key, seen[key], who)
                seen[key] = who
    assert len(seen) == 100
    # every acquisition answers what it holds, and only that
    for key_owner in {o for o in seen.values() if o != member}:
        again = await take(c, key_owner)
        mine = sorted(k for k, o in seen.items() if o == key_owner)
        assert sorted((r["partition"], r["offset"]) for r in again["records"]) == mine


async def test_the_starting_partition_rotates_across_acquisitions(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=3)
    await earliest(c)
    for p in range(3):
        await values(c, 10, partition=p)
    firsts = []
    for task in range(3):
        got = await take(c, f"run1:0:{task}", max_records=2, acquire_mode="record_limit")
        assert len({r["partition"] for r in got["records"]}) == 1
        firsts.append(got["records"][0]["partition"])
    assert sorted(firsts) == [0, 1, 2]


async def test_concurrent_fetches_of_one_id_answer_the_same_records(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    waiting = asyncio.create_task(take(c, "run1:0:0", max_wait_ms=30_000))
    await parked(s.broker)
    # a second attempt of the same task arrives while the first long-polls
    second = asyncio.create_task(take(c, "run1:0:0", max_wait_ms=30_000))
    for _ in range(20):
        await asyncio.sleep(0)
    await values(c, 3)
    one, two = await asyncio.wait_for(asyncio.gather(waiting, second), 5)
    assert delivered(one) == [(0, 0, 1), (0, 1, 1), (0, 2, 1)]
    assert two == one
    assert (await listing(c))["records"] == 3


async def test_a_long_poll_of_an_id_with_nothing_ends_empty(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    got = await take(c, "run1:0:0")
    assert (got["records"], got["acquired"], got["acquisition_id"]) == ([], [], "run1:0:0")
    assert (await listing(c)) == {"acquisitions": [], "records": 0}


# -- acknowledging ------------------------------------------------------------------------------


async def test_accept_all_acknowledges_and_the_id_then_acquires_fresh_records(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 10)
    assert offsets(await take(c, "run1:0:0", max_records=3, acquire_mode="record_limit")) == [
        0,
        1,
        2,
    ]
    done = await settle_acquisitions(c, acquisition_ids=["run1:0:0", "unknown"])
    assert done == {
        "acknowledged": 3,
        "acquisitions": [{"acquisition_id": "run1:0:0", "records": 3}],
    }
    v = await view(c, G)
    assert (v["start_offset"], v["records"]) == (3, [])
    part = (await group(c, G))["partitions"][0]
    assert (part["start_offset"], part["acquired"], part["lag"]) == (3, 0, 7)
    # the driver may call again: nothing is held any more
    again = await settle_acquisitions(c, acquisition_ids=["run1:0:0"])
    assert again == {"acknowledged": 0, "acquisitions": []}
    got = await take(c, "run1:0:0", max_records=3, acquire_mode="record_limit")
    assert delivered(got) == [(0, 3, 1), (0, 4, 1), (0, 5, 1)]


async def test_release_makes_the_records_available_with_their_count(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 3)
    await take(c, "run1:0:0")
    done = await settle_acquisitions(c, kind="release", acquisition_ids=["run1:0:0"])
    assert done["acknowledged"] == 3
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]
    member = await join(c, G, ["t"])
    got = await fetch(c, G, member)
    assert [(r["offset"], r["delivery_count"]) for r in got["records"]] == [(0, 2), (1, 2), (2, 2)]


async def test_reject_archives(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 2)
    await take(c, "run1:0:0")
    await settle_acquisitions(c, kind="reject", prefix="run1:")
    v = await view(c, G)
    assert (v["start_offset"], v["records"]) == (2, [])
    assert (await group(c, G))["partitions"][0]["lag"] == 0


async def test_prefix_acknowledges_only_the_acquisitions_it_names(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=2)
    await earliest(c)
    for p in (0, 1):
        await values(c, 6, partition=p)
    for i in ("run1:0:0", "run1:0:1", "run1:00", "run2:0:0"):
        await take(c, i, max_records=2, acquire_mode="record_limit")
    done = await settle_acquisitions(c, prefix="run1:0:")
    assert done == {
        "acknowledged": 4,
        "acquisitions": [
            {"acquisition_id": "run1:0:0", "records": 2},
            {"acquisition_id": "run1:0:1", "records": 2},
        ],
    }
    assert [a["acquisition_id"] for a in (await listing(c))["acquisitions"]] == [
        "run1:00",
        "run2:0:0",
    ]


async def test_members_cannot_acknowledge_an_acquisitions_records(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 2)
    await take(c, "run1:0:0")
    member = await join(c, G, ["t"])
    results = await ack(c, G, member, ack_item(0, 1, "accept"))
    assert results[0]["error"]["code"] == "INVALID_RECORD_STATE"
    # nor pass for one: member ids may not take the acquisitions' prefix
    r = await c.post(
        f"/v1/share-groups/{G}/heartbeat",
        json={"member_id": "acquisition:run1:0:0", "member_epoch": 0, "subscribed_topics": ["t"]},
    )
    assert_error(r, 400, "INVALID_REQUEST")
    r = await c.post(
        f"/v1/share-groups/{G}/acknowledge",
        json={"member_id": "acquisition:run1:0:0", "acknowledgements": [ack_item(0, 1, "accept")]},
    )
    assert_error(r, 404, "UNKNOWN_MEMBER_ID")
    assert states(await view(c, G)) == [(0, "acquired", 1), (1, "acquired", 1)]


# -- listing ------------------------------------------------------------------------------------


async def test_the_listing_counts_what_each_acquisition_holds(s: Served) -> None:
    c = s.client
    await create_topic(c, "t", partitions=2)
    await create_topic(c, "u")
    await earliest(c)
    for p in (0, 1):
        await values(c, 5, partition=p)
    await values(c, 4, topic="u")
    await take(c, "run1:0:0", ["u"], max_records=2, acquire_mode="record_limit")
    await take(c, "run1:0:1", ["t", "u"], max_records=20)
    await values(c, 1)
    await take(c, "run2:0:0", ["t"])
    run1 = await listing(c, "run1:0:")
    assert run1 == {
        "acquisitions": [
            {
                "acquisition_id": "run1:0:0",
                "records": 2,
                "partitions": [{"topic": "u", "partition": 0, "records": 2}],
            },
            {
                "acquisition_id": "run1:0:1",
                "records": 12,
                "partitions": [
                    {"topic": "t", "partition": 0, "records": 5},
                    {"topic": "t", "partition": 1, "records": 5},
                    {"topic": "u", "partition": 0, "records": 2},
                ],
            },
        ],
        "records": 14,
    }
    everything = await listing(c)
    assert [a["acquisition_id"] for a in everything["acquisitions"]] == [
        "run1:0:0",
        "run1:0:1",
        "run2:0:0",
    ]
    assert everything["records"] == 15
    assert (await listing(c, "run9"))["acquisitions"] == []
    r = await c.get(f"/v1/share-groups/{G}/acquisitions", params={"prefix": "x" * 256})
    assert_error(r, 400, "INVALID_REQUEST")
    assert_error(await c.get("/v1/share-groups/nope/acquisitions"), 404, "GROUP_ID_NOT_FOUND")


# -- locks, members, restarts -------------------------------------------------------------------


async def test_lock_expiry_frees_the_records_and_the_id_acquires_anew(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 3)
    await take(c, "run1:0:0")
    clock.advance(29_999)
    assert delivered(await take(c, "run1:0:0")) == [(0, o, 1) for o in range(3)]
    clock.advance(1)
    await expire(s.broker)
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]
    assert await listing(c) == {"acquisitions": [], "records": 0}
    assert await settle_acquisitions(c, prefix="run1") == {"acknowledged": 0, "acquisitions": []}
    # acquired anew: a new delivery
    assert delivered(await take(c, "run1:0:0")) == [(0, o, 2) for o in range(3)]


async def test_held_only_answers_what_is_held_and_never_acquires(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 3)
    # nothing held: nothing, and nothing acquired although records wait
    empty = await take(c, "old:7:0", held_only=True, max_wait_ms=30_000)
    assert empty["records"] == [] and empty["acquired"] == []
    assert states(await view(c, G)) == []
    first = await take(c, "old:7:0")
    assert delivered(await take(c, "old:7:0", held_only=True)) == delivered(first)
    clock.advance(30_000)
    await expire(s.broker)
    # its locks ran out: a replay gets nothing, and the records stay available to others
    assert (await take(c, "old:7:0", held_only=True))["records"] == []
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]
    for bad in ({"held_only": "yes"}, {"held_only": 1}):
        await take(c, "old:7:0", expect=400, **bad)
    r = await c.post(
        f"/v1/share-groups/{G}/fetch", json={"subscribed_topics": ["t"], "held_only": True}
    )
    assert_error(r, 400, "INVALID_REQUEST")


async def test_a_member_leaving_or_expiring_does_not_release_an_acquisition(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    r = await c.patch(f"/v1/share-groups/{G}/config", json={"record_lock_duration_ms": 60_000})
    assert r.status_code == 200, r.text
    await values(c, 2)
    await values(c, 2)
    member = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, member, max_records=1)) == [0, 1]
    assert offsets(await take(c, "run1:0:0")) == [2, 3]
    await heartbeat(c, G, member, -1)
    assert states(await view(c, G)) == [
        (0, "available", 0),
        (1, "available", 0),
        (2, "acquired", 1),
        (3, "acquired", 1),
    ]
    other = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, other)) == [0, 1]
    clock.advance(45_000)  # the session timeout has passed, not the lock
    assert s.broker.share.membership.sweep_sessions() == 1
    assert (await group(c, G))["members"] == []
    await expire(s.broker)
    assert delivered(await take(c, "run1:0:0")) == [(0, 2, 1), (0, 3, 1)]


async def test_resets_and_deletion_wait_for_the_acquisitions(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 2)
    await take(c, "run1:0:0")
    body = {"topics": [{"topic": "t", "to": "earliest"}]}
    assert_error(await c.post(f"/v1/share-groups/{G}/offsets", json=body), 409, "NON_EMPTY_GROUP")
    assert_error(await c.delete(f"/v1/share-groups/{G}"), 409, "NON_EMPTY_GROUP")
    await settle_acquisitions(c, kind="release", prefix="run1:")
    assert (await c.post(f"/v1/share-groups/{G}/offsets", json=body)).status_code == 200
    assert (await c.delete(f"/v1/share-groups/{G}")).status_code == 204


async def test_a_restart_loses_acquisitions_as_every_acquisition(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "t")
        await earliest(c)
        await values(c, 3)
        await take(c, "run1:0:0", max_records=2, acquire_mode="record_limit")
    async with running(settings, clock) as s:
        c = s.client
        assert await listing(c) == {"acquisitions": [], "records": 0}
        assert await settle_acquisitions(c, acquisition_ids=["run1:0:0"]) == {
            "acknowledged": 0,
            "acquisitions": [],
        }
        # acquisition is not durable: the records come back with the count they had before
        got = await take(c, "run1:0:0", max_records=2, acquire_mode="record_limit")
        assert delivered(got) == [(0, 0, 1), (0, 1, 1)]


# -- bad bodies ---------------------------------------------------------------------------------

ACK = {"topic": "t", "partition": 0, "first_offset": 0, "last_offset": 0, "type": "accept"}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("fetch", {"acquisition_id": "a", "member_id": "m", "subscribed_topics": ["t"]}),
        ("fetch", {"acquisition_id": "a"}),
        ("fetch", {"acquisition_id": "a", "subscribed_topics": None}),
        ("fetch", {"acquisition_id": "", "subscribed_topics": ["t"]}),
        ("fetch", {"acquisition_id": "a" * 256, "subscribed_topics": ["t"]}),
        ("fetch", {"acquisition_id": 7, "subscribed_topics": ["t"]}),
        ("fetch", {"acquisition_id": "a", "subscribed_topics": ["t"], "acknowledgements": [ACK]}),
        ("acquisitions/acknowledge", {}),
        ("acquisitions/acknowledge", {"acquisition_ids": ["a"], "prefix": "a"}),
        ("acquisitions/acknowledge", {"acquisition_ids": None, "prefix": None}),
        ("acquisitions/acknowledge", {"acquisition_ids": "a"}),
        ("acquisitions/acknowledge", {"acquisition_ids": [""]}),
        ("acquisitions/acknowledge", {"acquisition_ids": ["a" * 256]}),
        ("acquisitions/acknowledge", {"acquisition_ids": [3]}),
        ("acquisitions/acknowledge", {"prefix": ""}),
        ("acquisitions/acknowledge", {"prefix": "a", "type": "renew"}),
        ("acquisitions/acknowledge", {"prefix": "a", "type": "ACCEPT"}),
        ("acquisitions/acknowledge", {"prefix": "a", "type": 1}),
        ("acquisitions/acknowledge", [1]),
    ],
)
async def test_bad_bodies(s: Served, path: str, body: Any) -> None:
    await create_topic(s.client, "t")
    await earliest(s.client)
    await values(s.client, 1)
    r = await s.client.post(f"/v1/share-groups/{G}/{path}", json=body)
    assert_error(r, 400, "INVALID_REQUEST")
    assert (await view(s.client, G))["records"] == []  # nothing was acquired


async def test_good_edges(s: Served) -> None:
    c = s.client
    await create_topic(c, "t")
    await earliest(c)
    await values(c, 1)
    long_id = "a" * 255
    got = await take(c, long_id, acknowledgements=[], member_id=None)
    assert got["acquisition_id"] == long_id and offsets(got) == [0]
    done = await settle_acquisitions(c, kind=None, acquisition_ids=[long_id, long_id], type=None)
    assert done["acknowledged"] == 1
    assert await settle_acquisitions(c, acquisition_ids=[]) == {
        "acknowledged": 0,
        "acquisitions": [],
    }
    r = await c.post("/v1/share-groups/nope/acquisitions/acknowledge", json={"prefix": "a"})
    assert_error(r, 404, "GROUP_ID_NOT_FOUND")
    r = await c.post(
        "/v1/share-groups/bad name/fetch", json={"acquisition_id": "a", "subscribed_topics": []}
    )
    assert_error(r, 400, "INVALID_REQUEST")

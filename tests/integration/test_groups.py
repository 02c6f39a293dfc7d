"""Consumer groups through create_app(): heartbeat membership, offsets, admin, bad input.

Session timeouts run on a FakeClock (the app's clock): the tests move time, never sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.groups.group import OffsetCommit

from .conftest import Served, running
from .helpers import assert_error, create_topic, metric, metrics, produce

SESSION_MS = 10_000


@pytest.fixture
async def gs(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    """An app on a FakeClock: sessions of 10 s, groups of at most 3 members."""
    settings = settings_factory(
        group_session_timeout_ms=SESSION_MS, group_heartbeat_interval_ms=1000, group_max_size=3
    )
    async with running(settings, clock) as s:
        yield s


async def hb(
    c: httpx.AsyncClient, group: str = "g", *, status: int = 200, **body: Any
) -> dict[str, Any]:
    body.setdefault("member_epoch", 0)
    if body["member_epoch"] == 0:
        body.setdefault("subscribed_topics", ["t"])
    r = await c.post(f"/v1/groups/{group}/heartbeat", json=body)
    assert r.status_code == status, r.text
    return dict(r.json())


def parts(answer: dict[str, Any], topic: str = "t") -> list[int]:
    for a in answer["assignment"]:
        if a["topic"] == topic:
            return list(a["partitions"])
    return []


async def describe(c: httpx.AsyncClient, group: str = "g") -> dict[str, Any]:
    r = await c.get(f"/v1/groups/{group}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def commit(
    c: httpx.AsyncClient, offsets: list[dict[str, Any]], group: str = "g", **body: Any
) -> httpx.Response:
    return await c.post(f"/v1/groups/{group}/offsets", json={"offsets": offsets, **body})


async def fetch(c: httpx.AsyncClient, group: str = "g", **params: Any) -> list[dict[str, Any]]:
    r = await c.get(f"/v1/groups/{group}/offsets", params=params)
    assert r.status_code == 200, r.text
    return list(r.json()["offsets"])


def owned_disjoint(d: dict[str, Any]) -> None:
    seen: set[tuple[str, int]] = set()
    for m in d["members"]:
        for a in m["assignment"]:
            for p in a["partitions"]:
                assert (a["topic"], p) not in seen, d
                seen.add((a["topic"], p))


# -- membership -------------------------------------------------------------------------------


async def test_join_issues_a_member_id_and_assigns_every_partition(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 4)
    a = await hb(c, rebalance_timeout_ms=60_000)
    assert len(a["member_id"]) >= 16
    assert a["member_epoch"] == 1
    assert a["heartbeat_interval_ms"] == 1000
    assert a["assignment"] == [{"topic": "t", "partitions": [0, 1, 2, 3]}]
    d = await describe(c)
    assert d == {
        "group_id": "g",
        "state": "Stable",
        "group_epoch": 1,
        "offsets": [],
        "members": [
            {
                "member_id": a["member_id"],
                "member_epoch": 1,
                "group_instance_id": None,
                "subscribed_topics": ["t"],
                "assignment": [{"topic": "t", "partitions": [0, 1, 2, 3]}],
            }
        ],
    }
    again = await hb(c, member_id=a["member_id"], member_epoch=1)
    assert again == a


async def test_a_client_chosen_member_id_is_kept(gs: Served) -> None:
    await create_topic(gs.client, "t", 1)
    a = await hb(gs.client, member_id="consumer-1")
    assert a["member_id"] == "consumer-1"


async def test_a_second_member_gets_partitions_only_after_the_first_revokes(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 4)
    a = await hb(c, member_id="a")
    ma = a["member_id"]
    b = await hb(c, member_id="b")
    mb = b["member_id"]
    # b is at the new epoch but a still owns everything: b waits
    assert b["member_epoch"] == 2 and parts(b) == []
    assert (await describe(c))["state"] == "Reconciling"
    # a is told to give up two partitions and keeps its epoch until it confirms
    a = await hb(c, member_id=ma, member_epoch=1)
    assert a["member_epoch"] == 1 and parts(a) == [0, 1]
    b = await hb(c, member_id=mb, member_epoch=2)
    assert parts(b) == []  # still being revoked by a
    owned_disjoint(await describe(c))
    a = await hb(c, member_id=ma, member_epoch=1)  # confirms: released, moves to epoch 2
    assert a["member_epoch"] == 2 and parts(a) == [0, 1]
    b = await hb(c, member_id=mb, member_epoch=2)
    assert parts(b) == [2, 3]
    d = await describe(c)
    assert d["state"] == "Stable" and d["group_epoch"] == 2
    owned_disjoint(d)


async def test_owned_partitions_delay_the_release_until_they_are_dropped(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a"))["member_id"]
    mb = (await hb(c, member_id="b"))["member_id"]
    a = await hb(c, member_id=ma, member_epoch=1)
    assert parts(a) == [0]
    still = [{"topic": "t", "partitions": [0, 1]}]
    a = await hb(c, member_id=ma, member_epoch=1, owned_partitions=still)
    assert a["member_epoch"] == 1  # not confirmed: it still lists partition 1
    assert parts(await hb(c, member_id=mb, member_epoch=2)) == []
    a = await hb(
        c, member_id=ma, member_epoch=1, owned_partitions=[{"topic": "t", "partitions": [0]}]
    )
    assert a["member_epoch"] == 2
    assert parts(await hb(c, member_id=mb, member_epoch=2)) == [1]


async def test_a_member_that_leaves_gives_its_partitions_to_the_others(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a"))["member_id"]
    mb = (await hb(c, member_id="b"))["member_id"]
    await hb(c, member_id=ma, member_epoch=1)
    await hb(c, member_id=ma, member_epoch=1)
    assert parts(await hb(c, member_id=mb, member_epoch=2)) == [1]
    left = await hb(c, member_id=mb, member_epoch=-1)
    assert left["member_epoch"] == -1 and left["assignment"] == []
    a = await hb(c, member_id=ma, member_epoch=2)
    assert a["member_epoch"] == 3 and parts(a) == [0, 1]
    assert_error(
        await c.post("/v1/groups/g/heartbeat", json={"member_id": mb, "member_epoch": 2}),
        404,
        "UNKNOWN_MEMBER_ID",
    )


async def test_unknown_members_and_groups(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    for group, body in (
        ("nope", {"member_id": "x", "member_epoch": 1}),
        ("nope", {"member_id": "x", "member_epoch": -1}),
    ):
        assert_error(
            await c.post(f"/v1/groups/{group}/heartbeat", json=body), 404, "UNKNOWN_MEMBER_ID"
        )
    await hb(c)
    err = assert_error(
        await c.post("/v1/groups/g/heartbeat", json={"member_id": "ghost", "member_epoch": 1}),
        404,
        "UNKNOWN_MEMBER_ID",
    )
    assert err["kafka_code"] == 25
    assert (await c.get("/v1/groups")).json()["groups"] == [
        {"group_id": "g", "state": "Stable", "group_epoch": 1, "members": 1}
    ]


async def test_epochs_ahead_or_too_old_are_fenced(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a"))["member_id"]
    await hb(c, member_id="b")  # epoch 2
    await hb(c, member_id=ma, member_epoch=1)
    a = await hb(c, member_id=ma, member_epoch=1)
    assert a["member_epoch"] == 2
    before = await describe(c)
    for epoch in (3, 7):
        err = assert_error(
            await c.post("/v1/groups/g/heartbeat", json={"member_id": ma, "member_epoch": epoch}),
            409,
            "FENCED_MEMBER_EPOCH",
        )
        assert err["kafka_code"] == 110
    # the previous epoch is a retry of a lost answer: answered again
    assert (await hb(c, member_id=ma, member_epoch=1))["member_epoch"] == 2
    await hb(c, member_id="c")  # epoch 3: a moves to it on its heartbeat
    await hb(c, member_id=ma, member_epoch=2)
    await hb(c, member_id=ma, member_epoch=2)
    assert_error(
        await c.post("/v1/groups/g/heartbeat", json={"member_id": ma, "member_epoch": 1}),
        409,
        "FENCED_MEMBER_EPOCH",
    )
    assert before["members"][0]["member_epoch"] == 2


async def test_static_membership(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    a = await hb(c, group_instance_id="host-a")
    b = await hb(c, group_instance_id="host-b")
    await hb(c, member_id=a["member_id"], member_epoch=1)
    await hb(c, member_id=a["member_id"], member_epoch=1)
    b = await hb(c, member_id=b["member_id"], member_epoch=2)
    assert parts(b) == [1]
    # another process claiming host-b while b is alive
    err = assert_error(
        await c.post(
            "/v1/groups/g/heartbeat",
            json={"member_epoch": 0, "group_instance_id": "host-b", "subscribed_topics": ["t"]},
        ),
        409,
        "UNRELEASED_INSTANCE_ID",
    )
    assert err["kafka_code"] == 111
    # a heartbeat naming another instance is fenced
    assert_error(
        await c.post(
            "/v1/groups/g/heartbeat",
            json={"member_id": b["member_id"], "member_epoch": 2, "group_instance_id": "host-a"},
        ),
        409,
        "FENCED_INSTANCE_ID",
    )
    # temporary leave: b keeps its partitions; nobody else receives them
    left = await hb(c, member_id=b["member_id"], member_epoch=-2, group_instance_id="host-b")
    assert left["member_epoch"] == -2
    d = await describe(c)
    assert d["group_epoch"] == 2
    assert parts(await hb(c, member_id=a["member_id"], member_epoch=2)) == [0]
    # b restarts with a new member id: it takes over epoch and partitions, no rebalance
    b2 = await hb(c, group_instance_id="host-b")
    assert b2["member_id"] != b["member_id"]
    assert b2["member_epoch"] == 2 and parts(b2) == [1]
    d = await describe(c)
    assert d["group_epoch"] == 2 and d["state"] == "Stable"
    assert {m["group_instance_id"] for m in d["members"]} == {"host-a", "host-b"}
    assert_error(
        await c.post(
            "/v1/groups/g/heartbeat", json={"member_id": b["member_id"], "member_epoch": 2}
        ),
        404,
        "UNKNOWN_MEMBER_ID",
    )


async def test_session_timeout_moves_partitions_and_fences_the_silent_member(
    gs: Served, clock: FakeClock
) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a"))["member_id"]
    mb = (await hb(c, member_id="b"))["member_id"]
    await hb(c, member_id=ma, member_epoch=1)
    await hb(c, member_id=ma, member_epoch=1)
    await hb(c, member_id=mb, member_epoch=2)
    clock.advance(SESSION_MS - 1)
    await hb(c, member_id=ma, member_epoch=2)
    assert await gs.broker.groups.expire_sessions() == 0
    clock.advance(2)
    assert await gs.broker.groups.expire_sessions() == 1  # b was silent for the whole session
    a = await hb(c, member_id=ma, member_epoch=2)
    assert a["member_epoch"] == 3 and parts(a) == [0, 1]
    assert_error(
        await c.post("/v1/groups/g/heartbeat", json={"member_id": mb, "member_epoch": 2}),
        404,
        "UNKNOWN_MEMBER_ID",
    )
    assert_error(
        await commit(
            c, [{"topic": "t", "partition": 1, "offset": 5}], member_id=mb, member_epoch=2
        ),
        404,
        "UNKNOWN_MEMBER_ID",
    )
    assert await fetch(c) == []


async def test_an_expired_member_is_refused_before_the_sweeper_runs(
    gs: Served, clock: FakeClock
) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    ma = (await hb(c, member_id="a"))["member_id"]
    clock.advance(SESSION_MS)
    assert_error(
        await c.post("/v1/groups/g/heartbeat", json={"member_id": ma, "member_epoch": 1}),
        404,
        "UNKNOWN_MEMBER_ID",
    )
    d = await describe(c)
    assert d["state"] == "Empty" and d["members"] == []


async def test_a_member_that_never_confirms_a_revocation_is_removed(
    gs: Served, clock: FakeClock
) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a", rebalance_timeout_ms=3000))["member_id"]
    mb = (await hb(c, member_id="b"))["member_id"]
    await hb(c, member_id=ma, member_epoch=1)  # told to revoke partition 1
    for _ in range(3):  # both heartbeat; a keeps listing partition 1 as its own
        clock.advance(900)
        await hb(
            c, member_id=ma, member_epoch=1, owned_partitions=[{"topic": "t", "partitions": [0, 1]}]
        )
        await hb(c, member_id=mb, member_epoch=2)
    assert await gs.broker.groups.expire_sessions() == 0
    clock.advance(1000)  # 3.7 s since the revocation began: more than its rebalance timeout
    assert await gs.broker.groups.expire_sessions() == 1
    assert parts(await hb(c, member_id=mb, member_epoch=2)) == [0, 1]


async def test_the_group_size_limit(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    for _ in range(3):
        await hb(c)
    err = assert_error(
        await c.post(
            "/v1/groups/g/heartbeat", json={"member_epoch": 0, "subscribed_topics": ["t"]}
        ),
        429,
        "GROUP_MAX_SIZE_REACHED",
    )
    assert err["kafka_code"] == 81
    assert len((await describe(c))["members"]) == 3


async def test_subscription_and_topic_changes_bump_the_group_epoch(gs: Served) -> None:
    c = gs.client
    a = await hb(c, subscribed_topics=["later"])
    assert a["member_epoch"] == 1 and a["assignment"] == []
    ma = a["member_id"]
    assert (await hb(c, member_id=ma, member_epoch=1))["member_epoch"] == 1
    await create_topic(c, "later", 2)
    a = await hb(c, member_id=ma, member_epoch=1)
    assert a["member_epoch"] == 2 and parts(a, "later") == [0, 1]
    assert (await c.patch("/v1/topics/later", json={"partitions": 3})).status_code == 200
    a = await hb(c, member_id=ma, member_epoch=2)
    assert a["member_epoch"] == 3 and parts(a, "later") == [0, 1, 2]
    await create_topic(c, "other", 1)
    a = await hb(c, member_id=ma, member_epoch=3, subscribed_topics=["other"])
    assert a["member_epoch"] == 3 and a["assignment"] == []  # revoking "later" first
    a = await hb(c, member_id=ma, member_epoch=3)
    assert a["member_epoch"] == 4
    assert a["assignment"] == [{"topic": "other", "partitions": [0]}]
    assert (await describe(c))["members"][0]["subscribed_topics"] == ["other"]


# -- offsets ----------------------------------------------------------------------------------


async def test_commit_without_member_on_an_empty_group_and_fetch(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    r = await commit(
        c,
        [
            {"topic": "t", "partition": 0, "offset": 7, "metadata": "m"},
            {"topic": "nope", "partition": 0, "offset": 1},
            {"topic": "t", "partition": 9, "offset": 1},
            {"topic": "t", "partition": 1, "offset": 0},
        ],
        member_id=None,
        member_epoch=-1,
    )
    assert r.status_code == 200, r.text
    out = r.json()["offsets"]
    assert [o["error"] and o["error"]["code"] for o in out] == [
        None,
        "UNKNOWN_TOPIC_OR_PARTITION",
        "UNKNOWN_TOPIC_OR_PARTITION",
        None,
    ]
    assert out[1]["error"]["kafka_code"] == 3
    assert await fetch(c) == [
        {"topic": "t", "partition": 0, "offset": 7, "metadata": "m", "error": None},
        {"topic": "t", "partition": 1, "offset": 0, "metadata": None, "error": None},
    ]
    assert (await describe(c))["state"] == "Empty"
    seq = gs.broker.groups.groups["g"].commit_seq
    await commit(c, [{"topic": "t", "partition": 0, "offset": 8}])
    assert gs.broker.groups.groups["g"].commit_seq == seq + 1
    assert (await fetch(c, topic="t"))[0]["offset"] == 8


async def test_fetch_with_a_topic_lists_every_partition(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 3)
    await commit(c, [{"topic": "t", "partition": 1, "offset": 4}])
    assert [(o["partition"], o["offset"]) for o in await fetch(c, topic="t")] == [
        (0, -1),
        (1, 4),
        (2, -1),
    ]
    assert await fetch(c, "never-seen") == []
    assert_error(
        await c.get("/v1/groups/g/offsets", params={"topic": "nope"}),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )


async def test_commits_are_fenced_by_member_and_epoch(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    ma = (await hb(c, member_id="a"))["member_id"]
    item = [{"topic": "t", "partition": 0, "offset": 3}]
    assert_error(await commit(c, item), 404, "UNKNOWN_MEMBER_ID")  # the group has a member
    assert_error(await commit(c, item, member_id="ghost", member_epoch=1), 404, "UNKNOWN_MEMBER_ID")
    for epoch in (0, 2, -1):
        err = assert_error(
            await commit(c, item, member_id=ma, member_epoch=epoch), 409, "STALE_MEMBER_EPOCH"
        )
        assert err["kafka_code"] == 113
    assert await fetch(c) == []
    r = await commit(c, item, member_id=ma, member_epoch=1)
    assert r.status_code == 200 and r.json()["offsets"][0]["error"] is None
    # a new member bumps the group epoch; a's epoch moves only on its heartbeat
    await hb(c, member_id="b")
    assert (await commit(c, item, member_id=ma, member_epoch=1)).status_code == 200
    await hb(c, member_id=ma, member_epoch=1)
    await hb(c, member_id=ma, member_epoch=1)
    assert_error(await commit(c, item, member_id=ma, member_epoch=1), 409, "STALE_MEMBER_EPOCH")
    assert (await commit(c, item, member_id=ma, member_epoch=2)).status_code == 200


async def test_a_commit_with_a_member_to_a_missing_group_creates_nothing(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    assert_error(
        await commit(
            c, [{"topic": "t", "partition": 0, "offset": 1}], member_id="m", member_epoch=1
        ),
        404,
        "UNKNOWN_MEMBER_ID",
    )
    r = await commit(c, [{"topic": "nope", "partition": 0, "offset": 1}])
    assert r.json()["offsets"][0]["error"]["code"] == "UNKNOWN_TOPIC_OR_PARTITION"
    assert (await c.get("/v1/groups")).json() == {"groups": []}


async def test_deleting_a_topic_hides_its_offsets_even_under_the_same_name(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    await commit(c, [{"topic": "t", "partition": 0, "offset": 5}])
    assert (await c.delete("/v1/topics/t")).status_code == 204
    assert await fetch(c) == []
    await create_topic(c, "t", 1)
    assert await fetch(c, topic="t") == [
        {"topic": "t", "partition": 0, "offset": -1, "metadata": None, "error": None}
    ]
    assert (await describe(c))["offsets"] == []


# -- admin ------------------------------------------------------------------------------------


async def test_describe_shows_lag_against_the_high_watermark(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    await produce(c, "t", [{"value": "x", "partition": 0}] * 5)
    await commit(
        c,
        [{"topic": "t", "partition": 0, "offset": 2}, {"topic": "t", "partition": 1, "offset": 0}],
    )
    assert (await describe(c))["offsets"] == [
        {"topic": "t", "partition": 0, "offset": 2, "lag": 3},
        {"topic": "t", "partition": 1, "offset": 0, "lag": 0},
    ]


async def test_delete_offsets_checks_the_topics_it_deletes(gs: Served) -> None:
    """The seam's delete_offsets gives its READ check the topics whose offsets go (all the
    group holds, without a topic), and deletes nothing when the check refuses."""
    c = gs.client
    await create_topic(c, "t", 1)
    await create_topic(c, "u", 1)
    await commit(
        c,
        [{"topic": "u", "partition": 0, "offset": 2}, {"topic": "t", "partition": 0, "offset": 1}],
    )
    groups = gs.broker.engine.groups
    asked: list[list[str]] = []

    def refuse(topics: Iterable[str]) -> None:
        asked.append(list(topics))
        raise SluiceError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "refused")

    for topic in (None, "u"):
        with pytest.raises(SluiceError):
            await groups.delete_offsets("g", topic, refuse)
    assert asked == [["t", "u"], ["u"]]
    assert len(await fetch(c)) == 2
    await groups.delete_offsets("g", None, lambda topics: asked.append(list(topics)))
    assert asked[-1] == ["t", "u"]
    assert await fetch(c) == []


async def test_delete_offsets_checks_a_topic_committed_while_it_waits(gs: Served) -> None:
    """DELETE of every offset looks the topics up before it waits for the group's lock; a
    memberless commit that holds the lock meanwhile can add a topic the caller may not READ.
    The topics are checked again once the lock is held: the delete is refused (403) and the
    committed offsets stay, rather than the other topic's going unchecked."""
    c = gs.client
    await create_topic(c, "t", 1)
    await create_topic(c, "u", 1)
    await commit(c, [{"topic": "t", "partition": 0, "offset": 1}])
    groups = gs.broker.groups
    asked: list[list[str]] = []
    looked_up = asyncio.Event()

    def read_t_only(topics: Iterable[str]) -> None:
        asked.append(list(topics))
        looked_up.set()
        for name in asked[-1]:
            if name != "t":
                raise SluiceError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, f"no READ on {name!r}")

    async with groups.groups["g"].lock:  # another request holds the group
        # neither suspends before it waits for the lock, so they wait in this order
        committing = asyncio.create_task(
            groups.commit_offsets("g", None, -1, [OffsetCommit("u", 0, 2)], None)
        )
        deleting = asyncio.create_task(groups.delete_offsets("g", None, read_t_only))
        await looked_up.wait()
        assert asked == [["t"]]  # the commit of u waits for the lock, as the delete does
    assert await committing == [None]
    with pytest.raises(SluiceError) as refused:
        await deleting
    assert refused.value.code is ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert refused.value.code.status == 403
    assert asked[-1] == ["u"]
    assert [(o["topic"], o["offset"]) for o in await fetch(c)] == [("t", 1), ("u", 2)]


async def test_delete_only_when_empty(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    await create_topic(c, "u", 1)
    await commit(
        c,
        [{"topic": "t", "partition": 0, "offset": 1}, {"topic": "u", "partition": 0, "offset": 2}],
    )
    ma = (await hb(c, member_id="a"))["member_id"]
    for path in ("/v1/groups/g", "/v1/groups/g/offsets?topic=t", "/v1/groups/g/offsets"):
        err = assert_error(await c.delete(path), 409, "NON_EMPTY_GROUP")
        assert err["kafka_code"] == 68
    assert len(await fetch(c)) == 2
    await hb(c, member_id=ma, member_epoch=-1)
    assert_error(
        await c.delete("/v1/groups/g/offsets?topic=nope"), 404, "UNKNOWN_TOPIC_OR_PARTITION"
    )
    # an empty topic is refused, not read as "every topic" (it deleted both topics' offsets)
    assert_error(await c.delete("/v1/groups/g/offsets?topic="), 400, "INVALID_REQUEST")
    assert_error(await c.get("/v1/groups/g/offsets?topic="), 400, "INVALID_REQUEST")
    assert len(await fetch(c)) == 2
    assert (await c.delete("/v1/groups/g/offsets?topic=t")).status_code == 204
    assert [o["topic"] for o in await fetch(c)] == ["u"]
    assert (await c.delete("/v1/groups/g")).status_code == 204
    err = assert_error(await c.get("/v1/groups/g"), 404, "GROUP_ID_NOT_FOUND")
    assert err["kafka_code"] == 69
    for path in ("/v1/groups/g", "/v1/groups/g/offsets"):
        assert_error(await c.delete(path), 404, "GROUP_ID_NOT_FOUND")
    assert await fetch(c) == []
    assert (await c.get("/v1/groups")).json() == {"groups": []}


async def test_a_group_whose_members_timed_out_can_be_deleted(gs: Served, clock: FakeClock) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    await hb(c)
    clock.advance(SESSION_MS)
    assert (await c.delete("/v1/groups/g")).status_code == 204


# -- bad input --------------------------------------------------------------------------------

BAD_HEARTBEATS: list[Any] = [
    [],
    "x",
    3,
    None,
    {},
    {"member_epoch": "0", "subscribed_topics": ["t"]},
    {"member_epoch": True, "subscribed_topics": ["t"]},
    {"member_epoch": -3, "member_id": "m"},
    {"member_epoch": 2**31, "member_id": "m"},
    {"member_epoch": 1.5, "member_id": "m"},
    {"member_epoch": 0},
    {"member_epoch": 0, "subscribed_topics": "t"},
    {"member_epoch": 0, "subscribed_topics": ["bad name"]},
    {"member_epoch": 0, "subscribed_topics": [""]},
    {"member_epoch": 0, "subscribed_topics": [1]},
    {"member_epoch": 0, "subscribed_topics": ["t"], "member_id": ""},
    {"member_epoch": 0, "subscribed_topics": ["t"], "member_id": 5},
    {"member_epoch": 0, "subscribed_topics": ["t"], "member_id": "x" * 256},
    {"member_epoch": 0, "subscribed_topics": ["t"], "group_instance_id": "a b"},
    {"member_epoch": 0, "subscribed_topics": ["t"], "rebalance_timeout_ms": -1},
    {"member_epoch": 0, "subscribed_topics": ["t"], "rebalance_timeout_ms": 999},
    {"member_epoch": 0, "subscribed_topics": ["t"], "owned_partitions": [{"topic": "t"}]},
    {
        "member_epoch": 0,
        "subscribed_topics": ["t"],
        "owned_partitions": [{"topic": "t", "partitions": [-1]}],
    },
    {"member_epoch": 1},
    {"member_epoch": -2, "member_id": "m"},
]


@pytest.mark.parametrize("body", BAD_HEARTBEATS)
async def test_bad_heartbeats_are_400_and_change_nothing(gs: Served, body: Any) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    assert_error(await c.post("/v1/groups/g/heartbeat", json=body), 400, "INVALID_REQUEST")
    assert (await c.get("/v1/groups")).json() == {"groups": []}


BAD_COMMITS: list[Any] = [
    [],
    {},
    {"offsets": []},
    {"offsets": "x"},
    {"offsets": [1]},
    {"offsets": [{"topic": "t", "partition": 0}]},
    {"offsets": [{"topic": "t", "partition": 0, "offset": -1}]},
    {"offsets": [{"topic": "t", "partition": -1, "offset": 0}]},
    {"offsets": [{"topic": "t", "partition": 0, "offset": "1"}]},
    {"offsets": [{"topic": "bad name", "partition": 0, "offset": 1}]},
    {"offsets": [{"topic": "t", "partition": 0, "offset": 1, "metadata": 5}]},
    {"offsets": [{"topic": "t", "partition": 0, "offset": 1, "metadata": "x" * 4097}]},
    {"offsets": [{"topic": "t", "partition": 0, "offset": 2**63}]},
    {
        "member_id": None,
        "member_epoch": 3,
        "offsets": [{"topic": "t", "partition": 0, "offset": 1}],
    },
    {"member_id": "m", "offsets": [{"topic": "t", "partition": 0, "offset": 1}]},
    {
        "member_id": "m",
        "member_epoch": -2,
        "offsets": [{"topic": "t", "partition": 0, "offset": 1}],
    },
]


@pytest.mark.parametrize("body", BAD_COMMITS)
async def test_bad_commits_are_400_and_change_nothing(gs: Served, body: Any) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    r = await c.post("/v1/groups/g/offsets", json=body)
    assert_error(r, 400, "INVALID_REQUEST")
    assert (await c.get("/v1/groups")).json() == {"groups": []}


@pytest.mark.parametrize("name", ["bad name", "x" * 250, "a:b", "%C3%A9"])
async def test_bad_group_names_are_400(gs: Served, name: str) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    assert_error(
        await c.post(
            f"/v1/groups/{name}/heartbeat", json={"member_epoch": 0, "subscribed_topics": ["t"]}
        ),
        400,
        "INVALID_REQUEST",
    )
    assert_error(
        await commit(c, [{"topic": "t", "partition": 0, "offset": 1}], group=name),
        400,
        "INVALID_REQUEST",
    )
    for r in (
        await c.get(f"/v1/groups/{name}"),
        await c.get(f"/v1/groups/{name}/offsets"),
        await c.delete(f"/v1/groups/{name}"),
    ):
        assert_error(r, 400, "INVALID_REQUEST")
    assert (await c.get("/v1/groups")).json() == {"groups": []}


async def test_malformed_json_and_query(gs: Served) -> None:
    c = gs.client
    r = await c.post("/v1/groups/g/heartbeat", content=b"{nope")
    assert_error(r, 400, "INVALID_REQUEST")
    r = await c.post("/v1/groups/g/offsets", content=b"")
    assert_error(r, 400, "INVALID_REQUEST")
    r = await c.get("/v1/groups/g/offsets", params={"require_stable": "maybe"})
    assert_error(r, 400, "INVALID_REQUEST")


# -- concurrency and the document -------------------------------------------------------------


async def test_concurrent_joins_and_heartbeats_never_share_a_partition(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 7)
    joined = await asyncio.gather(*(hb(c, member_id=f"m{i}") for i in range(3)))
    epochs = {a["member_id"]: a["member_epoch"] for a in joined}
    for _ in range(4):
        answers = await asyncio.gather(
            *(hb(c, member_id=m, member_epoch=e) for m, e in epochs.items())
        )
        epochs = {a["member_id"]: a["member_epoch"] for a in answers}
        owned_disjoint(await describe(c))
    d = await describe(c)
    assert d["state"] == "Stable"
    assert {m["member_epoch"] for m in d["members"]} == {d["group_epoch"]} == {3}
    sizes = sorted(len(m["assignment"][0]["partitions"]) for m in d["members"])
    assert sizes == [2, 2, 3]


async def test_openapi_documents_the_group_endpoints(gs: Served) -> None:
    doc = (await gs.client.get("/openapi.json")).json()
    paths = doc["paths"]
    assert {"post"} <= set(paths["/v1/groups/{group_id}/heartbeat"])
    assert {"post", "get", "delete"} <= set(paths["/v1/groups/{group_id}/offsets"])
    assert {"get", "delete"} <= set(paths["/v1/groups/{group_id}"])
    assert "get" in paths["/v1/groups"]
    for path, model in (
        ("/v1/groups/{group_id}/heartbeat", "GroupHeartbeatRequest"),
        ("/v1/groups/{group_id}/offsets", "OffsetCommitRequest"),
    ):
        body = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": f"#/components/schemas/{model}"}
        assert model in doc["components"]["schemas"]
    fetch_params = {p["name"] for p in paths["/v1/groups/{group_id}/offsets"]["get"]["parameters"]}
    assert {"topic", "require_stable"} <= fetch_params
    assert all(
        "422" not in op.get("responses", {})
        for p, ops in paths.items()
        if p.startswith("/v1/groups")
        for op in ops.values()
    )


async def test_metrics_count_groups_and_members(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 1)
    await hb(c, member_id="a")
    await hb(c, "h", member_id="b")
    await commit(c, [{"topic": "t", "partition": 0, "offset": 1}], group="plain")
    text = await metrics(c)
    assert metric(text, "sluice_consumer_groups") == 3
    assert metric(text, "sluice_consumer_group_members") == 2

"""The group side of KIP-447 (``GroupTxnParticipant``), called directly as the transaction
coordinator calls it; and consumer groups surviving a restart on the same data directory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.groups.group import OffsetCommit
from app.groups.txn import GroupTxnParticipant
from app.runtime import Broker

from .conftest import Served, running
from .helpers import assert_error, create_topic

SESSION_MS = 10_000


@pytest.fixture
def settings(settings_factory: Callable[..., Settings]) -> Settings:
    return settings_factory(group_session_timeout_ms=SESSION_MS)


@pytest.fixture
async def gs(settings: Settings, clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings, clock) as s:
        yield s


async def hb(c: httpx.AsyncClient, group: str = "g", **body: Any) -> dict[str, Any]:
    body.setdefault("member_epoch", 0)
    if body["member_epoch"] == 0:
        body.setdefault("subscribed_topics", ["t"])
    r = await c.post(f"/v1/groups/{group}/heartbeat", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


async def fetch(c: httpx.AsyncClient, group: str = "g", **params: Any) -> list[dict[str, Any]]:
    r = await c.get(f"/v1/groups/{group}/offsets", params=params)
    assert r.status_code == 200, r.text
    return list(r.json()["offsets"])


async def commit(c: httpx.AsyncClient, partition: int, offset: int, **body: Any) -> None:
    r = await c.post(
        "/v1/groups/g/offsets",
        json={"offsets": [{"topic": "t", "partition": partition, "offset": offset}], **body},
    )
    assert r.status_code == 200 and r.json()["offsets"][0]["error"] is None, r.text


class Participant:
    """The groups' transaction participant driven as the transaction coordinator drives it, each
    step written in a SQLite transaction of its own (durable on return)."""

    def __init__(self, broker: Broker) -> None:
        self.participant = GroupTxnParticipant(broker.groups)
        self.db = broker.db

    def check_txn_member(
        self, group_id: str, member_id: str | None, member_epoch: int, instance: str | None
    ) -> None:
        self.participant.check_txn_member(group_id, member_id, member_epoch, instance)

    async def stage_txn_offsets(
        self, group_id: str, producer_id: int, offsets: list[OffsetCommit]
    ) -> None:
        async with self.participant.staging_txn_offsets(group_id, producer_id, offsets) as step:
            if step is not None:
                await self.db.run(step.statements())
                step.complete()

    async def end_txn_offsets(self, group_id: str, producer_id: int, commit: bool) -> None:
        async with self.participant.ending_txn_offsets(group_id, producer_id, commit) as step:
            if step is not None:
                await self.db.run(step.statements())
                step.complete()


def code_of(call: Callable[[], None]) -> ErrorCode | None:
    try:
        call()
    except SluiceError as exc:
        return exc.code
    return None


# -- check_txn_member -------------------------------------------------------------------------


async def test_check_txn_member_rules(gs: Served, clock: FakeClock) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 2)

    def check(
        group: str, member: str | None, epoch: int, instance: str | None = None
    ) -> ErrorCode | None:
        return code_of(lambda: groups.check_txn_member(group, member, epoch, instance))

    # a missing group: accepted with a negative epoch, ILLEGAL_GENERATION otherwise
    assert check("missing", None, -1) is None
    assert check("missing", "m", 0) is ErrorCode.ILLEGAL_GENERATION
    assert check("missing", "m", 3) is ErrorCode.ILLEGAL_GENERATION
    a = await hb(c, member_id="a", group_instance_id="host-a")
    assert a["member_epoch"] == 1
    assert check("g", "a", 1) is None
    assert check("g", "a", 1, "host-a") is None
    assert check("g", "a", 0) is ErrorCode.ILLEGAL_GENERATION
    assert check("g", "a", 2) is ErrorCode.ILLEGAL_GENERATION
    assert check("g", None, -1) is ErrorCode.UNKNOWN_MEMBER_ID  # the group is not empty
    assert check("g", "ghost", 1) is ErrorCode.UNKNOWN_MEMBER_ID
    assert check("g", "ghost", 1, "host-a") is ErrorCode.FENCED_INSTANCE_ID
    # the static member restarts under a new id: its old incarnation is fenced by instance
    await hb(c, member_id="a", member_epoch=-2, group_instance_id="host-a")
    await hb(c, member_id="a2", group_instance_id="host-a")
    assert check("g", "a", 1, "host-a") is ErrorCode.FENCED_INSTANCE_ID
    assert check("g", "a", 1) is ErrorCode.UNKNOWN_MEMBER_ID
    assert check("g", "a2", 1, "host-a") is None
    # past its session the member is unknown, even before the sweeper ran
    clock.advance(SESSION_MS)
    assert check("g", "a2", 1, "host-a") is ErrorCode.UNKNOWN_MEMBER_ID
    assert check("g", None, -1) is None  # no live member: an empty group accepts epoch < 0
    # it changed nothing
    assert [m["member_id"] for m in (await c.get("/v1/groups/g")).json()["members"]] == ["a2"]


# -- staging, commit, abort -------------------------------------------------------------------


async def test_staged_offsets_are_invisible_until_the_transaction_commits(gs: Served) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 2)
    await commit(c, 0, 1)
    await groups.stage_txn_offsets(
        "g", 7, [OffsetCommit("t", 0, 10, "txn"), OffsetCommit("t", 1, 20)]
    )
    # plain fetch: the last committed values only
    assert await fetch(c) == [
        {"topic": "t", "partition": 0, "offset": 1, "metadata": None, "error": None},
        {"topic": "t", "partition": 1, "offset": -1, "metadata": None, "error": None},
    ]
    # require_stable: PENDING_TRANSACTION for both, even where nothing was committed before
    stable = await fetch(c, require_stable="true")
    assert [o["error"]["code"] for o in stable] == ["PENDING_TRANSACTION"] * 2
    assert stable[0]["error"]["retriable"] is True
    assert stable[0]["error"]["kafka_code"] == 88
    assert [o["offset"] for o in stable] == [1, -1]
    await groups.end_txn_offsets("g", 7, commit=True)
    assert await fetch(c, require_stable="true") == [
        {"topic": "t", "partition": 0, "offset": 10, "metadata": "txn", "error": None},
        {"topic": "t", "partition": 1, "offset": 20, "metadata": None, "error": None},
    ]
    # a second end is a no-op, in either direction
    await groups.end_txn_offsets("g", 7, commit=True)
    await groups.end_txn_offsets("g", 7, commit=False)
    assert [o["offset"] for o in await fetch(c)] == [10, 20]
    assert (await c.get("/v1/groups/g")).json()["offsets"] == [
        {"topic": "t", "partition": 0, "offset": 10, "lag": 0},
        {"topic": "t", "partition": 1, "offset": 20, "lag": 0},
    ]


async def test_pending_never_overwrites_a_newer_plain_commit(gs: Served) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 2)
    await groups.stage_txn_offsets("g", 7, [OffsetCommit("t", 0, 10), OffsetCommit("t", 1, 10)])
    await commit(c, 0, 15)  # after the staging: it wins over the transaction's offset
    await groups.end_txn_offsets("g", 7, commit=True)
    assert [(o["partition"], o["offset"]) for o in await fetch(c)] == [(0, 15), (1, 10)]
    # a plain commit made before the staging is overwritten by the transaction
    await commit(c, 1, 3)
    await groups.stage_txn_offsets("g", 8, [OffsetCommit("t", 1, 30)])
    await groups.end_txn_offsets("g", 8, commit=True)
    assert [(o["partition"], o["offset"]) for o in await fetch(c)] == [(0, 15), (1, 30)]


async def test_abort_discards_the_pending_offsets(gs: Served) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 1)
    await commit(c, 0, 4)
    await groups.stage_txn_offsets("g", 7, [OffsetCommit("t", 0, 99)])
    await groups.stage_txn_offsets("g", 9, [OffsetCommit("t", 0, 50)])
    await groups.end_txn_offsets("g", 7, commit=False)
    # producer 9 is still pending on the partition
    assert (await fetch(c, require_stable="true"))[0]["error"]["code"] == "PENDING_TRANSACTION"
    await groups.end_txn_offsets("g", 9, commit=False)
    assert await fetch(c, require_stable="true") == [
        {"topic": "t", "partition": 0, "offset": 4, "metadata": None, "error": None}
    ]
    await groups.end_txn_offsets("g", 9, commit=True)  # already ended: nothing happens
    assert (await fetch(c))[0]["offset"] == 4
    await groups.end_txn_offsets("nope", 1, commit=True)  # unknown group: a no-op too


async def test_staging_an_unknown_topic_stages_nothing(gs: Served) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 1)
    for bad in ([OffsetCommit("t", 0, 1), OffsetCommit("nope", 0, 1)], [OffsetCommit("t", 5, 1)]):
        with pytest.raises(SluiceError) as info:
            await groups.stage_txn_offsets("g", 7, bad)
        assert info.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    with pytest.raises(SluiceError) as info:
        await groups.stage_txn_offsets("g", 7, [OffsetCommit("t", 0, -1)])
    assert info.value.code is ErrorCode.INVALID_REQUEST
    assert "g" not in gs.broker.groups.groups
    assert (await c.get("/v1/groups")).json() == {"groups": []}


async def test_deletes_refuse_while_offsets_are_pending(gs: Served) -> None:
    c = gs.client
    groups = Participant(gs.broker)
    await create_topic(c, "t", 1)
    await create_topic(c, "u", 1)
    await commit(c, 0, 1)
    await groups.stage_txn_offsets("g", 7, [OffsetCommit("t", 0, 2)])
    for path in ("/v1/groups/g", "/v1/groups/g/offsets?topic=t", "/v1/groups/g/offsets"):
        err = assert_error(await c.delete(path), 409, "PENDING_TRANSACTION")
        assert err["retriable"] is True
    assert (await c.delete("/v1/groups/g/offsets?topic=u")).status_code == 204
    assert (await fetch(c))[0]["offset"] == 1
    await groups.end_txn_offsets("g", 7, commit=False)
    assert (await c.delete("/v1/groups/g")).status_code == 204


# -- restart ----------------------------------------------------------------------------------


async def test_groups_offsets_and_pending_offsets_survive_a_restart(
    settings: Settings, clock: FakeClock
) -> None:
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "t", 2)
        await create_topic(c, "gone", 1)
        a = await hb(c, member_id="a", group_instance_id="host-a")
        b = await hb(c, member_id="b")
        await hb(c, member_id="a", member_epoch=1)  # revoking partition 0 (b sorts first)
        await commit(c, 0, 5, member_id="a", member_epoch=1)
        await Participant(s.broker).stage_txn_offsets("g", 7, [OffsetCommit("t", 1, 9, "p")])
        await Participant(s.broker).stage_txn_offsets("g", 8, [OffsetCommit("t", 0, 2)])
        await commit(c, 0, 6, member_id="a", member_epoch=1)  # newer than producer 8's
        r = await c.post(
            "/v1/groups/other/offsets",
            json={"offsets": [{"topic": "gone", "partition": 0, "offset": 3}]},
        )
        assert r.status_code == 200
        assert (await c.delete("/v1/topics/gone")).status_code == 204
        before = (await c.get("/v1/groups/g")).json()
        seq = s.broker.groups.groups["g"].commit_seq
        assert before["state"] == "Reconciling"
    async with running(settings, clock) as s:
        c = s.client
        assert (await c.get("/v1/groups/g")).json() == before
        g = s.broker.groups.groups["g"]
        assert g.commit_seq == seq
        assert g.members["a"].revoking == frozenset({("t", 0)})
        # membership carries on where it was: a confirms, b receives partition 0
        assert (await hb(c, member_id="a", member_epoch=1))["member_epoch"] == 2
        b = await hb(c, member_id="b", member_epoch=2)
        assert b["assignment"] == [{"topic": "t", "partitions": [0]}]
        assert a["member_id"] == "a"
        stable = await fetch(c, require_stable="true")
        assert [o["error"] and o["error"]["code"] for o in stable] == [
            "PENDING_TRANSACTION",
            "PENDING_TRANSACTION",
        ]
        await Participant(s.broker).end_txn_offsets("g", 7, commit=True)
        await Participant(s.broker).end_txn_offsets("g", 8, commit=True)
        assert [(o["partition"], o["offset"], o["metadata"]) for o in await fetch(c)] == [
            (0, 6, None),
            (1, 9, "p"),
        ]
        assert await fetch(c, "other") == []
    async with running(settings, clock) as s:
        assert [(o["partition"], o["offset"]) for o in await fetch(s.client)] == [(0, 6), (1, 9)]
        assert s.broker.groups.groups["g"].pending == {}

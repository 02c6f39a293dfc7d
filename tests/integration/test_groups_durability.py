"""A group change whose SQLite commit fails is not installed: stage → durable → install.

Another connection holds the database's write lock, so the server's write fails after its busy
timeout (5 s) with KAFKA_STORAGE_ERROR; nothing of the refused request may be visible afterwards.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable

import pytest

from app.clock import FakeClock
from app.config import Settings

from .conftest import Served, running
from .helpers import assert_error, create_topic

pytestmark = pytest.mark.slow


@pytest.fixture
async def gs(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as s:
        yield s


async def test_a_failed_write_changes_nothing(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "t", 2)
    r = await c.post(
        "/v1/groups/g/heartbeat",
        json={"member_id": "a", "member_epoch": 0, "subscribed_topics": ["t"]},
    )
    assert r.status_code == 200
    before = (await c.get("/v1/groups/g")).json()
    seq = gs.broker.groups.groups["g"].commit_seq
    blocker = sqlite3.connect(gs.broker.data.metadata, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        assert_error(
            await c.post(
                "/v1/groups/g/heartbeat",
                json={"member_id": "b", "member_epoch": 0, "subscribed_topics": ["t"]},
            ),
            507,
            "KAFKA_STORAGE_ERROR",
        )
        assert_error(
            await c.post(
                "/v1/groups/g/offsets",
                json={
                    "member_id": "a",
                    "member_epoch": 1,
                    "offsets": [{"topic": "t", "partition": 0, "offset": 5}],
                },
            ),
            507,
            "KAFKA_STORAGE_ERROR",
        )
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert (await c.get("/v1/groups/g")).json() == before
    assert gs.broker.groups.groups["g"].commit_seq == seq
    assert (await c.get("/v1/groups/g/offsets")).json() == {"offsets": []}
    # the same requests succeed once the database is writable again
    r = await c.post(
        "/v1/groups/g/heartbeat",
        json={"member_id": "b", "member_epoch": 0, "subscribed_topics": ["t"]},
    )
    assert r.status_code == 200 and r.json()["member_epoch"] == 2
    r = await c.post(
        "/v1/groups/g/offsets",
        json={
            "member_id": "a",
            "member_epoch": 1,
            "offsets": [{"topic": "t", "partition": 0, "offset": 5}],
        },
    )
    assert r.status_code == 200 and r.json()["offsets"][0]["error"] is None

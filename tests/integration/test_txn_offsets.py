"""Offsets in a transaction (KIP-447), coordinator side, against a recording participant.

The participant is the seam consumer groups implement (``OffsetParticipant``); this one records
the calls and can refuse a member, like the real one would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.groups.group import OffsetCommit
from app.metadata.db import Statements
from app.runtime import Broker
from app.transactions.participants import OffsetParticipant, TxnWrite
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic
from tests.integration.txn_helpers import batch, end_txn, init_producer, produce_ok


class RecordingParticipant:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.refuse: ErrorCode | None = None

    def check_owner(self, group_id: str, member_id: str | None, principal: str | None) -> None:
        pass  # the test's groups have no owners

    def check_txn_member(
        self, group_id: str, member_id: str | None, member_epoch: int, group_instance_id: str | None
    ) -> None:
        self.calls.append(("check", group_id, member_id, member_epoch, group_instance_id))
        if self.refuse is not None:
            raise SluiceError(self.refuse, "refused by the test")

    @asynccontextmanager
    async def staging_txn_offsets(
        self, group_id: str, producer_id: int, offsets: Sequence[OffsetCommit]
    ) -> AsyncIterator[TxnWrite | None]:
        yield _Recorded(self.calls, ("stage", group_id, producer_id, list(offsets)))

    @asynccontextmanager
    async def ending_txn_offsets(
        self, group_id: str, producer_id: int, commit: bool
    ) -> AsyncIterator[TxnWrite | None]:
        yield _Recorded(self.calls, ("end", group_id, producer_id, commit))


class _Recorded:
    """Records its call once the coordinator's SQLite transaction is durable."""

    def __init__(self, calls: list[tuple[Any, ...]], call: tuple[Any, ...]) -> None:
        self.calls = calls
        self.call = call

    def statements(self) -> Statements:
        def run(conn: sqlite3.Connection) -> None:
            assert conn.in_transaction

        return run

    def complete(self) -> None:
        self.calls.append(self.call)


def _body(pid: int, epoch: int, group: str = "g", **extra: Any) -> dict[str, Any]:
    return {
        "producer_id": pid,
        "producer_epoch": epoch,
        "group_id": group,
        "member_id": "m1",
        "member_epoch": 3,
        "group_instance_id": None,
        "offsets": [{"topic": "t", "partition": 0, "offset": 10, "metadata": "x"}],
        **extra,
    }


@pytest.fixture
def participant() -> RecordingParticipant:
    return RecordingParticipant()


@pytest.fixture
async def served(
    settings_factory: Callable[..., Settings], participant: RecordingParticipant
) -> AsyncIterator[Served]:
    """A server whose offsets in transactions go to the recording participant."""
    settings = settings_factory()
    proto: OffsetParticipant = participant  # the recording class satisfies the protocol
    async with running(settings, broker=Broker(settings, offset_participant=proto)) as s:
        yield s


async def test_without_groups_the_endpoint_is_a_clear_503(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory()
    # a server without consumer groups
    async with running(settings, broker=Broker(settings, offset_participant=None)) as served:
        c = served.client
        pid, e = await init_producer(c, transactional_id="tx")
        err = assert_error(
            await c.post("/v1/transactions/tx/offsets", json=_body(pid, e)),
            503,
            "GROUPS_UNAVAILABLE",
        )
        assert "consumer groups" in err["message"]
        assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"


async def test_offsets_join_the_transaction_and_end_with_it(
    served: Served, participant: RecordingParticipant
) -> None:
    c = served.client
    await create_topic(c, "t")
    pid, e = await init_producer(c, transactional_id="tx")
    r = await c.post("/v1/transactions/tx/offsets", json=_body(pid, e))
    assert r.status_code == 200, r.text
    assert r.json() == {"offsets": [{"topic": "t", "partition": 0, "error": None}]}
    described = (await c.get("/v1/transactions/tx")).json()
    assert described["state"] == "Ongoing" and described["groups"] == ["g"]
    await produce_ok(c, pid, e, [batch("t", 0, 0)], "tx")
    assert participant.calls == [
        ("check", "g", "m1", 3, None),
        ("stage", "g", pid, [OffsetCommit("t", 0, 10, "x")]),
    ]
    assert (await end_txn(c, "tx", pid, e)).status_code == 200
    assert participant.calls[-1] == ("end", "g", pid, True)
    # next transaction, aborted
    await c.post("/v1/transactions/tx/offsets", json=_body(pid, e + 1, "g2"))
    await end_txn(c, "tx", pid, e + 1, "abort")
    assert participant.calls[-1] == ("end", "g2", pid, False)
    assert (await c.get("/v1/transactions/tx")).json()["groups"] == []


async def test_member_refused_changes_nothing(
    served: Served, participant: RecordingParticipant
) -> None:
    c = served.client
    pid, e = await init_producer(c, transactional_id="tx")
    participant.refuse = ErrorCode.INVALID_REQUEST
    r = await c.post("/v1/transactions/tx/offsets", json=_body(pid, e))
    assert_error(r, 400, "INVALID_REQUEST")
    assert [call[0] for call in participant.calls] == ["check"]
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"


async def test_fenced_and_timed_out_producers_are_refused_before_the_group(
    settings_factory: Any, clock: FakeClock
) -> None:
    settings = settings_factory()
    p = RecordingParticipant()
    async with running(settings, clock, broker=Broker(settings, clock, offset_participant=p)) as s:
        c = s.client
        pid, e = await init_producer(c, transactional_id="tx", transaction_timeout_ms=1000)
        await c.post("/v1/transactions/tx/offsets", json=_body(pid, e))
        clock.advance(1001)
        assert await s.broker.transactions.abort_timed_out() == 1
        assert p.calls[-1] == ("end", "g", pid, False)  # the timeout aborts the offsets too
        n = len(p.calls)
        assert_error(
            await c.post("/v1/transactions/tx/offsets", json=_body(pid, e)),
            409,
            "TRANSACTION_TIMED_OUT",
        )
        pid, e2 = await init_producer(c, transactional_id="tx")
        assert_error(
            await c.post("/v1/transactions/tx/offsets", json=_body(pid, e)), 409, "PRODUCER_FENCED"
        )
        assert len(p.calls) == n
        assert (await c.post("/v1/transactions/tx/offsets", json=_body(pid, e2))).status_code == 200


async def test_recovery_ends_the_offsets_of_a_prepared_transaction(settings_factory: Any) -> None:
    settings = settings_factory()
    async with running(
        settings, broker=Broker(settings, offset_participant=RecordingParticipant())
    ) as s:
        await create_topic(s.client, "t")
        pid, e = await init_producer(s.client, transactional_id="tx")
        await s.client.post("/v1/transactions/tx/offsets", json=_body(pid, e))
        await produce_ok(s.client, pid, e, [batch("t", 0, 0)], "tx")
        await s.broker.db.writer.execute(  # as if the server died right after PrepareCommit
            "UPDATE transactions SET state = 'PrepareCommit', last_producer_id = producer_id, "
            "last_epoch = producer_epoch WHERE transactional_id = 'tx'"
        )
    p = RecordingParticipant()
    from app.main import create_app

    broker = Broker(settings, offset_participant=p)
    app = create_app(settings, broker=broker)
    async with app.router.lifespan_context(app):
        assert p.calls == [("end", "g", pid, True)]
        assert broker.transactions.txns["tx"].state.value == "CompleteCommit"

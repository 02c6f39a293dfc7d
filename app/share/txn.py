"""ShareTxnParticipant: the share groups' side of transactions (``AckParticipant``).

Acknowledgements sent to a transaction are validated like plain ones, then held: their records
stay ACQUIRED by the member, lock suspended, and a row per held range is written with the
transaction's own row. When the transaction ends, commit applies them as plain acknowledgements
would (delivery limit, dead-letter copies) and abort releases their records with the delivery
count unchanged; each share partition concerned has its durable view written, and the held rows
deleted, in the transaction coordinator's Complete* commit.

While an ending is under way its partitions are kept out of the state writer's rounds
(``StateWriter.exclusive``): the ending's view is taken inside the coordinator's SQLite
transaction, so no round may write a view without it (and commit it after) nor one with it
before the transaction decides.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from app.errors import Conflict, ErrorCode, SluiceError
from app.metadata.db import Statements
from app.metadata.share_store import HeldAckRow, PartitionRow, ShareStore
from app.share.coordinator import ShareGroupCoordinator
from app.share.partition import AckBatch, Staged

PartitionKey = tuple[str, int]
_StoreKey = tuple[str, int, int]  # group id, topic id, partition


@dataclass(slots=True)
class _Held:
    """The write of held acknowledgements (``TxnWrite``)."""

    staged: list[Staged]
    rows: list[tuple[_StoreKey, HeldAckRow]]
    completed: bool = False

    def statements(self) -> Statements:
        return functools.partial(ShareStore.write_txn_acks, rows=self.rows)

    def complete(self) -> None:
        for staged in self.staged:
            staged.partition.complete_hold(staged)
        self.completed = True


@dataclass(frozen=True, slots=True)
class _Staging:
    results: list[tuple[PartitionKey, SluiceError | None]]
    held: _Held | None


@dataclass(slots=True)
class _Ending:
    """The write of a producer's held acknowledgements ending in one group (``TxnWrite``)."""

    share: ShareGroupCoordinator
    group_id: str
    producer_id: int
    staged: list[Staged]
    completed: bool = False

    def statements(self) -> Statements:
        """The partitions' durable views, taken now (inside the coordinator's write), and the
        statements that write them and drop the producer's held rows."""
        rows = []
        for staged in self.staged:
            sp = staged.partition
            if sp.retired:  # its rows are deleted below; its view belongs to nobody now
                continue
            start, batches = sp.snapshot(frozenset({staged}))
            rows.append(
                PartitionRow(sp.group_id, sp.topic_id, sp.partition, sp.state_epoch, start, batches)
            )
        now_ms = self.share.clock.now_ms()
        group_id, producer_id = self.group_id, self.producer_id

        def run(conn: sqlite3.Connection) -> None:
            if not all(ShareStore.write_partitions(conn, rows, now_ms)):
                raise Conflict(
                    ErrorCode.INVALID_RECORD_STATE, "the share partition was reset meanwhile"
                )
            ShareStore.delete_txn_acks(conn, group_id, producer_id)

        return run

    def complete(self) -> None:
        for staged in self.staged:
            self.share.complete(staged)
        self.completed = True


class ShareTxnParticipant:
    def __init__(self, coordinator: ShareGroupCoordinator) -> None:
        self.share = coordinator
        self.membership = coordinator.membership
        self.clock = coordinator.clock

    def check_owner(self, group_id: str, member_id: str, principal: str | None) -> None:
        self.membership.check_owner(group_id, member_id, principal)

    def check_txn_acks_member(self, group_id: str, member_id: str) -> None:
        self.membership.any_member(group_id, member_id)

    @asynccontextmanager
    async def staging_txn_acks(
        self,
        group_id: str,
        member_id: str,
        producer_id: int,
        acks: Mapping[PartitionKey, list[AckBatch] | SluiceError],
    ) -> AsyncIterator[_Staging]:
        """Hold the acknowledgements for the producer's transaction, validated per partition
        as plain ones; once written and completed, the records stay ACQUIRED by the member
        with their lock suspended until the transaction ends."""
        group, member = self.membership.any_member(group_id, member_id)
        now = self.clock.now_ms()
        limits = group.config.limits
        results, done = group.per_partition(
            acks,
            lambda sp, batches: sp.hold_txn(
                member.member_id, batches, producer_id, now=now, limits=limits
            ),
        )
        held = None
        if done:
            held = _Held(
                [staged for _, _, (staged, _) in done],
                [
                    (
                        (group_id, sp.topic_id, sp.partition),
                        HeldAckRow(
                            h.first,
                            h.last,
                            h.producer_id,
                            h.kind.value,
                            h.delay_ms,
                            h.delivery_count,
                            h.member,
                        ),
                    )
                    for _, sp, (_, hs) in done
                    for h in hs
                ],
            )
        try:
            yield _Staging(list(results.items()), held)
        finally:
            if held is not None and not held.completed:
                for staged in held.staged:
                    self.share.rollback(staged)

    @asynccontextmanager
    async def ending_txn_acks(
        self, group_id: str, producer_id: int, commit: bool
    ) -> AsyncIterator[_Ending]:
        """Stage the outcome of the producer's held acknowledgements in the group (commit
        applies them, abort releases their records with the delivery count unchanged) and
        make their dead-letter copies durable; the write also deletes every held row of the
        producer in the group (those of partitions gone meanwhile too), so a second ending
        changes nothing."""
        group = self.membership.groups.get(group_id)
        partitions = (
            [sp for sp in group.partitions.values() if sp.holds(producer_id)]
            if group is not None
            else []
        )
        async with self.share.writer.exclusive(partitions):
            ending = _Ending(self.share, group_id, producer_id, [])
            try:
                if group is not None:
                    now = self.clock.now_ms()
                    for sp in partitions:
                        staged = sp.end_txn(
                            producer_id, commit, now=now, limits=group.config.limits
                        )
                        if staged is not None:
                            ending.staged.append(staged)
                    await self.share.dead_letters.copy(ending.staged, self.share.dead_letter_topic)
                yield ending
            finally:
                if not ending.completed:
                    for staged in ending.staged:
                        self.share.rollback(staged)

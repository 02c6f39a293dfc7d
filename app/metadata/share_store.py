"""Typed queries of the share groups' durable state (migrations 0004, 0005, 0006).

Groups and their configs; per share partition its state epoch, start offset and state batches;
held transactional acknowledgements; dead-letter marks. A partition write replaces the
partition's batches with its durable view, guarded by the state epoch, so that a write staged
before an offsets reset cannot overwrite the reset state (Kafka's FENCED_STATE_EPOCH).

Methods that take a ``Tx`` run inside the caller's write transaction (the share state writer's,
or the transaction coordinator's when a transaction ends); the others are one write transaction
each, durable on return.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson

from app.metadata.db import Database

Batch = tuple[int, int, int, int]  # first, last, state, delivery count
PartitionKey = tuple[str, int, int]  # group id, topic id, partition

_UPSERT_PARTITION = (
    "INSERT INTO share_partitions (group_id, topic_id, partition, state_epoch, start_offset, "
    "updated_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (group_id, topic_id, partition) DO UPDATE "
    "SET start_offset = excluded.start_offset, updated_ms = excluded.updated_ms "
    "WHERE share_partitions.state_epoch = excluded.state_epoch"
)
_DELETE_BATCHES = (
    "DELETE FROM share_state_batches WHERE group_id = ? AND topic_id = ? AND partition = ?"
)
_INSERT_BATCH = (
    "INSERT INTO share_state_batches (group_id, topic_id, partition, first_offset, last_offset, "
    "state, delivery_count) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True, slots=True)
class GroupRow:
    group_id: str
    config: dict[str, object]
    created_ms: int


@dataclass(frozen=True, slots=True)
class PartitionRow:
    group_id: str
    topic_id: int
    partition: int
    state_epoch: int
    start_offset: int
    batches: list[Batch]


@dataclass(frozen=True, slots=True)
class HeldAckRow:
    """One held transactional acknowledgement of a share partition."""

    first: int
    last: int
    producer_id: int
    kind: str  # the acknowledgement type, as the API spells it
    delay_ms: int
    delivery_count: int
    member: str


@dataclass(frozen=True, slots=True)
class DeadLetterMark:
    """Where copies of a share partition whose archive may not be durable begin: an offset of
    one dead-letter partition (docs/semantics.md#dead-letter-topic)."""

    key: PartitionKey
    dlq_topic_id: int
    dlq_partition: int
    from_offset: int


_SHARE_TABLES = ("share_state_batches", "share_txn_acks", "share_dead_letter_marks")


class ShareStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- groups -------------------------------------------------------------------------------

    async def load_groups(self) -> list[GroupRow]:
        rows = await self.db.reader.fetchall(
            "SELECT group_id, config, created_ms FROM share_groups ORDER BY group_id"
        )
        return [GroupRow(r[0], orjson.loads(r[1]), r[2]) for r in rows]

    async def save_group(self, group_id: str, config: dict[str, object], now_ms: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO share_groups (group_id, config, created_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (group_id) DO UPDATE SET config = excluded.config",
                (group_id, orjson.dumps(config).decode(), now_ms),
            )

    async def delete_group(self, group_id: str) -> None:
        async with self.db.transaction() as tx:
            for table in (*_SHARE_TABLES, "share_partitions"):
                await tx.execute(f"DELETE FROM {table} WHERE group_id = ?", (group_id,))
            await tx.execute("DELETE FROM share_groups WHERE group_id = ?", (group_id,))

    # -- share partitions ---------------------------------------------------------------------

    async def load_partitions(self) -> list[PartitionRow]:
        batches: dict[PartitionKey, list[Batch]] = {}
        rows = await self.db.reader.fetchall(
            "SELECT group_id, topic_id, partition, first_offset, last_offset, state, "
            "delivery_count FROM share_state_batches ORDER BY group_id, topic_id, partition, "
            "first_offset"
        )
        for r in rows:
            batches.setdefault((r[0], r[1], r[2]), []).append((r[3], r[4], r[5], r[6]))
        rows = await self.db.reader.fetchall(
            "SELECT group_id, topic_id, partition, state_epoch, start_offset FROM share_partitions"
        )
        return [
            PartitionRow(r[0], r[1], r[2], r[3], r[4], batches.get((r[0], r[1], r[2]), []))
            for r in rows
        ]

    async def write(self, rows: Sequence[PartitionRow], now_ms: int) -> list[bool]:
        """``write_partitions`` in one transaction of its own; durable on return."""
        return await self.db.run(_writer(rows, now_ms))

    @staticmethod
    def write_partitions(
        conn: sqlite3.Connection, rows: Sequence[PartitionRow], now_ms: int
    ) -> list[bool]:
        """On the database thread, inside the caller's write transaction: every row; False for
        a row fenced by a newer state epoch (nothing written)."""
        return _writer(rows, now_ms)(conn)

    async def replace(
        self, group_id: str, topic_id: int, partitions: list[tuple[int, int, int]], now_ms: int
    ) -> None:
        """Reset: each (partition, new state epoch, start offset) starts over, no batches."""
        async with self.db.transaction() as tx:
            for p, epoch, start in partitions:
                key = (group_id, topic_id, p)
                await tx.execute(
                    "DELETE FROM share_state_batches "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?",
                    key,
                )
                await tx.execute(
                    "DELETE FROM share_txn_acks "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?",
                    key,
                )
                await tx.execute(  # copies of the old state epoch are none of the new one's
                    "DELETE FROM share_dead_letter_marks "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?",
                    key,
                )
                await tx.execute(
                    "INSERT INTO share_partitions (group_id, topic_id, partition, state_epoch, "
                    "start_offset, updated_ms) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (group_id, topic_id, partition) DO UPDATE SET "
                    "state_epoch = excluded.state_epoch, start_offset = excluded.start_offset, "
                    "updated_ms = excluded.updated_ms",
                    (*key, epoch, start, now_ms),
                )

    async def forget_topic(self, group_id: str, topic_id: int) -> None:
        async with self.db.transaction() as tx:
            for table in (*_SHARE_TABLES, "share_partitions"):
                await tx.execute(
                    f"DELETE FROM {table} WHERE group_id = ? AND topic_id = ?", (group_id, topic_id)
                )

    # -- dead-letter marks ----------------------------------------------------------------------

    async def load_dead_letter_mark(self, key: PartitionKey) -> DeadLetterMark | None:
        r = await self.db.reader.fetchone(
            "SELECT dlq_topic_id, dlq_partition, from_offset FROM share_dead_letter_marks "
            "WHERE group_id = ? AND topic_id = ? AND partition = ?",
            key,
        )
        return None if r is None else DeadLetterMark(key, r[0], r[1], r[2])

    async def write_dead_letter_marks(self, marks: Sequence[DeadLetterMark]) -> None:
        """Set each share partition's mark, in one transaction; durable on return."""
        async with self.db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO share_dead_letter_marks (group_id, topic_id, partition, "
                "dlq_topic_id, dlq_partition, from_offset) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (group_id, topic_id, partition) DO UPDATE SET "
                "dlq_topic_id = excluded.dlq_topic_id, dlq_partition = excluded.dlq_partition, "
                "from_offset = excluded.from_offset",
                [(*m.key, m.dlq_topic_id, m.dlq_partition, m.from_offset) for m in marks],
            )

    # -- held transactional acknowledgements --------------------------------------------------

    async def load_txn_acks(self) -> dict[PartitionKey, list[HeldAckRow]]:
        out: dict[PartitionKey, list[HeldAckRow]] = {}
        rows = await self.db.reader.fetchall(
            "SELECT group_id, topic_id, partition, first_offset, last_offset, producer_id, "
            "type, delay_ms, delivery_count, member_id FROM share_txn_acks "
            "ORDER BY group_id, topic_id, partition, first_offset"
        )
        for r in rows:
            out.setdefault((r[0], r[1], r[2]), []).append(
                HeldAckRow(r[3], r[4], r[5], r[6], r[7], r[8], r[9])
            )
        return out

    @staticmethod
    def write_txn_acks(
        conn: sqlite3.Connection, rows: Sequence[tuple[PartitionKey, HeldAckRow]]
    ) -> None:
        """On the database thread: store held acknowledgements, each with its (group id,
        topic id, partition)."""
        conn.executemany(
            "INSERT OR REPLACE INTO share_txn_acks (group_id, topic_id, partition, "
            "first_offset, last_offset, producer_id, type, delay_ms, delivery_count, "
            "member_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    *key,
                    h.first,
                    h.last,
                    h.producer_id,
                    h.kind,
                    h.delay_ms,
                    h.delivery_count,
                    h.member,
                )
                for key, h in rows
            ],
        )

    @staticmethod
    def delete_txn_acks(conn: sqlite3.Connection, group_id: str, producer_id: int) -> None:
        """On the database thread: drop every held acknowledgement of the producer in the
        group."""
        conn.execute(
            "DELETE FROM share_txn_acks WHERE group_id = ? AND producer_id = ?",
            (group_id, producer_id),
        )


def _writer(
    rows: Sequence[PartitionRow], now_ms: int
) -> Callable[[sqlite3.Connection], list[bool]]:
    """The statements of ``write_partitions``, run on the database thread."""

    def write(conn: sqlite3.Connection) -> list[bool]:
        out: list[bool] = []
        for row in rows:
            key = (row.group_id, row.topic_id, row.partition)
            done = conn.execute(
                _UPSERT_PARTITION, (*key, row.state_epoch, row.start_offset, now_ms)
            )
            if done.rowcount != 1:
                out.append(False)
                continue
            conn.execute(_DELETE_BATCHES, key)
            if row.batches:
                conn.executemany(_INSERT_BATCH, [(*key, *b) for b in row.batches])
            out.append(True)
        return out

    return write

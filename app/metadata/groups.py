"""Typed queries of the consumer-group aggregate: groups, members, offsets, pending offsets.

Every method is one SQLite transaction (committed with synchronous=FULL before it returns).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson

from app.metadata.db import Database, Tx

TopicPartition = tuple[str, int]


@dataclass(frozen=True, slots=True)
class GroupRow:
    group_id: str
    group_epoch: int
    target_epoch: int
    topics: dict[str, tuple[int, int]]  # name → (topic id, partitions)
    commit_seq: int
    created_ms: int


@dataclass(frozen=True, slots=True)
class OffsetRow:
    topic_id: int
    partition: int
    offset: int
    metadata: str | None
    commit_seq: int


@dataclass(frozen=True, slots=True)
class MemberRow:
    member_id: str
    instance_id: str | None
    epoch: int
    previous_epoch: int
    state: str
    subscribed: tuple[str, ...]
    rebalance_timeout_ms: int
    assigned: frozenset[TopicPartition]
    revoking: frozenset[TopicPartition]
    target: frozenset[TopicPartition]
    principal: str  # '' for a server without keys


@dataclass(slots=True)
class LoadedGroup:
    row: GroupRow
    members: list[MemberRow]
    offsets: list[OffsetRow]
    pending: dict[int, list[OffsetRow]]  # producer id → staged offsets


def _tps(tps: Iterable[TopicPartition]) -> str:
    return orjson.dumps(sorted(tps)).decode()


def _untps(text: str) -> frozenset[TopicPartition]:
    return frozenset((str(t), int(p)) for t, p in orjson.loads(text))


@dataclass(frozen=True, slots=True)
class MembershipChange:
    """One durable step of a group's membership: the group row, members written, removed."""

    group_id: str
    group_epoch: int
    target_epoch: int
    topics: dict[str, tuple[int, int]]
    upserts: Sequence[MemberRow]
    removals: Sequence[str]


class GroupStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> list[LoadedGroup]:
        conn = self.db.reader
        groups: dict[str, LoadedGroup] = {}
        rows = await conn.fetchall(
            "SELECT group_id, group_epoch, target_epoch, topics, commit_seq, created_ms "
            "FROM consumer_groups ORDER BY group_id"
        )
        for r in rows:
            topics = {str(k): (int(v[0]), int(v[1])) for k, v in orjson.loads(r[3]).items()}
            groups[r[0]] = LoadedGroup(GroupRow(r[0], r[1], r[2], topics, r[4], r[5]), [], [], {})
        rows = await conn.fetchall(
            "SELECT group_id, member_id, group_instance_id, member_epoch, previous_epoch, state, "
            "subscribed_topics, rebalance_timeout_ms, assigned, revoking, target, principal "
            "FROM consumer_group_members ORDER BY group_id, member_id"
        )
        for r in rows:
            groups[r[0]].members.append(
                MemberRow(
                    r[1],
                    r[2],
                    r[3],
                    r[4],
                    r[5],
                    tuple(orjson.loads(r[6])),
                    r[7],
                    _untps(r[8]),
                    _untps(r[9]),
                    _untps(r[10]),
                    r[11],
                )
            )
        rows = await conn.fetchall(
            "SELECT group_id, topic_id, partition, committed_offset, metadata, commit_seq "
            "FROM consumer_group_offsets"
        )
        for r in rows:
            groups[r[0]].offsets.append(OffsetRow(r[1], r[2], r[3], r[4], r[5]))
        rows = await conn.fetchall(
            "SELECT group_id, producer_id, topic_id, partition, committed_offset, metadata, "
            "commit_seq FROM consumer_group_pending_offsets"
        )
        for r in rows:
            groups[r[0]].pending.setdefault(r[1], []).append(
                OffsetRow(r[2], r[3], r[4], r[5], r[6])
            )
        return list(groups.values())

    @staticmethod
    async def _ensure_group(tx: Tx, group_id: str, created_ms: int) -> None:
        await tx.execute(
            "INSERT OR IGNORE INTO consumer_groups (group_id, group_epoch, target_epoch, "
            "created_ms) VALUES (?, 0, 0, ?)",
            (group_id, created_ms),
        )

    async def save_membership(self, change: MembershipChange, created_ms: int) -> None:
        async with self.db.transaction() as tx:
            await self._ensure_group(tx, change.group_id, created_ms)
            await tx.execute(
                "UPDATE consumer_groups SET group_epoch = ?, target_epoch = ?, topics = ? "
                "WHERE group_id = ?",
                (
                    change.group_epoch,
                    change.target_epoch,
                    orjson.dumps({k: list(v) for k, v in change.topics.items()}).decode(),
                    change.group_id,
                ),
            )
            if change.removals:
                await tx.executemany(
                    "DELETE FROM consumer_group_members WHERE group_id = ? AND member_id = ?",
                    [(change.group_id, m) for m in change.removals],
                )
            await tx.executemany(
                "INSERT OR REPLACE INTO consumer_group_members (group_id, member_id, "
                "group_instance_id, member_epoch, previous_epoch, state, subscribed_topics, "
                "rebalance_timeout_ms, assigned, revoking, target, principal) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        change.group_id,
                        r.member_id,
                        r.instance_id,
                        r.epoch,
                        r.previous_epoch,
                        r.state,
                        orjson.dumps(list(r.subscribed)).decode(),
                        r.rebalance_timeout_ms,
                        _tps(r.assigned),
                        _tps(r.revoking),
                        _tps(r.target),
                        r.principal,
                    )
                    for r in change.upserts
                ],
            )

    async def commit_offsets(
        self, group_id: str, commit_seq: int, offsets: Sequence[OffsetRow], now_ms: int
    ) -> None:
        """Plain commits (each row carries its sequence); the group's sequence moves too."""
        async with self.db.transaction() as tx:
            await self._ensure_group(tx, group_id, now_ms)
            await tx.execute(
                "UPDATE consumer_groups SET commit_seq = ? WHERE group_id = ?",
                (commit_seq, group_id),
            )
            await tx.executemany(
                "INSERT OR REPLACE INTO consumer_group_offsets (group_id, topic_id, partition, "
                "committed_offset, metadata, commit_seq, commit_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (group_id, o.topic_id, o.partition, o.offset, o.metadata, o.commit_seq, now_ms)
                    for o in offsets
                ],
            )

    @staticmethod
    def write_pending(
        conn: sqlite3.Connection,
        group_id: str,
        producer_id: int,
        commit_seq: int,
        offsets: Sequence[OffsetRow],
        now_ms: int,
    ) -> None:
        """On the database thread, inside the caller's write transaction (the transaction
        coordinator's): stage ``offsets`` as the producer's pending offsets."""
        conn.execute(  # _ensure_group and the sequence in one statement
            "INSERT INTO consumer_groups (group_id, group_epoch, target_epoch, commit_seq, "
            "created_ms) VALUES (?, 0, 0, ?, ?) "
            "ON CONFLICT (group_id) DO UPDATE SET commit_seq = excluded.commit_seq",
            (group_id, commit_seq, now_ms),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO consumer_group_pending_offsets (group_id, producer_id, "
            "topic_id, partition, committed_offset, metadata, commit_seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (group_id, producer_id, o.topic_id, o.partition, o.offset, o.metadata, o.commit_seq)
                for o in offsets
            ],
        )

    @staticmethod
    def write_end_pending(
        conn: sqlite3.Connection,
        group_id: str,
        producer_id: int,
        materialise: Sequence[OffsetRow],
        now_ms: int,
    ) -> None:
        """On the database thread, inside the caller's write transaction: drop the producer's
        pending offsets, writing ``materialise`` as committed."""
        if materialise:
            conn.executemany(
                "INSERT OR REPLACE INTO consumer_group_offsets (group_id, topic_id, partition, "
                "committed_offset, metadata, commit_seq, commit_ms) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (group_id, o.topic_id, o.partition, o.offset, o.metadata, o.commit_seq, now_ms)
                    for o in materialise
                ],
            )
        conn.execute(
            "DELETE FROM consumer_group_pending_offsets WHERE group_id = ? AND producer_id = ?",
            (group_id, producer_id),
        )

    async def delete_offsets(self, group_id: str, topic_ids: Sequence[int] | None) -> None:
        async with self.db.transaction() as tx:
            if topic_ids is None:
                await tx.execute(
                    "DELETE FROM consumer_group_offsets WHERE group_id = ?", (group_id,)
                )
            else:
                await tx.executemany(
                    "DELETE FROM consumer_group_offsets WHERE group_id = ? AND topic_id = ?",
                    [(group_id, t) for t in topic_ids],
                )

    async def delete_group(self, group_id: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM consumer_groups WHERE group_id = ?", (group_id,))

    async def forget_topics(self, live_topic_ids: set[int]) -> None:
        """Drop committed offsets of deleted topics (pending ones end with their transaction)."""
        async with self.db.transaction() as tx:
            rows = await tx.fetchall("SELECT DISTINCT topic_id FROM consumer_group_offsets")
            dead = [(r[0],) for r in rows if r[0] not in live_topic_ids]
            if dead:
                await tx.executemany("DELETE FROM consumer_group_offsets WHERE topic_id = ?", dead)

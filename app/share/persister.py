"""Durable share-group state in SQLite (A1.10, decision 9), and the group-commit writer.

``SharePersister`` holds the queries: groups and their configs, and per share partition the
state epoch, the start offset and the state batches. A write replaces a partition's batches
with its durable view, guarded by the state epoch so that a write staged before an offsets
reset cannot overwrite the reset state (Kafka's FENCED_STATE_EPOCH).

``StateWriter`` is the group commit: staged changes of every partition that arrive while a
round is running share the next round's one SQLite commit (synchronous=FULL). A round is:
take every staged change → append and fsync dead-letter copies → commit the share state in
one transaction → complete the changes (or roll them back and fail their waiters).

Held transactional acknowledgements (decision 4) have their own rows, written when staged and
deleted in the same SQLite transaction as the share state that ends them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import orjson

from app.errors import Conflict, ErrorCode, SluiceError, Unavailable
from app.metadata.db import Database
from app.share.partition import AckType, HeldAck, SharePartition, Staged

log = logging.getLogger("sluice.share")

Batch = tuple[int, int, int, int]  # first, last, state, delivery count


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
    txn_ended: list[int] = field(default_factory=list)  # producer ids whose held acks end


class SharePersister:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- groups -------------------------------------------------------------------------------

    async def load_groups(self) -> list[GroupRow]:
        async with self.db.reader.execute(
            "SELECT group_id, config, created_ms FROM share_groups ORDER BY group_id"
        ) as cur:
            return [GroupRow(r[0], orjson.loads(r[1]), r[2]) async for r in cur]

    async def save_group(self, group_id: str, config: dict[str, object], now_ms: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO share_groups (group_id, config, created_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (group_id) DO UPDATE SET config = excluded.config",
                (group_id, orjson.dumps(config).decode(), now_ms))

    async def delete_group(self, group_id: str) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "DELETE FROM share_state_batches WHERE group_id = ?", (group_id,))
            await conn.execute("DELETE FROM share_txn_acks WHERE group_id = ?", (group_id,))
            await conn.execute("DELETE FROM share_partitions WHERE group_id = ?", (group_id,))
            await conn.execute("DELETE FROM share_groups WHERE group_id = ?", (group_id,))

    # -- share partitions ---------------------------------------------------------------------

    async def load_partitions(self) -> list[PartitionRow]:
        batches: dict[tuple[str, int, int], list[Batch]] = {}
        async with self.db.reader.execute(
            "SELECT group_id, topic_id, partition, first_offset, last_offset, state, "
            "delivery_count FROM share_state_batches ORDER BY group_id, topic_id, partition, "
            "first_offset"
        ) as cur:
            async for r in cur:
                batches.setdefault((r[0], r[1], r[2]), []).append((r[3], r[4], r[5], r[6]))
        async with self.db.reader.execute(
            "SELECT group_id, topic_id, partition, state_epoch, start_offset "
            "FROM share_partitions"
        ) as cur:
            return [PartitionRow(r[0], r[1], r[2], r[3], r[4], batches.get((r[0], r[1], r[2]),
                                                                            []))
                    async for r in cur]

    async def write(self, rows: list[PartitionRow], now_ms: int) -> list[bool]:
        """Write every row in one transaction; False for a row fenced by a newer state epoch."""
        out: list[bool] = []
        async with self.db.transaction() as conn:
            for row in rows:
                key = (row.group_id, row.topic_id, row.partition)
                cur = await conn.execute(
                    "INSERT INTO share_partitions (group_id, topic_id, partition, state_epoch, "
                    "start_offset, updated_ms) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (group_id, topic_id, partition) DO UPDATE SET "
                    "start_offset = excluded.start_offset, updated_ms = excluded.updated_ms "
                    "WHERE share_partitions.state_epoch = excluded.state_epoch",
                    (*key, row.state_epoch, row.start_offset, now_ms))
                if cur.rowcount != 1:
                    out.append(False)
                    continue
                await conn.execute(
                    "DELETE FROM share_state_batches "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?", key)
                if row.batches:
                    await conn.executemany(
                        "INSERT INTO share_state_batches (group_id, topic_id, partition, "
                        "first_offset, last_offset, state, delivery_count) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(*key, *b) for b in row.batches])
                for pid in row.txn_ended:
                    await conn.execute(
                        "DELETE FROM share_txn_acks WHERE group_id = ? AND topic_id = ? "
                        "AND partition = ? AND producer_id = ?", (*key, pid))
                out.append(True)
        return out

    async def replace(self, group_id: str, topic_id: int,
                      partitions: list[tuple[int, int, int]], now_ms: int) -> None:
        """Reset: each (partition, new state epoch, start offset) starts over, no batches."""
        async with self.db.transaction() as conn:
            for p, epoch, start in partitions:
                key = (group_id, topic_id, p)
                await conn.execute(
                    "DELETE FROM share_state_batches "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?", key)
                await conn.execute(
                    "DELETE FROM share_txn_acks "
                    "WHERE group_id = ? AND topic_id = ? AND partition = ?", key)
                await conn.execute(
                    "INSERT INTO share_partitions (group_id, topic_id, partition, state_epoch, "
                    "start_offset, updated_ms) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (group_id, topic_id, partition) DO UPDATE SET "
                    "state_epoch = excluded.state_epoch, start_offset = excluded.start_offset, "
                    "updated_ms = excluded.updated_ms", (*key, epoch, start, now_ms))

    async def forget_topic(self, group_id: str, topic_id: int) -> None:
        async with self.db.transaction() as conn:
            for table in ("share_state_batches", "share_txn_acks", "share_partitions"):
                await conn.execute(f"DELETE FROM {table} WHERE group_id = ? AND topic_id = ?",
                                   (group_id, topic_id))


    # -- held transactional acknowledgements ------------------------------------------------

    async def load_txn_acks(self) -> dict[tuple[str, int, int], list[HeldAck]]:
        out: dict[tuple[str, int, int], list[HeldAck]] = {}
        async with self.db.reader.execute(
            "SELECT group_id, topic_id, partition, first_offset, last_offset, producer_id, "
            "type, delay_ms, delivery_count, member_id FROM share_txn_acks "
            "ORDER BY group_id, topic_id, partition, first_offset"
        ) as cur:
            async for r in cur:
                out.setdefault((r[0], r[1], r[2]), []).append(
                    HeldAck(r[3], r[4], r[5], AckType(r[6]), r[7], r[8], r[9]))
        return out

    async def hold_txn_acks(self, rows: list[tuple[str, int, int, HeldAck]]) -> None:
        """Store held acknowledgements (group, topic id, partition, row); durable on return."""
        async with self.db.transaction() as conn:
            await conn.executemany(
                "INSERT OR REPLACE INTO share_txn_acks (group_id, topic_id, partition, "
                "first_offset, last_offset, producer_id, type, delay_ms, delivery_count, "
                "member_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(g, t, p, h.first, h.last, h.producer_id, h.kind.value, h.delay_ms,
                  h.delivery_count, h.member) for g, t, p, h in rows])

    async def forget_txn_acks(self, group_id: str, producer_id: int) -> None:
        """Drop what is left of a producer's held acknowledgements in the group (rows of
        partitions that no longer exist); durable on return."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "DELETE FROM share_txn_acks WHERE group_id = ? AND producer_id = ?",
                (group_id, producer_id))


class StateWriter:
    """Group-commits staged share-partition changes (see the module docstring)."""

    def __init__(self, persister: SharePersister, *, now_ms: Callable[[], int],
                 complete: Callable[[Staged], None],
                 rollback: Callable[[Staged], None],
                 copy_dlq: Callable[[list[Staged]], Awaitable[None]]) -> None:
        self.persister = persister
        self.now_ms = now_ms
        self.complete = complete
        self.rollback = rollback
        self.copy_dlq = copy_dlq
        self._dirty: dict[SharePartition, None] = {}
        self._waiters: dict[Staged, asyncio.Future[None]] = {}
        self._flushes: dict[SharePartition, list[asyncio.Future[None]]] = {}
        self._wake = asyncio.Event()
        self.rounds = 0
        self.closed = False

    def mark(self, sp: SharePartition) -> None:
        """Write this partition's durable view in the next round."""
        self._dirty[sp] = None
        self._wake.set()

    async def persist(self, staged: Staged) -> None:
        """Return once ``staged`` is durable and applied; raise if it was rolled back."""
        if self.closed:
            raise Unavailable(ErrorCode.NOT_READY, "the server is stopping")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[staged] = fut
        self.mark(staged.partition)
        await fut

    async def flush(self, sp: SharePartition) -> None:
        """Return once the partition's durable view as of now is written."""
        if self.closed:
            raise Unavailable(ErrorCode.NOT_READY, "the server is stopping")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._flushes.setdefault(sp, []).append(fut)
        self.mark(sp)
        await fut

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self.round()

    async def round(self) -> None:
        parts, self._dirty = list(self._dirty), {}
        if not parts:
            return
        flushes = [(sp, self._flushes.pop(sp)) for sp in parts if sp in self._flushes]
        taken: list[Staged] = []
        rows: list[PartitionRow] = []
        for sp in parts:
            if sp.retired:
                mine = list(sp.staged)
                taken.extend(mine)
                rows.append(PartitionRow(sp.group_id, sp.topic_id, sp.partition, -1, 0, []))
                continue
            mine = list(sp.staged)
            taken.extend(mine)
            start, batches = sp.snapshot(frozenset(mine))
            sp.dirty = False
            rows.append(PartitionRow(sp.group_id, sp.topic_id, sp.partition, sp.state_epoch,
                                     start, batches,
                                     [s.txn_end for s in mine if s.txn_end is not None]))
        error: SluiceError | None = None
        fenced: set[SharePartition] = set()
        try:
            with_dlq = [s for s in taken if s.dlq and not s.partition.retired]
            if with_dlq:
                await self.copy_dlq(with_dlq)
            live = [(sp, r) for sp, r in zip(parts, rows, strict=True) if not sp.retired]
            ok = await self.persister.write([r for _, r in live], self.now_ms())
            fenced = {sp for (sp, _), good in zip(live, ok, strict=True) if not good}
            fenced |= {sp for sp in parts if sp.retired}
        except SluiceError as exc:
            log.error("share state write failed: %s", exc)
            error = exc
        except Exception as exc:  # sqlite3 errors are mapped by Database; anything else too
            log.exception("share state write failed")
            error = Unavailable(ErrorCode.STORAGE_ERROR, f"share state write failed: {exc}")
        self.rounds += 1
        for sp, futs in flushes:
            failed = error or (Conflict(ErrorCode.INVALID_RECORD_STATE,
                                        "the share partition was reset meanwhile")
                               if sp in fenced else None)
            if failed is None:
                sp.persisted = True
            for flushed in futs:
                if flushed.done():
                    continue
                if failed is None:
                    flushed.set_result(None)
                else:
                    flushed.set_exception(failed)
        for sp in parts:
            if error is None and sp not in fenced:
                sp.persisted = True
        for staged in taken:
            fut = self._waiters.pop(staged, None)
            if error is None and staged.partition not in fenced:
                self.complete(staged)
                if fut is not None and not fut.done():
                    fut.set_result(None)
                continue
            self.rollback(staged)
            failure = error or Conflict(ErrorCode.INVALID_RECORD_STATE,
                                        "the share partition was reset meanwhile")
            if fut is not None and not fut.done():
                fut.set_exception(failure)

    async def close(self) -> None:
        await self.round()
        self.closed = True

"""Typed queries of the producer-id blocks, the transactions and the idempotency keys of
commits of several transactions (migrations 0002, 0005, 0008)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson

from app.metadata.db import Database, Statements


@dataclass(frozen=True, slots=True)
class TxnRow:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    last_producer_id: int
    last_epoch: int
    timed_out_epoch: int
    timeout_ms: int
    state: str
    partitions: list[tuple[str, int]]
    groups: list[str]
    start_ms: int
    updated_ms: int
    share_groups: list[str] = dataclasses.field(default_factory=list)  # migration 0005


@dataclass(frozen=True, slots=True)
class CommitKeyRow:
    """The idempotency key of one commit of several transactions (migration 0008)."""

    key: str
    transactional_ids: list[str]
    committed_ms: int


Write = Callable[[], Statements]  # a participant's write: its statements, taken on the loop


_COLUMNS = (
    "transactional_id, producer_id, producer_epoch, last_producer_id, last_epoch, "
    "timed_out_epoch, timeout_ms, state, partitions, groups, start_ms, updated_ms, "
    "share_groups"
)

_UPSERT = (
    f"INSERT OR REPLACE INTO transactions ({_COLUMNS}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _values(row: TxnRow) -> tuple[object, ...]:
    return (
        row.transactional_id,
        row.producer_id,
        row.producer_epoch,
        row.last_producer_id,
        row.last_epoch,
        row.timed_out_epoch,
        row.timeout_ms,
        row.state,
        orjson.dumps(sorted(row.partitions)).decode(),
        orjson.dumps(sorted(row.groups)).decode(),
        row.start_ms,
        row.updated_ms,
        orjson.dumps(sorted(row.share_groups)).decode(),
    )


class ProducerIdStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def reserve_block(self, size: int, principal: str) -> int:
        """Reserve ``size`` ids for ``principal`` durably (the block and its owner in one
        commit); answers the first of them."""
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT OR IGNORE INTO producer_id_blocks (singleton, next_start) VALUES (1, 0)"
            )
            (row,) = await tx.fetchall(
                "UPDATE producer_id_blocks SET next_start = next_start + ? WHERE singleton = 1 "
                "RETURNING next_start",
                (size,),
            )
            end = int(row[0])
            await tx.execute(
                "INSERT INTO producer_id_owners (block_start, block_end, principal) "
                "VALUES (?, ?, ?)",
                (end - size, end, principal),
            )
            return end - size

    async def owned_blocks(self) -> list[tuple[int, int, str]]:
        """(start, end, principal) of every block reserved with an owner, ascending."""
        rows = await self.db.reader.fetchall(
            "SELECT block_start, block_end, principal FROM producer_id_owners ORDER BY block_start"
        )
        return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    async def issued_below(self) -> int:
        """Every id below this may have been issued (the end of the last reserved block)."""
        row = await self.db.reader.fetchone(
            "SELECT next_start FROM producer_id_blocks WHERE singleton = 1"
        )
        return int(row[0]) if row is not None else 0


class TransactionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> list[TxnRow]:
        rows = await self.db.reader.fetchall(
            f"SELECT {_COLUMNS} FROM transactions ORDER BY transactional_id"
        )
        return [
            TxnRow(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                [(t, p) for t, p in orjson.loads(r[8])],
                orjson.loads(r[9]),
                r[10],
                r[11],
                orjson.loads(r[12]),
            )
            for r in rows
        ]

    async def save(self, row: TxnRow | None, *, also: Sequence[Write] = ()) -> None:
        """Write one transaction's state (None: unchanged) and the ``also`` writes of its
        participants, in one SQLite transaction and one hop to the database thread (durable
        on return). Each of ``also`` gives its statements when called, here, on the event
        loop."""
        await self._write([] if row is None else [row], [write() for write in also])

    async def save_many(self, rows: Sequence[TxnRow], *, key: CommitKeyRow | None = None) -> None:
        """Write several transactions' states, and the idempotency key of the request that
        commits them, in one SQLite transaction (durable on return): all of them or none."""
        statements: list[Statements] = []
        if key is not None:
            values = (key.key, orjson.dumps(key.transactional_ids).decode(), key.committed_ms)
            # an expired key not swept yet is replaced
            statements.append(
                lambda conn: conn.execute(
                    "INSERT OR REPLACE INTO txn_commit_keys "
                    "(key, transactional_ids, committed_ms) VALUES (?, ?, ?)",
                    values,
                )
            )
        await self._write(rows, statements)

    async def _write(self, rows: Sequence[TxnRow], statements: list[Statements]) -> None:
        """``statements``, then the rows, in one SQLite transaction (none: nothing to do)."""
        values = [_values(row) for row in rows]
        if not values and not statements:
            return

        def run(conn: sqlite3.Connection) -> None:
            for statement in statements:
                statement(conn)
            conn.executemany(_UPSERT, values)

        await self.db.run(run)

    async def commit_key(self, key: str) -> CommitKeyRow | None:
        row = await self.db.reader.fetchone(
            "SELECT key, transactional_ids, committed_ms FROM txn_commit_keys WHERE key = ?",
            (key,),
        )
        return None if row is None else CommitKeyRow(row[0], orjson.loads(row[1]), row[2])

    async def expire_commit_keys(self, before_ms: int) -> int:
        """Delete the idempotency keys committed before ``before_ms``; answers how many."""
        async with self.db.transaction() as tx:
            done = await tx.execute(
                "DELETE FROM txn_commit_keys WHERE committed_ms < ?", (before_ms,)
            )
            return done.rowcount

    async def delete(self, transactional_id: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "DELETE FROM transactions WHERE transactional_id = ?", (transactional_id,)
            )

"""Typed queries per aggregate. sqlite3 errors become ``KAFKA_STORAGE_ERROR`` in ``Database``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from app.metadata.db import Database


@dataclass(frozen=True, slots=True)
class TopicRow:
    topic_id: int
    name: str
    partitions: int
    config: dict[str, int | str]
    state: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class IdempotencyRow:
    key: str
    topic_id: int
    request_hash: bytes
    placement: list[int]  # the partition of each record, in request order
    start_offsets: dict[int, int]  # partition → its end offset when the key was reserved
    response: bytes | None  # None while pending
    created_ms: int


class TopicStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> list[TopicRow]:
        rows = await self.db.reader.fetchall(
            "SELECT topic_id, name, partitions, config, state, created_ms FROM topics "
            "ORDER BY topic_id"
        )
        return [TopicRow(r[0], r[1], r[2], orjson.loads(r[3]), r[4], r[5]) for r in rows]

    async def insert(
        self, name: str, partitions: int, config: Mapping[str, int | str], created_ms: int
    ) -> int:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO topics (name, partitions, config, created_ms) VALUES (?, ?, ?, ?)",
                (name, partitions, orjson.dumps(config).decode(), created_ms),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def update(self, topic_id: int, partitions: int, config: Mapping[str, int | str]) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE topics SET partitions = ?, config = ? WHERE topic_id = ?",
                (partitions, orjson.dumps(config).decode(), topic_id),
            )

    async def mark_deleting(self, topic_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE topics SET state = 'deleting' WHERE topic_id = ?", (topic_id,)
            )

    async def delete(self, topic_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM idempotency_keys WHERE topic_id = ?", (topic_id,))
            await conn.execute("DELETE FROM topics WHERE topic_id = ?", (topic_id,))


class IdempotencyStore:
    _COLUMNS = "key, topic_id, request_hash, plan, response, created_ms"

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, key: str) -> IdempotencyRow | None:
        row = await self.db.reader.fetchone(
            f"SELECT {self._COLUMNS} FROM idempotency_keys WHERE key = ?", (key,)
        )
        if row is None:
            return None
        plan = orjson.loads(row[3])
        starts = {int(p): int(o) for p, o in plan["starts"].items()}
        return IdempotencyRow(row[0], row[1], row[2], plan["placement"], starts, row[4], row[5])

    async def reserve(self, row: IdempotencyRow) -> None:
        """Record the key as pending (replacing an expired or abandoned row)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                f"INSERT OR REPLACE INTO idempotency_keys ({self._COLUMNS}, state) "
                "VALUES (?, ?, ?, ?, NULL, ?, 'pending')",
                (
                    row.key,
                    row.topic_id,
                    row.request_hash,
                    orjson.dumps(
                        {
                            "placement": row.placement,
                            "starts": {str(p): o for p, o in row.start_offsets.items()},
                        }
                    ).decode(),
                    row.created_ms,
                ),
            )

    async def complete(self, key: str, response: bytes) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE idempotency_keys SET state = 'complete', response = ? WHERE key = ?",
                (response, key),
            )

    async def expire(self, before_ms: int) -> int:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "DELETE FROM idempotency_keys WHERE created_ms < ?", (before_ms,)
            )
            return cur.rowcount

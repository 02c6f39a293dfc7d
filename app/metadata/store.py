"""Typed queries per aggregate. sqlite3 errors become ``STORAGE_ERROR`` in ``Database``."""

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
    response: bytes
    created_ms: int


class TopicStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> list[TopicRow]:
        async with self.db.reader.execute(
            "SELECT topic_id, name, partitions, config, state, created_ms FROM topics "
            "ORDER BY topic_id"
        ) as cur:
            return [
                TopicRow(r[0], r[1], r[2], orjson.loads(r[3]), r[4], r[5]) async for r in cur
            ]

    async def insert(self, name: str, partitions: int, config: Mapping[str, int | str],
                     created_ms: int) -> int:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO topics (name, partitions, config, created_ms) VALUES (?, ?, ?, ?)",
                (name, partitions, orjson.dumps(config).decode(), created_ms),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def update(self, topic_id: int, partitions: int,
                     config: Mapping[str, int | str]) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE topics SET partitions = ?, config = ? WHERE topic_id = ?",
                (partitions, orjson.dumps(config).decode(), topic_id),
            )

    async def mark_deleting(self, topic_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("UPDATE topics SET state = 'deleting' WHERE topic_id = ?",
                               (topic_id,))

    async def delete(self, topic_id: int) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM idempotency_keys WHERE topic_id = ?", (topic_id,))
            await conn.execute("DELETE FROM topics WHERE topic_id = ?", (topic_id,))


class IdempotencyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, key: str) -> IdempotencyRow | None:
        async with self.db.reader.execute(
            "SELECT key, topic_id, request_hash, response, created_ms FROM idempotency_keys "
            "WHERE key = ?", (key,)
        ) as cur:
            row = await cur.fetchone()
        return IdempotencyRow(*row) if row else None

    async def put(self, row: IdempotencyRow) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO idempotency_keys "
                "(key, topic_id, request_hash, response, created_ms) VALUES (?, ?, ?, ?, ?)",
                (row.key, row.topic_id, row.request_hash, row.response, row.created_ms),
            )

    async def expire(self, before_ms: int) -> int:
        async with self.db.transaction() as conn:
            cur = await conn.execute("DELETE FROM idempotency_keys WHERE created_ms < ?",
                                     (before_ms,))
            return cur.rowcount

"""Connections to the metadata database.

SQLite in WAL mode with ``synchronous=FULL`` (a commit survives power loss) and foreign keys on.
aiosqlite runs each connection on one thread, and two coroutines on one connection share its
transaction, so all writes go through one writer connection behind a lock
(``async with db.transaction() as conn``); reads use a separate connection.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiosqlite

from app.errors import ErrorCode, Unavailable

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
)


async def _connect(path: str) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None)
    for pragma in _PRAGMAS:
        await conn.execute(pragma)
    return conn


class Database:
    def __init__(self, path: str) -> None:
        self.path = path
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    async def open(self) -> None:
        self._writer = await _connect(self.path)
        self._reader = await _connect(self.path)

    async def close(self) -> None:
        for conn in (self._reader, self._writer):
            if conn is not None:
                await conn.close()
        self._writer = self._reader = None

    @property
    def writer(self) -> aiosqlite.Connection:
        assert self._writer is not None, "database not open"
        return self._writer

    @property
    def reader(self) -> aiosqlite.Connection:
        assert self._reader is not None, "database not open"
        return self._reader

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: committed (durably) on exit, rolled back on error."""
        async with self._lock:
            conn = self.writer
            try:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    await conn.execute("ROLLBACK")
                    raise
                await conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise Unavailable(ErrorCode.STORAGE_ERROR, f"metadata write failed: {exc}") from exc

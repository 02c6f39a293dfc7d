"""Connections to the metadata database.

SQLite in WAL mode with ``synchronous=FULL`` (a commit survives power loss) and foreign keys on.
Each connection runs on a thread of its own (``app.metadata.connection``), and two coroutines
on one connection share its transaction, so all writes go through one writer connection behind
a lock
(``async with db.transaction() as tx``); reads use a separate connection. A writer sees its
transaction as a ``Tx``: statements only, no commit or rollback of its own, and no driver type
(the coordinators that take part in another one's transaction receive a ``Tx`` too).

Group commit: writers arriving together share one ``BEGIN … COMMIT`` (one fsync). Each
caller's statements run alone under the lock, after a SAVEPOINT of its own in the shared
transaction (the first caller's are the transaction itself), so a caller that fails is rolled
back alone (``ROLLBACK TO`` its savepoint) and the others are unaffected. A caller leaves
``transaction()`` only once the shared COMMIT is durable: when no other writer is queued
behind it, it commits at once; otherwise it queues for the lock again behind them, and the
first of the batch to get the lock back commits for all.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from app.errors import ErrorCode, StorageError, reason
from app.metadata.connection import Connection, Executed
from app.storage import modes
from app.storage.health import StorageHealth

T = TypeVar("T")

# statements run on the database thread, inside a write transaction (no commit or rollback)
Statements = Callable[[sqlite3.Connection], object]

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
)


__all__ = ["Database", "Executed", "Statements", "Tx", "WriteStatistics"]


class Tx:
    """One writer's part of a write transaction (see ``Database.transaction``)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    async def execute(self, sql: str, params: Sequence[object] = ()) -> Executed:
        return await self._conn.execute(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        await self._conn.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """The rows of a query (or of a statement with RETURNING)."""
        return await self._conn.fetchall(sql, params)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` on the connection's thread: many statements in one thread hop
        (each ``execute`` is a hop of its own). ``fn`` runs statements only, never a commit or
        rollback, and touches nothing of the event loop."""
        return await self._conn.run(fn)


@dataclass(slots=True)
class WriteStatistics:
    """Writers served (successful ``transaction()`` bodies) and SQLite commits made."""

    writes: int = 0
    commits: int = 0


@dataclass(slots=True)
class _Batch:
    """The open shared transaction: its callers wait on ``done`` (None = durable)."""

    members: int = 0
    done: asyncio.Future[sqlite3.Error | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


def _alone(fn: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
    """On the database thread: ``fn`` in a write transaction of its own, committed."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


_DISK_ERRORS = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)  # primary result codes


class Database:
    def __init__(self, path: str, health: StorageHealth | None = None) -> None:
        self.path = path
        self.health = health if health is not None else StorageHealth()
        self._writer: Connection | None = None
        self._reader: Connection | None = None
        self._lock = asyncio.Lock()
        self._queued = 0  # writers waiting for the lock
        self._batch: _Batch | None = None
        self._savepoints = 0
        self.stats = WriteStatistics()

    async def open(self) -> None:
        # created 0600 before SQLite opens it: SQLite would make it 0644, and gives its -wal
        # and -shm files the database file's permissions
        modes.create_file(self.path)
        writer = await Connection.open(self.path, _PRAGMAS)
        try:
            self._reader = await Connection.open(self.path, _PRAGMAS)
        except BaseException:
            await writer.close()
            raise
        self._writer = writer

    async def close(self) -> None:
        reader, writer = self._reader, self._writer
        self._writer = self._reader = None
        try:
            if reader is not None:
                await reader.close()
        finally:
            if writer is not None:
                await writer.close()

    def _storage_error(self, exc: sqlite3.Error) -> StorageError:
        """The client's error for a failed write; a full or failing disk is reported to the
        storage health (a lock timeout is not)."""
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _DISK_ERRORS:
            self.health.failed("metadata write", exc)
        return StorageError(ErrorCode.KAFKA_STORAGE_ERROR, f"metadata write failed: {reason(exc)}")

    def _committed_once(self) -> None:
        self.stats.commits += 1
        if self.health.failing:
            self.health.recovered()

    @property
    def writer(self) -> Connection:
        assert self._writer is not None, "database not open"
        return self._writer

    @property
    def reader(self) -> Connection:
        assert self._reader is not None, "database not open"
        return self._reader

    async def _acquire(self) -> None:
        self._queued += 1
        try:
            await self._lock.acquire()
        finally:
            self._queued -= 1

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """One write transaction: atomic on its own, durable on exit, rolled back on error.

        It may share its SQLite commit with concurrent callers (group commit).
        """
        await self._acquire()
        try:
            batch = await self._join()
            conn = self.writer
            savepoint = f"w{self._savepoints}" if batch.members else None
            try:
                if savepoint is not None:
                    self._savepoints += 1
                    await conn.execute(f"SAVEPOINT {savepoint}")
                try:
                    yield Tx(conn)
                except BaseException:
                    await self._undo(batch, savepoint)
                    raise
                # no RELEASE (a thread hop under the lock): COMMIT releases every savepoint,
                # and a later writer's ROLLBACK TO its own savepoint leaves this one's work
            except sqlite3.Error as exc:
                raise self._storage_error(exc) from exc
            batch.members += 1
            if self._queued == 0:  # nobody to wait for: commit now
                await self._commit(batch)
        finally:
            self._lock.release()
        if batch.done.done():
            error = batch.done.result()
        else:  # shielded: a caller cancelled here must not leave its batch uncommitted
            error = await asyncio.shield(self._committed(batch))
        if error is not None:
            raise self._storage_error(error) from error
        self.stats.writes += 1

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` as one write transaction, durable on return, like a
        ``transaction()`` whose body is ``Tx.run(fn)``. When no shared transaction is open it
        takes one hop to the database thread instead of three (BEGIN, ``fn`` and COMMIT run
        there together); a cancelled caller then still leaves the transaction whole."""
        await self._acquire()
        try:
            if self._batch is None:
                try:
                    result = await self.writer.run(functools.partial(_alone, fn))
                except sqlite3.Error as exc:
                    raise self._storage_error(exc) from exc
                self._committed_once()
                self.stats.writes += 1
                return result
        finally:
            self._lock.release()
        async with self.transaction() as tx:  # joins the shared transaction under way
            return await tx.run(fn)

    async def _committed(self, batch: _Batch) -> sqlite3.Error | None:
        """Wait for the batch's COMMIT, making it once the writers queued behind are in."""
        if not batch.done.done():
            await self._acquire()
            try:
                if not batch.done.done():
                    await self._commit(batch)
            finally:
                self._lock.release()
        return await batch.done

    async def _join(self) -> _Batch:
        """Under the lock: the open shared transaction, begun if there is none."""
        if self._batch is not None and not self.writer.in_transaction:
            # lost underneath (never by this class): its writers fail, none is half-committed
            self._batch.done.set_result(sqlite3.OperationalError("transaction lost"))
            self._batch = None
        if self._batch is None:
            try:
                await self.writer.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._storage_error(exc) from exc
            self._batch = _Batch()
            self._savepoints = 0
        return self._batch

    async def _undo(self, batch: _Batch, savepoint: str | None) -> None:
        """Under the lock: roll back the failed caller's statements, and only them."""
        conn = self.writer
        if savepoint is not None and conn.in_transaction:
            try:
                await conn.execute(f"ROLLBACK TO {savepoint}")
                return
            except sqlite3.Error:
                pass
        # the whole shared transaction goes: its earlier callers (if any) fail too
        self._batch = None
        try:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
        finally:
            if not batch.done.done():
                batch.done.set_result(sqlite3.OperationalError("transaction rolled back"))

    async def _commit(self, batch: _Batch) -> None:
        """Under the lock: make the shared transaction durable and answer its callers."""
        assert self._batch is batch
        self._batch = None
        error: sqlite3.Error | None = None
        try:
            await self.writer.execute("COMMIT")
            self._committed_once()
        except sqlite3.Error as exc:
            error = exc
            if self.writer.in_transaction:
                with suppress(sqlite3.Error):
                    await self.writer.execute("ROLLBACK")
        batch.done.set_result(error)

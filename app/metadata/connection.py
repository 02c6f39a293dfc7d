"""One SQLite connection, on a thread of its own.

sqlite3 calls block, so a connection runs them on one dedicated thread: the thread opens the
database, takes calls from a queue one at a time, in the order they were made, and hands each
result (or exception) back to the event loop of its caller. Every statement of a connection
thus runs on the same thread, and a transaction is the connection's: callers that share a
connection share its transaction (``Database`` keeps the writer behind a lock).

``run(fn)`` runs a function of ours on the thread with the ``sqlite3.Connection`` (many
statements for one hop); the other calls are one statement each. The ``sqlite3.Connection``
never leaves its thread. ``in_transaction`` is the state after the last call that finished.

A connection is closed with ``await close()``, which returns once the thread has closed the
database and ended. One that is garbage-collected unclosed warns (``ResourceWarning``) and has
its thread close it. The thread is a daemon: an unclosed connection never keeps the process
from exiting (the database is safe anyway: a commit is durable when it returns, and a
transaction left open is rolled back by the next open).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from queue import SimpleQueue
from typing import Any, TypeVar, cast

T = TypeVar("T")

_Call = Callable[[sqlite3.Connection], object]
# a call and the future of its caller; None stops the thread (the connection was dropped)
_Job = tuple[asyncio.Future[Any], _Call] | None


@dataclass(frozen=True, slots=True)
class Executed:
    """What one statement did: rows changed, and the rowid of the last row inserted."""

    rowcount: int
    lastrowid: int | None


class _State:
    """What the thread tells the event loop besides results."""

    __slots__ = ("in_transaction",)

    def __init__(self) -> None:
        self.in_transaction = False


def _settle(future: asyncio.Future[Any], result: object, error: BaseException | None) -> None:
    """On the event loop: answer a caller (unless it was cancelled meanwhile)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _answer(future: asyncio.Future[Any], result: object, error: BaseException | None) -> None:
    """On the connection's thread: hand a call's outcome to its caller's event loop."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
        future.get_loop().call_soon_threadsafe(_settle, future, result, error)


def _serve(
    path: str,
    pragmas: Sequence[str],
    opened: asyncio.Future[None],
    jobs: SimpleQueue[_Job],
    state: _State,
) -> None:
    """The connection's thread: open, run the calls in order, close."""
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except BaseException as exc:
        _answer(opened, None, exc)
        return
    try:
        for pragma in pragmas:
            conn.execute(pragma)
    except BaseException as exc:
        conn.close()
        _answer(opened, None, exc)
        return
    _answer(opened, None, None)
    while (job := jobs.get()) is not None:
        future, call = job
        result: object = None
        error: BaseException | None = None
        try:
            result = call(conn)
        except BaseException as exc:
            error = exc
        # the database may be closed by the call (close() is the last one)
        state.in_transaction = False if call is _close else conn.in_transaction
        _answer(future, result, error)
        if call is _close:
            return
    conn.close()  # dropped without close(): no caller is left to tell


def _close(conn: sqlite3.Connection) -> None:
    conn.close()


def _execute(sql: str, params: Sequence[object], conn: sqlite3.Connection) -> Executed:
    cur = conn.execute(sql, params)
    try:
        return Executed(cur.rowcount, cur.lastrowid)
    finally:
        cur.close()


def _executemany(sql: str, rows: list[Sequence[object]], conn: sqlite3.Connection) -> None:
    conn.executemany(sql, rows).close()


def _executescript(script: str, conn: sqlite3.Connection) -> None:
    conn.executescript(script).close()


def _fetchall(sql: str, params: Sequence[object], conn: sqlite3.Connection) -> list[Any]:
    cur = conn.execute(sql, params)
    try:
        return cur.fetchall()
    finally:
        cur.close()


def _fetchone(sql: str, params: Sequence[object], conn: sqlite3.Connection) -> Any:
    cur = conn.execute(sql, params)
    try:
        return cur.fetchone()
    finally:
        cur.close()


class Connection:
    """A SQLite connection in autocommit mode (transactions are begun and ended by statements)
    whose calls run on its own thread."""

    def __init__(self, path: str) -> None:
        """Not open yet: ``await Connection.open(path)``."""
        self.path = path
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._state = _State()
        self._thread: threading.Thread | None = None
        self._open = False

    @classmethod
    async def open(cls, path: str, pragmas: Iterable[str] = ()) -> Connection:
        """A connection to the database at ``path``, with ``pragmas`` run on it first."""
        conn = cls(path)
        opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        conn._thread = threading.Thread(
            target=_serve,
            args=(path, tuple(pragmas), opened, conn._jobs, conn._state),
            name=f"sqlite {os.path.basename(path)}",
            daemon=True,
        )
        conn._thread.start()
        try:
            await opened
        except asyncio.CancelledError:
            conn._jobs.put(None)  # it may still open: it closes again and ends
            raise
        except BaseException:
            conn._thread.join()  # answering the failure was its last act
            raise
        conn._open = True
        return conn

    def __repr__(self) -> str:
        return f"<Connection {self.path!r}{'' if self._open else ' closed'}>"

    def __del__(self) -> None:
        if getattr(self, "_open", False):
            self._jobs.put(None)  # first: the warning below may raise
            warnings.warn(f"unclosed {self!r}", ResourceWarning, stacklevel=1, source=self)

    @property
    def in_transaction(self) -> bool:
        """True while a transaction is open (as of the last call that finished)."""
        return self._state.in_transaction

    @property
    def thread(self) -> threading.Thread | None:
        """The thread that runs the calls (None before ``open``)."""
        return self._thread

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` on the connection's thread: many statements in one hop. ``fn``
        touches nothing of the event loop."""
        if not self._open:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put((future, fn))
        return await future

    async def execute(self, sql: str, params: Sequence[object] = ()) -> Executed:
        return await self.run(lambda conn: _execute(sql, params, conn))

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        listed = list(rows)  # read here: the iterable may belong to the event loop's side
        await self.run(lambda conn: _executemany(sql, listed, conn))

    async def executescript(self, script: str) -> None:
        """Statements separated by semicolons (a transaction's BEGIN and COMMIT among them)."""
        await self.run(lambda conn: _executescript(script, conn))

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """The rows of a query (or of a statement with RETURNING)."""
        return cast(list[tuple[Any, ...]], await self.run(lambda c: _fetchall(sql, params, c)))

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
        """The first row of a query, None when it has none."""
        row = await self.run(lambda conn: _fetchone(sql, params, conn))
        return cast(tuple[Any, ...] | None, row)

    async def close(self) -> None:
        """Close the database, once the calls made before are done; returns when the thread
        has ended. Closing again does nothing."""
        if not self._open:
            return
        self._open = False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._jobs.put((future, _close))
        await future  # cancelled: the thread still closes the database and ends, unwaited
        assert self._thread is not None
        self._thread.join()  # answering was its last act: it ends at once

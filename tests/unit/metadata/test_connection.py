"""The SQLite connection on a thread of its own, on real files: results and errors cross to the
event loop, every call of a connection runs on its one thread in the order made, close ends
the thread, and a connection dropped unclosed warns and still ends it."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.metadata.connection import Connection, Executed
from app.metadata.db import Database


@pytest.fixture
async def conn(tmp_path: Path) -> AsyncIterator[Connection]:
    c = await Connection.open(str(tmp_path / "c.db"))
    await c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)")
    try:
        yield c
    finally:
        await c.close()


async def test_results_cross_to_the_event_loop(conn: Connection) -> None:
    assert await conn.execute("INSERT INTO t (v) VALUES (?)", ("a",)) == Executed(1, 1)
    await conn.executemany("INSERT INTO t (v) VALUES (?)", (("b",), ("c",)))
    assert (await conn.execute("UPDATE t SET v = v || '!' WHERE k > ?", (1,))).rowcount == 2
    assert await conn.fetchall("SELECT k, v FROM t ORDER BY k") == [
        (1, "a"),
        (2, "b!"),
        (3, "c!"),
    ]
    assert await conn.fetchone("SELECT v FROM t WHERE k = ?", (2,)) == ("b!",)
    assert await conn.fetchone("SELECT v FROM t WHERE k = ?", (9,)) is None
    assert await conn.run(lambda c: c.execute("SELECT count(*) FROM t").fetchone()[0]) == 3
    await conn.executescript("INSERT INTO t (v) VALUES ('d'); INSERT INTO t (v) VALUES ('e');")
    assert await conn.fetchone("SELECT count(*) FROM t") == (5,)


async def test_errors_cross_to_the_event_loop_and_the_connection_goes_on(
    conn: Connection,
) -> None:
    await conn.execute("INSERT INTO t (v) VALUES ('a')")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        await conn.execute("INSERT INTO t (v) VALUES ('a')")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await conn.fetchall("SELECT * FROM nowhere")

    def fails(c: sqlite3.Connection) -> None:
        c.execute("INSERT INTO t (v) VALUES ('b')")
        raise LookupError("from the thread")

    with pytest.raises(LookupError, match="from the thread"):
        await conn.run(fails)
    # autocommit: the statement before the error stays; the connection answers as before
    assert await conn.fetchall("SELECT v FROM t ORDER BY k") == [("a",), ("b",)]


async def test_a_transaction_runs_on_one_thread_and_in_transaction_follows_it(
    conn: Connection,
) -> None:
    def ident(_: sqlite3.Connection) -> int:
        return threading.get_ident()

    assert not conn.in_transaction
    seen = [await conn.run(ident)]
    await conn.execute("BEGIN IMMEDIATE")
    assert conn.in_transaction
    for i in range(5):
        await conn.execute("INSERT INTO t (v) VALUES (?)", (f"v{i}",))
        seen.append(await conn.run(ident))
    await conn.execute("COMMIT")
    assert not conn.in_transaction
    seen.append(await conn.run(ident))
    assert conn.thread is not None
    assert set(seen) == {conn.thread.ident}
    assert conn.thread.ident != threading.get_ident()


async def test_calls_run_in_the_order_they_were_made(conn: Connection) -> None:
    await asyncio.gather(
        *(conn.execute("INSERT INTO t (v) VALUES (?)", (str(i),)) for i in range(50))
    )
    rows = await conn.fetchall("SELECT v FROM t ORDER BY k")
    assert [int(v) for (v,) in rows] == list(range(50))


async def test_a_cancelled_caller_leaves_the_answers_of_the_others_right(
    conn: Connection,
) -> None:
    started, release = threading.Event(), threading.Event()

    def slow(c: sqlite3.Connection) -> str:
        started.set()
        release.wait(10)
        return "slow"

    first = asyncio.create_task(conn.run(slow))
    second = asyncio.create_task(conn.fetchone("SELECT 'second'"))
    await asyncio.to_thread(started.wait, 10)
    first.cancel()
    release.set()
    assert await second == ("second",)
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await conn.fetchone("SELECT 'third'") == ("third",)


async def test_close_ends_the_thread_and_later_calls_are_refused(tmp_path: Path) -> None:
    conn = await Connection.open(str(tmp_path / "c.db"))
    thread = conn.thread
    assert thread is not None and thread.is_alive()
    pending = asyncio.create_task(conn.execute("CREATE TABLE t (x)"))
    await asyncio.sleep(0)  # queued before the close: done before it
    await conn.close()
    assert not thread.is_alive()
    await pending
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        await conn.execute("SELECT 1")
    await conn.close()  # again: nothing to do


async def test_pragmas_are_run_at_open_and_a_failed_open_leaves_no_thread(
    tmp_path: Path,
) -> None:
    threads = threading.active_count()
    with pytest.raises(sqlite3.OperationalError):
        await Connection.open(str(tmp_path / "missing" / "c.db"))
    with pytest.raises(sqlite3.OperationalError):
        await Connection.open(str(tmp_path / "c.db"), ["PRAGMA nonsense = ("])
    assert threading.active_count() == threads
    conn = await Connection.open(str(tmp_path / "c.db"), ["PRAGMA user_version = 7"])
    try:
        assert await conn.fetchone("PRAGMA user_version") == (7,)
    finally:
        await conn.close()


async def test_an_unclosed_connection_warns_and_its_thread_still_ends(tmp_path: Path) -> None:
    conn = await Connection.open(str(tmp_path / "c.db"))
    await conn.execute("CREATE TABLE t (x)")
    thread = conn.thread
    assert thread is not None
    with pytest.warns(ResourceWarning, match="unclosed"):
        del conn
        gc.collect()
    thread.join(10)
    assert not thread.is_alive()


async def test_the_database_connections_are_durable_and_wait_for_locks(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "meta.db"))
    await db.open()
    try:
        for conn in (db.writer, db.reader):
            assert await conn.fetchone("PRAGMA journal_mode") == ("wal",)
            assert await conn.fetchone("PRAGMA synchronous") == (2,)  # FULL
            assert await conn.fetchone("PRAGMA foreign_keys") == (1,)
            assert await conn.fetchone("PRAGMA busy_timeout") == (5000,)
        threads = [db.writer.thread, db.reader.thread]
        assert threads[0] is not threads[1]
    finally:
        await db.close()
    assert not any(t is not None and t.is_alive() for t in threads)

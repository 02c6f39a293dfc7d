"""Group commit of metadata writes (``Database.transaction``) on a real SQLite file.

Concurrent writers share one SQLite commit; each writer's statements stay atomic on their own
(a failing writer is rolled back alone), nobody is answered before the shared COMMIT is
durable, and statements apply in the order the writers arrived.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.errors import ErrorCode, Unavailable
from app.metadata.db import Database


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    d = Database(str(tmp_path / "meta.db"))
    await d.open()
    await d.writer.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
    await d.writer.execute("CREATE TABLE seq (singleton INTEGER PRIMARY KEY, v TEXT)")
    await d.writer.execute("INSERT INTO seq VALUES (1, '')")
    yield d
    await d.close()


def committed(db: Database) -> dict[str, int]:
    """What another connection sees: only committed data."""
    other = sqlite3.connect(db.path)
    try:
        return {k: v for k, v in other.execute("SELECT k, v FROM t")}
    finally:
        other.close()


class Boom(Exception):
    pass


async def test_concurrent_writers_share_commits_and_see_their_rows_committed(db: Database) -> None:
    seen: dict[str, bool] = {}

    async def write(i: int) -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES (?, ?)", (f"a{i}", i))
            await conn.execute("INSERT INTO t VALUES (?, ?)", (f"b{i}", i))
        # durable before the answer: another connection sees both rows at once
        rows = committed(db)
        seen[str(i)] = rows.get(f"a{i}") == i and rows.get(f"b{i}") == i

    await asyncio.gather(*(write(i) for i in range(20)))
    assert seen == {str(i): True for i in range(20)}
    assert len(committed(db)) == 40
    assert db.stats.writes == 20
    assert 1 <= db.stats.commits < 20  # shared
    assert not db.writer.in_transaction


async def test_a_writer_sees_statements_only_and_what_they_did(db: Database) -> None:
    async with db.transaction() as tx:
        assert tx.in_transaction
        inserted = await tx.execute("INSERT INTO t VALUES ('a', 1)")
        assert inserted.rowcount == 1 and inserted.lastrowid is not None
        await tx.executemany("INSERT INTO t VALUES (?, ?)", [("b", 2), ("c", 3)])
        assert (await tx.execute("UPDATE t SET v = v + 10 WHERE v > 1")).rowcount == 2
        assert await tx.fetchall("DELETE FROM t WHERE k = ? RETURNING v", ("c",)) == [(13,)]
        assert not hasattr(tx, "commit") and not hasattr(tx, "rollback")
    assert committed(db) == {"a": 1, "b": 12}


async def test_a_failing_writer_is_rolled_back_alone(db: Database) -> None:
    async def good(i: int) -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES (?, ?)", (f"g{i}", i))

    async def bad(i: int) -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES (?, ?)", (f"x{i}", i))
            await conn.execute("INSERT INTO t VALUES (?, ?)", (f"y{i}", i))
            raise Boom

    # the first writer of a shared transaction fails, and some later ones
    calls = [bad(0), *(good(i) for i in range(1, 6)), bad(6), good(7), bad(8), good(9)]
    results = await asyncio.gather(*calls, return_exceptions=True)
    failed = {i for i, r in enumerate(results) if isinstance(r, BaseException)}
    assert failed == {0, 6, 8}
    assert all(isinstance(results[i], Boom) for i in failed)
    assert committed(db) == {f"g{i}": i for i in (1, 2, 3, 4, 5, 7, 9)}
    assert db.stats.writes == 7


async def test_a_failing_statement_is_a_storage_error_and_undoes_only_that_writer(
    db: Database,
) -> None:
    async def good() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('ok', 1)")

    async def duplicate() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('dup', 1)")
            await conn.execute("INSERT INTO t VALUES ('dup', 2)")  # primary key

    results = await asyncio.gather(good(), duplicate(), return_exceptions=True)
    assert results[0] is None
    assert isinstance(results[1], Unavailable)
    assert results[1].code is ErrorCode.KAFKA_STORAGE_ERROR
    assert committed(db) == {"ok": 1}


async def test_writers_apply_in_arrival_order(db: Database) -> None:
    async def append(i: int) -> None:
        async with db.transaction() as conn:
            await conn.execute("UPDATE seq SET v = v || ? || ',' WHERE singleton = 1", (str(i),))

    await asyncio.gather(*(append(i) for i in range(30)))
    other = sqlite3.connect(db.path)
    try:
        (v,) = other.execute("SELECT v FROM seq").fetchone()
    finally:
        other.close()
    assert v == "".join(f"{i}," for i in range(30))


async def test_a_writer_cancelled_while_waiting_for_the_commit_does_not_strand_others(
    db: Database,
) -> None:
    first_in, second_in = asyncio.Event(), asyncio.Event()
    release_first, release_second = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('first', 1)")
            first_in.set()
            await release_first.wait()

    async def second() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('second', 2)")
            second_in.set()
            await release_second.wait()

    t1 = asyncio.create_task(first())
    await asyncio.wait_for(first_in.wait(), 5)
    t2 = asyncio.create_task(second())  # queued: first will leave the commit to the batch
    for _ in range(5):
        await asyncio.sleep(0)
    release_first.set()
    await asyncio.wait_for(second_in.wait(), 5)  # first now waits for the shared commit
    assert not t1.done()
    t1.cancel()
    with pytest.raises(asyncio.CancelledError):
        await t1
    release_second.set()
    await asyncio.wait_for(t2, 5)
    await asyncio.wait_for(_settled(db), 5)
    assert committed(db) == {"first": 1, "second": 2}
    assert not db.writer.in_transaction


async def _settled(db: Database) -> None:
    while db.writer.in_transaction or db._lock.locked():
        await asyncio.sleep(0)


async def test_a_shared_transaction_lost_underneath_fails_its_writers_only(db: Database) -> None:
    inside = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('first', 1)")
            inside.set()
            await release.wait()

    async def second() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('second', 2)")

    t1 = asyncio.create_task(first())
    await asyncio.wait_for(inside.wait(), 5)
    t2 = asyncio.create_task(second())
    for _ in range(5):
        await asyncio.sleep(0)
    await db.writer.execute("ROLLBACK")  # the shared transaction disappears
    release.set()
    results = await asyncio.wait_for(asyncio.gather(t1, t2, return_exceptions=True), 5)
    assert isinstance(results[0], Unavailable)
    assert results[0].code is ErrorCode.KAFKA_STORAGE_ERROR
    assert results[1] is None  # began a transaction of its own, not a stray savepoint
    assert committed(db) == {"second": 2}
    assert not db.writer.in_transaction


_CHILD = r"""
import asyncio, sys
from app.metadata.db import Database

async def main(path):
    db = Database(path)
    await db.open()
    async def writer(w):
        i = 0
        while True:
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO t VALUES (?, ?)", (f"a{w}-{i}", i))
                await conn.execute("INSERT INTO t VALUES (?, ?)", (f"b{w}-{i}", i))
            sys.stdout.write(f"{w}-{i}\n")
            sys.stdout.flush()
            i += 1
    await asyncio.gather(*(writer(w) for w in range(8)))

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.slow
async def test_kill9_keeps_every_answered_writer_and_no_half_writer(
    tmp_path: Path, db: Database
) -> None:
    await db.close()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, db.path],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    answered: list[str] = []
    try:
        assert proc.stdout is not None
        while len(answered) < 400:
            line = proc.stdout.readline()
            assert line, "the writer process ended early"
            answered.append(line.strip())
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    await db.open()
    rows = committed(db)
    for key in answered:
        assert rows[f"a{key}"] == rows[f"b{key}"] == int(key.split("-")[1])
    # all or nothing per writer: every a-row has its b-row
    a = {k[1:] for k in rows if k.startswith("a")}
    b = {k[1:] for k in rows if k.startswith("b")}
    assert a == b

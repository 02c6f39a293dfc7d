"""The transaction queries on a real SQLite file: several transactions and a commit-all's
idempotency key written in one SQLite commit, and the keys' expiry."""

from __future__ import annotations

import pytest

from app.errors import StorageError
from app.metadata.db import Database
from app.metadata.txn_store import CommitKeyRow, TransactionStore, TxnRow


@pytest.fixture
def store(metadata_db: Database) -> TransactionStore:
    return TransactionStore(metadata_db)


def row(tid: str, state: str = "PrepareCommit", epoch: int = 0) -> TxnRow:
    return TxnRow(tid, 7, epoch, 7, epoch, -1, 60_000, state, [("t", 0)], [], 1, 2)


async def test_save_many_writes_every_row_and_the_key(store: TransactionStore) -> None:
    key = CommitKeyRow("q:1", ["a", "b"], 1000)
    await store.save_many([row("a"), row("b")], key=key)
    assert [(r.transactional_id, r.state) for r in await store.load_all()] == [
        ("a", "PrepareCommit"),
        ("b", "PrepareCommit"),
    ]
    assert await store.commit_key("q:1") == key
    assert await store.commit_key("q:2") is None


async def test_save_many_is_all_or_nothing(store: TransactionStore) -> None:
    """One row the database refuses (an epoch out of its CHECK): neither the other rows nor the
    key are written."""
    await store.save_many([row("a", "Ongoing")])
    with pytest.raises(StorageError):
        await store.save_many(
            [row("a"), row("b"), row("c", epoch=40_000)], key=CommitKeyRow("k", ["a"], 1)
        )
    assert [(r.transactional_id, r.state) for r in await store.load_all()] == [("a", "Ongoing")]
    assert await store.commit_key("k") is None


async def test_a_key_alone_and_nothing_at_all(store: TransactionStore) -> None:
    await store.save_many([])  # nothing to write: no commit
    await store.save_many([], key=CommitKeyRow("k", ["a"], 5))
    assert await store.commit_key("k") == CommitKeyRow("k", ["a"], 5)
    # an expired key not swept yet is replaced by the next commit with it
    await store.save_many([], key=CommitKeyRow("k", ["b"], 9))
    assert await store.commit_key("k") == CommitKeyRow("k", ["b"], 9)


async def test_expire_commit_keys_deletes_only_older_keys(store: TransactionStore) -> None:
    for key, ms in (("old", 10), ("edge", 20), ("new", 30)):
        await store.save_many([], key=CommitKeyRow(key, ["a"], ms))
    assert await store.expire_commit_keys(20) == 1
    assert await store.commit_key("old") is None
    assert await store.commit_key("edge") is not None
    assert await store.expire_commit_keys(20) == 0

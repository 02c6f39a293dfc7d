"""Producer ids on a real SQLite file: blocks per principal, whose owner survives a restart,
and the ids reserved before blocks had owners."""

from __future__ import annotations

from app.metadata.db import Database
from app.metadata.txn_store import ProducerIdStore
from app.producers.ids import ProducerIds


async def restarted(db: Database, size: int = 3) -> ProducerIds:
    ids = ProducerIds(ProducerIdStore(db), size)
    await ids.load()
    return ids


async def test_each_principal_draws_from_blocks_of_its_own(metadata_db: Database) -> None:
    ids = await restarted(metadata_db)
    alice = [await ids.next_id("alice") for _ in range(4)]
    bob = await ids.next_id("bob")
    anonymous = await ids.next_id(None)
    assert alice == [0, 1, 2, 3] and bob == 6 and anonymous == 9
    for pid in alice:
        assert ids.issued_to(pid, "alice")
        assert not ids.issued_to(pid, "bob") and not ids.issued_to(pid, None)
    assert ids.issued_to(bob, "bob") and not ids.issued_to(bob, "alice")
    assert ids.issued_to(anonymous, None) and not ids.issued_to(anonymous, "alice")
    # ids of a block not answered yet, and ids never reserved, are nobody's
    assert not ids.issued_to(4, "alice") and not ids.issued_to(7, "bob")
    assert not ids.issued_to(10, None)
    assert not ids.issued_to(100, "alice") and not ids.issued_to(-1, None)


async def test_the_owner_of_an_id_is_durable_before_the_id_is_answered(
    metadata_db: Database,
) -> None:
    ids = await restarted(metadata_db)
    first = await ids.next_id("alice")
    # a restart right after the answer (nothing else written) still knows whose it is
    again = await restarted(metadata_db)
    assert again.issued_to(first, "alice") and not again.issued_to(first, "bob")
    # the rest of the block may have been issued before the restart: still alice's, and a
    # new id opens a new block
    assert again.issued_to(first + 2, "alice")
    assert await again.next_id("alice") == 3


async def test_neighbouring_blocks_of_one_principal_are_one(metadata_db: Database) -> None:
    ids = await restarted(metadata_db, size=1)
    for _ in range(50):
        await ids.next_id("alice")
    await ids.next_id("bob")
    assert ids.block_count == 2  # [0, 50) alice's, [50, 51) bob's
    again = await restarted(metadata_db, size=1)
    assert again.block_count == 2 and again.issued_to(49, "alice")
    assert not again.issued_to(50, "alice") and again.issued_to(50, "bob")


async def test_ids_reserved_before_owners_existed_belong_to_the_server_without_keys(
    metadata_db: Database,
) -> None:
    async with metadata_db.transaction() as tx:  # as a release without owners left it
        await tx.execute("INSERT INTO producer_id_blocks (singleton, next_start) VALUES (1, 1000)")
    ids = await restarted(metadata_db)
    assert ids.issued_to(999, None) and not ids.issued_to(999, "alice")
    assert await ids.next_id("alice") == 1000
    assert ids.issued_to(1000, "alice") and not ids.issued_to(1000, None)

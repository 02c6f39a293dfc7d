"""Seams through which other coordinators take part in a transaction.

The transaction coordinator calls a participant after the markers are durable and before the
transaction completes, for commit and abort alike (timeouts and recovery included). A
participant's ending must be idempotent: recovery may end it again.

A participant's change is made durable in the coordinator's own SQLite transaction, so that
staging goes with the transaction's row (one commit for ``POST …/offsets``) and the ending with
the Complete* row (one commit after the markers): the participant opens a context that holds
its locks and yields a ``TxnWrite`` (or None when there is nothing to write); the coordinator
runs ``write`` inside its SQLite transaction and calls ``complete`` once that is durable, still
inside the context. Leaving the context without ``complete`` changes nothing in memory.

Consumer groups implement ``OffsetParticipant`` (KIP-447 offsets in a transaction). Share
groups will add transactional acknowledgements the same way: a participant keyed by producer
id, staged while the transaction is open and ended on commit or abort.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

import aiosqlite


class TxnWrite(Protocol):
    async def write(self, conn: aiosqlite.Connection) -> None:
        """The participant's statements, inside the coordinator's SQLite transaction."""
        ...

    def complete(self) -> None:
        """Install the change in memory; called once the SQLite transaction is durable."""
        ...


class OffsetParticipant(Protocol):
    def check_txn_member(self, group_id: str, member_id: str | None, member_epoch: int,
                         group_instance_id: str | None) -> None:
        """Raise SluiceError ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID."""
        ...

    def staging_txn_offsets(self, group_id: str, producer_id: int,
                            offsets: Sequence[tuple[str, int, int, str | None]]
                            ) -> AbstractAsyncContextManager[TxnWrite | None]:
        """Stage (topic, partition, offset, metadata) as pending for the producer; bad
        offsets raise on entering, before anything is written."""
        ...

    def ending_txn_offsets(self, group_id: str, producer_id: int, commit: bool
                           ) -> AbstractAsyncContextManager[TxnWrite | None]:
        """Materialise (commit) or discard (abort) the producer's pending offsets; None when
        nothing is pending (a second end)."""
        ...

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
groups implement ``AckParticipant`` (transactional acknowledgements, SEMANTICS.md decision 4):
keyed by producer id too, but each of its steps is durable on its own (its own SQLite commit,
group-committed with others), staged while the transaction is open and ended on commit or
abort, after the markers and before the Complete* write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.errors import SluiceError
    from app.metadata.db import Tx
    from app.share.partition import AckBatch


class TxnWrite(Protocol):
    async def write(self, tx: Tx) -> None:
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


class AckParticipant(Protocol):
    """Share groups' side of transactional acknowledgements."""

    def check_txn_acks_member(self, group_id: str, member_id: str) -> None:
        """Raise SluiceError UNKNOWN_MEMBER_ID when the member is not in the share group."""
        ...

    async def stage_txn_acks(
            self, group_id: str, member_id: str, producer_id: int,
            acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError],
    ) -> list[tuple[tuple[str, int], SluiceError | None]]:
        """Validate per partition as plain acknowledgements (atomic per partition) and store
        the valid ones as pending for the producer; durable. Answers each partition's error."""
        ...

    async def end_txn_acks(self, group_id: str, producer_id: int, commit: bool) -> None:
        """Apply (commit) or release (abort) the producer's pending acknowledgements; durable;
        idempotent."""
        ...

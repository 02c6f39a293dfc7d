"""Seams through which other coordinators take part in a transaction.

Every participant has one shape. Its change is made durable in the transaction coordinator's
own SQLite transaction: staging goes with the transaction's row (one commit for
``POST …/offsets`` or ``POST …/acknowledgements``) and the ending with the Complete* row (one
commit after the markers, for every participant together). The participant opens a context
(``staging_*`` / ``ending_*``) that holds whatever it must hold and yields a ``TxnWrite``; the
coordinator runs its ``statements`` inside its SQLite transaction and calls ``complete`` once
that is durable, still inside the context. Leaving the context without ``complete`` undoes the
change in memory.

The coordinator ends a participant after the markers are durable and before the transaction
completes, for commit and abort alike (timeouts and recovery included). An ending must be
idempotent: recovery may end it again.

Consumer groups implement ``OffsetParticipant`` (KIP-447 offsets in a transaction). Share
groups implement ``AckParticipant`` (acknowledgements applied only if the transaction commits);
an ending's dead-letter copies are appended and durable before its context yields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.errors import SluiceError
    from app.groups.group import OffsetCommit
    from app.metadata.db import Statements
    from app.share.partition import AckBatch


class TxnWrite(Protocol):
    def statements(self) -> Statements:
        """The participant's statements, to run on the database thread inside the
        coordinator's SQLite transaction (called on the event loop as that write begins)."""
        ...

    def complete(self) -> None:
        """Install the change in memory; called once the SQLite transaction is durable."""
        ...


class AckStaging(Protocol):
    """Staged transactional acknowledgements: each partition's result, and the write of the
    valid ones (None when no partition has any)."""

    @property
    def results(self) -> list[tuple[tuple[str, int], SluiceError | None]]: ...

    @property
    def held(self) -> TxnWrite | None: ...


class OffsetParticipant(Protocol):
    def check_owner(self, group_id: str, member_id: str | None, principal: str | None) -> None:
        """Raise SluiceError UNKNOWN_MEMBER_ID when ``member_id`` is another principal's
        member (docs/security.md#ownership); an unknown member is left to the other checks."""
        ...

    def check_txn_member(
        self, group_id: str, member_id: str | None, member_epoch: int, group_instance_id: str | None
    ) -> None:
        """Raise SluiceError ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID."""
        ...

    def staging_txn_offsets(
        self, group_id: str, producer_id: int, offsets: Sequence[OffsetCommit]
    ) -> AbstractAsyncContextManager[TxnWrite | None]:
        """Stage (topic, partition, offset, metadata) as pending for the producer; bad
        offsets raise on entering, before anything is written."""
        ...

    def ending_txn_offsets(
        self, group_id: str, producer_id: int, commit: bool
    ) -> AbstractAsyncContextManager[TxnWrite | None]:
        """Materialise (commit) or discard (abort) the producer's pending offsets; None when
        nothing is pending (a second end)."""
        ...


class AckParticipant(Protocol):
    def check_owner(self, group_id: str, member_id: str, principal: str | None) -> None:
        """Raise SluiceError UNKNOWN_MEMBER_ID when ``member_id`` is another principal's
        member of the share group; an unknown member is left to the other checks."""
        ...

    def check_txn_acks_member(self, group_id: str, member_id: str) -> None:
        """Raise SluiceError UNKNOWN_MEMBER_ID when the member is not in the share group."""
        ...

    def staging_txn_acks(
        self,
        group_id: str,
        member_id: str,
        producer_id: int,
        acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError],
    ) -> AbstractAsyncContextManager[AckStaging]:
        """Validate per partition as plain acknowledgements (atomic per partition) and hold
        the valid ones for the producer."""
        ...

    def ending_txn_acks(
        self, group_id: str, producer_id: int, commit: bool
    ) -> AbstractAsyncContextManager[TxnWrite | None]:
        """Apply (commit) or release (abort) the producer's held acknowledgements."""
        ...

"""Seams through which other coordinators take part in a transaction.

The transaction coordinator calls a participant after the markers are durable and before the
transaction completes, for commit and abort alike (timeouts and recovery included). A
participant's ``end_*`` must be durable and idempotent: recovery may call it again.

Consumer groups implement ``OffsetParticipant`` (KIP-447 offsets in a transaction). Share
groups implement ``AckParticipant`` (transactional acknowledgements, SEMANTICS.md decision 4)
the same way: keyed by producer id, staged durably while the transaction is open and ended on
commit or abort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.errors import SluiceError
    from app.share.partition import AckBatch


class OffsetParticipant(Protocol):
    def check_txn_member(self, group_id: str, member_id: str | None, member_epoch: int,
                         group_instance_id: str | None) -> None:
        """Raise SluiceError ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID."""
        ...

    async def stage_txn_offsets(self, group_id: str, producer_id: int,
                                offsets: Sequence[tuple[str, int, int, str | None]]) -> None:
        """Store (topic, partition, offset, metadata) as pending for the producer; durable."""
        ...

    async def end_txn_offsets(self, group_id: str, producer_id: int, commit: bool) -> None:
        """Materialise (commit) or discard (abort) the producer's pending offsets; durable;
        idempotent."""
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

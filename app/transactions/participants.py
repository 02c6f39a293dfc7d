"""Seams through which other coordinators take part in a transaction.

The transaction coordinator calls a participant after the markers are durable and before the
transaction completes, for commit and abort alike (timeouts and recovery included). A
participant's ``end_*`` must be durable and idempotent: recovery may call it again.

Consumer groups implement ``OffsetParticipant`` (KIP-447 offsets in a transaction). Share
groups will add transactional acknowledgements the same way: a participant keyed by producer
id, staged while the transaction is open and ended on commit or abort.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


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

"""ShareTxnParticipant: the share groups' side of transactions (``AckParticipant``).

Acknowledgements sent to a transaction are validated like plain ones, then held, durably, until
the transaction commits (they apply) or aborts (their records are released).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from app.errors import SluiceError
from app.metadata.share_store import HeldAckRow
from app.share.coordinator import ShareGroupCoordinator
from app.share.partition import AckBatch

PartitionKey = tuple[str, int]


class ShareTxnParticipant:
    def __init__(self, coordinator: ShareGroupCoordinator) -> None:
        self.share = coordinator
        self.membership = coordinator.membership
        self.clock = coordinator.clock

    def check_txn_acks_member(self, group_id: str, member_id: str) -> None:
        self.membership.member(group_id, member_id)

    async def stage_txn_acks(self, group_id: str, member_id: str, producer_id: int,
                             acks: Mapping[PartitionKey, list[AckBatch] | SluiceError]
                             ) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Hold the acknowledgements for the producer's transaction: validated per partition
        as plain ones, written durably, then the records stay ACQUIRED by the member with
        their lock suspended until ``end_txn_acks``."""
        group, member = self.membership.member(group_id, member_id)
        now = self.clock.now_ms()
        limits = group.config.limits
        results, done = group.per_partition(acks, lambda sp, batches: sp.hold_txn(
            member.member_id, batches, producer_id, now=now, limits=limits))
        holds = [held for _, _, (held, _) in done]
        rows = [((group_id, sp.topic_id, sp.partition),
                 HeldAckRow(h.first, h.last, h.producer_id, h.kind.value, h.delay_ms,
                            h.delivery_count, h.member))
                for _, sp, (_, hs) in done for h in hs]
        if rows:
            try:
                await self.share.store.hold_txn_acks(rows)
            except BaseException:
                for staged in holds:
                    self.share.rollback(staged)
                raise
            for staged in holds:
                staged.partition.complete_hold(staged)
        return list(results.items())

    async def end_txn_acks(self, group_id: str, producer_id: int, commit: bool) -> None:
        """Commit applies the producer's held acknowledgements, abort releases their records
        (delivery count unchanged); durable on return, and a no-op when nothing is held."""
        group = self.membership.groups.get(group_id)
        now = self.clock.now_ms()
        pending = []
        if group is not None:
            for sp in list(group.partitions.values()):
                staged = sp.end_txn(producer_id, commit, now=now, limits=group.config.limits)
                if staged is not None:
                    pending.append(staged)
        outcomes = await asyncio.gather(*(self.share.writer.persist(s) for s in pending),
                                        return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        await self.share.store.forget_txn_acks(group_id, producer_id)

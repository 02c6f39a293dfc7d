"""ProducerStateManager: the producer entries of one partition, staged around each append.

``prepare`` checks a batch against a copy-free view of the entry and returns either the
retained batch it duplicates or a plan; ``commit(plan, …)`` records the batch only after the
log append succeeded (Kafka's ``prepareUpdate`` / ``update``). Everything happens on the event
loop between two awaits, so no other request can interleave between prepare, append and commit.

The manager is also the partition log's producer-state hook: the log asks it for a snapshot
with each recovery checkpoint and, at open, restores the snapshot and replays the batches
written after it, so restart time does not grow with the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.producers.state import BatchMeta, ProducerEntry, check_batch, last_sequence
from app.storage.record import BatchHeader


@dataclass(frozen=True, slots=True)
class AppendPlan:
    producer_id: int
    epoch: int
    first_seq: int
    count: int
    transactional: bool


class ProducerStateManager:
    def __init__(self) -> None:
        self.entries: dict[int, ProducerEntry] = {}

    # -- the produce path ---------------------------------------------------------------------

    def prepare(
        self, producer_id: int, epoch: int, first_seq: int, count: int, transactional: bool
    ) -> BatchMeta | AppendPlan:
        """The duplicated batch, or a plan to append; raises on epoch or sequence errors."""
        dup = check_batch(self.entries.get(producer_id), epoch, first_seq, count, transactional)
        if dup is not None:
            return dup
        return AppendPlan(producer_id, epoch, first_seq, count, transactional)

    def commit(self, plan: AppendPlan, first_offset: int, last_offset: int, timestamp: int) -> None:
        entry = self.entries.get(plan.producer_id)
        if entry is None:
            entry = self.entries[plan.producer_id] = ProducerEntry(plan.producer_id, plan.epoch)
        entry.add_batch(
            plan.epoch,
            BatchMeta(
                plan.first_seq,
                last_sequence(plan.first_seq, plan.count),
                first_offset,
                last_offset,
                timestamp,
            ),
            plan.transactional,
        )

    def on_marker(self, producer_id: int, epoch: int, timestamp: int) -> None:
        entry = self.entries.get(producer_id)
        if entry is None:
            entry = self.entries[producer_id] = ProducerEntry(producer_id, epoch)
        entry.end_transaction(epoch, timestamp)

    def expire(self, before_ms: int) -> int:
        """Forget producers idle since before ``before_ms``, except those in a transaction."""
        doomed = [
            pid
            for pid, e in self.entries.items()
            if e.last_timestamp < before_ms and e.txn_first_offset < 0
        ]
        for pid in doomed:
            del self.entries[pid]
        return len(doomed)

    # -- the partition log's hook -------------------------------------------------------------

    def replay(self, h: BatchHeader, commit: bool | None, opened_ms: int) -> None:
        """Apply a batch read back from the log (``commit`` is set for markers).

        The produce path stamps a batch with the server's time of the append; the log keeps
        only the records' create times, which a client may set to anything (years old, or in
        the future). A replayed data batch is therefore stamped with the time the log was
        opened: never earlier than its append, so expiry can only come later than it would
        have without the restart, never sooner. A marker's timestamp is the server's own."""
        if commit is not None:
            self.on_marker(h.producer_id, h.producer_epoch, h.max_timestamp)
            return
        self.commit(
            AppendPlan(
                h.producer_id, h.producer_epoch, h.base_sequence, h.record_count, h.is_transactional
            ),
            h.base_offset,
            h.last_offset,
            opened_ms,
        )

    def snapshot(self) -> Any:
        return [
            [
                e.producer_id,
                e.epoch,
                e.txn_first_offset,
                e.last_timestamp,
                [list(b) for b in e.batches],
            ]
            for e in self.entries.values()
        ]

    def restore(self, data: Any) -> None:
        self.entries = {}
        for pid, epoch, txn_first, last_ts, batches in data:
            self.entries[pid] = ProducerEntry(
                pid, epoch, [BatchMeta(*b) for b in batches], txn_first, last_ts
            )

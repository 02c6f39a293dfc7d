"""The idempotent producer's per-partition rules, as pure functions (no I/O).

A ``ProducerEntry`` is what a partition remembers of one producer id: its epoch, the metadata
of its last five batches (the duplicate window), the first offset of its open transaction and
when it last wrote. ``check_batch`` decides what to do with a new batch, in Kafka's order
(``ProducerAppendInfo.checkSequence``): an exact duplicate of a retained batch first, then the
epoch, then the sequence. Sequences count records and wrap from 2^31-1 to 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from app.errors import Conflict, ErrorCode

NUM_BATCHES_TO_RETAIN = 5
MAX_SEQUENCE = 2**31 - 1
MAX_EPOCH = 32767
NO_SEQUENCE = -1


class BatchMeta(NamedTuple):
    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass(slots=True)
class ProducerEntry:
    producer_id: int
    epoch: int
    batches: list[BatchMeta] = field(default_factory=list)  # oldest first, at most 5
    txn_first_offset: int = -1  # first offset of the open transaction, -1 when none
    last_timestamp: int = 0

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    def add_batch(self, epoch: int, meta: BatchMeta, transactional: bool) -> None:
        """Record an appended batch (after the append, never before)."""
        self.set_epoch(epoch)
        self.batches.append(meta)
        del self.batches[:-NUM_BATCHES_TO_RETAIN]
        if transactional and self.txn_first_offset < 0:
            self.txn_first_offset = meta.first_offset
        self.last_timestamp = max(self.last_timestamp, meta.timestamp)

    def set_epoch(self, epoch: int) -> None:
        if epoch != self.epoch:
            self.epoch = epoch
            self.batches.clear()

    def end_transaction(self, epoch: int, timestamp: int) -> None:
        """A marker: the open transaction (if any) ends; a newer epoch clears the window."""
        self.set_epoch(max(epoch, self.epoch))
        self.txn_first_offset = -1
        self.last_timestamp = max(self.last_timestamp, timestamp)


def last_sequence(first_seq: int, count: int) -> int:
    """Sequence of the last record of a batch of ``count`` records starting at ``first_seq``."""
    return (first_seq + count - 1) % (MAX_SEQUENCE + 1)


def in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == MAX_SEQUENCE)


def check_batch(
    entry: ProducerEntry | None, epoch: int, first_seq: int, count: int, transactional: bool
) -> BatchMeta | None:
    """The retained batch this one duplicates, or None when it may be appended.

    Raises ``Conflict`` with INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE or
    OUT_OF_ORDER_SEQUENCE_NUMBER otherwise.
    """
    last_seq = last_sequence(first_seq, count)
    if entry is not None and epoch == entry.epoch:
        for b in entry.batches:
            if b.first_seq == first_seq and b.last_seq == last_seq:
                return b
    if entry is not None and epoch < entry.epoch:
        raise Conflict(
            ErrorCode.INVALID_PRODUCER_EPOCH,
            f"epoch {epoch} is older than the partition's epoch {entry.epoch}",
        )
    if entry is not None and not transactional and entry.txn_first_offset >= 0:
        raise Conflict(
            ErrorCode.INVALID_TXN_STATE,
            "a non-transactional batch while this producer's transaction is open",
        )
    if entry is None:
        # no state: a plain idempotent producer may start anywhere (its state may have
        # expired); a transactional one starts each epoch at 0 (transactions v2)
        if transactional and first_seq != 0:
            raise Conflict(
                ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                f"a transactional producer with no state must start at sequence 0, not {first_seq}",
            )
        return None
    if epoch > entry.epoch:
        if first_seq != 0:
            raise Conflict(
                ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                f"a new epoch must start at sequence 0, not {first_seq}",
            )
        return None
    if not in_sequence(entry.last_seq, first_seq):
        raise Conflict(
            ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            f"expected sequence {(entry.last_seq + 1) % (MAX_SEQUENCE + 1)}, got {first_seq}",
        )
    return None

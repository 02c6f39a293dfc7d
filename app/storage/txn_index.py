"""TxnIndex: the transactions of one partition log that are still open, kept in memory.

It knows the first offset of every open transaction (per producer id) and the transactions
whose marker is appended but not yet durable (``closing``: under durable reads a transaction
counts as open until its marker is). From these it answers the last stable offset. An ABORT
marker hands the first offset of the transaction it ends to the log, which indexes the aborted
range in the marker's segment (``abort_index.py``): a read_committed read asks those segments,
at O(returned data), and the memory holds no aborted transaction past the active segment.

It is saved with each producer-state snapshot (``to_json``/``restore``) and rebuilt at open from
the batches written after the snapshot.
"""

from __future__ import annotations


class TxnIndex:
    def __init__(self, *, durable_reads: bool) -> None:
        self.durable_reads = durable_reads
        self.open: dict[int, int] = {}  # producer id → first offset of its open transaction
        self.closing: list[tuple[int, int]] = []  # (marker offset, first offset)

    def on_data(self, producer_id: int, base_offset: int) -> None:
        """A transactional batch of ``producer_id`` at ``base_offset`` was appended."""
        self.open.setdefault(producer_id, base_offset)

    def on_marker(self, producer_id: int, marker_offset: int, commit: bool) -> int | None:
        """A COMMIT or ABORT marker of ``producer_id`` was appended at ``marker_offset``;
        answers, for an ABORT, the first offset of the transaction it aborted (to index)."""
        first = self.open.pop(producer_id, None)
        if first is None:
            return None  # a marker written again (recovery) or for a partition with no data
        if self.durable_reads:  # the transaction counts as open until its marker is durable
            self.closing.append((marker_offset, first))
        return None if commit else first

    def on_durable(self, durable_offset: int) -> None:
        """Everything below ``durable_offset`` is durable: markers there stop holding the LSO."""
        if self.closing:
            self.closing = [c for c in self.closing if c[0] >= durable_offset]

    def last_stable_offset(self, high_watermark: int, log_start: int) -> int:
        """First offset of the oldest undecided transaction, else the high watermark; never below
        the log start (delete-records or retention may pass an open transaction's first offset:
        readers then wait at the log start, as Kafka bounds its first unstable offset)."""
        lso = high_watermark
        for first in self.open.values():
            lso = min(lso, first)
        for _, first in self.closing:
            lso = min(lso, first)
        return max(lso, log_start)

    def opened_again(self) -> None:
        """After replaying the log at open: every marker read back is durable."""
        self.closing.clear()

    def to_json(self) -> dict[str, list[list[int]]]:
        # "aborted" stays, empty, for the shape of the file: an earlier release kept its
        # aborted transactions here (``PartitionLog`` moves them to their segments' indexes)
        return {"open": [[pid, first] for pid, first in self.open.items()], "aborted": []}

    def restore(self, open_: list[list[int]]) -> None:
        self.open = {pid: first for pid, first in open_}

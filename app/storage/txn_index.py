"""TxnIndex: the transactions of one partition log, kept in memory.

It knows the first offset of every open transaction (per producer id), the transactions whose
marker is appended but not yet durable (``closing``: under durable reads a transaction counts as
open until its marker is), and the aborted transactions (per producer id, sorted
``(marker offset, first offset)`` ranges). From these it answers the last stable offset and
whether a transactional batch was aborted, so read_committed reads cost O(returned data).

It is saved with each producer-state snapshot (``to_json``/``restore``) and rebuilt at open from
the batches written after the snapshot; retention prunes aborted ranges below the log start.
"""

from __future__ import annotations

import bisect


class TxnIndex:
    def __init__(self, *, durable_reads: bool) -> None:
        self.durable_reads = durable_reads
        self.open: dict[int, int] = {}  # producer id → first offset of its open transaction
        self.closing: list[tuple[int, int]] = []  # (marker offset, first offset)
        self.aborted: dict[int, list[tuple[int, int]]] = {}  # pid → [(marker offset, first)]

    def on_data(self, producer_id: int, base_offset: int) -> None:
        """A transactional batch of ``producer_id`` at ``base_offset`` was appended."""
        self.open.setdefault(producer_id, base_offset)

    def on_marker(self, producer_id: int, marker_offset: int, commit: bool) -> None:
        """A COMMIT or ABORT marker of ``producer_id`` was appended at ``marker_offset``."""
        first = self.open.pop(producer_id, None)
        if first is None:
            return  # a marker written again (recovery) or for a partition with no data
        if self.durable_reads:  # the transaction counts as open until its marker is durable
            self.closing.append((marker_offset, first))
        if not commit:
            self.aborted.setdefault(producer_id, []).append((marker_offset, first))

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

    def is_aborted(self, producer_id: int, offset: int) -> bool:
        """Whether the transactional batch of ``producer_id`` at ``offset`` was aborted."""
        ranges = self.aborted.get(producer_id)
        if not ranges:
            return False
        i = bisect.bisect_left(ranges, (offset, -1))
        return i < len(ranges) and ranges[i][1] <= offset

    def prune(self, log_start: int) -> None:
        """Forget aborted ranges whose marker is below the log start."""
        for pid in list(self.aborted):
            kept = [r for r in self.aborted[pid] if r[0] >= log_start]
            if kept:
                self.aborted[pid] = kept
            else:
                del self.aborted[pid]

    def opened_again(self) -> None:
        """After replaying the log at open: every marker read back is durable."""
        self.closing.clear()

    def to_json(self) -> dict[str, list[list[int]]]:
        return {
            "open": [[pid, first] for pid, first in self.open.items()],
            "aborted": [
                [pid, first, last] for pid, rs in self.aborted.items() for last, first in rs
            ],
        }

    def restore(self, open_: list[list[int]], aborted: list[list[int]]) -> None:
        self.open = {pid: first for pid, first in open_}
        self.aborted = {}
        for pid, first, last in aborted:
            self.aborted.setdefault(pid, []).append((last, first))

"""AbortIndex: the aborted transactions whose ABORT marker is in one segment, and its file.

An entry ``(producer id, first offset, marker offset)`` says that the transactional batches of
that producer from the first offset up to the marker were aborted: a ``read_committed`` read
leaves them out. Entries are appended in marker order, as markers are appended to the segment,
to ``<base>.txnindex`` (little-endian int64 triples), and kept in memory, by producer id, while
the segment is the active one. Once the segment is sealed and durable they leave memory
(``detach``); what stays is a summary (how many, the smallest first offset, the largest
marker), so that a read asks the file only when one of its transactions can overlap what it
reads (``overlaps``). The memory of a partition therefore holds the aborted transactions of
its active segment only, and its producer-state snapshot none: Kafka keeps its transaction
index the same way, a file per segment, deleted with the segment.

The file is fsynced with its segment's checkpoint (``flush``). Recovery replays the log from
the producer-state snapshot, after cutting every file back to the markers below the offset it
replays from (``truncate_from``), so a marker is never indexed twice.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import logging
import os
import struct
from array import array

from app.storage import fileio, modes

log = logging.getLogger("sluice.storage")

_ENTRY = struct.Struct("<qqq")
ENTRY_SIZE = _ENTRY.size
SUFFIX = ".txnindex"

Ranges = dict[int, tuple["array[int]", "array[int]"]]  # pid → (marker offsets, first offsets)


def aborted_in(ranges: Ranges, producer_id: int, offset: int) -> bool:
    """Whether a batch of ``producer_id`` at ``offset`` lies in one of ``ranges``."""
    found = ranges.get(producer_id)
    if found is None:
        return False
    markers, firsts = found
    i = bisect.bisect_left(markers, offset)
    return i < len(markers) and firsts[i] <= offset


def _add(ranges: Ranges, pid: int, first: int, marker: int) -> None:
    got = ranges.get(pid)
    if got is None:
        got = ranges[pid] = (array("q"), array("q"))
    got[0].append(marker)
    got[1].append(first)


class AbortIndex:
    def __init__(self, path: str) -> None:
        self.path = path
        self.ranges: Ranges = {}  # in memory while not detached
        self.count = 0
        self.min_first = -1  # -1: no entry
        self.max_marker = -1
        self.detached = False
        self._fd = -1
        self._complete = True  # the file holds every entry counted
        self.dirty = False

    # -- opening ------------------------------------------------------------------------------

    def load(self, *, keep: bool) -> None:
        """Read the file's summary (and, with ``keep``, its entries into memory); a missing
        file is an empty index, a torn last entry is cut off."""
        data = self._read_all()
        self.ranges, self.count, self.min_first, self.max_marker = {}, 0, -1, -1
        whole = len(data) - len(data) % ENTRY_SIZE
        for pid, first, marker in _ENTRY.iter_unpack(data[:whole]):
            self._note(pid, first, marker, keep=keep)
        self.detached = not keep
        self._complete = whole == len(data)
        if not self._complete:
            self._rewrite()

    def _read_all(self) -> bytes:
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return b""

    def _note(self, pid: int, first: int, marker: int, *, keep: bool) -> None:
        if keep:
            _add(self.ranges, pid, first, marker)
        self.count += 1
        self.min_first = first if self.min_first < 0 else min(self.min_first, first)
        self.max_marker = max(self.max_marker, marker)

    # -- changes ------------------------------------------------------------------------------

    def append(self, producer_id: int, first: int, marker: int) -> None:
        """An ABORT marker at ``marker`` ended ``producer_id``'s transaction from ``first``.
        The entry is in memory at once; a failed write of the file is rewritten at ``detach``
        (the file is fsynced before the checkpoint that covers the marker)."""
        if self.detached:
            self._attach()
        self._note(producer_id, first, marker, keep=True)
        try:
            if self._fd < 0:
                self._fd = os.open(
                    self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, modes.FILE_MODE
                )
            if fileio.write(self._fd, _ENTRY.pack(producer_id, first, marker)) != ENTRY_SIZE:
                raise OSError("short write")
            self.dirty = True
        except OSError as exc:
            log.warning("transaction index %s: entry not written (%s)", self.path, exc)
            self._complete = False
            self.close()

    def truncate_from(self, marker: int) -> None:
        """Forget the entries whose marker is at or after ``marker`` (before a replay)."""
        if self.count == 0 or self.max_marker < marker:
            return
        kept = [e for e in self._entries() if e[2] < marker]
        self.close()
        keep = not self.detached
        self.ranges, self.count, self.min_first, self.max_marker = {}, 0, -1, -1
        for pid, first, m in kept:
            self._note(pid, first, m, keep=keep)
        self._rewrite(kept)

    def _rewrite(self, entries: list[tuple[int, int, int]] | None = None) -> None:
        entries = self._entries() if entries is None else entries
        self.close()
        if not entries:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            self._complete = True
            return
        tmp = self.path + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, modes.FILE_MODE)
        try:
            fileio.write(fd, b"".join(_ENTRY.pack(*e) for e in entries))
            fileio.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        self._complete = True

    def detach(self) -> None:
        """Leave the entries in the file only (the segment is sealed and durable)."""
        if self.detached:
            return
        if not self._complete:
            self._rewrite()
        self.close()
        self.ranges = {}
        self.detached = True

    def _attach(self) -> None:
        self.load(keep=True)

    # -- reads --------------------------------------------------------------------------------

    def _entries(self) -> list[tuple[int, int, int]]:
        if self.detached:
            data = self._read_all()
            return list(_ENTRY.iter_unpack(data[: len(data) - len(data) % ENTRY_SIZE]))
        out = [
            (pid, first, marker)
            for pid, (markers, firsts) in self.ranges.items()
            for marker, first in zip(markers, firsts, strict=True)
        ]
        out.sort(key=lambda e: e[2])
        return out

    def overlaps(self, start: int, end: int) -> bool:
        """Whether a transaction aborted here can hold offsets in ``[start, end)``."""
        return self.count > 0 and self.max_marker >= start and self.min_first < end

    def ranges_for(self, start: int, end: int) -> Ranges:
        """The entries that can hold offsets in ``[start, end)``, by producer id."""
        if not self.detached:
            return self.ranges
        out: Ranges = {}
        for pid, first, marker in self._entries():
            if marker >= start and first < end:
                _add(out, pid, first, marker)
        return out

    # -- lifetime -----------------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """The file holds every entry (a failed write left one out until ``repair``)."""
        return self._complete

    def repair(self) -> None:
        """Write the file whole again from memory (on the event loop)."""
        if not self._complete:
            self._rewrite()

    def flush(self) -> None:
        """fsync the file if entries were added. Safe to call from a thread. Raises
        ``OSError`` while an entry is missing from the file: no checkpoint may then cover
        its marker (a replay from an earlier one indexes it again)."""
        if not self._complete:
            raise OSError(errno.EIO, f"{self.path}: an entry could not be written")
        if self.dirty and self._fd >= 0:
            self.dirty = False
            fileio.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def delete(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

"""Sparse offset index of one segment: offset → file position, plus a timestamp bound.

An entry ``(offset, position, max_ts_before)`` says the batch holding ``offset`` starts at
``position`` and every batch before that position has a timestamp ≤ ``max_ts_before``. An entry
is added every ``index_interval_bytes`` of log. The file is a plain array of little-endian
int64 triples; it is a cache: when missing or suspect it is rebuilt from the segment.

Memory holds a tail of the entries: the active segment's last ``TAIL`` to ``2 × TAIL``
(readers of recent data look there), none of a sealed segment's (``detach``, ``attach``). The
others are in the file only, and a lookup there is a binary search with ``pread`` (about 15
reads of 24 bytes for a full segment of 128 MiB). So the server's memory does not grow with the
log, nor with its active segments (each entry is 24 bytes per 4 KiB of log). Entries leave
memory only while the file holds every one of them; an index whose file is suspect is loaded
into memory again (``load``, a rebuild), and written back whole when its segment closes.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import os
import struct
from array import array

from app.storage import fileio, modes

log = logging.getLogger("sluice.storage")

_ENTRY = struct.Struct("<qqq")
ENTRY_SIZE = _ENTRY.size
TAIL = 1024  # entries an active segment keeps in memory, at least (and at most twice that)


class OffsetIndex:
    def __init__(self, path: str) -> None:
        self.path = path
        self.offsets = array("q")
        self.positions = array("q")
        self.max_ts = array("q")
        self._fd = -1
        self._file_size = 0  # bytes of whole entries in the open file
        self.dirty = False
        self.keep_open = True  # False once its segment is sealed: the file is not kept open
        self.head = 0  # the first entries, in the file only; memory holds the ones after them
        self._read_fd = -1  # the file, opened for lookups of entries in it only
        self._complete = False  # the file holds exactly every entry (head and memory)

    # -- where the entries are ----------------------------------------------------------------

    @property
    def detached(self) -> bool:
        """Every entry is in the file only (a sealed segment's)."""
        return not self.offsets and self.head > 0

    def detach(self) -> None:
        """Leave the entries in the file only (a sealed segment's): the file is written whole
        first if it does not hold exactly every entry."""
        if not self._complete:
            self.open_for_append()  # rewrites the file from memory (keep_open is False)
        self._forget(len(self.offsets))

    def _forget(self, n: int) -> None:
        """The first ``n`` entries in memory leave it (the file holds them)."""
        if n:
            del self.offsets[:n], self.positions[:n], self.max_ts[:n]
            self.head += n

    def attach(self, segment_size: int, base_offset: int) -> bool:
        """Use the file as it is, without reading it into memory, if its shape is right (whole
        entries; its first and last entries inside the segment, in order); False otherwise.
        A damaged entry in between is found by the segment at the lookup that lands on it."""
        try:
            size = os.path.getsize(self.path)
        except FileNotFoundError:
            return False
        if size % ENTRY_SIZE:
            return False
        self.close()
        self.offsets, self.positions, self.max_ts = array("q"), array("q"), array("q")
        self.head = size // ENTRY_SIZE
        self._complete = True
        if self.head:
            first, last = self.entry(0), self.entry(self.head - 1)
            if not (base_offset < first[0] <= last[0] and 0 < first[1] <= last[1] < segment_size):
                self.close()
                self.head = 0
                self._complete = False
                return False
        return True

    def _in_memory(self) -> None:
        """Read the entries in the file only back into memory (to change them)."""
        if not self.head:
            return
        count = self.head
        data = self._pread(0, count * ENTRY_SIZE)
        if self._read_fd >= 0:
            os.close(self._read_fd)
            self._read_fd = -1
        arr = array("q")
        arr.frombytes(data[: len(data) - len(data) % ENTRY_SIZE])
        if struct.pack("<q", 1) != array("q", [1]).tobytes():  # pragma: no cover - big-endian
            arr.byteswap()
        self.offsets = arr[0::3] + self.offsets
        self.positions = arr[1::3] + self.positions
        self.max_ts = arr[2::3] + self.max_ts
        self.head = 0
        if len(arr) // 3 != count:
            self._complete = False

    def _pread(self, position: int, size: int) -> bytes:
        """Entries in the file only, read through the file the index appends to when it is open
        (an active segment: no descriptor more), else through one opened for lookups (a sealed
        segment's, closed with the segment)."""
        if self._fd >= 0:
            return os.pread(self._fd, size, position)
        if self._read_fd < 0:
            self._read_fd = os.open(self.path, os.O_RDONLY)
        return os.pread(self._read_fd, size, position)

    def __len__(self) -> int:
        return self.head + len(self.offsets)

    def entry(self, i: int) -> tuple[int, int, int]:
        """(offset, position, max_ts_before) of entry ``i``."""
        if i >= self.head:
            i -= self.head
            return self.offsets[i], self.positions[i], self.max_ts[i]
        data = self._pread(i * ENTRY_SIZE, ENTRY_SIZE)
        if len(data) != ENTRY_SIZE:  # the file changed under us: nothing to trust
            return 0, 0, -1
        o, p, t = _ENTRY.unpack(data)
        return o, p, t

    def entries(self) -> list[tuple[int, int, int]]:
        return [self.entry(i) for i in range(len(self))]

    def _bisect(self, field: int, value: int, *, right: bool) -> int:
        """``bisect.bisect_right`` (or ``_left``) of ``value`` over one field of the entries:
        in memory when the value is not below the first entry there, else in the file."""
        values = (self.offsets, self.positions, self.max_ts)[field]
        if values and (values[0] <= value if right else values[0] < value):
            found = (bisect.bisect_right if right else bisect.bisect_left)(values, value)
            return self.head + found
        lo, hi = 0, self.head
        while lo < hi:
            mid = (lo + hi) // 2
            got = self.entry(mid)[field]
            if got < value or (right and got == value):
                lo = mid + 1
            else:
                hi = mid
        return lo

    # -- loading ------------------------------------------------------------------------------

    def load(self, segment_size: int, base_offset: int) -> bool:
        """Read the index file; False when it is missing or fails a consistency check."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return False
        if len(data) % ENTRY_SIZE:
            return False
        arr = array("q")
        arr.frombytes(data)
        if struct.pack("<q", 1) != array("q", [1]).tobytes():  # pragma: no cover - big-endian
            arr.byteswap()
        offsets, positions, max_ts = arr[0::3], arr[1::3], arr[2::3]
        prev_o, prev_p = base_offset, 0
        for o, p in zip(offsets, positions, strict=True):
            if o <= prev_o or p <= prev_p or p >= segment_size:
                return False
            prev_o, prev_p = o, p
        self.close()
        self.head = 0
        self.offsets, self.positions, self.max_ts = offsets, positions, max_ts
        self._complete = True
        return True

    def open_for_append(self, *, rewrite: bool = True) -> None:
        """Keep the file open for appends; with ``rewrite``, first replace it with memory.

        A sealed segment's index (``keep_open`` False) is rewritten but not kept open: entries
        found later stay in memory, and the file is rebuilt if a later open finds it short."""
        self._in_memory()
        self.close()
        if not rewrite and not self.keep_open:
            return
        if not rewrite:
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
            self._file_size = len(self.offsets) * ENTRY_SIZE
            return
        tmp = self.path + ".tmp"
        with os.fdopen(
            os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, modes.FILE_MODE), "wb"
        ) as f:
            f.write(
                b"".join(
                    _ENTRY.pack(o, p, t)
                    for o, p, t in zip(self.offsets, self.positions, self.max_ts, strict=True)
                )
            )
        os.replace(tmp, self.path)
        self._complete = True
        if not self.keep_open:
            return
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        self._file_size = len(self.offsets) * ENTRY_SIZE
        self.dirty = True

    # -- queries ------------------------------------------------------------------------------

    def lookup(self, offset: int) -> int:
        """Position of the last indexed batch starting at or before ``offset`` (0 if none)."""
        i = self._bisect(0, offset, right=True)
        return self.entry(i - 1)[1] if i else 0

    def lookup_timestamp(self, timestamp: int) -> int:
        """A position before which every batch's timestamps are < ``timestamp``."""
        i = self._bisect(2, timestamp, right=False)
        return self.entry(i - 1)[1] if i else 0

    def offset_at(self, position: int) -> int | None:
        """The offset of the entry at ``position``, None when no entry is there."""
        i = self._bisect(1, position, right=False)
        if i < len(self):
            offset, at, _ = self.entry(i)
            if at == position:
                return offset
        return None

    @property
    def last_position(self) -> int:
        n = len(self)
        return self.entry(n - 1)[1] if n else 0

    # -- changes ------------------------------------------------------------------------------

    def append(self, offset: int, position: int, max_ts_before: int) -> None:
        if self._fd < 0:
            self._in_memory()  # a sealed segment's walk past its last entry: all in memory
            self._complete = False  # an entry the file does not have
        self.offsets.append(offset)
        self.positions.append(position)
        self.max_ts.append(max_ts_before)
        if self._fd >= 0:
            try:
                if fileio.write(self._fd, _ENTRY.pack(offset, position, max_ts_before)) != (
                    ENTRY_SIZE
                ):
                    raise OSError("short write")
            except OSError as exc:
                self._give_up_file(exc)
                return
            self._file_size += ENTRY_SIZE
            self.dirty = True
            if len(self.offsets) >= 2 * TAIL and self._complete:
                self._forget(len(self.offsets) - TAIL)

    def _give_up_file(self, exc: OSError) -> None:
        """An entry could not be written. The index is a cache: memory keeps the entry; the
        file is cut back to its whole entries, or, if even that fails, closed and left for the
        next open to find short or torn and rebuild."""
        log.warning("index %s: entry not written (%s)", self.path, exc)
        self._in_memory()  # the file's head is still whole: every entry back in memory
        self._complete = False
        try:
            fileio.ftruncate(self._fd, self._file_size)
        except OSError:
            self.close()
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            return
        # later entries would follow a gap: stop writing the file, rewrite it at the next open
        self.close()

    def truncate_from(self, position: int) -> None:
        """Forget entries at or after ``position`` (memory only; call open_for_append after)."""
        self._in_memory()
        i = bisect.bisect_left(self.positions, position)
        if i < len(self.offsets):
            self._complete = False
        del self.offsets[i:], self.positions[i:], self.max_ts[i:]

    def clear(self) -> None:
        self.close()
        self.head = 0
        self._complete = False
        self.offsets, self.positions, self.max_ts = array("q"), array("q"), array("q")

    def flush(self) -> None:
        """fsync the file if entries were added. Safe to call from a thread."""
        if self.dirty and self._fd >= 0:
            self.dirty = False
            fileio.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._read_fd >= 0:
            os.close(self._read_fd)
            self._read_fd = -1

"""Sparse offset index of one segment: offset → file position, plus a timestamp bound.

An entry ``(offset, position, max_ts_before)`` says the batch holding ``offset`` starts at
``position`` and every batch before that position has a timestamp ≤ ``max_ts_before``. An entry
is added every ``index_interval_bytes`` of log. The file is a plain array of little-endian
int64 triples; it is a cache: when missing or suspect it is rebuilt from the segment.
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


class OffsetIndex:
    def __init__(self, path: str) -> None:
        self.path = path
        self.offsets = array("q")
        self.positions = array("q")
        self.max_ts = array("q")
        self._fd = -1
        self._file_size = 0  # bytes of whole entries in the open file
        self.dirty = False
        self.keep_open = True  # False once its segment is sealed: entries stay in memory

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
        self.offsets, self.positions, self.max_ts = offsets, positions, max_ts
        return True

    def open_for_append(self, *, rewrite: bool = True) -> None:
        """Keep the file open for appends; with ``rewrite``, first replace it with memory.

        A sealed segment's index (``keep_open`` False) is rewritten but not kept open: entries
        found later stay in memory, and the file is rebuilt if a later open finds it short."""
        self.close()
        if not rewrite and not self.keep_open:
            return
        if not rewrite:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
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
        if not self.keep_open:
            return
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._file_size = len(self.offsets) * ENTRY_SIZE
        self.dirty = True

    # -- queries ------------------------------------------------------------------------------

    def lookup(self, offset: int) -> int:
        """Position of the last indexed batch starting at or before ``offset`` (0 if none)."""
        i = bisect.bisect_right(self.offsets, offset)
        return self.positions[i - 1] if i else 0

    def lookup_timestamp(self, timestamp: int) -> int:
        """A position before which every batch's timestamps are < ``timestamp``."""
        i = bisect.bisect_left(self.max_ts, timestamp)
        return self.positions[i - 1] if i else 0

    @property
    def last_position(self) -> int:
        return self.positions[-1] if self.positions else 0

    # -- changes ------------------------------------------------------------------------------

    def append(self, offset: int, position: int, max_ts_before: int) -> None:
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

    def _give_up_file(self, exc: OSError) -> None:
        """An entry could not be written. The index is a cache: memory keeps the entry; the
        file is cut back to its whole entries, or, if even that fails, closed and left for the
        next open to find short or torn and rebuild."""
        log.warning("index %s: entry not written (%s)", self.path, exc)
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
        i = bisect.bisect_left(self.positions, position)
        del self.offsets[i:], self.positions[i:], self.max_ts[i:]

    def clear(self) -> None:
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
